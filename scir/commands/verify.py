"""``scir verify FILE``: re-establish every answer with the solvers and print a summary."""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from typing import Iterator

from scir import executors
from scir.commands._common import HelpFormatter, progress
from scir.errors import ConfigError, ScirError
from scir.tasks import Task, read_tasks
from scir.tracks import get_track


def add_parser(sub) -> None:
    p = sub.add_parser("verify", help="re-check every answer of a task file with the solvers",
                       formatter_class=HelpFormatter,
                       epilog="Examples:\n"
                              "  scir verify d.jsonl   (exit code 1 names every task whose "
                              "stored answer the solvers do not confirm)\n"
                              "  scir verify big.jsonl --executor local --workers 8\n"
                              "  scir verify big.jsonl --executor ray --ray-address auto")
    p.add_argument("file", help="task file (JSONL)")
    executors.add_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    tasks = read_tasks(args.file)
    for task in tasks:                   # an unknown track fails before any work
        try:
            get_track(task.domain)
        except ConfigError as exc:
            raise ConfigError(exc.message, file=args.file, task_id=task.task_id,
                              field="domain") from exc
    executor = executors.from_arguments(args)
    if executor is None:
        outcomes: Iterator[str | None] = map(verify_one, tasks)
    else:
        outcomes = verify_on(executor, tasks)
    per_domain: Counter = Counter()
    failed = []
    with executor or nullcontext():
        for task, problem in progress(zip(tasks, outcomes), total=len(tasks), desc="verify"):
            if problem is None or not problem.startswith(_RAISED):
                per_domain[task.domain] += 1
            if problem is not None:
                failed.append((task.task_id, problem.removeprefix(_RAISED)))
    for task_id, message in failed:
        print(f"FAILED {task_id}: {message}")
    ok = len(tasks) - len(failed)
    domains = ", ".join(f"{d} {n}" for d, n in sorted(per_domain.items()))
    print(f"verified {ok}/{len(tasks)} tasks ({domains or 'none'}); {len(failed)} failed")
    return 1 if failed else 0


_RAISED = "\0"                   # marks a problem that is an error raised by the track


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


def verify_on(executor: executors.Executor, tasks: list[Task]) -> Iterator[str | None]:
    """:func:`verify_one` of every task, in chunks on ``executor``, in file order."""
    size = executors.chunk_size(len(tasks), executor.workers)
    for chunk in executor.map(verify_chunk, executors.chunks(tasks, size)):
        yield from chunk
