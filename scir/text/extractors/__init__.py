"""Reference extractors: rule-based readers, one per track, that recover the exact formal
content of every block from a task's rendered documents -- the mechanical proof that the
template renderer kept every fact recoverable.

Each reads only the documents' text, their genre names and the track's universe of names
(vocabulary, drug and protein names, protein names), never the formal object.
"""

from __future__ import annotations

import importlib
from typing import Any

from scir.errors import ConfigError, VerificationError
from scir.tasks import Task
from scir.text.blocks import block_contents, differences

EXTRACTORS = {"deduction": "scir.text.extractors.deduction",
              "induction": "scir.text.extractors.induction",
              "causal": "scir.text.extractors.causal"}


def extract_blocks(task: Task) -> list[dict[str, Any]]:
    """The block contents read back from ``task.documents`` (one per document)."""
    if task.domain not in EXTRACTORS:
        raise ConfigError(f"no reference extractor for track {task.domain!r}", field="domain")
    if not task.documents:
        raise VerificationError("the task has no rendered documents", task_id=task.task_id,
                                field="documents")
    module = importlib.import_module(EXTRACTORS[task.domain])
    return module.extract(task)


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
    problems = []
    for i, (a, b) in enumerate(zip(expected, found)):
        problems += [f"document {i + 1}: {d}" for d in differences(task.domain, i, a, b)]
    return problems
