"""The induction block format of the LLM renderer's inverse call:
``grammars/induction_block.lark`` -- ``relation(drug, protein).`` facts, or
``interacts(a, b).`` / ``not_interacts(a, b).`` pairs; the same set is required. The relation
names come from the track's world data (``world/``), the one list of them."""

from __future__ import annotations

from typing import Any

from scir.tasks import Task
from scir.text.inverse import _instantiate, _literals, _rep, child_names, parse_tree
from scir.tracks.induction.world import load_world

KEYS = ("facts", "pos", "neg")


def grammar(task: Task, index: int, n: int, bounded: bool) -> str:
    """The block's grammar over the task's names; ``bounded``: at most a few items more than
    the ``n`` given (the decoding constraint), else unbounded (for parsing)."""
    meta = task.domain_metadata
    item = ("fact", "pair", "nonpair")[index]
    high = n + max(5, n // 5) if bounded else None
    start = f"start: {_rep(item, 1, high)} | NONE"
    signature = (
        f"relation: {_literals(list(load_world().relation_names))}\n"
        f"drug: {_literals(list(meta.get('drugs') or []))}\n"
        f"protein: {_literals(list(meta.get('proteins') or []))}"
    )
    return _instantiate("induction_block.lark", start, signature)


def description(task: Task, index: int) -> str:
    """The format as told to the inverse model, with the task's ids."""
    relations = ", ".join(load_world().relation_names)
    text = [
        (
            "One background fact per line, 'relation(drug, protein).', with the ids "
            f"below (relation types: {relations})"
        ),
        "One known interacting pair per line, 'interacts(drug1, drug2).'",
        "One known non-interacting pair per line, 'not_interacts(drug1, drug2).'",
    ][index]
    meta = task.domain_metadata
    names = (
        "; ".join(f"{k} = {v}" for k, v in sorted((meta.get("drugs") or {}).items()))
        + "; "
        + "; ".join(f"{k} = {v}" for k, v in sorted((meta.get("proteins") or {}).items()))
    )
    return text + f"; write 'none.' if there is none. Ids (lowercase): {names}."


def format_block(index: int, content: dict[str, Any]) -> str:
    """One fact or pair per line; ``none.`` for an empty block."""
    key = KEYS[index]
    items = content[key]
    if not items:
        return "none.\n"
    if key == "facts":
        return "".join(f"{r}({d}, {p}).\n" for r, d, p in items)
    head = "interacts" if key == "pos" else "not_interacts"
    return "".join(f"{head}({a}, {b}).\n" for a, b in items)


def parse(task: Task, index: int, text: str) -> dict[str, Any]:
    """``{"facts": [[relation, drug, protein], ...]}`` or ``{"pos"|"neg": [[a, b], ...]}``."""
    tree = parse_tree(task, grammar(task, index, 0, bounded=False), text)
    key, rule = (("facts", "fact"), ("pos", "pair"), ("neg", "nonpair"))[index]
    items = []
    for sub in tree.find_data(rule):
        if rule == "fact":
            items.append(
                child_names(sub, "relation")
                + child_names(sub, "drug")
                + child_names(sub, "protein")
            )
        else:
            items.append(sorted(child_names(sub, "drug")))
    return {key: items}
