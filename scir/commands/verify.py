"""``scir verify FILE``: re-establish every answer with the solvers and print a summary."""

from __future__ import annotations

from scir import api, executors
from scir.api import verify_chunk, verify_one
from scir.commands._common import HelpFormatter, progress

__all__ = ["add_parser", "run", "verify_chunk", "verify_one"]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check every answer of a task file with the solvers",
        formatter_class=HelpFormatter,
        epilog="Examples:\n"
        "  scir verify d.jsonl   (exit code 1 names every task whose "
        "stored answer the solvers do not confirm)\n"
        "  scir verify big.jsonl --executor local --workers 8\n"
        "  scir verify big.jsonl --executor ray --ray-address auto",
    )
    p.add_argument("file", help="task file (JSONL)")
    executors.add_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    found = api.verify(
        args.file,
        executor=executors.from_arguments(args),
        progress=lambda items, total: progress(items, total=total, desc="verify"),
    )
    for task_id, message in found.failed:
        print(f"FAILED {task_id}: {message}")
    domains = ", ".join(f"{d} {n}" for d, n in sorted(found.per_track.items()))
    print(
        f"verified {found.verified}/{found.total} tasks ({domains or 'none'}); "
        f"{len(found.failed)} failed"
    )
    return 0 if found.ok else 1
