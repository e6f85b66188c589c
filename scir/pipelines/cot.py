"""CoT: the model reads the problem and answers directly; no retry. An answer the track cannot
parse is a ``parse_error`` -- wrong, and counted."""

from __future__ import annotations

from scir.llm.base import Backend
from scir.pipelines.result import PipelineResult, PipelineSettings, answer_and_score, start
from scir.tasks import Task
from scir.tracks.base import Track


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings
        ) -> PipelineResult:
    """Ask for a chain-of-thought answer and score it (BackendError propagates)."""
    begun = start(track, task, backend, settings, "cot", "cot")
    return answer_and_score(track, task, begun.prompt, begun.calls, begun.result)
