"""CoT: the model reads the problem and answers directly; no retry. An answer the track cannot
parse is a ``parse_error`` -- wrong, and counted."""

from __future__ import annotations

from scir.llm.base import Backend
from scir.pipelines.result import (Calls, PipelineResult, PipelineSettings, hook, new_result,
                                   problem_text, reference_items)
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings
        ) -> PipelineResult:
    """Ask for a chain-of-thought answer and score it (BackendError propagates)."""
    text = problem_text(task, settings.presentation)
    prompt = hook(track, "prompt", "cot", task, settings.presentation, problem=text)
    calls = Calls(backend, settings)
    result = new_result(task, "cot", settings, backend.name, input_chars=len(text),
                        reference_items=reference_items(track, task))
    response = calls.ask([("user", prompt)])
    result.response = response.text
    answer = track.parse_answer(task, response.text)
    if answer is None:
        result.status = "parse_error"
        result.error = "no answer found in the response"
    else:
        result.answer = answer
        result.correct = bool(track.score(task, answer))
    return calls.fill(result)
