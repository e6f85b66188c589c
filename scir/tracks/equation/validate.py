"""Checking an equation record when its file is read (``EquationTrack.validate_formal``).

The answer is a non-empty expression of bounded length, the pool is ``[answer]`` (for a
problem without ground truth -- an empty ``formal.expression`` -- the answer is ``""`` and the
pool empty), there are no options, and the formal object loads (:meth:`formal.EquationFormal.load`, the one place it is
validated). Whether the answer *is* the formal expression, and whether the expression gives
the stored targets, is for ``scir verify`` to say (a failed check, not a malformed record).
"""

from __future__ import annotations

from scir.tasks import Task
from scir.tracks.base import load_formal
from scir.tracks.equation.formal import MAX_EXPRESSION, EquationFormal
from scir.tracks.shapes import fail, string


def validate(task: Task) -> None:
    """Check an equation record's answer, pool, options and formal object (TaskFormatError
    naming the field)."""
    if task.options:
        raise fail("an equation task has no options", "options")
    answer = string(task.answer, "answer", MAX_EXPRESSION)
    formal = load_formal(EquationFormal, task)
    if not formal.has_truth:  # an imported problem without ground truth
        if answer or task.answer_pool:
            raise fail(
                'a problem without ground truth (formal.expression "") has the '
                'answer "" and an empty pool',
                "answer",
            )
        return
    if not answer.strip():
        raise fail("expected a non-empty expression", "answer")
    if task.answer_pool != [answer]:
        raise fail(f"must be [{answer!r}] (the answer alone)", "answer_pool")
