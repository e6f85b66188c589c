"""The induction track's prompts (cot / formalize / symbcot): templates stored as data in
``scir/prompts/induction/<kind>.txt`` (``string.Template``), filled with the problem text, the
question, the nine relation types and, for formalize and symbcot, the task's signature."""

from __future__ import annotations

from scir.prompts import PROMPT_KINDS
from scir.tasks import Task
from scir.tracks.induction.formalize import HEAD, task_signature
from scir.tracks.induction.world import load_world


def relations_text() -> str:
    """The nine relation types by category, one category per line."""
    world = load_world()
    return "\n".join(f"- {cat}: " + ", ".join(world.relations_of(cat)) for cat in world.categories)


def signature_text(task: Task) -> str:
    """The task's predicates and names: its relation types with their readings, then its
    drugs and proteins (``velorastat (Velorastat)``, ``kx3a1 (KX3A1)``)."""
    sig, world = task_signature(task), load_world()
    meta = task.domain_metadata or {}
    shown = {}
    for field in ("drugs", "proteins"):
        names = meta.get(field)
        shown[field] = names if isinstance(names, dict) else {}
    lines = [f"{r}(Drug, Protein): {world.relation(r).gloss}" for r in sig.relations]
    lines += [
        f"pos({HEAD}(Drug1, Drug2)): the two drugs are known to interact",
        f"neg({HEAD}(Drug1, Drug2)): the two drugs are known not to interact",
    ]
    for field, names in (("drugs", sig.drugs), ("proteins", sig.proteins)):
        labels = [
            f"{n} ({shown[field][n]})" if isinstance(shown[field].get(n), str) else n for n in names
        ]
        lines.append(f"{field}: " + ", ".join(labels))
    return "\n".join(lines)


__all__ = ["PROMPT_KINDS", "relations_text", "signature_text"]
