"""The test stage: a fresh temporary Prolog module holding ``prolog/ilp_test.pl``, the
background knowledge and the examples; candidate clauses go in as data terms
(``clause(Head, Body)`` with ``v(I)`` variables, see :func:`solvers.ilp.clauses.to_term`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from solvers.errors import SolverError, SolverInputError, SolverTimeout
from solvers.ilp.clauses import Clause, canonical, to_term
from solvers.ilp.problem import IlpProblem, default_engine

# Names the tester defines in the module; background knowledge must not define them.
RESERVED_PREFIX = "ilp_"


@dataclass(frozen=True)
class Outcome:
    """What one clause covers: the first negative covered (``None`` if none) and the
    positives covered (all of them when no negative is covered, else at most one)."""

    neg: int | None
    pos: frozenset[int]


class Tester:
    """Background knowledge and examples of one problem, loaded once, tested many times."""

    def __init__(self, problem: IlpProblem, deadline: float, engine: Any = None,
                 example_time_limit: float = 0.05) -> None:
        from solvers.prolog import Term

        self.example_time_limit = float(example_time_limit)
        self.n_pos = len(problem.pos)
        self.n_neg = len(problem.neg)
        self._declared: set[tuple[str, int]] = set()
        self._cache: dict[Clause, Outcome] = {}
        self.prolog_calls = 0
        for pred in problem.bk_facts:
            if pred.startswith(RESERVED_PREFIX):
                raise SolverInputError(f"background predicate {pred!r} uses the reserved "
                                       f"prefix {RESERVED_PREFIX!r}")
        engine = engine or default_engine()
        self._module = engine.module()
        try:
            self._check_time(deadline)
            self._module.consult("ilp_test")
            for path in problem.bk_files:
                self._check_time(deadline)
                self._module.consult_path(path)
            for pred, rows in sorted(problem.bk_facts.items()):
                self._module.add_facts(pred, rows)
            head = problem.bias.head_pred[0]
            self._module.add_facts("ilp_example", [
                *(("pos", i, Term(head, args)) for i, args in enumerate(problem.pos)),
                *(("neg", i, Term(head, args)) for i, args in enumerate(problem.neg))])
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Remove the module (idempotent)."""
        self._module.close()

    @staticmethod
    def _check_time(deadline: float) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SolverTimeout("ILP search ran out of time")
        return remaining

    def declare(self, preds: Mapping[str, int] | list[tuple[str, int]], deadline: float) -> None:
        """Make body predicates that have no clauses fail instead of raising errors."""
        items = preds.items() if isinstance(preds, Mapping) else preds
        for name, arity in items:
            if (name, arity) not in self._declared:
                self._module.query_once("ilp_declare(Name, Arity)",
                                        {"Name": name, "Arity": arity},
                                        time_limit=self._check_time(deadline))
                self._declared.add((name, arity))

    def test(self, clause: Clause, directions: Mapping[str, tuple[str, ...]],
             deadline: float) -> Outcome:
        """Which examples ``clause`` covers (see :class:`Outcome`); outcomes are cached per
        canonical clause for the Tester's lifetime (they depend only on bk and examples)."""
        key = canonical(clause)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        answer = self._module.query_once(
            "ilp_test_clause(Clause, Limit, Neg, Pos)",
            {"Clause": to_term(clause, directions), "Limit": self.example_time_limit},
            time_limit=self._check_time(deadline))
        if answer is None:
            raise SolverError("ilp_test_clause failed unexpectedly")
        self.prolog_calls += 1
        neg = answer["Neg"]
        outcome = Outcome(None if neg == "none" else int(neg), frozenset(answer["Pos"]))
        self._cache[key] = outcome
        return outcome

    def score(self, clauses: list[Clause], directions: Mapping[str, tuple[str, ...]],
              deadline: float) -> tuple[frozenset[int], frozenset[int]]:
        """The positive and negative example ids covered by the program ``clauses``."""
        answer = self._module.query_once(
            "ilp_score(Clauses, Limit, Pos, Neg)",
            {"Clauses": [to_term(c, directions) for c in clauses],
             "Limit": self.example_time_limit},
            time_limit=self._check_time(deadline))
        if answer is None:
            raise SolverError("ilp_score failed unexpectedly")
        return frozenset(answer["Pos"]), frozenset(answer["Neg"])
