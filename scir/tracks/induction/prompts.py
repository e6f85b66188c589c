"""The induction track's prompts (cot / formalize / symbcot): templates stored as data in
``scir/prompts/induction/<kind>.txt`` (``string.Template``), filled with the problem text, the
question, the nine relation types and, for formalize and symbcot, the task's signature."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources as importlib_resources
from string import Template
from typing import Any

from scir.errors import ConfigError
from scir.tasks import Task
from scir.tracks.induction.formalize import HEAD, task_signature
from scir.tracks.induction.world import load_world

PROMPT_KINDS = ("cot", "formalize", "symbcot")


@lru_cache(maxsize=None)
def _template(kind: str) -> Template:
    path = importlib_resources.files("scir").joinpath("prompts", "induction", f"{kind}.txt")
    return Template(path.read_text(encoding="utf-8"))


def relations_text() -> str:
    """The nine relation types by category, one category per line."""
    world = load_world()
    return "\n".join(f"- {cat}: " + ", ".join(world.relations_of(cat))
                     for cat in world.categories)


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
    lines += [f"pos({HEAD}(Drug1, Drug2)): the two drugs are known to interact",
              f"neg({HEAD}(Drug1, Drug2)): the two drugs are known not to interact"]
    for field, names in (("drugs", sig.drugs), ("proteins", sig.proteins)):
        labels = [f"{n} ({shown[field][n]})" if isinstance(shown[field].get(n), str) else n
                  for n in names]
        lines.append(f"{field}: " + ", ".join(labels))
    return "\n".join(lines)


def prompt(kind: str, task: Task, presentation: str, **extra: Any) -> str:
    """The ``cot``, ``formalize`` or ``symbcot`` prompt of a task. ``extra``: ``problem`` (the
    text the solver sees; default the task's ``nl``/``obf`` text) and, for ``symbcot``,
    ``formalization`` (required)."""
    if kind not in PROMPT_KINDS:
        raise ConfigError(f"prompt kind must be one of {', '.join(PROMPT_KINDS)}, got {kind!r}",
                          field="kind")
    problem = extra.get("problem")
    if problem is None:
        problem = task.problem_obfuscated if presentation == "obf" else task.problem_nl
    values = {"problem": problem, "question": task.question, "relations": relations_text()}
    if kind != "cot":
        values["signature"] = signature_text(task)
    if kind == "symbcot":
        if not isinstance(extra.get("formalization"), str):
            raise ConfigError("the symbcot prompt needs the formalization text",
                              field="formalization")
        values["formalization"] = extra["formalization"]
    return _template(kind).substitute(values)


__all__ = ["PROMPT_KINDS", "prompt", "relations_text", "signature_text"]
