"""The Prover9 side of the deduction checks, over :mod:`solvers.prover9`: the label from two
runs of the binary (on the goal and on its negation) and the export format.

Only exit code 0 counts as proved and only exit code 2 (search failed) as not proved; any
limit raises. The inputs are those of :func:`solvers.prover9.build_input`, which switches
Prover9's ``auto_denials`` off (with it, a Horn problem with several negative clauses may
raise ``max_proofs`` and end with "sos_empty", exit 2, although a proof was found).
"""

from __future__ import annotations

from typing import Sequence

from scir.tracks.deduction.logic import Formula

MAX_SECONDS = 10
MAX_MEGS = 200


def problem_text(premises: Sequence[str], goal: str, max_seconds: int = MAX_SECONDS,
                 max_megs: int = MAX_MEGS, header: Sequence[str] = ()) -> str:
    """A complete Prover9 input (the export format): ``header`` as comment lines, then
    :func:`solvers.prover9.build_input` of the premises as assumptions and the goal.

    Raises SolverInputError when a formula does not parse."""
    from solvers.prover9 import build_input

    lines = [f"% {line}" for line in header]
    return "".join(f"{line}\n" for line in lines) + build_input(premises, goal, max_seconds,
                                                               max_megs)


def negation_text(goal: str) -> str:
    """``-(goal)`` with its free variables read universally (SolverInputError when ``goal``
    does not parse)."""
    from solvers.prover9 import negated_goal

    return negated_goal(goal)


def entails(premises: Sequence[str], goal: str, max_seconds: int = MAX_SECONDS) -> str:
    """``True`` / ``False`` / ``Unknown`` for premises and a goal given as Prover9 strings
    (:func:`solvers.prover9.entails`).

    Every formula is parsed first (SolverInputError naming ``assumptions[i]`` or ``goal``).
    Raises SolverTimeout / SolverResourceLimit on a limit, SolverError when Prover9 proves
    both the goal and its negation (inconsistent premises).
    """
    from solvers.prover9 import entails as prover9_entails

    return prover9_entails(premises, goal, max_seconds=max_seconds, max_megs=MAX_MEGS)


def label(premises: Sequence[Formula], statement: Formula,
          max_seconds: int = MAX_SECONDS) -> str:
    """:func:`entails` for fragment formulas."""
    return entails([p.to_prover9() for p in premises], statement.to_prover9(), max_seconds)
