"""``scir stats FILE``: the Table-2 statistics of a task file, per domain and tier -- tasks,
mean input characters of the clean (NL) and rendered (Obf) texts and their ratio, reference
items, answer distribution, mean chance and mean constrained chance, induction pool sizes, genres
and retries."""

from __future__ import annotations

import json

from scir.commands._common import HelpFormatter
from scir.tasks import read_tasks
from scir.evaluate.taskstats import group_stats, task_stats
from scir.text.stats import format_groups, format_tasks


def add_parser(sub) -> None:
    p = sub.add_parser("stats", help="Table-2 statistics of a task file",
                       formatter_class=HelpFormatter, description=__doc__.split(": ", 1)[1],
                       epilog="Examples:\n  scir stats d.obf.jsonl\n"
                              "  scir stats d.obf.jsonl --per-task\n"
                              "  scir stats d.obf.jsonl --json > stats.json")
    p.add_argument("file", help="task file (JSONL)")
    p.add_argument("--per-task", action="store_true", help="also one row per task")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(func=run)


def run(args) -> int:
    tasks = read_tasks(args.file)
    stats = [task_stats(t) for t in tasks]
    groups = group_stats(stats)
    if args.json:
        data = {"file": args.file, "groups": [g.to_dict() for g in groups]}
        if args.per_task:
            data["per_task"] = [s.__dict__ for s in stats]
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return 0
    print(f"{args.file}: {len(tasks)} tasks")
    print(format_groups(groups))
    if args.per_task:
        print()
        print(format_tasks(stats))
    return 0
