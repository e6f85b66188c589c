"""Induction premises as the generic extractor of :mod:`scir.text.depth` sees them: each
background fact (clean NL: the relation's sentence of ``world/relations.json``) and each
example pair (clean NL: ``A and B are known (not) to interact.``, either order)."""

from __future__ import annotations

import re
from typing import Any

from scir.tasks import Task
from scir.text.depth import DepthItem
from scir.tracks.induction.text import fact_sentence
from scir.tracks.induction.world import display_drug, load_world

VERBS = {"pos": "are known to interact", "neg": "are known not to interact"}


def depth_items(task: Task, contents: list[dict[str, Any]]) -> list[DepthItem]:
    """One item per fact (block 1), then one per pair (blocks 2 and 3)."""

    world = load_world()
    contents = contents
    items = [
        DepthItem(
            "fact",
            0,
            ((display_drug(d),), (world.protein_name(p),)),
            (re.escape(fact_sentence(world, (r, d, p))),),
        )
        for r, d, p in contents[0]["facts"]
    ]
    for block, key in ((1, "pos"), (2, "neg")):
        for a, b in contents[block][key]:
            names = (display_drug(a), display_drug(b))
            forms = tuple(re.escape(f"{x} and {y} {VERBS[key]}.") for x, y in (names, names[::-1]))
            items.append(DepthItem("pair", block, tuple((n,) for n in names), forms, ordered=False))
    return items


def depth_vocabulary(task: Task, contents: list[dict[str, Any]]) -> list[str]:
    """The task's drugs (as written) and proteins."""

    world = load_world()
    facts = contents[0]["facts"]
    drugs = {
        d for c in contents[1:] for k in ("pos", "neg") for pair in c.get(k, []) for d in pair
    } | {d for _, d, _ in facts}
    return sorted({display_drug(d) for d in drugs} | {world.protein_name(p) for _, _, p in facts})
