"""Causal premises as the generic extractor of :mod:`scir.text.depth` sees them: the known
edges (clean NL: ``A directly regulates B.``) and the data rows (clean NL: a table line with
the values in column order), each row anchored to its condition's clean-NL description."""

from __future__ import annotations

import re
from typing import Any

from scir.tasks import Task
from scir.text.depth import DepthItem
from scir.tracks.causal.codec.writer import value
from scir.tracks.causal.scm import Environment
from scir.tracks.causal.templates import condition

VALUE_SEPARATOR = r"\s*[|,;]\s*"


def depth_items(task: Task, contents: list[dict[str, Any]]) -> list[DepthItem]:
    """One item per known edge (block 1), then one per data row (block 2)."""

    first, second = contents
    items = [
        DepthItem("edge", 0, ((a,), (b,)), (re.escape(f"{a} directly regulates {b}."),))
        for a, b in first["known_edges"]
    ]
    for net, data in zip(first["environments"], second["environments"]):
        env = Environment(name=net["name"], kind=net["kind"], targets=net["targets"], rows=[])
        anchor = condition(env).split(" (", 1)[0]
        for row in data["rows"]:
            values = [value(v) for v in row]
            form = VALUE_SEPARATOR.join(re.escape(v) for v in values) + r"(?:\s*\|)?"
            items.append(
                DepthItem("row", 1, tuple((v,) for v in values), (form,), (anchor,), ordered=False)
            )
    return items


def depth_vocabulary(task: Task, contents: list[dict[str, Any]]) -> list[str]:
    """The task's proteins, the new one included."""
    first = contents[0]
    return list(first["nodes"]) + [first["new_protein"]]
