"""Deduction exports: two Prover9 input files per task.

``<task_id>.goal.in`` asks Prover9 for the statement, ``<task_id>.negated.in`` for its
negation. Prover9 proves the goal file of a True task, the negated file of a False task, and
neither for an Unknown task (its search fails, exit code 2).
"""

from __future__ import annotations

from pathlib import Path

from scir.errors import TaskFormatError
from scir.outputs import contained
from scir.tasks import Task, is_safe_task_id, shorten
from scir.tracks.base import load_formal
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.deduction.validate import LABELS

PROVER9_SECONDS = 10  # assign(max_seconds, ...) written into every exported file
PROVER9_MEGS = 200

EXPECTED = {
    ("True", "goal"): "proved (exit 0)",
    ("True", "negated"): "not proved (exit 2)",
    ("False", "goal"): "not proved (exit 2)",
    ("False", "negated"): "proved (exit 0)",
    ("Unknown", "goal"): "not proved (exit 2)",
    ("Unknown", "negated"): "not proved (exit 2)",
}


def prover9_input(task: Task, which: str) -> str:
    """The full Prover9 input of ``task``: ``which`` is ``goal`` or ``negated``.

    Nothing of the record is copied as text: the header is made of the validated task id and a
    label of the fixed set, and every formula is parsed and printed again from its AST (so a
    newline or a Prover9 command in the record cannot reach the file)."""
    from solvers.prover9 import build_input, negated_goal

    if not is_safe_task_id(task.task_id):
        raise TaskFormatError(f"task_id {shorten(task.task_id)} is not a safe id", field="task_id")
    if which not in ("goal", "negated"):
        raise ValueError(f"which must be 'goal' or 'negated', got {which!r}")
    if task.answer not in LABELS:
        raise TaskFormatError(
            f"expected one of {', '.join(LABELS)}, got {shorten(task.answer)}",
            task_id=task.task_id,
            field="answer",
        )
    premises, goal = load_formal(DeductionFormal, task).formulas
    printed = [premise.to_prover9() for premise in premises]
    statement = goal.to_prover9()
    target = statement if which == "goal" else negated_goal(statement)
    header = [
        f"SciR deduction task {task.task_id} ({which} file)",
        f"answer {task.answer}: Prover9 should report {EXPECTED[(task.answer, which)]}",
    ]
    return "".join(f"% {line}\n" for line in header) + build_input(
        printed, target, PROVER9_SECONDS, PROVER9_MEGS
    )


def export_prover9(tasks: list[Task], out_dir: Path) -> int:
    """Write ``<task_id>.goal.in`` and ``<task_id>.negated.in`` per task into ``out_dir``
    (paths checked to stay inside it: :func:`scir.outputs.contained`); returns the number of
    files written. ``scir export`` gives a staging folder, moved into place when complete."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for task in tasks:
        for which in ("goal", "negated"):
            path = contained(out_dir, f"{task.task_id}.{which}.in", task_id=task.task_id)
            path.write_text(prover9_input(task, which), encoding="utf-8")
            written += 1
    return written
