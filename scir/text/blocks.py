"""The formal content of each clean-NL block: what a rendering of that block must keep.

Each track's rendering codec (:meth:`scir.tracks.Track.codec`, see :mod:`scir.text.codec`)
says what a block's content is (e.g. deduction ``{"premises": [...]}``, induction
``{"facts": ...}`` / ``{"pos": ...}`` / ``{"neg": ...}``, causal the network and the data
tables; docs/rendering.md lists them) and its normal form.

:func:`canonical` puts a block's content in that normal form (sets sorted, columns sorted), so
two contents hold the same information iff their canonical forms are equal;
:func:`differences` says how they differ.
"""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import Task
from scir.text.codec import codec_for, codec_of, formal_of


def block_contents(task: Task) -> list[dict[str, Any]]:
    """The formal content of every block of ``task``, told by its codec from the typed formal
    object (TaskFormatError if it cannot be told; ConfigError for a track without a rendering
    codec)."""
    contents = codec_of(task).block_contents(task, formal_of(task))
    if len(contents) != len(task.blocks):
        raise TaskFormatError(
            f"expected {len(contents)} blocks, found {len(task.blocks)}",
            task_id=task.task_id,
            field="blocks",
        )
    return contents


def canonical(track: str, index: int, content: dict[str, Any]) -> dict[str, Any]:
    """The normal form of a block's content (unordered collections sorted, rows re-ordered to
    sorted columns); equal normal forms mean the same information."""
    return codec_for(track).canonical(index, content)


def differences(
    track: str, index: int, expected: dict[str, Any], found: dict[str, Any]
) -> list[str]:
    """What differs between two contents of one block (empty: the same information)."""
    codec = codec_for(track)
    return content_differences(codec.canonical(index, expected), codec.canonical(index, found))


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
