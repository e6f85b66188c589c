"""Runs one architecture over a task list into a run store: resumable, concurrent, with a
progress bar. Finished results are stored one by one as they complete; a task whose result is
stored is skipped on the next run (except ``backend_error`` results, which are retried), and its
calls are served from the store.

When the loop stops early -- Ctrl-C (KeyboardInterrupt), a store that cannot be written, any
other error -- the HTTP calls in flight are cancelled (:func:`scir.llm.http_limits.cancel_calls`,
effective within a fraction of a second), tasks not started are dropped, results that finished
meanwhile are still stored, and the error goes on to the caller."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from scir.errors import ConfigError, ScirError
from scir.llm.base import Backend
from scir.llm.http_limits import allow_calls, cancel_calls
from scir.outcomes.backup import used, with_backup
from scir.outcomes.status import Status
from scir.pipelines.result import PipelineResult, PipelineSettings, problem_text
from scir.pipelines.runner import check_architecture, model_label, run_task
from scir.runs.store import RunStore
from scir.tasks import Task
from scir.tracks import track_of

RETRIED_STATUSES = frozenset({Status.BACKEND_ERROR.value})


@dataclass
class RunSummary:
    """Counts over every stored result of the tasks of one run."""

    total: int = 0
    correct: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    ran: int = 0  # tasks run in this invocation
    skipped: int = 0  # tasks whose result was already stored
    ran_statuses: dict[str, int] = field(default_factory=dict)  # of the tasks run now
    first_error: str = ""  # the first error message among the tasks run now
    backup: str = ""  # ns: the backup the run asks ("" none)
    backup_used: int = 0  # stored results whose answer came from the backup
    correct_with_backup: int = 0  # correct answers counting the backup's (scir.outcomes.backup)

    def count_run(self, status: str, error: str) -> None:
        """Count one task run now (its result is stored)."""
        self.ran += 1
        self.ran_statuses[status] = self.ran_statuses.get(status, 0) + 1
        if error and not self.first_error:
            self.first_error = error

    def all_failed_alike(self) -> bool:
        """Whether every task run now failed for a reason outside the task (the backend)."""
        return self.ran > 0 and self.ran_statuses.get(Status.BACKEND_ERROR.value, 0) == self.ran

    def lines(self) -> list[str]:
        """The summary printed by ``scir solve``; the first line is ``accuracy: K/N``."""
        s = self.by_status
        return [
            f"accuracy: {self.correct}/{self.total}",
            f"parse failures: {s.get('parse_error', 0)}",
            f"solver errors: {s.get('solver_error', 0)}",
            f"timeouts: {s.get('timeout', 0)}",
            f"backend errors: {s.get('backend_error', 0)}",
            f"no answer: {s.get('no_answer', 0)}",
            f"wrong answers: {s.get('wrong', 0)}",
            *(
                [
                    f"with {self.backup} backup: accuracy {self.correct_with_backup}/"
                    f"{self.total}, backup answers {self.backup_used}"
                ]
                if self.backup
                else []
            ),
            f"tasks run now: {self.ran}, already stored: {self.skipped}",
        ]


def _finished(
    pending: list[Task],
    arch: str,
    backend: Backend | None,
    settings: PipelineSettings,
    concurrency: int,
    late: list[PipelineResult],
) -> Generator[PipelineResult, None, None]:
    """The results of the pending tasks as they finish (at most ``concurrency`` in flight).
    Closed or left by an error early, it cancels the calls in flight, waits for their threads
    (a fraction of a second) and appends the results that finished meanwhile to ``late``."""
    if concurrency == 1:
        for task in pending:
            yield run_task(arch, task, backend, settings)
        return
    pool = ThreadPoolExecutor(max_workers=concurrency)
    queue = iter(pending)
    running: set[Future] = set()
    ready: list[Future] = []  # finished, not yet handed out
    try:
        for task in queue:
            running.add(pool.submit(run_task, arch, task, backend, settings))
            if len(running) >= concurrency:
                break
        while running or ready:
            if not ready:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                ready = list(done)
            future = ready.pop()
            nxt = next(queue, None)
            if nxt is not None:
                running.add(pool.submit(run_task, arch, nxt, backend, settings))
            yield future.result()
    finally:
        if running or ready:
            cancel_calls()
            pool.shutdown(wait=True, cancel_futures=True)
            for future in [*ready, *running]:
                if not future.cancelled() and future.exception() is None:
                    late.append(future.result())
        pool.shutdown(wait=True)


def run_tasks(
    tasks: list[Task],
    arch: str,
    backend: Backend | None,
    store: RunStore,
    settings: PipelineSettings,
    *,
    concurrency: int = 1,
    redo: bool = False,
    progress: Callable[[Iterable[PipelineResult], int], Iterable[PipelineResult]] | None = None,
) -> RunSummary:
    """Run the tasks that have no stored result (every task with ``redo``: calls are still
    served from the store), storing each result as soon as it is finished."""
    if concurrency < 1:
        raise ConfigError("--concurrency must be >= 1", field="concurrency")
    model = model_label(arch, backend)
    summary = RunSummary()
    pending = pending_tasks(tasks, arch, model, store, settings, redo, summary)

    late: list[PipelineResult] = []  # finished while the loop was being stopped
    stream = _finished(pending, arch, backend, settings, concurrency, late)
    shown: Iterable[PipelineResult] = stream
    if progress is not None:
        shown = progress(stream, len(pending))

    def keep(result: PipelineResult) -> None:
        store.put_result(result.to_dict())
        summary.count_run(result.status, result.error)

    allow_calls()
    try:
        for result in shown:
            keep(result)
    except BaseException:
        stream.close()  # cancels the calls in flight, collects `late`
        for result in late:
            try:
                keep(result)
            except ScirError:
                break
        raise
    finally:
        allow_calls()
    count_stored(tasks, arch, model, store, settings, summary)
    return summary


def pending_tasks(
    tasks: list[Task],
    arch: str,
    model: str,
    store: RunStore,
    settings: PipelineSettings,
    redo: bool,
    summary: RunSummary,
) -> list[Task]:
    """The tasks to run now: those without a stored result (or a retried one; all with
    ``redo``), counting the others in ``summary.skipped``. Fails before any call when a
    task's text or track is missing."""
    settings.check_arch(arch)
    for task in tasks:
        problem_text(task, settings.presentation)
        check_architecture(track_of(task), arch)
    pending = []
    for task in tasks:
        stored = (
            None
            if redo
            else store.get_record(
                task.task_id,
                arch,
                settings.presentation,
                model,
                settings.constrained,
                settings.seed,
            )
        )
        if stored is not None and stored.status not in RETRIED_STATUSES:
            summary.skipped += 1
        else:
            pending.append(task)
    return pending


def count_stored(
    tasks: list[Task],
    arch: str,
    model: str,
    store: RunStore,
    settings: PipelineSettings,
    summary: RunSummary,
) -> None:
    """Add every stored result of the tasks in this cell to the summary's totals."""
    ids = {t.task_id for t in tasks}
    summary.backup = settings.backup or ""
    for data in store.results(
        arch=arch,
        presentation=settings.presentation,
        model=model,
        constrained=settings.constrained,
        seed=settings.seed,
    ):
        if data["task_id"] not in ids:
            continue
        summary.total += 1
        summary.correct += int(bool(data["correct"]))
        summary.by_status[data["status"]] = summary.by_status.get(data["status"], 0) + 1
        summary.backup_used += int(used(data))
        summary.correct_with_backup += int(bool(with_backup(data)["correct"]))
