"""The combine stage: the smallest set of good clauses that together cover every positive
example (classic mode, ``asp/ilp_combine.lp``), or the set of least minimum description
length (noisy mode, ``asp/ilp_combine_noisy.lp``), found by clingo; with recursion, the
smallest complete and consistent union of two good programs (:func:`unite_pairs`)."""

from __future__ import annotations

from typing import Callable

from solvers.asp import AspProgram
from solvers.ilp.clauses import Clause, sort_key

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


def _select(encoding: str, candidates: list[Clause], covers: list[frozenset[int]],
            extra: dict[str, list], n_pos: int, max_clauses: int,
            time_limit: float) -> list[Clause] | None:
    """The optimal selection of ``candidates`` (rule R = candidate R, covering the positives
    ``covers[R]``) under ``asp/<encoding>.lp``; None when there is none."""
    program = AspProgram().load(encoding)
    program.add_facts("rule", [(rank, clause.size, rank) for rank, clause in enumerate(candidates)])
    program.add_facts("covers", [(rank, e) for rank, cov in enumerate(covers) for e in sorted(cov)])
    for name, rows in extra.items():
        program.add_facts(name, rows)
    program.add_facts("example", range(n_pos))
    program.add_facts("max_clauses", [max_clauses])
    # in this process: the program grounds in time linear in its facts (the worker process
    # would cost its start, 0.1 s, and the facts sent over a pipe)
    models = program.models(optimize=True, time_limit=time_limit, in_process=True)
    if not models:
        return None
    choices = sorted(sorted(rank for (rank,) in model.by_name("select")) for model in models)
    return [candidates[rank] for rank in choices[0]]


def combine(good: dict[Clause, frozenset[int]], n_pos: int, max_clauses: int,
            time_limit: float) -> list[Clause] | None:
    """The optimal cover (fewest literals, then smallest rank sum) of positives
    ``0 .. n_pos-1`` by at most ``max_clauses`` of the ``good`` clauses (clause -> positives
    covered), or None when there is none. Raises SolverTimeout past ``time_limit`` s."""
    candidates = undominated(good)
    union = frozenset().union(*(good[c] for c in candidates)) if candidates else frozenset()
    if len(union) < n_pos:
        return None
    return _select("ilp_combine", candidates, [good[c] for c in candidates], {}, n_pos,
                   max_clauses, time_limit)


def combine_noisy(units: dict[Clause, tuple[frozenset[int], frozenset[int]]], n_pos: int,
                  max_clauses: int, time_limit: float) -> tuple[list[Clause], int] | None:
    """The set of at most ``max_clauses`` ``units`` (clause -> (positives, negatives)
    covered) of least score (positives missed + negatives covered + literals) and that
    score, or None when no unit is given. Raises SolverTimeout past ``time_limit`` s."""
    if not units:
        return None
    candidates = sorted(units, key=sort_key)
    negs = [(rank, e) for rank, c in enumerate(candidates) for e in sorted(units[c][1])]
    chosen = _select("ilp_combine_noisy", candidates, [units[c][0] for c in candidates],
                     {"covers_neg": negs}, n_pos, max_clauses, time_limit)
    if chosen is None:
        return None
    pos = frozenset().union(*(units[c][0] for c in chosen)) if chosen else frozenset()
    neg = frozenset().union(*(units[c][1] for c in chosen)) if chosen else frozenset()
    return chosen, (n_pos - len(pos)) + len(neg) + sum(c.size for c in chosen)



def unite_pairs(programs: dict[frozenset[Clause], frozenset[int]],
                new: list[frozenset[Clause]], n_pos: int, max_clauses: int,
                bound: int | None, test: Callable[[list[Clause]], tuple[bool, frozenset[int]]],
                limit: int = UNITE_LIMIT) -> list[Clause] | None:
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
    ordered = sorted(pending, key=lambda u: (sum(c.size for c in u),
                                             sorted(sort_key(c) for c in u)))
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
