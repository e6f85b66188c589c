"""``scir verify FILE``: re-establish every answer with the solvers and print a summary."""

from __future__ import annotations

from collections import Counter

from scir.commands._common import HelpFormatter, progress
from scir.errors import ConfigError, ScirError
from scir.tasks import read_tasks
from scir.tracks import get_track


def add_parser(sub) -> None:
    p = sub.add_parser("verify", help="re-check every answer of a task file with the solvers",
                       formatter_class=HelpFormatter,
                       epilog="Example: scir verify d.jsonl   (exit code 1 names every task "
                              "whose stored answer the solvers do not confirm)")
    p.add_argument("file", help="task file (JSONL)")
    p.set_defaults(func=run)


def run(args) -> int:
    tasks = read_tasks(args.file)
    per_domain: Counter = Counter()
    failed = []
    for task in progress(tasks, total=len(tasks), desc="verify"):
        try:
            track = get_track(task.domain)
        except ConfigError as exc:
            raise ConfigError(exc.message, file=args.file, task_id=task.task_id,
                              field="domain") from exc
        try:
            check = track.verify(task)
        except ScirError as exc:
            failed.append((task.task_id, f"{type(exc).__name__}: {exc}"))
            continue
        per_domain[task.domain] += 1
        if not check.ok:
            failed.append((task.task_id, check.message or
                           f"stored answer {check.expected!r}, solvers say {check.found!r}"))
    for task_id, message in failed:
        print(f"FAILED {task_id}: {message}")
    ok = len(tasks) - len(failed)
    domains = ", ".join(f"{d} {n}" for d, n in sorted(per_domain.items()))
    print(f"verified {ok}/{len(tasks)} tasks ({domains or 'none'}); {len(failed)} failed")
    return 1 if failed else 0
