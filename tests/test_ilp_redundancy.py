"""Pruning that Popper's recursive search relies on, here with real clingo and SWI-Prolog:
clauses with a redundant literal (never tested, banned), the explanation of a recursive
program covering no positive (``Tester.program_cores``) and the redundancy constraints it
feeds (``red``, ``rec_spec``: non-ground rules and their ground nogoods)."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.ilp import load_problem
from solvers.ilp.bias import IlpBias
from solvers.ilp.clauses import Clause, Literal, canonical, redundant_literal
from solvers.ilp.constraints import constraint_rule, redundancy_nogoods
from solvers.ilp.generate import Generator
from solvers.ilp.search import SearchState, search
from solvers.ilp import tester as ilp_tester

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ilp"


def _c(head: tuple, *body: tuple) -> Clause:
    return Clause(Literal(head[0], head[1:]), tuple(Literal(b[0], b[1:]) for b in body))


# ------------------------------------------------------------------ redundant literals

def _redundant_by_brute_force(clause: Clause) -> bool:
    """Independent check of :func:`redundant_literal` (kept as a second implementation):
    some body literal L such that some mapping of the body-only variables onto the clause's
    variables sends every body literal into the body without L (all mappings tried)."""
    head = clause.head_vars
    own = clause.body_only_vars
    variables = sorted(head | set(own))
    for dropped in clause.body:
        rest = set(clause.body) - {dropped}
        for image in itertools.product(variables, repeat=len(own)):
            theta = dict(zip(own, image))
            if all(lit.rename(theta) in rest for lit in clause.body):
                return True
    return False


def test_redundant_literal_examples() -> None:
    # f(A,B) :- tail(A,C), tail(A,D), f(D,B): tail(A,C) maps onto tail(A,D)
    clause = _c(("f", 0, 1), ("tail", 0, 2), ("tail", 0, 3), ("f", 3, 1))
    assert redundant_literal(clause) == Literal("tail", (0, 2))
    assert redundant_literal(_c(("f", 0, 1), ("tail", 0, 2), ("f", 2, 1))) is None
    # a path of two edges and a direct edge to its end: nothing folds
    assert redundant_literal(_c(("f", 0, 1), ("e", 0, 2), ("e", 2, 3), ("e", 0, 3))) is None
    # two paths of length two from A to B: one folds onto the other
    assert redundant_literal(_c(("f", 0, 1), ("e", 0, 2), ("e", 2, 1), ("e", 0, 3),
                                ("e", 3, 1))) is not None
    # head variables are never renamed: p(A) and p(B) are both needed
    assert redundant_literal(_c(("f", 0, 1), ("p", 0), ("p", 1))) is None


_LITERALS = st.tuples(st.sampled_from(["p", "q"]), st.integers(0, 4), st.integers(0, 4))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LITERALS, min_size=1, max_size=5, unique=True))
def test_redundant_literal_agrees_with_brute_force(body: list) -> None:
    clause = _c(("f", 0, 1), *body)
    found = redundant_literal(clause)
    assert (found is not None) == _redundant_by_brute_force(clause)
    if found is not None:
        assert found in clause.body


def test_search_never_tests_a_clause_with_a_redundant_literal() -> None:
    problem = load_problem(FIXTURES / "rec_length")
    tester = ilp_tester.Tester(problem, time.monotonic() + 60)
    tested: list[Clause] = []
    programs, singles = tester.test_programs, tester.test_many

    def record_programs(batch, *args, **kwargs):      # a spy on our own tester, not a mock
        tested.extend(c for program in batch for c in program)
        return programs(batch, *args, **kwargs)

    def record_singles(batch, *args, **kwargs):
        tested.extend(batch)
        return singles(batch, *args, **kwargs)

    tester.test_programs, tester.test_many = record_programs, record_singles
    try:
        state = SearchState()
        search(problem.bias, tester, time.monotonic() + 60, state)
    finally:
        tester.close()
    assert sum(c.size for c in state.program) == 7          # still the optimal program
    assert state.redundant > 0 and tested
    assert all(redundant_literal(c) is None for c in tested)


# ------------------------------------------------------------------ explaining failures

def test_program_core_drops_what_changes_nothing() -> None:
    problem = load_problem(FIXTURES / "rec_length")
    directions = problem.bias.directions
    tester = ilp_tester.Tester(problem, time.monotonic() + 60)
    try:
        # len([],1) and, counting by two, len([x],3), ...: no positive; zero(C) in the base
        # and head(A,D) in the recursive clause bind nothing used
        base = _c(("len", 0, 1), ("empty", 0), ("zero", 2), ("one", 1))
        step = _c(("len", 0, 1), ("tail", 0, 2), ("head", 0, 3), ("len", 2, 4),
                  ("inc", 4, 5), ("inc", 5, 1))
        assert not tester.test_program([base, step], directions, time.monotonic() + 30).pos
        [core] = tester.program_cores([[base, step]], directions, time.monotonic() + 30)
        assert core == [_c(("len", 0, 1), ("empty", 0), ("one", 1)),
                        _c(("len", 0, 1), ("tail", 0, 2), ("len", 2, 4), ("inc", 4, 5),
                           ("inc", 5, 1))]
        assert not tester.test_program(core, directions, time.monotonic() + 30).pos
        # inc(5,1) cannot go: inc(4,5) would then bind nothing used, but dropping it
        # leaves len([x],B) true for every B, which covers len([a],1)
        loose = [core[0], _c(("len", 0, 1), ("tail", 0, 2), ("len", 2, 4), ("inc", 4, 5))]
        assert tester.test_program(loose, directions, time.monotonic() + 30).pos
    finally:
        tester.close()


# ------------------------------------------------------------------ redundancy constraints

BIAS = IlpBias(head_pred=("len", 2),
               body_preds=(("tail", 2), ("empty", 1), ("zero", 1), ("inc", 2)),
               types={"len": ("list", "nat"), "tail": ("list", "list"), "empty": ("list",),
                      "zero": ("nat",), "inc": ("nat", "nat")},
               directions={"len": ("in", "out"), "tail": ("in", "out"), "empty": ("in",),
                           "zero": ("out",), "inc": ("in", "out")},
               max_vars=4, max_body=3, max_clauses=3, enable_recursion=True)


def _contains(big: Clause, small: Clause) -> bool:
    """``big`` holds every literal of ``small`` under an injective renaming of the
    body-only variables of ``small`` onto those of ``big``."""
    own = small.body_only_vars
    for image in itertools.permutations(big.body_only_vars, len(own)):
        mapping = dict(zip(own, image))
        if all(lit.rename(mapping) in big.body for lit in small.body):
            return True
    return False


def _calls_itself(clause: Clause) -> bool:
    return any(lit.pred == clause.head.pred for lit in clause.body)


def _banned(program: frozenset, kind: str, pattern: list[Clause]) -> bool:
    """The meaning of the ``red`` / ``rec_spec`` constraint of ``pattern``, in Python."""
    recursive = [c for c in program if _calls_itself(c)]
    if kind == "rec_spec":
        return len(recursive) == 1 and _contains(recursive[0], pattern[0])
    bases = [c for c in pattern if not _calls_itself(c)]
    steps = [c for c in pattern if _calls_itself(c)]
    if len(recursive) != len(steps):
        return False
    if not any(all(_contains(r, s) for r, s in zip(order, steps))
               for order in itertools.permutations(recursive)):
        return False
    return any(_contains(c, b) for c in program if not _calls_itself(c) for b in bases)


def _enumerate(size: int, rules: list[str] = (), ground: tuple | None = None) -> list:
    generator = Generator(BIAS)
    try:
        generator.add_constraints(rules)
        found = []
        for program, model in generator.programs(size, time.monotonic() + 60):
            found.append(frozenset(c for _, c in program))
            if ground is not None and len(found) == 1:
                generator.ban_now(redundancy_nogoods(generator, *ground), model)
        return found
    finally:
        generator.close()


def test_redundancy_constraints_ban_what_they_say() -> None:
    base = _c(("len", 0, 1), ("empty", 0))
    step = _c(("len", 0, 1), ("tail", 0, 2), ("len", 2, 1))
    cases = [("red", [base, step]), ("rec_spec", [_c(("len", 0, 1), ("zero", 1))])]
    for size in (7, 8):
        everything = _enumerate(size)
        assert len(everything) == len(set(everything))
        for kind, pattern in cases:
            expected = {p for p in everything if not _banned(p, kind, pattern)}
            assert 0 < len(expected) < len(everything), (kind, size)
            rule = constraint_rule(list(enumerate(pattern)), kind, BIAS.max_clauses)
            assert set(_enumerate(size, [rule])) == expected, (kind, size, rule)
            # the ground nogoods for the running enumeration ban the same programs
            found = _enumerate(size, ground=(pattern, kind))
            assert set(found[1:]) == expected - {found[0]}, (kind, size)


def test_redundancy_constraint_keeps_the_learned_program_optimal() -> None:
    # a base clause and a recursive one that together cover no positive: with the
    # constraint, the optimal program of the fixture is still found
    from solvers.ilp import learn

    result = learn(FIXTURES / "rec_length", timeout=60)
    assert result.status == "solution" and result.size == 7
    assert {canonical(c) for c in result.clauses} == {
        canonical(_c(("len", 0, 1), ("empty", 0), ("zero", 1))),
        canonical(_c(("len", 0, 1), ("tail", 0, 2), ("len", 2, 3), ("inc", 3, 1)))}
