"""The Prover9 side of the deduction checks: one input format (also the export format) and
the label from two runs of the binary, on the goal and on its negation.

Only exit code 0 counts as proved and only exit code 2 (search failed) as not proved; any
limit raises. Prover9's ``auto_denials`` is switched off: for a Horn problem with several
negative clauses it raises ``max_proofs`` and then ends with "sos_empty" (exit 2) although a
proof was found; without it a proof always ends the run with exit 0.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Sequence

from scir.errors import SolverError, SolverInputError, SolverResourceLimit, SolverTimeout
from scir.tracks.deduction.logic import Formula

MAX_SECONDS = 10
MAX_MEGS = 200
SETTINGS = ("% auto_denials off: a proof always ends the run with exit code 0",
            "clear(auto_denials).")


def problem_text(premises: Sequence[str], goal: str, max_seconds: int = MAX_SECONDS,
                 max_megs: int = MAX_MEGS, header: Sequence[str] = ()) -> str:
    """A complete Prover9 input: ``header`` comment lines, the settings, the premises as
    assumptions and the goal. The formulas must be valid Prover9 text without the final dot
    (as ``Formula.to_prover9`` and ``solvers.fol.to_prover9`` print them)."""
    lines = [f"% {line}" for line in header]
    lines += [*SETTINGS, f"assign(max_seconds, {int(max_seconds)}).",
              f"assign(max_megs, {int(max_megs)}).", "", "formulas(assumptions)."]
    lines += [f"{p}." for p in premises]
    lines += ["end_of_list.", "", "formulas(goals).", f"{goal}.", "end_of_list."]
    return "\n".join(lines) + "\n"


def negation_text(goal: str) -> str:
    """``-(goal)`` with its free variables read universally, printed by ``solvers.fol``
    (raises SolverInputError when ``goal`` does not parse)."""
    from solvers.fol import Not, parse_formula, to_prover9, universal_closure

    return to_prover9(Not(universal_closure(parse_formula(goal))))


def _proved(result, what: str) -> bool:
    from solvers.prover9 import LIMITS, ProverStatus

    if result.status is ProverStatus.PROVED:
        return True
    if result.status is ProverStatus.NOT_PROVED:
        return False
    detail = f"Prover9 on the {what}: {result.message}"
    if result.status is ProverStatus.TIMEOUT:
        raise SolverTimeout(detail)
    if result.status in LIMITS:
        raise SolverResourceLimit(detail)
    if result.status is ProverStatus.INPUT_ERROR:
        raise SolverInputError(detail)
    raise SolverError(detail)


def _label(premises: Sequence[str], goal: str, negated: str, max_seconds: int) -> str:
    from solvers.prover9 import run_file

    outcome = []
    with tempfile.TemporaryDirectory(prefix="scir-deduction-") as folder:
        for what, target in (("goal", goal), ("negated goal", negated)):
            path = Path(folder) / f"{what.replace(' ', '_')}.in"
            path.write_text(problem_text(premises, target, max_seconds), encoding="utf-8")
            result = run_file(path, timeout=2.0 * max_seconds + 5.0)
            outcome.append(_proved(result, what))
    proved, refuted = outcome
    if proved and refuted:
        raise SolverError("the premises are inconsistent: Prover9 proves the goal and its "
                          "negation")
    return "True" if proved else "False" if refuted else "Unknown"


def entails(premises: Sequence[str], goal: str, max_seconds: int = MAX_SECONDS) -> str:
    """``True`` / ``False`` / ``Unknown`` for premises and a goal given as Prover9 strings.

    Every formula is parsed first (``solvers.fol``; SolverInputError naming ``premises[i]``
    or ``goal``) and sent in canonical form. Raises SolverTimeout / SolverResourceLimit on a
    limit, SolverError when Prover9 proves both the goal and its negation.
    """
    from solvers.fol import Not, parse_formula, to_prover9, universal_closure

    def checked(text: str, field: str):
        try:
            return parse_formula(text)
        except SolverInputError as exc:
            raise SolverInputError(exc.message, line=exc.line, column=exc.column,
                                   field=field) from exc

    canonical = [to_prover9(checked(p, f"premises[{i}]")) for i, p in enumerate(premises)]
    parsed = checked(goal, "goal")
    return _label(canonical, to_prover9(parsed), to_prover9(Not(universal_closure(parsed))),
                  max_seconds)


def label(premises: Sequence[Formula], statement: Formula,
          max_seconds: int = MAX_SECONDS) -> str:
    """:func:`entails` for fragment formulas, whose text is canonical by construction (so it
    is not parsed again); the negated run gets ``-(statement)``."""
    goal = statement.to_prover9()
    return _label([p.to_prover9() for p in premises], goal, negation_text(goal), max_seconds)
