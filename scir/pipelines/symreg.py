"""Symbolic-regression baselines as architectures (``--arch pyoperon|gplearn|pysr``): the
baseline (:mod:`solvers.symreg`) is fitted on the task's train split
(:meth:`Track.regression_data`) and its expression is the answer, scored by the track's rule.
No model is involved: the model column is ``none``, as for the oracle.

Tracks without regression data refuse these architectures (ConfigError, the run stops); so
does a baseline that cannot run here (PySR without Julia), with its reason. A search stopped by
the time limit still answers its best expression (``solver_status`` ``timeout``, else
``answered``); a baseline
that fails is ``solver_error``, one that overruns its limit (:class:`SolverTimeout`)
``timeout``."""

from __future__ import annotations

from scir.errors import ConfigError, SolverError, SolverTimeout
from scir.outcomes.status import Status
from scir.pipelines.result import (
    NO_MODEL,
    SOLVER_LOCK,
    PipelineResult,
    PipelineSettings,
    new_result,
    set_answer,
)
from scir.tasks import Task
from scir.tracks.base import RegressionData, Track


def regression_data(track: Track, task: Task, arch: str) -> RegressionData:
    """The task's train split, or a ConfigError saying that ``arch`` needs regression data."""
    try:
        return track.regression_data(task, "train")
    except NotImplementedError as exc:
        raise ConfigError(
            f"--arch {arch} fits an equation to data; track {track.name!r} has "
            f"no regression data (use it on equation tasks)",
            field="arch",
            task_id=task.task_id,
        ) from exc


def run(
    track: Track, task: Task, backend: object, settings: PipelineSettings, *, arch: str
) -> PipelineResult:
    """Fit baseline ``arch`` (a regressor of :data:`solvers.symreg.REGRESSORS`: ConfigError
    for another name) on the task's train split within ``settings.symreg_seconds`` (and
    ``settings.symreg_generations`` generations when set; seed ``settings.seed``) and score its
    expression (``backend`` is ignored)."""
    from solvers.symreg import get_regressor

    data = regression_data(track, task, arch)
    regressor = get_regressor(arch, settings.symreg_generations)
    result = new_result(task, arch, settings, NO_MODEL)
    try:
        with SOLVER_LOCK:  # CPU-bound: one fit at a time
            fit = regressor.fit(
                data.X, data.y, data.inputs, seconds=settings.symreg_seconds, seed=settings.seed
            )
    except SolverTimeout as exc:
        result.status, result.solver_status = Status.TIMEOUT.value, "timeout"
        result.error = exc.message
        return result
    except SolverError as exc:
        result.status, result.solver_status = Status.SOLVER_ERROR.value, "error"
        result.error = exc.message
        return result
    result.formalization = fit.expression
    result.solver_status = "answered" if fit.status == "ok" else fit.status
    result.solver_log = fit.log
    set_answer(track, task, result, fit.expression)
    return result
