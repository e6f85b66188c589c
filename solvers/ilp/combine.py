"""The combine stage: the smallest set of good clauses that together cover every positive
example (classic mode, ``asp/ilp_combine.lp``), or the set of least minimum description
length (noisy mode, ``asp/ilp_combine_noisy.lp``), found by clingo; with recursion, the
smallest complete and consistent union of two good programs (:func:`unite_pairs`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from solvers.asp import AspProgram
from solvers.errors import SolverTimeout
from solvers.ilp.clauses import Clause, sort_key

# clingo's options for the noisy combine stage (see asp/ilp_combine_noisy.lp)
NOISY_SOLVING = ("--opt-strategy=usc",)
# Covering facts the noisy combine stage reads, grounds and solves per second, at least
# (measured on noisy-drugdrug, 2-core machine: 500,000 facts in 9.5 s, 280,000 in 5.4 s)
FACTS_PER_SECOND = 50_000
# Unions of good recursive programs tested per combine call (unite_pairs).
UNITE_LIMIT = 2000


def undominated(good: dict[Clause, frozenset[int]]) -> list[Clause]:
    """Good clauses sorted by :func:`sort_key`, without any clause whose positives are
    covered by an earlier (no larger) clause: such a clause is never needed."""
    kept: list[Clause] = []
    for clause in sorted(good, key=sort_key):
        if not any(good[clause] <= good[other] for other in kept):
            kept.append(clause)
    return kept


def _select(
    encoding: str,
    candidates: list[Clause],
    covers: list[frozenset[int]],
    extra: dict[str, list],
    n_pos: int,
    max_clauses: int,
    time_limit: float,
    best_so_far: bool = False,
    arguments: tuple[str, ...] = (),
) -> list[Clause] | None:
    """The optimal selection of ``candidates`` (rule R = candidate R, covering the positives
    ``covers[R]``) under ``asp/<encoding>.lp``; None when there is none. ``best_so_far``:
    at the time limit, the best selection found so far instead of a SolverTimeout."""
    program = AspProgram(arguments).load(encoding)
    program.add_facts("rule", [(rank, clause.size, rank) for rank, clause in enumerate(candidates)])
    program.add_facts("covers", [(rank, e) for rank, cov in enumerate(covers) for e in sorted(cov)])
    for name, rows in extra.items():
        program.add_facts(name, rows)
    program.add_facts("example", range(n_pos))
    program.add_facts("max_clauses", [max_clauses])
    # in this process: the program grounds in time linear in its facts (the worker process
    # would cost its start, 0.1 s, and the facts sent over a pipe)
    models = program.models(
        limit=1 if best_so_far else 0,
        optimize=True,
        time_limit=time_limit,
        in_process=True,
        best_so_far=best_so_far,
    )
    if not models:
        return None
    choices = sorted(sorted(rank for (rank,) in model.by_name("select")) for model in models)
    return [candidates[rank] for rank in choices[0]]


def combine(
    good: dict[Clause, frozenset[int]], n_pos: int, max_clauses: int, time_limit: float
) -> list[Clause] | None:
    """The optimal cover (fewest literals, then smallest rank sum) of positives
    ``0 .. n_pos-1`` by at most ``max_clauses`` of the ``good`` clauses (clause -> positives
    covered), or None when there is none. Raises SolverTimeout past ``time_limit`` s."""
    candidates = undominated(good)
    union = frozenset().union(*(good[c] for c in candidates)) if candidates else frozenset()
    if len(union) < n_pos:
        return None
    return _select(
        "ilp_combine", candidates, [good[c] for c in candidates], {}, n_pos, max_clauses, time_limit
    )


def noisy_unit(pos: int, neg: int, size: int, bound: int | None) -> bool:
    """Whether a non-recursive clause covering ``pos`` positives and ``neg`` negatives with
    ``size`` literals joins the noisy combine stage, as in Popper (d48951f, ``loop.py``:
    ``tp >= prog_size + fp and fp + prog_size < best_mdl``): its positives pay for its
    literals and negatives (on its own it scores no worse than the empty program), and its
    negatives and literals alone stay below the best score so far (``bound``), which every
    program containing it would otherwise reach."""
    return pos >= size + neg and (bound is None or neg + size < bound)


def _bits(examples: frozenset[int]) -> int:
    value = 0
    for e in examples:
        value |= 1 << e
    return value


def undominated_units(
    units: dict[Clause, tuple[frozenset[int], frozenset[int]]], seconds: float | None = None
) -> list[tuple[Clause, int, int]]:
    """``units`` sorted by :func:`sort_key` as (clause, positives, negatives), example sets
    as bit masks, without any unit dominated by an earlier one (no larger, covering every
    positive it covers and no negative it does not): swapping the earlier one in never
    makes a program's score worse. (noisy-alzheimer_mem at 60 s: 1,315 admitted units,
    117 undominated.) Past ``seconds`` the remaining units are kept unchecked (the check is
    quadratic: thousands of units on noisy-drugdrug)."""
    end = None if seconds is None else time.monotonic() + seconds
    kept: list[tuple[Clause, int, int]] = []
    for clause in sorted(units, key=sort_key):
        pos, neg = _bits(units[clause][0]), _bits(units[clause][1])
        if (end is not None and time.monotonic() > end) or not any(
            pos & ~p == 0 and n & ~neg == 0 for _, p, n in kept
        ):
            kept.append((clause, pos, neg))
    return kept


def greedy_units(
    kept: list[tuple[Clause, int, int]], n_pos: int, max_clauses: int
) -> tuple[list[Clause], int]:
    """A set of units chosen greedily (each step the unit lowering the score most; ties to
    the earlier one) and its score: the fallback when the exact combination does not finish
    in its time (noisy-drugdrug: 2,786 units, no set found by clingo in 9 s)."""
    chosen: list[Clause] = []
    pos = neg = 0
    score = n_pos
    left = list(kept)
    while left and len(chosen) < max_clauses:
        gains = [(p & ~pos).bit_count() - (n & ~neg).bit_count() - c.size for c, p, n in left]
        top = max(gains)
        if top <= 0:
            break
        i = gains.index(top)
        clause, p, n = left.pop(i)
        chosen.append(clause)
        pos, neg, score = pos | p, neg | n, score - top
    return chosen, score


def combine_noisy(
    units: dict[Clause, tuple[frozenset[int], frozenset[int]]],
    n_pos: int,
    max_clauses: int,
    time_limit: float,
    bound: int | None = None,
) -> tuple[list[Clause], int] | None:
    """The set of at most ``max_clauses`` ``units`` (clause -> (positives, negatives)
    covered) of least score (positives missed + negatives covered + literals) and that
    score, among the units :func:`noisy_unit` admits below ``bound``; None when none is
    admitted. Greedily first (:func:`greedy_units`), then exactly by clingo over the units
    that can beat the greedy set; when clingo does not finish within ``time_limit`` s, the
    best set it found, or else the greedy one (Popper's combiner, too, keeps its best
    program when time runs out)."""
    start = time.monotonic()
    kept = undominated_units(
        {c: cov for c, cov in units.items() if noisy_unit(len(cov[0]), len(cov[1]), c.size, bound)},
        time_limit / 2,
    )
    time_limit = max(time_limit - (time.monotonic() - start), 0.001)
    if not kept:
        return None
    greedy, greedy_score = greedy_units(kept, n_pos, max_clauses)
    # a unit whose negatives and literals alone reach the greedy score is in no better set
    candidates = [c for c, _, n in kept if n.bit_count() + c.size < greedy_score]
    chosen = None
    facts = sum(len(units[c][0]) + len(units[c][1]) for c in candidates)
    # clingo's grounding cannot be interrupted: skip the exact choice when its facts would
    # take longer than the time limit to read and ground
    if candidates and facts <= time_limit * FACTS_PER_SECOND:
        negs = [(rank, e) for rank, c in enumerate(candidates) for e in sorted(units[c][1])]
        try:
            chosen = _select(
                "ilp_combine_noisy",
                candidates,
                [units[c][0] for c in candidates],
                {"covers_neg": negs},
                n_pos,
                max_clauses,
                time_limit,
                best_so_far=True,
                arguments=NOISY_SOLVING,
            )
        except SolverTimeout:
            chosen = None
    if chosen is None:
        return greedy, greedy_score
    pos = frozenset().union(*(units[c][0] for c in chosen)) if chosen else frozenset()
    neg = frozenset().union(*(units[c][1] for c in chosen)) if chosen else frozenset()
    score = (n_pos - len(pos)) + len(neg) + sum(c.size for c in chosen)
    return (chosen, score) if score <= greedy_score else (greedy, greedy_score)


def unite_pairs(
    programs: dict[frozenset[Clause], frozenset[int]],
    new: list[frozenset[Clause]],
    n_pos: int,
    max_clauses: int,
    bound: int | None,
    test: Callable[[list[Clause]], tuple[bool, frozenset[int]]],
    limit: int = UNITE_LIMIT,
) -> list[Clause] | None:
    """Recursion: unions of two good programs (canonical clause sets -> positives covered),
    one of them in ``new``, with at most ``max_clauses`` clauses and fewer literals than
    ``bound``, tested (``test(clauses) -> (consistent, positives)``) in order of size: the
    first complete and consistent one, or None. A union of recursive programs may cover
    more than its parts together (a base clause serves both recursive clauses), so unions
    are tested, not predicted; a consistent union covering more than each part becomes a
    good program itself (added to ``programs``), so later unions can extend it. At most
    ``limit`` unions are tested per call."""
    pending: dict[frozenset[Clause], None] = {}
    for first in new:
        for second in programs:
            union = first | second
            if union == first or union == second or union in programs or len(union) > max_clauses:
                continue
            if bound is not None and sum(c.size for c in union) >= bound:
                continue
            pending[union] = None
    ordered = sorted(
        pending, key=lambda u: (sum(c.size for c in u), sorted(sort_key(c) for c in u))
    )
    for union in ordered[:limit]:
        clauses = sorted(union, key=sort_key)
        consistent, pos = test(clauses)
        if not consistent:
            continue
        if len(pos) == n_pos:
            return clauses
        if all(not pos <= programs[part] for part in programs if part < union):
            programs[union] = pos
    return None
