"""Runs one architecture over a task list into a run store: resumable, concurrent, with a
progress bar. Finished results are stored one by one as they complete; a task whose result is
stored is skipped on the next run (except ``backend_error`` results, which are retried), and its
calls are served from the store."""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable, Iterable

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend
from scir.llm.cache import RunStore
from scir.pipelines import cot, ns, oracle, symbcot
from scir.pipelines.result import (ARCHS, NO_MODEL, PipelineResult, PipelineSettings,
                                   new_result, problem_text)
from scir.tasks import Task
from scir.tracks import get_track

PIPELINES: dict[str, Callable[..., PipelineResult]] = {
    "cot": cot.run, "ns": ns.run, "symbcot": symbcot.run, "oracle": oracle.run,
}
RETRIED_STATUSES = frozenset({"backend_error"})


def run_task(arch: str, task: Task, backend: Backend | None, settings: PipelineSettings
             ) -> PipelineResult:
    """One task through one architecture; a BackendError becomes a ``backend_error`` result."""
    if arch not in PIPELINES:
        raise ConfigError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}", field="arch")
    if arch != "oracle" and backend is None:
        raise ConfigError(f"--arch {arch} needs a --model", field="model")
    track = get_track(task.domain)
    start = time.monotonic()
    try:
        result = PIPELINES[arch](track, task, backend, settings)
    except BackendError as exc:
        result = new_result(task, arch, settings, backend.name if backend else NO_MODEL,
                            status="backend_error", error=exc.message)
    result.seconds = time.monotonic() - start
    return result


@dataclass
class RunSummary:
    """Counts over every stored result of the tasks of one run."""

    total: int = 0
    correct: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    ran: int = 0                   # tasks run in this invocation
    skipped: int = 0               # tasks whose result was already stored

    def lines(self) -> list[str]:
        """The summary printed by ``scir solve``; the first line is ``accuracy: K/N``."""
        s = self.by_status
        wrong = self.by_status.get("ok", 0) - self.correct
        return [f"accuracy: {self.correct}/{self.total}",
                f"parse failures: {s.get('parse_error', 0)}",
                f"solver errors: {s.get('solver_error', 0)}",
                f"timeouts: {s.get('timeout', 0)}",
                f"backend errors: {s.get('backend_error', 0)}",
                f"wrong answers: {wrong}",
                f"tasks run now: {self.ran}, already stored: {self.skipped}"]


def model_label(arch: str, backend: Backend | None) -> str:
    """The model column of results: the backend's name, or ``none`` for the oracle."""
    return NO_MODEL if arch == "oracle" or backend is None else backend.name


def run_tasks(tasks: list[Task], arch: str, backend: Backend | None, store: RunStore,
              settings: PipelineSettings, *, concurrency: int = 1, redo: bool = False,
              progress: Callable[[Iterable[PipelineResult], int], Iterable[PipelineResult]]
              | None = None) -> RunSummary:
    """Run the tasks that have no stored result (every task with ``redo``: calls are still
    served from the store), storing each result as soon as it is finished."""
    if concurrency < 1:
        raise ConfigError("--concurrency must be >= 1", field="concurrency")
    for task in tasks:               # fail before any call when a text is missing
        problem_text(task, settings.presentation)
        get_track(task.domain)
    model = model_label(arch, backend)
    summary = RunSummary()
    pending = []
    for task in tasks:
        stored = store.get_result(task.task_id, arch, settings.presentation, model)
        if not redo and stored is not None and stored["status"] not in RETRIED_STATUSES:
            summary.skipped += 1
        else:
            pending.append(task)

    def finished() -> Iterable[PipelineResult]:
        if concurrency == 1:
            for task in pending:
                yield run_task(arch, task, backend, settings)
            return
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            queue = iter(pending)
            running: set[Future] = set()
            for task in queue:
                running.add(pool.submit(run_task, arch, task, backend, settings))
                if len(running) >= concurrency:
                    break
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    nxt = next(queue, None)
                    if nxt is not None:
                        running.add(pool.submit(run_task, arch, nxt, backend, settings))

    stream: Iterable[PipelineResult] = finished()
    if progress is not None:
        stream = progress(stream, len(pending))
    for result in stream:
        store.put_result(result.to_dict())
        summary.ran += 1
    ids = {t.task_id for t in tasks}
    for data in store.results(arch=arch, presentation=settings.presentation, model=model):
        if data["task_id"] not in ids:
            continue
        summary.total += 1
        summary.correct += int(bool(data["correct"]))
        summary.by_status[data["status"]] = summary.by_status.get(data["status"], 0) + 1
    return summary
