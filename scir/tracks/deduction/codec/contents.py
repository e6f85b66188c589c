"""Deduction block contents: ``{"premises": [...]}`` per block -- the Prover9 strings of the
premises the block states, found by matching the block against the track's own sentence
templates (the blocks are consecutive runs of the premises' sentences)."""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import Task
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.deduction.templates import Lexicon, sentence


def deduction_lexicon(task: Task) -> Lexicon:
    """The task's :class:`~scir.tracks.deduction.templates.Lexicon` (from its metadata)."""
    lex = task.domain_metadata.get("lexicon")
    if not isinstance(lex, dict) or not isinstance(lex.get("predicates"), dict):
        raise TaskFormatError(
            "deduction tasks need domain_metadata.lexicon",
            task_id=task.task_id,
            field="domain_metadata",
        )
    return Lexicon.from_json(lex)


def block_contents(task: Task, formal: DeductionFormal) -> list[dict[str, Any]]:
    """Split the premises of ``formal`` (the task's typed formal object) into the blocks'
    consecutive runs, checked sentence by sentence."""

    lexicon = deduction_lexicon(task)
    premises = list(formal.premises)
    sentences = [sentence(f, lexicon) for f in formal.formulas[0]]
    out, start = [], 0
    for i, block in enumerate(task.blocks):
        end, text = start, ""
        while end < len(sentences) and len(text) < len(block):
            text = f"{text} {sentences[end]}" if text else sentences[end]
            end += 1
        if text != block:
            raise TaskFormatError(
                f"block {i + 1} is not a run of the premises' sentences",
                task_id=task.task_id,
                field="blocks",
            )
        out.append({"premises": premises[start:end]})
        start = end
    if start != len(sentences):
        raise TaskFormatError(
            "the blocks do not state every premise", task_id=task.task_id, field="blocks"
        )
    return out


def canonical(index: int, content: dict[str, Any]) -> dict[str, Any]:
    """The premises as a sorted list."""
    return {"premises": sorted(content.get("premises", []))}
