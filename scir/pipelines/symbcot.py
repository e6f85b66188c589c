"""SymbCoT: the model formalizes once (under the track's grammar), then a second call answers
from the formal text, reasoning over it itself; no solver decides the answer."""

from __future__ import annotations

from scir.errors import FormalizationError, SolverError
from scir.llm.base import Backend
from scir.pipelines.result import (
    SOLVER_LOCK,
    PipelineResult,
    PipelineSettings,
    answer_and_score,
    extraction_of,
    formalization_tokens,
    formalizer_hook,
    start,
)
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings) -> PipelineResult:
    """Formalize, answer from the formalization, score (BackendError propagates)."""
    begun = start(track, task, backend, settings, "symbcot", "formalize")
    result = begun.result
    formal_text = begun.calls.ask(
        [("user", begun.prompt)],
        begun.constraint,
        formalization_tokens(track, task),
        formalization=True,
    ).text
    result.formalization = formal_text
    try:
        with SOLVER_LOCK:
            parsed = formalizer_hook(track, "parse", task, formal_text)
        result.items = parsed.items
        result.executable = True
        result.extraction = extraction_of(track, task, parsed.formal)
    except (FormalizationError, SolverError) as exc:  # only statistics; the model still answers
        result.executable = False
        result.solver_log = f"formalization does not parse: {exc.message}"
    answer_prompt = formalizer_hook(
        track,
        "prompt",
        "symbcot",
        task,
        settings.presentation,
        PromptArgs(problem=begun.text, formalization=formal_text),
    )
    return answer_and_score(track, task, answer_prompt, begun.calls, result)
