"""Noisy mode (issue #31): Popper's combine stage (its admitted units, dominance, the greedy
fallback and clingo's exact choice) and its size-bounded constraints, on small inputs with
the real solvers."""

from __future__ import annotations

import time

from solvers.ilp import IlpBias
from solvers.ilp.clauses import Clause, Literal
from solvers.ilp.combine import combine_noisy, greedy_units, noisy_unit, undominated_units
from solvers.ilp.constraints import constraint_rule
from solvers.ilp.generate import Generator


def _clause(*preds: str) -> Clause:
    return Clause(Literal("f", (0,)), tuple(Literal(p, (0,)) for p in preds))


def _units(rows: dict[Clause, tuple[range | set, range | set]]) -> dict:
    return {c: (frozenset(p), frozenset(n)) for c, (p, n) in rows.items()}


def test_admitted_units_follow_popper() -> None:
    # Popper d48951f: tp >= size + fp, and fp + size below the best score so far
    assert noisy_unit(5, 2, 3, None) and not noisy_unit(4, 2, 3, None)
    assert noisy_unit(9, 2, 3, 6) and not noisy_unit(9, 3, 3, 6)


def test_dominated_units_are_dropped() -> None:
    small, large, other = _clause("a"), _clause("a", "b"), _clause("c")
    units = _units({small: (range(6), {0}), large: (range(5), {0, 1}),
                    other: (range(3, 9), {0})})
    # large: no smaller positives, more negatives, more literals than small -> dropped
    assert [c for c, _, _ in undominated_units(units)] == [small, other]


def test_exact_choice_beats_the_greedy_one() -> None:
    # ten positives; A covers 1..8 with 3 literals (the greedy first pick: gain 5), B 0..4
    # and C 5..9 with 2 each: greedy stops at A (score 2 + 3 = 5), the optimum is B + C (4)
    a, b, c = _clause("a", "x"), _clause("b"), _clause("c")
    units = _units({a: (range(1, 9), ()), b: (range(5), ()), c: (range(5, 10), ())})
    kept = undominated_units(units)
    assert greedy_units(kept, 10, 5) == ([a], 5)
    chosen, score = combine_noisy(units, 10, 5, time_limit=10)
    assert sorted(chosen, key=str) == sorted([b, c], key=str) and score == 4
    # at most one clause: A alone is the best
    assert combine_noisy(units, 10, 1, time_limit=10) == ([a], 5)
    # the best score so far bounds the units: none with fp + size >= 2 is admitted
    assert combine_noisy(units, 10, 5, time_limit=10, bound=2) is None


def test_sized_constraint_bans_from_its_size_on() -> None:
    bias = IlpBias(head_pred=("f", 1), body_preds=(("a", 1), ("b", 1), ("c", 1)),
                   max_vars=1, max_body=3, allow_singletons=True)
    clause = _clause("a")
    rule = constraint_rule([(0, clause)], "spec", 1, min_size=4)
    assert rule.endswith("size_is(S),S>=4.")
    gen = Generator(bias)
    try:
        gen.add_constraints([rule])
        deadline = time.monotonic() + 30

        def bodies(size: int) -> set[tuple[str, ...]]:
            return {tuple(sorted(lit.pred for lit in p[0][1].body))
                    for p, _ in gen.programs(size, deadline)}

        # size 3 (two body literals): specialisations of f(A) :- a(A) are still there
        assert bodies(3) == {("a", "b"), ("a", "c"), ("b", "c")}
        # size 4: the only program, a, b and c together, contains a(A): banned
        assert bodies(4) == set()
    finally:
        gen.close()
