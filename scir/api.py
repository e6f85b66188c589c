"""The Python API: the few entry points a notebook needs, exported from ``scir`` (lazily:
``import scir`` stays cheap). docs/api.md documents them with examples that a test runs.

- tasks: :func:`read_tasks`, :func:`write_tasks`, :func:`generate` (and :func:`iter_generate`),
  :func:`render` (the template renderer), :func:`track_names` (every registered track:
  built-in, entry points, ``SCIR_TRACKS``) and :func:`track`;
- answers: :func:`verify` (every answer re-established by the solvers: a :class:`Verification`);
- solving: :func:`solve` (a pipeline and a model over tasks, into a resumable run directory: a
  :class:`Solved`), :func:`open_run` (a :class:`Run`: its typed results,
  :class:`~scir.pipelines.result.PipelineResult`);
- reports: :func:`report` (the computed report of ``scir report``:
  :class:`~scir.reports.report.Report`, its cells with intervals).

The ``scir generate``, ``verify``, ``solve`` and ``report`` commands call these functions; they
add only argument parsing and printing. Each function wraps the toolkit's own code: nothing
here computes what a lower layer already does.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scir.errors import ConfigError, ScirError
from scir.tasks import Task, write_tasks
from scir.tracks import Track, get_track, track_names
from scir.tracks.reading import read_tasks

if TYPE_CHECKING:
    from scir.executors import Executor
    from scir.pipelines.result import PipelineResult, PipelineSettings
    from scir.reports.report import Report
    from scir.runs.runner import RunSummary

__all__ = [
    "ApiOptions",
    "Run",
    "Solved",
    "Task",
    "Verification",
    "generate",
    "iter_generate",
    "open_run",
    "read_tasks",
    "render",
    "report",
    "solve",
    "track",
    "track_names",
    "verify",
    "write_tasks",
]

Progress = Callable[[Iterable[Any], int], Iterable[Any]]  # (items, total) -> the same items


def track(name: str) -> Track:
    """The track registered as ``name`` (ConfigError naming the known ones)."""
    return get_track(name)


# ---- tasks ---------------------------------------------------------------------------------
def iter_generate(
    track: str,
    n: int,
    seed: int = 0,
    difficulty: str = "easy",
    params: dict[str, Any] | None = None,
    *,
    executor: Executor | None = None,
) -> Iterator[Task]:
    """The ``n`` tasks ``scir generate`` writes, one at a time: task ``i`` depends only on
    (parameters, ``seed``, ``i``). ``params`` overrides the ``difficulty`` preset (the track's
    flags, by name); ``executor`` makes them in chunks (``scir.executors``), in order."""
    if n < 1:
        raise ConfigError("-n must be at least 1", field="n")
    found = get_track(track)
    overrides = dict(params or {})
    if executor is None:
        return found.generate(n, seed, difficulty, overrides)
    return _generate_on(executor, track, n, seed, difficulty, overrides)


def generate(
    track: str,
    n: int,
    seed: int = 0,
    difficulty: str = "easy",
    params: dict[str, Any] | None = None,
    *,
    executor: Executor | None = None,
) -> list[Task]:
    """:func:`iter_generate` as a list."""
    with executor or nullcontext():
        return list(iter_generate(track, n, seed, difficulty, params, executor=executor))


def _generate_on(
    executor: Executor,
    track_name: str,
    n: int,
    seed: int,
    difficulty: str,
    overrides: dict[str, Any],
) -> Iterator[Task]:
    from scir import executors

    track = get_track(track_name)
    track.resolve_params(difficulty, overrides)  # a bad flag fails before any work
    size = executors.chunk_size(n, executor.workers)
    jobs = [
        (track_name, difficulty, overrides, seed, indices)
        for indices in executors.chunks(list(range(n)), size)
    ]
    for chunk in executor.map(generate_chunk, jobs):
        yield from chunk


def generate_chunk(job: tuple[str, str, dict[str, Any], int, list[int]]) -> list[Task]:
    """Worker entry point: the tasks of some indices, as ``Track.generate`` makes them."""
    track_name, difficulty, overrides, seed, indices = job
    track = get_track(track_name)
    level, params = track.resolve_params(difficulty, overrides)
    out = []
    for index in indices:
        task = track.generate_one(dict(params), seed, index)
        task.difficulty = level
        out.append(task)
    return out


def render(tasks: Iterable[Task], seed: int = 0, *, control: bool = False) -> list[Task]:
    """The tasks rendered into scientific documents by the template renderer (``scir render
    --renderer template``): each block recovered from its document, or a RenderError. With
    ``control`` also the control presentation ``ctl`` (``scir render --control``)."""
    from scir.rendering.template import render_task

    out = [render_task(task, seed) for task in tasks]
    if control:
        from scir.rendering.control import render_control

        out = [render_control(task, seed) for task in out]
    return out


# ---- verification --------------------------------------------------------------------------
@dataclass
class Verification:
    """What :func:`verify` found: per task ``None`` (confirmed) or what is wrong."""

    total: int = 0
    per_track: Counter = field(default_factory=Counter)  # tasks checked (not raised), by track
    failed: list[tuple[str, str]] = field(default_factory=list)  # (task id, message)

    @property
    def ok(self) -> bool:
        """Every answer confirmed."""
        return not self.failed

    @property
    def verified(self) -> int:
        return self.total - len(self.failed)


_RAISED = "\0"  # marks a problem that is an error raised by the track


def verify(
    tasks: Sequence[Task] | str | os.PathLike,
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> Verification:
    """Re-establish every task's answer with its track's solvers (``scir verify``); ``tasks``
    is a list or a task file. A task of an unknown track is a ConfigError before any work."""
    from scir import executors

    file = None
    if isinstance(tasks, (str, os.PathLike)):
        file = str(tasks)
        tasks = read_tasks(tasks)
    for task in tasks:
        try:
            get_track(task.domain)
        except ConfigError as exc:
            raise ConfigError(exc.message, file=file, task_id=task.task_id, field="domain") from exc
    if executor is None:
        outcomes: Iterator[str | None] = map(verify_one, tasks)
    else:
        size = executors.chunk_size(len(tasks), executor.workers)
        outcomes = (
            problem
            for chunk in executor.map(verify_chunk, executors.chunks(list(tasks), size))
            for problem in chunk
        )
    pairs: Iterable[tuple[Task, str | None]] = zip(tasks, outcomes)
    if progress is not None:
        pairs = progress(pairs, len(tasks))
    found = Verification(total=len(tasks))
    with executor or nullcontext():
        for task, problem in pairs:
            if problem is None or not problem.startswith(_RAISED):
                found.per_track[task.domain] += 1
            if problem is not None:
                found.failed.append((task.task_id, problem.removeprefix(_RAISED)))
    return found


def verify_one(task: Task) -> str | None:
    """None when the solvers confirm the task's answer, else what is wrong (an error the
    track raised is marked with a leading NUL: its task is not counted as verified)."""
    try:
        check = get_track(task.domain).verify(task)
    except ScirError as exc:
        return f"{_RAISED}{type(exc).__name__}: {exc}"
    if check.ok:
        return None
    return check.message or f"stored answer {check.expected!r}, solvers say {check.found!r}"


def verify_chunk(tasks: list[Task]) -> list[str | None]:
    """Worker entry point: :func:`verify_one` over a chunk."""
    return [verify_one(task) for task in tasks]


# ---- solving -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ApiOptions:
    """How an API model (``openrouter:``, ``vllm:``, ...) is called."""

    timeout: float = 120.0  # seconds of one attempt
    retries: int = 4  # on 429 / 5xx / timeouts / empty completions
    api_key_env: str | None = None  # read the key from this *_API_KEY variable
    max_response_bytes: int = 8 << 20


@dataclass
class Solved:
    """What :func:`solve` did: the run directory, the summary of its results (``lines()``:
    what ``scir solve`` prints) and the model calls made and served from the run's store."""

    run: Path
    summary: RunSummary
    calls_made: int = 0
    calls_served: int = 0


def _api_backend(name: Any, options: ApiOptions) -> tuple[Any, str | None]:
    """The model's backend and, for an HTTP model, the key it sends (None: none)."""
    from scir.llm import get_backend

    if not name.is_api:
        return get_backend(name), None
    from scir.llm.keys import announce, key_route

    route = key_route(name, api_key_env=options.api_key_env)
    if options.api_key_env and not route.key:
        raise ConfigError(
            f"set the environment variable {options.api_key_env} (--api-key-env)",
            field="api_key_env",
        )
    announce([route])  # which key goes where, before any call
    return get_backend(
        name,
        timeout=options.timeout,
        max_retries=options.retries,
        max_response_bytes=options.max_response_bytes,
        **({"api_key": route.key} if options.api_key_env else {}),
    ), route.key


def solve(
    tasks: Sequence[Task] | str | os.PathLike,
    arch: str,
    model: str | None = None,
    *,
    run: str | os.PathLike,
    settings: PipelineSettings | None = None,
    concurrency: int = 1,
    redo: bool = False,
    api: ApiOptions | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    file: str | None = None,
    command: str | None = None,
    **fields: Any,
) -> Solved:
    """Run architecture ``arch`` (``cot``, ``ns``, ``symbcot``, ``oracle``, ``sr-agent``,
    ``pyoperon``, ...) with ``model`` (a model name as ``scir solve --model`` takes it; none for
    ``oracle`` and the baselines) over ``tasks`` into the run directory ``run``, as ``scir
    solve`` does: resumable (stored results are kept, stored calls served), one writer per run.

    ``tasks`` is a task file (recorded in the run, so reports find it) or a list of tasks
    (written into ``run/tasks/``, so reports find them too; ``file``: the file they were read
    from, recorded instead). ``limit``: only the first tasks. ``progress(results, total)``
    wraps the stream of results (e.g. a progress bar). ``settings`` is a
    :class:`~scir.pipelines.result.PipelineSettings`, or give its fields by keyword
    (``presentation="obf"``, ``constrained=False``, ``max_tokens=256``, ...)."""
    from scir.llm.run_lock import RunLock
    from scir.pipelines.registry import MODEL_FREE_ARCHS
    from scir.pipelines.result import PipelineSettings

    if settings is not None and fields:
        raise ConfigError(
            f"give settings or its fields ({', '.join(fields)}), not both", field="settings"
        )
    settings = settings if settings is not None else PipelineSettings(**fields)
    if arch not in MODEL_FREE_ARCHS and not model:
        raise ConfigError(f"--arch {arch} needs --model", field="model")
    settings.check_arch(arch)
    if isinstance(tasks, (str, os.PathLike)):
        file = str(tasks)
        tasks = read_tasks(tasks)
    tasks = list(tasks)
    if limit is not None:
        tasks = tasks[:limit]
    name = None
    if arch not in MODEL_FREE_ARCHS:
        from scir.llm import parse_model_name

        assert model  # checked above: an architecture with a model needs one (ConfigError)
        name = parse_model_name(model)
    from scir.pipelines.preflight import ModelNeed, require
    from scir.pipelines.runner import check_architecture

    options = api or ApiOptions()
    for domain in sorted({t.domain for t in tasks}):  # a wrong arch first: no check of
        check_architecture(get_track(domain), arch)  # its model is needed then
    require(
        [ModelNeed(name, None, options.api_key_env)] if name is not None else [],
        tracks={t.domain for t in tasks},
        archs=[arch],
        unsafe_analyzer=bool(settings.agent.unsafe_unisolated_analyzer),
    )  # before any
    if command is None:  # work or lock
        command = f"scir.solve(arch={arch!r}, model={model!r}, run={str(run)!r})"
    with RunLock(Path(run), command):  # before any slow set-up: a second writer is
        return _solve(
            tasks,
            arch,
            name,
            Path(run),
            settings,
            file,
            limit,  # refused at once
            concurrency,
            redo,
            options,
            progress,
        )


def _solve(
    tasks: list[Task],
    arch: str,
    name: Any,
    run: Path,
    settings: PipelineSettings,
    file: str | None,
    limit: int | None,
    concurrency: int,
    redo: bool,
    api: ApiOptions,
    progress: Progress | None,
) -> Solved:
    """The run itself, under the run's lock."""
    import dataclasses

    from scir.llm.cache import CachingBackend
    from scir.llm.identity import run_provenance
    from scir.pipelines.runner import model_label
    from scir.runs.runner import run_tasks
    from scir.runs.store import RunStore

    backend, route_key = _api_backend(name, api) if name is not None else (None, None)
    if file is None:
        file = str(_keep_tasks(run, tasks))
    file = str(Path(file).resolve())  # a run read from another directory finds it
    with RunStore(run) as store:
        cached = CachingBackend(backend, store) if backend is not None else None
        config: dict[str, Any] = {
            "file": file,
            "arch": arch,
            "model": model_label(arch, cached),
            "presentation": settings.presentation,
            "limit": limit,
            "max_tokens": settings.max_tokens,
            "temperature": settings.temperature,
            "seed": settings.seed,
            "max_retries": settings.max_retries,
            "constrained": settings.constrained,
            "backup": settings.backup,
            "symreg_seconds": settings.symreg_seconds,
        }
        if settings.symreg_generations is not None:  # absent as in runs recorded before it
            config["symreg_generations"] = settings.symreg_generations
        if arch == "sr-agent":
            config["agent"] = dataclasses.asdict(settings.agent)
        _check_consistent(store, config)
        store.log_invocation(
            config, run_provenance([(name, None, route_key)] if name is not None else [])
        )
        try:
            summary = run_tasks(
                tasks,
                arch,
                cached,
                store,
                settings,
                concurrency=concurrency,
                redo=redo,
                progress=progress,
            )
        finally:
            if cached is not None:
                cached.close()
        made, served = (cached.made, cached.served) if cached is not None else (0, 0)
    return Solved(run, summary, made, served)


def _keep_tasks(run: Path, tasks: list[Task]) -> Path:
    """Tasks given as a list, written into ``run/tasks/`` (named by their content), so that
    ``scir report`` and ``scir explore`` find them like the tasks of ``scir eval``."""
    text = "".join(t.to_json() + "\n" for t in tasks)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    path = run / "tasks" / f"solve-{digest}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_tasks(path, tasks)
    return path


# settings that must stay the same across the invocations of one run (per arch/presentation/model)
_FIXED = ("max_tokens", "temperature", "max_retries", "backup", "agent", "symreg_generations")
_CELL = ("arch", "presentation", "model", "constrained", "seed")


def _added_agent_settings() -> dict:
    """The defaults of the sr-agent settings a run started before them did not record."""
    import dataclasses

    from scir.pipelines.sr_agent.settings import AgentSettings

    return {
        name: value
        for name, value in dataclasses.asdict(AgentSettings()).items()
        if name in ("max_response_chars", "max_conversation_chars", "unsafe_unisolated_analyzer")
    }


def _check_consistent(store: Any, config: dict) -> None:
    """Refuse to mix generation settings within one (arch, presentation, model) of a run."""
    for old in store.invocations():
        if isinstance(old.get("agent"), dict) and isinstance(config.get("agent"), dict):
            # sr-agent settings added since the run started count with their defaults
            old = {**old, "agent": {**_added_agent_settings(), **old["agent"]}}
        if all(old.get(k, {"constrained": True, "seed": 0}.get(k)) == config[k] for k in _CELL):
            changed = [k for k in _FIXED if k in config and old.get(k) != config[k]]
            if changed:
                k = changed[0]
                raise ConfigError(
                    f"this run was started with {k}={old.get(k)!r}, not "
                    f"{config[k]!r}; use a new --run directory",
                    file=str(store.path),
                    field=k,
                )


# ---- runs and reports ----------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """A run directory (``scir solve``, ``scir eval``), read-only."""

    path: Path

    def results(
        self, arch: str | None = None, presentation: str | None = None
    ) -> list[PipelineResult]:
        """The stored results, typed (as stored: ``scir rescore`` recomputes verdicts;
        :func:`report` uses recomputed ones)."""
        from scir.pipelines.result import PipelineResult
        from scir.runs.store import RunStore

        with RunStore(self.path, readonly=True) as store:
            stored = store.results(arch=arch, presentation=presentation)
        return [PipelineResult.from_dict(r) for r in stored]

    def invocations(self) -> list[dict[str, Any]]:
        """The settings of every command that wrote into the run, oldest first."""
        from scir.runs.store import RunStore

        with RunStore(self.path, readonly=True) as store:
            return store.invocations()


def open_run(path: str | os.PathLike) -> Run:
    """The run directory ``path`` (a ConfigError when it holds no run store)."""
    from scir.runs.store import STORE_NAME

    run = Path(path)
    if not (run / STORE_NAME).is_file():
        raise ConfigError(f"not a run directory (no {STORE_NAME})", file=str(run))
    return Run(run)


def report(
    runs: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    tasks: Sequence[str | os.PathLike] | None = None,
    compare: bool = False,
    unverified: bool = False,
    reproducible: bool = False,
) -> Report:
    """The report ``scir report`` writes, computed (:class:`~scir.reports.report.Report`:
    ``cells`` with accuracy intervals, ``grid`` (Table 1), ``probes``, ``differences``,
    ``to_dict()`` = report.json), over one or more run directories; every verdict is
    recomputed from the stored answers and the task files (``tasks`` first, then those the
    runs record). ``reproducible``: leave the wall-clock latency and the versions out of
    ``to_dict()`` and the Markdown (``measurements()`` holds them), so that two runs of one
    experiment with the same answers give byte-identical reports."""
    from scir.reports.report import build_report

    dirs = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    return build_report(
        [str(d) for d in dirs],
        compare=compare,
        task_files=[str(t) for t in tasks] if tasks else None,
        unverified=unverified,
        reproducible=reproducible,
    )
