"""``scir check TASKS SOURCE --task ID ...``: check hand-written work against tasks of any
track -- an induction program defining ``interacts/2`` (run in the sandbox), a deduction
formalization (Prover9), a causal edge list (option match and BIC score). ``check-rule
TASKS --task ID "RULE"`` is the same check with the source given as text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError, ScirError, SolverError
from scir.tasks import Task
from scir.tracks.reading import read_tasks

FORMATS = (
    "induction: a Prolog program defining interacts/2 (any clauses; the bodies may use "
    "the task's relation types, helper predicates of the program and the whitelisted "
    "built-ins); run in the sandbox.\n"
    "deduction: one 'premise: FORMULA.' per line and one 'goal: FORMULA.' line, "
    "Prover9 syntax over the task's predicates ('%' starts a comment line); or a Prover9 "
    "input file (formulas(assumptions) and formulas(goals) lists).\n"
    "causal: directed edges 'A -> B' separated by newlines, ';' or ',' ('#' comments); "
    "the task's known edges are added; an open task's check is exact match of XYZ's edges."
)
EXIT = (
    "Exit code 0: the check passes for every task (induction: the program is valid; "
    "deduction: its label is the gold label; causal: it matches the gold option, or for an "
    "open task states exactly the gold edge set); 1: it "
    "does not for some task; 2: bad input (the source, the task file or an option), "
    "including a program the sandbox stops."
)


def _common(p) -> None:
    p.add_argument(
        "--task",
        action="append",
        metavar="ID",
        dest="tasks",
        help="task id in TASKS (repeat for several tasks); default: the only task of TASKS",
    )
    p.add_argument("--json", action="store_true", help="print the checks as one JSON object")
    p.add_argument(
        "--time-limit",
        type=float,
        default=5.0,
        help="seconds per sandboxed run (induction) and per Prover9 call (deduction)",
    )
    p.add_argument(
        "--inference-limit",
        type=int,
        default=5_000_000,
        help="Prolog inferences per sandboxed run (induction)",
    )
    p.set_defaults(func=run)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="check a hand-written rule, formalization or graph against tasks",
        formatter_class=HelpFormatter,
        description="Check hand-written work against one or more tasks of a task file; the "
        "track of each task says how SOURCE is read:\n" + FORMATS,
        epilog="Examples:\n"
        "  scir check i.jsonl rule.pl --task induction-d2p2-7-0\n"
        "  scir check d.jsonl -e 'premise: all x (a(x) -> b(x)).' --task ID\n"
        "  scir check c.jsonl graph.txt --task causal-n5c1-1-0 --task causal-n5c1-1-1 "
        "--json\n" + EXIT,
    )
    p.add_argument("file", metavar="TASKS", help="task file (JSONL)")
    p.add_argument(
        "source", metavar="SOURCE", nargs="?", help="the hand-written file ('-': standard input)"
    )
    p.add_argument("-e", "--text", help="the hand-written text itself, instead of SOURCE")
    _common(p)
    alias = sub.add_parser(
        "check-rule",
        help="alias of check, the rule given as text",
        formatter_class=HelpFormatter,
        description="`scir check TASKS --task ID -e RULE`: the rule (or formalization, or "
        "edge list) given as text; a Prolog rule's final full stop may be "
        "left out.",
        epilog="Example:\n  scir check-rule i.jsonl --task induction-d2p2-7-0 "
        '"interacts(A,B) :- substrate_of(A,P), inhibits_enzyme(B,P)."\n' + EXIT,
    )
    alias.add_argument("file", metavar="TASKS", help="task file (JSONL)")
    alias.add_argument("rule", metavar="RULE", help="the text to check")
    _common(alias)


def _source(args) -> tuple[str, str | None]:
    """The text to check and the file it came from (None for text on the command line)."""
    rule = getattr(args, "rule", None)
    if rule is not None:
        stripped = rule.rstrip()
        if ":-" in stripped and not stripped.endswith("."):
            stripped += "."  # a Prolog rule without its full stop
        return stripped, None
    if (args.text is None) == (args.source is None):
        raise ConfigError(
            "give the hand-written SOURCE file or -e TEXT (exactly one)", field="source"
        )
    if args.text is not None:
        return args.text, None
    if args.source == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(args.source)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path)
        ) from exc


def _select(path: str, ids: list[str] | None) -> list[Task]:
    tasks = read_tasks(path)
    by_id = {t.task_id: t for t in tasks}
    if not ids:
        if len(tasks) != 1:
            raise ConfigError(
                f"the file has {len(tasks)} tasks; name one with --task ID", file=path, field="task"
            )
        return tasks
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise ConfigError(
            f"no task {missing[0]!r} in the file ({len(tasks)} tasks)", file=path, field="task"
        )
    return [by_id[i] for i in dict.fromkeys(ids)]


def run(args) -> int:
    from scir.tracks import get_track
    from scir.tracks.checking import CheckContext, checker_for

    text, origin = _source(args)
    tasks = _select(args.file, args.tasks)
    if not args.time_limit > 0:
        raise ConfigError("--time-limit must be positive", field="time-limit")
    if args.inference_limit < 1:
        raise ConfigError("--inference-limit must be positive", field="inference-limit")
    checks = []
    with CheckContext(time_limit=args.time_limit, inference_limit=args.inference_limit) as context:
        for task in tasks:
            check = checker_for(get_track(task.domain))
            try:
                checks.append(check(task, text, context))
            except ScirError as exc:
                if (
                    exc.file is None
                    and origin is not None
                    and (exc.line is not None or isinstance(exc, SolverError))
                ):
                    exc.file = origin  # about the source (positions in it)
                if exc.task_id is None:
                    exc.task_id = task.task_id
                raise
    passed = all(c.passed for c in checks)
    if args.json:
        print(
            json.dumps(
                {"passed": passed, "checks": [c.to_json() for c in checks]},
                ensure_ascii=False,
                indent=1,
            )
        )
    else:
        for c in checks:
            print(f"task:       {c.task_id} ({c.track})")
            for label, value in c.lines:
                print(f"{label + ':':<11} {value}")
            print(f"verdict:    {'PASS' if c.passed else 'FAIL'} ({c.summary})")
            if len(checks) > 1:
                print()
        if len(checks) > 1:
            print(f"{sum(c.passed for c in checks)} of {len(checks)} checks pass")
    return 0 if passed else 1
