"""Oracle: the task's gold formal object goes straight to the track's solver -- the NS
pipeline's upper bound and a self-test of solver and scoring (no model involved)."""

from __future__ import annotations

from scir.outcomes.status import Status
from scir.pipelines.ns import solve
from scir.pipelines.result import (
    NO_MODEL,
    PipelineResult,
    PipelineSettings,
    new_result,
    problem_text,
    set_answer,
)
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: object, settings: PipelineSettings) -> PipelineResult:
    """Solve the gold formal object (``track.formal(task)``, typed) and score the answer
    (``backend`` is ignored)."""
    refs = track.formalizer().reference_items(task)
    result = new_result(
        task,
        "oracle",
        settings,
        NO_MODEL,
        items=refs,
        reference_items=refs,
        input_chars=len(problem_text(task, settings.presentation)),
    )
    outcome = solve(track, task, track.formal(task))
    result.status, result.solver_status, result.solver_log = (
        outcome.status,
        outcome.solver_status,
        outcome.log,
    )
    if outcome.status == Status.OK:
        assert outcome.answer is not None  # an "ok" outcome always carries its answer (solve)
        set_answer(track, task, result, outcome.answer)
    else:
        result.error = outcome.log
    return result
