"""Popper-format export of induction tasks: one folder per task with ``bk.pl``, ``exs.pl`` and
``bias.pl``.

Examples are written in both orientations (``interacts(a,b)`` and ``interacts(b,a)``), so a
directed clause ``interacts(A,B) :- r1(A,P), r2(B,P)`` covers a positive and no negative exactly
when the unordered rule ``{r1, r2}`` is valid. The bias allows the task's own relation types in
bodies, types ``drug``/``protein``, ``max_vars(3)``, ``max_body(2)``, ``max_clauses(1)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from scir.errors import TaskFormatError
from scir.outputs import contained
from scir.tasks import Task, safe_id
from scir.tracks.base import load_formal
from scir.tracks.induction.formal import InductionProblem, Pair
from solvers.prolog.terms import quote_atom

HEAD = "interacts"
# the language bias of the rule shape interacts(A,B) :- r1(A,P), r2(B,P): two body literals,
# three variables, one clause (this export's bias.pl and the ILP cross-check's IlpBias)
MAX_VARS, MAX_BODY, MAX_CLAUSES = 3, 2, 1


def _fact(pred: str, *args: str) -> str:
    return f"{quote_atom(pred)}({','.join(quote_atom(a) for a in args)})."


def both_orientations(pairs: Iterable[Pair]) -> list[tuple[str, str]]:
    """Every pair in both orientations, in a stable order: (a,b), (b,a), ..."""
    out: list[tuple[str, str]] = []
    for a, b in pairs:
        out.append((a, b))
        if a != b:
            out.append((b, a))
    return out


def bk_text(problem: InductionProblem) -> str:
    """``bk.pl``: one fact per background fact, grouped by relation."""
    lines = [f"% background knowledge: {len(problem.facts)} drug-protein facts"]
    for rel, drug, protein in sorted(problem.facts):
        lines.append(_fact(rel, drug, protein))
    return "\n".join(lines) + "\n"


def exs_text(problem: InductionProblem) -> str:
    """``exs.pl``: positives and negatives, each in both orientations."""
    lines = [
        f"% {len(problem.pos)} interacting and {len(problem.neg)} non-interacting pairs, "
        "each in both orientations"
    ]
    for kind, pairs in (("pos", problem.pos), ("neg", problem.neg)):
        for a, b in both_orientations(pairs):
            lines.append(f"{kind}({HEAD}({quote_atom(a)},{quote_atom(b)})).")
    return "\n".join(lines) + "\n"


def bias_text(problem: InductionProblem) -> str:
    """``bias.pl``: the head, the task's relation types, types and size bounds."""
    relations = problem.relations
    lines = [
        f"% language bias: {HEAD}(A,B) :- r1(A,P), r2(B,P) over the task's relation types",
        f"head_pred({HEAD},2).",
        f"type({HEAD},(drug,drug)).",
    ]
    for rel in relations:
        lines.append(f"body_pred({quote_atom(rel)},2).")
    for rel in relations:
        lines.append(f"type({quote_atom(rel)},(drug,protein)).")
    lines += [f"max_vars({MAX_VARS}).", f"max_body({MAX_BODY}).", f"max_clauses({MAX_CLAUSES})."]
    return "\n".join(lines) + "\n"


def export_popper(tasks: list[Task], out: Path) -> int:
    """Write ``<out>/<task_id>/{bk.pl,exs.pl,bias.pl}`` for every task (paths checked to stay
    inside ``out``: :func:`scir.outputs.contained`); returns files written. The files are
    printed from the checked problem (identifiers only), never copied from the record."""
    written = 0
    for task in tasks:
        try:
            problem = load_formal(InductionProblem, task)
        except TaskFormatError as exc:
            exc.task_id = safe_id(task.task_id)
            raise
        texts = (
            ("bk.pl", bk_text(problem)),
            ("exs.pl", exs_text(problem)),
            ("bias.pl", bias_text(problem)),
        )
        folder = contained(out, task.task_id, task_id=task.task_id)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in texts:
            contained(out, task.task_id, name, task_id=task.task_id).write_text(
                text, encoding="utf-8"
            )
            written += 1
    return written
