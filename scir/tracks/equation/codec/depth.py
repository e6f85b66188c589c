"""Equation premises as the generic extractor of :mod:`scir.text.depth` sees them: the data
rows (clean NL: a Markdown table line with the printed values in column order), each anchored
to the variable names that head its columns (a document naming the columns only by codes
needs the context document's key)."""

from __future__ import annotations

import re
from typing import Any

from scir.tasks import Task
from scir.text.depth import DepthItem
from scir.tracks.equation.numeric import printed

VALUE_SEPARATOR = r"\s*[|,;]\s*"


def depth_items(task: Task, contents: list[dict[str, Any]]) -> list[DepthItem]:
    """One item per printed data row (block 2)."""
    second = contents[1]
    items = []
    for row in second["rows"]:
        values = [printed(v) for v in row]
        form = VALUE_SEPARATOR.join(re.escape(v) for v in values) + r"(?:\s*\|)?"
        items.append(
            DepthItem(
                "row",
                1,
                tuple((v,) for v in values),
                (form,),
                tuple(second["columns"]),
                ordered=False,
            )
        )
    return items


def depth_vocabulary(task: Task, contents: list[dict[str, Any]]) -> list[str]:
    """The task's variable names."""
    return list(contents[1]["columns"])
