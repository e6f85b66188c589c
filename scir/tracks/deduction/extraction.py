"""Extraction precision and recall of a deduction formalization against the gold premises.

A premise of the formalization is **correct** when it is equivalent to a gold premise; a gold
premise is **recalled** when the formalization's premises entail it; the goal is compared
with the gold goal (equivalent, equivalent to its negation, or neither). Parsed formulas are
reprinted canonically (:mod:`scir.tracks.deduction.formalize`), so a premise written as the
gold one is matched by its text; any other is decided by Prover9 (:mod:`solvers.prover9`,
:data:`SECONDS` per run): a premise against the gold premises over the same symbols (both
ways), a gold premise against all of the formalization's. A limit leaves the item
*undecided* (counted as not matching). Verdicts are cached per process.
"""

from __future__ import annotations

from functools import lru_cache

from scir.errors import SolverResourceLimit, SolverTimeout
from scir.tracks.base import MAX_LISTED, Extraction

SECONDS = 2  # Prover9 per run
MEGS = 200


@lru_cache(maxsize=4096)
def _proves(premises: tuple[str, ...], goal: str) -> bool | None:
    """Prover9's verdict; None when it hits a limit."""
    from solvers.prover9 import proves

    try:
        return proves(list(premises), goal, max_seconds=SECONDS, max_megs=MEGS)
    except (SolverTimeout, SolverResourceLimit):
        return None


@lru_cache(maxsize=4096)
def _symbols(formula: str) -> frozenset[str]:
    """The predicates and constants of a formula."""
    from solvers.fol import parse_formula
    from solvers.fol_ast import signature

    predicates, constants = signature([parse_formula(formula)])
    return frozenset(predicates) | frozenset(constants)


def _equivalent(a: str, b: str) -> bool | None:
    """Whether two formulas are equivalent (None: a limit stopped Prover9)."""
    if a == b:
        return True
    there, back = _proves((a,), b), _proves((b,), a)
    if there is False or back is False:
        return False
    return None if there is None or back is None else True


def extraction(premises: list[str], goal: str, gold: list[str], gold_goal: str) -> Extraction:
    """The formalization's ``premises`` and ``goal`` against the ``gold`` premises and goal
    (all Prover9 text, canonical)."""
    from solvers.prover9 import negated_goal

    undecided = 0
    gold_set = set(gold)
    extra = []
    correct = 0
    for p in premises:
        if p in gold_set:
            correct += 1
            continue
        verdicts = [_equivalent(p, g) for g in gold if _symbols(g) == _symbols(p)]
        if any(v is True for v in verdicts):
            correct += 1
        else:
            undecided += any(v is None for v in verdicts)
            extra.append(p)
    mine = tuple(premises)
    mine_set = set(premises)
    known = frozenset().union(*(_symbols(p) for p in premises))
    missing = []
    for g in gold:
        if g in mine_set:
            continue
        # a premise set can entail a formula over symbols it does not use only by being
        # inconsistent, which a label check reports; not worth a Prover9 run here
        verdict = _proves(mine, g) if mine and _symbols(g) <= known else False
        if verdict is not True:
            undecided += verdict is None
            missing.append(g)
    if _equivalent(goal, gold_goal):
        said = "equivalent"
    elif _equivalent(goal, negated_goal(gold_goal)):
        said = "negated"
    else:
        said = "other"
    return Extraction(
        items=len(premises),
        correct=correct,
        gold_items=len(gold),
        recalled=len(gold) - len(missing),
        missing=missing[:MAX_LISTED],
        extra=extra[:MAX_LISTED],
        goal=said,
        undecided=undecided,
    )
