"""One task through one architecture (:func:`run_task`): the architecture checked against the
task's track, a BackendError recorded as a ``backend_error`` result. The run over a task list
into a run store is :mod:`scir.runs.runner`."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend
from scir.pipelines import cot, ns, oracle, symbcot, symreg
from scir.pipelines.result import (
    ARCHS,
    MODEL_FREE_ARCHS,
    NO_MODEL,
    SYMREG_ARCHS,
    PipelineResult,
    PipelineSettings,
    new_result,
)
from scir.pipelines.sr_agent import pipeline as sr_agent
from scir.tasks import Task
from scir.tracks import track_of
from scir.tracks.base import Track

PIPELINES: dict[str, Callable[..., PipelineResult]] = {
    "cot": cot.run,
    "ns": ns.run,
    "symbcot": symbcot.run,
    "oracle": oracle.run,
    "sr-agent": sr_agent.run,
    **{arch: partial(symreg.run, arch=arch) for arch in SYMREG_ARCHS},
}


def check_architecture(track: Track, arch: str) -> None:
    """ConfigError when ``arch`` does not apply to ``track`` (``Track.architectures``)."""
    if track.architectures is not None and arch not in track.architectures:
        raise ConfigError(
            f"--arch {arch} does not apply to the {track.name} track (it takes "
            f"{', '.join(track.architectures)})",
            field="arch",
        )


def run_task(
    arch: str, task: Task, backend: Backend | None, settings: PipelineSettings
) -> PipelineResult:
    """One task through one architecture; a BackendError becomes a ``backend_error`` result."""
    if arch not in PIPELINES:
        raise ConfigError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}", field="arch")
    if arch not in MODEL_FREE_ARCHS and backend is None:
        raise ConfigError(f"--arch {arch} needs a --model", field="model")
    settings.check_arch(arch)
    track = track_of(task)
    check_architecture(track, arch)
    start = time.monotonic()
    try:
        result = PIPELINES[arch](track, task, backend, settings)
    except BackendError as exc:
        result = new_result(
            task,
            arch,
            settings,
            backend.name if backend else NO_MODEL,
            status="backend_error",
            error=exc.message,
        )
    result.seconds = time.monotonic() - start
    return result


def model_label(arch: str, backend: Backend | None) -> str:
    """The model column of results: the backend's name, or ``none`` for the oracle and the
    symbolic-regression baselines."""
    return NO_MODEL if arch in MODEL_FREE_ARCHS or backend is None else backend.name
