"""SymbCoT: the model formalizes once (under the track's grammar), then a second call answers
from the formal text, reasoning over it itself; no solver decides the answer."""

from __future__ import annotations

from scir.errors import FormalizationError, SolverError
from scir.llm.base import Backend
from scir.pipelines.ns import formalization_constraint, formalization_tokens
from scir.pipelines.result import (SOLVER_LOCK, Calls, PipelineResult, PipelineSettings, hook,
                                   new_result, problem_text, reference_items)
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings
        ) -> PipelineResult:
    """Formalize, answer from the formalization, score (BackendError propagates)."""
    text = problem_text(task, settings.presentation)
    constraint = formalization_constraint(track, task)
    prompt = hook(track, "prompt", "formalize", task, settings.presentation, problem=text)
    calls = Calls(backend, settings)
    result = new_result(task, "symbcot", settings, backend.name, input_chars=len(text),
                        reference_items=reference_items(track, task))
    formal_text = calls.ask([("user", prompt)], constraint,
                            formalization_tokens(track, task)).text
    result.formalization = formal_text
    try:
        with SOLVER_LOCK:
            result.items = hook(track, "parse_formalization", task, formal_text).items
    except (FormalizationError, SolverError) as exc:   # only statistics; the model still answers
        result.solver_log = f"formalization does not parse: {exc.message}"
    answer_prompt = hook(track, "prompt", "symbcot", task, settings.presentation, problem=text,
                         formalization=formal_text)
    response = calls.ask([("user", answer_prompt)])
    result.response = response.text
    answer = track.parse_answer(task, response.text)
    if answer is None:
        result.status = "parse_error"
        result.error = "no answer found in the response"
    else:
        result.answer = answer
        result.correct = bool(track.score(task, answer))
    return calls.fill(result)
