"""``scir stats FILE [FILE ...]``: the Table-2 statistics of task files, per domain and tier
-- tasks, mean input characters of the clean (NL) and rendered (Obf) texts and their ratio,
reference items, answer distribution, mean chance and mean constrained chance, induction pool
sizes, genres and retries; then the obfuscation depth of the rendered tasks (docs/rendering.md):
the share of premises a generic extractor (clean-NL templates and vocabulary only) recovers
from the NL and the Obf text (and the Ctl text of tasks rendered with ``--control``), the
share stated literally in one clause, the share needing a cross-document link, and
sentence-skeleton diversity. Several files are counted together (e.g. one per track); a task
id held by more than one file is counted once, with the record of the last file naming it."""

from __future__ import annotations

import json

from scir.commands._common import HelpFormatter
from scir.rendering.control import as_control
from scir.rendering.depth import group_depth
from scir.reports.statsformat import format_groups, format_tasks
from scir.reports.taskstats import group_stats, task_stats
from scir.text.depth import depth_json, format_depth
from scir.tracks.reading import read_tasks


def add_parser(sub) -> None:
    p = sub.add_parser(
        "stats",
        help="Table-2 statistics of task files",
        formatter_class=HelpFormatter,
        description=__doc__.split(": ", 1)[1],
        epilog="Examples:\n  scir stats d.obf.jsonl\n"
        "  scir stats d.obf.jsonl i.obf.jsonl c.obf.jsonl\n"
        "  scir stats d.obf.jsonl --per-task\n"
        "  scir stats d.obf.jsonl --json > stats.json",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="task files (JSONL)")
    p.add_argument("--per-task", action="store_true", help="also one row per task")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(func=run)


def run(args) -> int:
    by_id: dict = {}
    counts, repeated = [], 0
    for name in args.files:
        tasks = read_tasks(name)
        counts.append((name, len(tasks)))
        for task in tasks:
            repeated += task.task_id in by_id
            by_id.pop(task.task_id, None)  # the last file's record, in its place
            by_id[task.task_id] = task
    stats = [task_stats(t) for t in by_id.values()]
    groups = group_stats(stats)
    rendered = [t for t in by_id.values() if t.documents]
    depth_nl, depth_obf = group_depth(rendered, "nl"), group_depth(rendered, "obf")
    depth_ctl = group_depth([as_control(t) for t in rendered if t.documents_control], "obf")
    if args.json:
        data = {
            "file": args.files[0],
            "files": list(args.files),
            "tasks": len(stats),
            "repeated": repeated,
            "groups": [g.to_dict() for g in groups],
        }
        if depth_obf:
            data["depth"] = {"nl": depth_json(depth_nl), "obf": depth_json(depth_obf)}
            if depth_ctl:
                data["depth"]["ctl"] = depth_json(depth_ctl)
        if args.per_task:
            data["per_task"] = [s.__dict__ for s in stats]
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return 0
    for name, n in counts:
        print(f"{name}: {n} tasks")
    if len(counts) > 1:
        print(
            f"together: {len(stats)} tasks"
            + (
                f" ({repeated} task ids held by more than one file, counted once: the last "
                f"file's record)"
                if repeated
                else ""
            )
        )
    print(format_groups(groups))
    if depth_obf:
        print()
        print("Obfuscation depth (generic extractor: clean-NL templates and vocabulary only):")
        print()
        print(format_depth(depth_nl, "nl"))
        print()
        print(format_depth(depth_obf, "obf"))
        if depth_ctl:
            print()
            print(format_depth(depth_ctl, "ctl"))
    if args.per_task:
        print()
        print(format_tasks(stats))
    return 0
