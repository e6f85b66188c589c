"""Reference extractors: rule-based readers, one per track (its rendering codec's
:meth:`~scir.text.codec.RenderCodec.extract`), that recover the exact formal content of every
block from a task's rendered documents -- the mechanical proof that the template renderer kept
every fact recoverable.

Each reads only the documents' text, their genre names and the track's universe of names
(vocabulary, drug and protein names, protein names), never the formal object.
"""

from __future__ import annotations

from typing import Any

from scir.errors import VerificationError
from scir.rendering.blocks import block_contents
from scir.rendering.codecs import codec_of
from scir.tasks import Task
from scir.text.blocks import content_differences


def extract_blocks(task: Task) -> list[dict[str, Any]]:
    """The block contents read back from ``task.documents`` (one per document)."""
    codec = codec_of(task)
    if not task.documents:
        raise VerificationError(
            "the task has no rendered documents", task_id=task.task_id, field="documents"
        )
    return codec.extract(task)


def recovery_problems(task: Task) -> list[str]:
    """How the documents' extracted contents differ from the blocks' formal contents
    (empty: every block is recovered exactly)."""
    expected = block_contents(task)
    try:
        found = extract_blocks(task)
    except VerificationError as exc:
        return [exc.message]
    if len(found) != len(expected):
        return [f"{len(found)} documents for {len(expected)} blocks"]
    codec = codec_of(task)
    problems = []
    for i, (a, b) in enumerate(zip(expected, found)):
        problems += [
            f"document {i + 1}: {d}"
            for d in content_differences(codec.canonical(i, a), codec.canonical(i, b))
        ]
    return problems
