"""CoT: the model reads the problem and answers directly; no retry. An answer the track cannot
parse is a ``parse_error`` -- wrong, and counted.

:func:`ask` is also the ``ns`` pipeline's backup (``PipelineSettings.backup == "cot"``): the
same request a ``cot`` run sends for the task and presentation, so the run store serves it to
either."""

from __future__ import annotations

from scir.llm.base import Backend
from scir.pipelines.result import (
    Answered,
    Calls,
    PipelineResult,
    PipelineSettings,
    answer_and_score,
    ask_and_score,
    formalizer_hook,
    start,
)
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings) -> PipelineResult:
    """Ask for a chain-of-thought answer and score it (BackendError propagates)."""
    begun = start(track, task, backend, settings, "cot", "cot")
    return answer_and_score(track, task, begun.prompt, begun.calls, begun.result)


def ask(track: Track, task: Task, text: str, settings: PipelineSettings, calls: Calls) -> Answered:
    """The CoT answer to ``task`` shown as ``text`` (its problem text in
    ``settings.presentation``), asked through ``calls`` and scored (BackendError
    propagates)."""
    prompt = formalizer_hook(
        track, "prompt", "cot", task, settings.presentation, PromptArgs(problem=text)
    )
    return ask_and_score(track, task, prompt, calls)
