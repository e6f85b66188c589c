"""Deduction exports: two Prover9 input files per task.

``<task_id>.goal.in`` asks Prover9 for the statement, ``<task_id>.negated.in`` for its
negation. Prover9 proves the goal file of a True task, the negated file of a False task, and
neither for an Unknown task (its search fails, exit code 2).
"""

from __future__ import annotations

from pathlib import Path

from scir.errors import TaskFormatError
from scir.tasks import Task

PROVER9_SECONDS = 10     # assign(max_seconds, ...) written into every exported file
PROVER9_MEGS = 200

EXPECTED = {
    ("True", "goal"): "proved (exit 0)", ("True", "negated"): "not proved (exit 2)",
    ("False", "goal"): "not proved (exit 2)", ("False", "negated"): "proved (exit 0)",
    ("Unknown", "goal"): "not proved (exit 2)", ("Unknown", "negated"): "not proved (exit 2)",
}


def prover9_input(task: Task, which: str) -> str:
    """The full Prover9 input of ``task``: ``which`` is ``goal`` or ``negated``."""
    formal = task.formal
    premises, goal = formal.get("premises"), formal.get("goal")
    if not (isinstance(premises, list) and all(isinstance(p, str) for p in premises)
            and isinstance(goal, str)):
        raise TaskFormatError("deduction tasks need formal.premises and formal.goal",
                              task_id=task.task_id, field="formal")
    from solvers.prover9 import build_input, negated_goal

    target = goal if which == "goal" else negated_goal(goal)
    header = [f"SciR deduction task {task.task_id} ({which} file)",
              f"answer {task.answer}: Prover9 should report "
              f"{EXPECTED.get((task.answer, which), 'unknown')}"]
    return "".join(f"% {line}\n" for line in header) + build_input(
        premises, target, PROVER9_SECONDS, PROVER9_MEGS)


def export_prover9(tasks: list[Task], out_dir: Path) -> int:
    """Write ``<task_id>.goal.in`` and ``<task_id>.negated.in`` per task into ``out_dir``;
    returns the number of files written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for task in tasks:
        for which in ("goal", "negated"):
            (out_dir / f"{task.task_id}.{which}.in").write_text(prover9_input(task, which),
                                                                encoding="utf-8")
            written += 1
    return written
