"""The formal content of each clean-NL block: what a rendering of that block must keep.

Each track's rendering codec (:meth:`scir.tracks.Track.codec`, see :mod:`scir.text.codec`)
says what a block's content is (e.g. deduction ``{"premises": [...]}``, induction
``{"facts": ...}`` / ``{"pos": ...}`` / ``{"neg": ...}``, causal the network and the data
tables; docs/rendering.md lists them) and its normal form.

:func:`checked_contents` checks that a codec told one content per block and
:func:`content_differences` says how two contents in normal form differ. A task's contents as
its codec tells them, found through its track, are :func:`scir.rendering.blocks.block_contents`.
"""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import Task


def checked_contents(task: Task, contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``contents``, the block contents a codec told for ``task``, checked to be one per block
    (TaskFormatError if not)."""
    if len(contents) != len(task.blocks):
        raise TaskFormatError(
            f"expected {len(contents)} blocks, found {len(task.blocks)}",
            task_id=task.task_id,
            field="blocks",
        )
    return contents


def content_differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What differs between two canonical contents, key by key (empty: equal)."""
    out = []
    for key in a:
        if a[key] == b.get(key):
            continue
        if isinstance(a[key], list) and isinstance(b.get(key), list):
            missing = [x for x in a[key] if x not in b[key]]
            extra = [x for x in b[key] if x not in a[key]]
            detail = []
            if missing:
                detail.append(f"{len(missing)} missing (e.g. {_short(missing[0])})")
            if extra:
                detail.append(f"{len(extra)} unexpected (e.g. {_short(extra[0])})")
            out.append(f"{key}: " + ("; ".join(detail) or "different order or counts"))
        else:
            out.append(f"{key}: expected {_short(a[key])}, found {_short(b.get(key))}")
    return out


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
