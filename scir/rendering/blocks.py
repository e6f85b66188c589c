"""The formal content of each clean-NL block of a task, told by the task's codec (found
through its track); the normal form and comparison of contents. The codec-free parts are
:mod:`scir.text.blocks`."""

from __future__ import annotations

from typing import Any

from scir.rendering.codecs import codec_for, codec_of, formal_of
from scir.tasks import Task
from scir.text.blocks import checked_contents, content_differences


def block_contents(task: Task) -> list[dict[str, Any]]:
    """The formal content of every block of ``task``, told by its codec from the typed formal
    object (TaskFormatError if it cannot be told; ConfigError for a track without a rendering
    codec)."""
    return checked_contents(task, codec_of(task).block_contents(task, formal_of(task)))


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
