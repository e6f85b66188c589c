"""Running an experiment grid into a run directory (``scir eval``).

:func:`record_experiment` copies the experiment into the run (``experiment.toml``, with its
digest and every cell's fingerprint in ``experiment.json``) and refuses a changed experiment
that would change cells with stored results. :func:`run_grid` runs the cells one by one, each
through :func:`run_cell` -- the one place an executor is chosen -- with one backend per model
(run-store cache over budget over rate limit over the model), under the caller's run lock.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scir.errors import ConfigError
from scir.experiments.budget import BudgetedBackend, BudgetExceeded, RateLimitedBackend, Spending
from scir.experiments.cells import CellKey, cell_of
from scir.experiments.experiment import Experiment, Model, digest, model_label
from scir.experiments.progress import GridProgress
from scir.llm.base import Backend
from scir.llm.cache import CachingBackend
from scir.outcomes.status import Status
from scir.pipelines.result import PipelineSettings
from scir.runs.runner import RunSummary, run_tasks
from scir.runs.store import RunStore
from scir.tasks import Task

if TYPE_CHECKING:
    from scir.executors import Executor
    from scir.llm.keys import KeyRoute
    from scir.runs.remote import ModelSpec

RECORD = "experiment.json"
COPY = "experiment.toml"
MAX_RECORD_BYTES = 64 << 20  # experiment.json: every cell's fingerprint


def _key(cell: CellKey) -> str:
    return json.dumps(cell.plan_dict(), sort_keys=True)


def _first_difference(old: Any, new: Any, prefix: str = "") -> str:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if old.get(k) != new.get(k):
                return _first_difference(old.get(k), new.get(k), f"{prefix}{k}.")
    return f"{prefix.rstrip('.')} ({old!r} -> {new!r})"


def read_record(run: Path) -> dict[str, Any]:
    """The run's ``experiment.json`` (ConfigError naming it when it is too large, not JSON,
    nested too deep or without its ``cells`` table)."""
    from scir.bounded import parse_json, read_text

    record = run / RECORD
    text = read_text(record, MAX_RECORD_BYTES, ConfigError, "the run's experiment record")
    data = parse_json(text, file=str(record))
    if not isinstance(data, dict) or not isinstance(data.get("cells"), dict):
        raise ConfigError("not an experiment record (an object with cells)", file=str(record))
    return data


def record_experiment(exp: Experiment, run: Path, store: RunStore) -> None:
    """Check the experiment against the one recorded in the run, then record it."""
    record = run / RECORD
    cells = {_key(c): exp.fingerprint(c) for c in exp.cells()}
    if record.exists():
        old = read_record(run)["cells"]
        started = {cell_of(r) for r in store.results()}
        for cell in exp.cells():
            before = old.get(_key(cell))
            if before is not None and before != cells[_key(cell)] and cell in started:
                what = _first_difference(before, cells[_key(cell)])
                raise ConfigError(
                    f"the experiment changed for cell {cell.label()}, which has "
                    f"stored results: {what}; restore it or use a new --run "
                    f"directory",
                    file=exp.path,
                )
        cells = {**old, **cells}
    shutil.copyfile(exp.path, run / COPY)
    record.write_text(
        json.dumps(
            {
                "source": str(Path(exp.path).resolve()),
                "sha256": digest(exp.path),
                "name": exp.name,
                "cells": cells,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )


def settings_of(exp: Experiment, cell: CellKey) -> PipelineSettings:
    """The pipeline settings of a cell."""
    g = exp.generation
    return PipelineSettings(
        presentation=cell.presentation,
        max_tokens=g.max_tokens,
        temperature=g.temperature,
        seed=cell.seed,
        max_retries=g.max_retries,
        constrained=cell.constrained,
        max_formalization_tokens=g.max_formalization_tokens,
        backup=exp.backup_of(cell),
        agent=exp.agent_settings(),
        symreg_seconds=exp.symreg.seconds,
        symreg_generations=exp.symreg.generations,
    )


def run_cell(
    cell: CellKey,
    tasks: list[Task],
    backend: Backend | None,
    store: RunStore,
    settings: PipelineSettings,
    *,
    concurrency: int = 1,
    progress: Callable | None = None,
    executor: Executor | None = None,
    model: ModelSpec | None = None,
) -> RunSummary:
    """Run one cell's tasks into the store (resumable): in this process (threads, every call
    stored as soon as it is finished) when ``executor`` is None, else in chunks on the
    executor (a local process pool or Ray; :func:`scir.runs.remote.run_tasks_remote`),
    whose workers build the model from ``model``."""
    if executor is None:
        return run_tasks(
            tasks, cell.arch, backend, store, settings, concurrency=concurrency, progress=progress
        )
    from scir.runs.remote import run_tasks_remote

    return run_tasks_remote(
        tasks, cell.arch, model, store, settings, executor=executor, progress=progress
    )


def key_routes(exp: Experiment) -> list[KeyRoute]:
    """Which key variable goes to which host, for each API model of the experiment's cells
    (:mod:`scir.llm.keys`)."""
    from scir.llm import parse_model_name
    from scir.llm.keys import key_route

    used = {c.model for c in exp.cells()}
    routes = []
    for model in exp.models:
        name = parse_model_name(model.name)
        if name.is_api and model_label(model.name) in used:
            routes.append(key_route(name, model.base_url, model.api_key_env))
    return routes


def used_models(exp: Experiment) -> list[Model]:
    """The model entries some cell of the experiment calls."""
    used = {c.model for c in exp.cells()}
    return [m for m in exp.models if model_label(m.name) in used]


def preflight(exp: Experiment) -> None:
    """Everything the experiment's cells need, checked before any work
    (:func:`scir.pipelines.preflight.require`): keys, servers, model files, solvers."""
    from scir.llm import parse_model_name
    from scir.pipelines.preflight import ModelNeed, require

    cells = exp.cells()
    archs = {c.arch for c in cells}
    unsafe = "sr-agent" in archs and bool(exp.agent_settings().unsafe_unisolated_analyzer)
    require(
        [ModelNeed(parse_model_name(m.name), m.base_url, m.api_key_env) for m in used_models(exp)],
        tracks={c.track for c in cells},
        archs=archs,
        unsafe_analyzer=unsafe,
    )


def provenance(exp: Experiment) -> dict[str, Any]:
    """What the invocation records of what produced it: the environment and the identity of
    each model the experiment's cells call (:func:`scir.llm.identity.run_provenance`)."""
    from scir.llm import parse_model_name
    from scir.llm.identity import run_provenance
    from scir.llm.keys import key_route

    models = []
    for m in used_models(exp):
        name = parse_model_name(m.name)
        key = key_route(name, m.base_url, m.api_key_env).key if name.is_api else None
        models.append((name, m.base_url, key))
    return run_provenance(models)


def model_options(exp: Experiment, model: Model) -> tuple[str, dict[str, Any]]:
    """A model entry's ``--model`` name and backend options (base URL, the key read from its
    ``api_key_env``, a ``*_API_KEY`` name; without one the backend reads its provider's own
    variable, :mod:`scir.llm.keys`)."""
    from scir.llm import parse_model_name
    from scir.llm.keys import key_route

    options: dict[str, Any] = {}
    name = parse_model_name(model.name)
    if name.is_api:
        if model.base_url:
            options["base_url"] = model.base_url
        if model.api_key_env:
            key = key_route(name, model.base_url, model.api_key_env).key
            if not key:
                raise ConfigError(
                    f"model {model.name}: set the environment variable "
                    f"{model.api_key_env} (its api_key_env)",
                    file=exp.path,
                    field="models.api_key_env",
                )
            options["api_key"] = key
    return model.name, options


def build_backend(
    exp: Experiment, model: Model, store: RunStore, spending: Spending
) -> CachingBackend:
    """A model's backend: the run store's cache over the budget over the rate limit."""
    from scir.llm import get_backend

    name, options = model_options(exp, model)
    inner: Backend = get_backend(name, **options)
    if model.requests_per_minute is not None:
        inner = RateLimitedBackend(inner, model.requests_per_minute)
    return CachingBackend(BudgetedBackend(inner, spending), store)


def _stored_spending_check(store: RunStore, spending: Spending) -> Callable[[], None]:
    """A budget check that first reads what the run store's calls have cost (the calls made
    by remote workers are stored by the driver, before their chunk's results)."""

    def check() -> None:
        _, spending.tokens, spending.cost = store.call_totals()
        spending.check()

    return check


@dataclass
class GridOutcome:
    """What a grid run did."""

    cells: int = 0
    ran: int = 0
    backend_failed: int = 0
    stopped: str = ""  # the budget message when a budget stopped it
    made: int = 0
    served: int = 0
    spent: str = ""
    summaries: dict[CellKey, RunSummary] = field(default_factory=dict)


def run_grid(
    exp: Experiment,
    plan: list[tuple[CellKey, list[Task]]],
    store: RunStore,
    progress: GridProgress,
    *,
    executor: Executor | None = None,
) -> GridOutcome:
    """Run every cell of ``plan`` in order; a reached budget ends the grid cleanly (the
    outcome's ``stopped`` says which). With an ``executor`` the cells' tasks run in chunks
    on it: budgets are then checked against the calls stored after each chunk (the workers'
    calls are not seen earlier), and rate limits are not applied."""
    _, tokens, cost = store.call_totals()
    spending = Spending(exp.budget, tokens, cost)
    backends: dict[str, CachingBackend] = {}
    outcome = GridOutcome(cells=len(plan))
    progress.start()
    try:
        for cell, tasks in plan:
            backend = None
            spec = None
            check = spending.check
            model = exp.model_of(cell)  # None: no model (oracle, symreg)
            if executor is not None:
                if model is not None:
                    from scir.runs.remote import ModelSpec

                    spec = ModelSpec(*model_options(exp, model))
                check = _stored_spending_check(store, spending)
            elif model is not None:
                if cell.model not in backends:
                    backends[cell.model] = build_backend(exp, model, store, spending)
                backend = backends[cell.model]
            spending.check()
            summary = run_cell(
                cell,
                tasks,
                backend,
                store,
                settings_of(exp, cell),
                concurrency=model.concurrency if model else 1,
                executor=executor,
                model=spec,
                progress=lambda items, total, cell=cell, check=check: progress.wrap(
                    cell, items, check
                ),
            )
            outcome.summaries[cell] = summary
            outcome.ran += summary.ran
            outcome.backend_failed += summary.ran_statuses.get(Status.BACKEND_ERROR.value, 0)
    except BudgetExceeded as exc:
        outcome.stopped = str(exc)
    finally:
        progress.close()
        for b in backends.values():
            outcome.made += b.made
            outcome.served += b.served
            b.close()
        outcome.spent = spending.spent()
    return outcome
