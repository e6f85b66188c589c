"""One task through one architecture (:func:`run_task`): the architecture checked against the
task's track, a BackendError recorded as a ``backend_error`` result. The run over a task list
into a run store is :mod:`scir.runs.runner`."""

from __future__ import annotations

import time

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend
from scir.outcomes.status import Status
from scir.pipelines.registry import MODEL_FREE_ARCHS, architectures, pipeline
from scir.pipelines.result import NO_MODEL, PipelineResult, PipelineSettings, new_result
from scir.tasks import Task
from scir.tracks import track_of
from scir.tracks.base import Track


def check_architecture(track: Track, arch: str) -> None:
    """ConfigError when ``arch`` does not apply to ``track`` (its kind is not one of
    ``Track.pipeline_kinds``)."""
    taken = architectures(track)
    if arch not in taken:
        raise ConfigError(
            f"--arch {arch} does not apply to the {track.name} track (it takes {', '.join(taken)})",
            field="arch",
        )


def run_task(
    arch: str, task: Task, backend: Backend | None, settings: PipelineSettings
) -> PipelineResult:
    """One task through one architecture; a BackendError becomes a ``backend_error`` result."""
    solver = pipeline(arch)
    if solver.needs_model and backend is None:
        raise ConfigError(f"--arch {arch} needs a --model", field="model")
    settings.check_arch(arch)
    track = track_of(task)
    check_architecture(track, arch)
    start = time.monotonic()
    try:
        result = solver.run(track, task, backend, settings)
    except BackendError as exc:
        result = new_result(
            task,
            arch,
            settings,
            backend.name if backend else NO_MODEL,
            status=Status.BACKEND_ERROR.value,
            error=exc.message,
        )
    result.seconds = time.monotonic() - start
    return result


def model_label(arch: str, backend: Backend | None) -> str:
    """The model column of results: the backend's name, or ``none`` for the oracle and the
    symbolic-regression baselines."""
    return NO_MODEL if arch in MODEL_FREE_ARCHS or backend is None else backend.name
