"""The test stage: a fresh temporary Prolog module holding ``prolog/ilp_test.pl``, the
background knowledge and the examples; candidate clauses go in as data terms
(``clause(Head, Body)`` with integer variables), sent as Prolog text
(:func:`solvers.ilp.clauses.clause_text`) and read back by ``ilp_data/2``.

Examples of a folder problem never cross to Python: they are copied inside Prolog from the
problem's :class:`~solvers.ilp.problem.ExampleStore`. Each example is tested under an
inference limit (``example_inference_limit``, by default ``example_time_limit`` seconds at
:data:`INFERENCES_PER_SECOND`): deterministic, the same on every machine and load, and
nearly free (``call_with_inference_limit/3``); programs (:meth:`Tester.test_program`) also
under ``example_depth_limit``. Every Prolog call has the time left to the caller's deadline
as its time limit.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from solvers.errors import SolverError, SolverInputError, SolverTimeout
from solvers.ilp.clauses import (
    Clause,
    Literal,
    canonical,
    clause_text,
    execution_order,
    is_recursive,
    literal_text,
    sort_key,
)
from solvers.ilp.problem import IlpProblem, default_engine

# Names the tester defines in the module; background knowledge must not define them.
RESERVED_PREFIX = "ilp_"
# Recursion depth (SWI call_with_depth_limit, bk calls included) beyond which a program is
# taken not to prove an example: a non-terminating candidate (f(A,B) :- g(B,C), f(A,C)) then
# costs about a millisecond an example, as Popper's 1 ms per-example limit does, but
# deterministically.
DEPTH_LIMIT = 500
# Inferences allowed to show that a conjunction with free variables has no solution (beyond
# them it counts as satisfiable: an unsat constraint is only learned when that is certain).
SAT_INFERENCES = 20_000
# The per-example budget in inferences per second of ``example_time_limit`` (SWI-Prolog 9
# runs some 10-30 million simple inferences per second).
INFERENCES_PER_SECOND = 10_000_000
# Seconds (counted in inferences, as above) for one example of a recursive program: a
# non-terminating candidate (ancestor(A,B) :- father(C,B), ancestor(A,D)) runs every example
# to its limit, so the limit is most of such a test's cost. Popper's EVAL_TIMEOUT is 1 ms of
# wall time, for every program when recursion is enabled; 2 ms here (20,000 inferences).
RECURSIVE_TIME_LIMIT = 0.002


@dataclass(frozen=True)
class Outcome:
    """What a clause or program covers. ``neg``: the first negative covered (``None`` if
    none); ``pos``: the positives covered (all of them when no negative is covered or when
    ``full``, else at most one). ``full`` (counted with ``stop_at_neg=False``): ``pos`` and
    ``neg_covered`` are every positive and negative covered; otherwise ``neg_covered`` is
    ``{neg}`` or empty."""

    neg: int | None
    pos: frozenset[int]
    neg_covered: frozenset[int] = frozenset()
    full: bool = False
    neg_known: bool = True  # False: no positive covered, the negatives not tested

    def stopped(self) -> Outcome:
        """This outcome as a ``stop_at_neg`` test would report it."""
        if not self.full:
            return self
        if self.neg is None:
            return Outcome(None, self.pos)
        return Outcome(self.neg, frozenset(sorted(self.pos)[:1]), frozenset((self.neg,)))


def _every_positive(full: Outcome | None) -> Outcome | None:
    """A full outcome as :meth:`Tester.test_many` reports it: the first negative, every
    positive."""
    if full is None:
        return None
    if full.neg is None:
        return Outcome(None, full.pos)
    return Outcome(full.neg, full.pos, frozenset((full.neg,)))


def _list_text(items) -> str:
    """Prolog list text of the texts ``items``."""
    return "[" + ",".join(items) + "]"


def _outcome(answer: dict[str, Any] | None, full: bool, what: str) -> Outcome:
    if answer is None:
        raise SolverError(f"{what} failed unexpectedly")
    neg = answer["Neg"]
    return Outcome(_neg(neg), _ids(answer["PosText"]), _ids(answer["NegText"]), full)


def _neg(text: str) -> int | None:
    """The id of the first negative covered, from Prolog's ``none`` or number."""
    return None if text == "none" else int(text)


def _ids(text: str) -> frozenset[int]:
    """The example ids of ``ilp_ids_text/2``'s text."""
    return frozenset(map(int, text.split()))


class Tester:
    """Background knowledge and examples of one problem, loaded once, tested many times.

    ``recursive_time_limit``: the per-example limit of recursive programs (at most
    ``example_time_limit``). ``join_min_examples``: single clauses over facts are tested by
    a join from this many examples on (default 1,000, in ``prolog/ilp_test.pl``; 0: always,
    for tests). ``guard_literals``: single clauses run with their independent literals
    called once (``ilp_guarded_body/3``); False for tests comparing the two."""

    def __init__(
        self,
        problem: IlpProblem,
        deadline: float,
        engine: Any = None,
        example_time_limit: float = 0.05,
        example_depth_limit: int = DEPTH_LIMIT,
        example_inference_limit: int | None = None,
        recursive_time_limit: float = RECURSIVE_TIME_LIMIT,
        join_min_examples: int | None = None,
        guard_literals: bool = True,
    ) -> None:
        from solvers.prolog import Term

        self.example_time_limit = float(example_time_limit)
        self.example_inference_limit = int(
            example_inference_limit
            if example_inference_limit is not None
            else max(1, round(self.example_time_limit * INFERENCES_PER_SECOND))
        )
        # recursive programs: the smaller of the two limits
        self.recursive_inference_limit = min(
            self.example_inference_limit,
            max(1, round(float(recursive_time_limit) * INFERENCES_PER_SECOND)),
        )
        self.example_depth_limit = int(example_depth_limit)
        self.n_pos = problem.n_pos
        self.n_neg = problem.n_neg
        self.head = problem.bias.head_pred
        self._declared: set[tuple[str, int]] = set()
        self._cache: dict[tuple, Outcome] = {}
        self._sat_cache: dict[tuple, tuple | None] = {}
        self._core_cache: dict[Clause, tuple[Literal, ...]] = {}
        self._program_core_cache: dict[tuple[Clause, ...], list[Clause]] = {}
        self.prolog_calls = 0
        for pred in problem.bk_facts:
            if pred.startswith(RESERVED_PREFIX):
                raise SolverInputError(
                    f"background predicate {pred!r} uses the reserved prefix {RESERVED_PREFIX!r}"
                )
        engine = engine or (problem.examples.engine if problem.examples else default_engine())
        self._module = engine.module()
        try:
            self._check_time(deadline)
            self._module.consult("ilp_test")
            for path in problem.bk_files:
                self._check_time(deadline)
                self._module.consult_path(path)
            for pred, rows in sorted(problem.bk_facts.items()):
                self._module.add_facts(pred, rows)
            head, arity = self.head
            if problem.examples is not None:
                self._query(
                    "ilp_copy_examples(Store)", {"Store": problem.examples.module_name}, deadline
                )
            else:
                self._module.add_facts(
                    "ilp_example",
                    [
                        *(("pos", i, Term(head, args)) for i, args in enumerate(problem.pos)),
                        *(("neg", i, Term(head, args)) for i, args in enumerate(problem.neg)),
                    ],
                )
            self._query("ilp_own(Name, Arity)", {"Name": head, "Arity": arity}, deadline)
            if not guard_literals:
                self._query("ilp_set_guard(false)", {}, deadline)
            if join_min_examples is not None:
                self._query("ilp_set_join(Min)", {"Min": int(join_min_examples)}, deadline)
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

    def _query(self, goal: str, bindings: dict[str, Any], deadline: float) -> dict[str, Any] | None:
        return self._module.query_once(goal, bindings, time_limit=self._check_time(deadline))

    def declare(
        self, preds: Mapping[str, int] | Sequence[tuple[str, int]], deadline: float
    ) -> None:
        """Make body predicates that have no clauses fail instead of raising errors."""
        items = preds.items() if isinstance(preds, Mapping) else preds
        todo = [
            (name, arity)
            for name, arity in dict.fromkeys(items)
            if (name, arity) not in self._declared
        ]
        if todo:  # one call for all
            self._query(
                "maplist(ilp_declare, Names, Arities)",
                {"Names": [n for n, _ in todo], "Arities": [a for _, a in todo]},
                deadline,
            )
            self._declared.update(todo)

    def test(
        self,
        clause: Clause,
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
        stop_at_neg: bool = True,
    ) -> Outcome:
        """Which examples ``clause`` covers (see :class:`Outcome`); outcomes are cached per
        canonical clause for the Tester's lifetime (they depend only on bk and examples).
        A recursive clause is tested as a one-clause program (:meth:`test_program`)."""
        if is_recursive(clause):
            return self.test_program([clause], directions, deadline, stop_at_neg)
        key = (canonical(clause),)
        cached = self._cached(key, stop_at_neg)
        if cached is not None:
            return cached
        answer = self._query(
            "ilp_data(Text, _Clause), "
            "ilp_test_clause(_Clause, Limit, Stop, Neg, _Pos, _NegAll), "
            "ilp_ids_text(_Pos, PosText), ilp_ids_text(_NegAll, NegText)",
            {
                "Text": clause_text(clause, directions),
                "Limit": self.example_inference_limit,
                "Stop": "true" if stop_at_neg else "false",
            },
            deadline,
        )
        self.prolog_calls += 1
        outcome = _outcome(answer, not stop_at_neg, "ilp_test_clause")
        self._cache[(key, outcome.full)] = outcome
        return outcome

    def test_program(
        self,
        clauses: list[Clause],
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
        stop_at_neg: bool = True,
    ) -> Outcome:
        """Which examples the program ``clauses`` covers (see :class:`Outcome`): several
        clauses, possibly recursive, possibly defining invented predicates (any head other
        than the problem's). They are asserted for the call (non-recursive clauses first)
        and retracted afterwards; each example atom is proved within the per-example
        inference limit (a recursive program's: ``recursive_time_limit``) and depth limit
        (beyond them it is not covered). Cached per set of canonical
        clauses. Raises SolverInputError if bk defines a predicate the program defines."""
        return self.test_programs([clauses], directions, deadline, stop_at_neg)[0]

    def test_programs(
        self,
        programs: list[list[Clause]],
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
        stop_at_neg: bool = True,
    ) -> list[Outcome]:
        """:meth:`test_program` for each of ``programs``, in one Prolog call (a call costs
        about a millisecond of its own: most of a small program's test)."""
        keys: list[tuple] = []
        todo: dict[tuple, int] = {}  # program key -> its per-example limit
        for clauses in programs:
            # recursive clauses sort last
            key = tuple(
                sorted(
                    {canonical(c) for c in clauses}, key=lambda c: (is_recursive(c), sort_key(c))
                )
            )
            keys.append(key)
            if key and key not in todo and self._cached(key, stop_at_neg) is None:
                todo[key] = (
                    self.recursive_inference_limit
                    if is_recursive(key[-1])
                    else self.example_inference_limit
                )
        if todo:
            text = _list_text(
                f"p({limit},{_list_text(clause_text(c, directions) for c in key)})"
                for key, limit in todo.items()
            )
            lines = self._lines(
                "ilp_test_programs_text(Text, Depth, Stop, Lines)",
                {
                    "Text": text,
                    "Depth": self.example_depth_limit,
                    "Stop": "true" if stop_at_neg else "false",
                },
                deadline,
                len(todo),
            )
            for key, line in zip(todo, lines):
                neg, pos, neg_all = line.split("|")
                self._cache[(key, not stop_at_neg)] = Outcome(
                    _neg(neg), _ids(pos), _ids(neg_all), not stop_at_neg
                )
        return [
            self._known(key, stop_at_neg)
            if key
            else Outcome(None, frozenset(), frozenset(), not stop_at_neg)
            for key in keys
        ]

    def _known(self, key: tuple, stop_at_neg: bool) -> Outcome:
        """The cached outcome of a program just tested (SolverError if it is missing)."""
        outcome = self._cached(key, stop_at_neg)
        if outcome is None:
            raise SolverError("a tested program's outcome is missing from the cache (internal)")
        return outcome

    def _lines(self, goal: str, bindings: dict[str, Any], deadline: float, count: int) -> list[str]:
        """The ``Lines`` string of ``goal`` (one line per item tested), split."""
        answer = self._query(goal, bindings, deadline)
        name = goal.partition("(")[0]
        if answer is None:
            raise SolverError(f"{name} failed unexpectedly")
        self.prolog_calls += 1
        lines = answer["Lines"].split("\n")
        if len(lines) != count:
            raise SolverError(f"{name} gave {len(lines)} results for {count} items")
        return lines

    def _cached(self, key: tuple, stop_at_neg: bool) -> Outcome | None:
        full = self._cache.get((key, True))
        if full is not None:
            return full.stopped() if stop_at_neg else full
        return self._cache.get((key, False)) if stop_at_neg else None

    def score(
        self, clauses: list[Clause], directions: Mapping[str, tuple[str, ...]], deadline: float
    ) -> tuple[frozenset[int], frozenset[int]]:
        """The positive and negative example ids covered by the program ``clauses``
        (recursive and invented-predicate programs included)."""
        outcome = self.test_program(clauses, directions, deadline, stop_at_neg=False)
        return outcome.pos, outcome.neg_covered

    def score_many(
        self, clauses: list[Clause], directions: Mapping[str, tuple[str, ...]], deadline: float
    ) -> list[tuple[frozenset[int], frozenset[int] | None]]:
        """Noisy mode, non-recursive clauses, one Prolog call: for each, the positives it
        covers and, when they outnumber its literals, the negatives it covers (else None:
        not tested, as Popper tests such a clause's positives only)."""
        if not clauses:
            return []
        lines = self._lines(
            "ilp_score_clauses_text(Text, Limit, Lines)",
            {
                "Text": _list_text(clause_text(c, directions) for c in clauses),
                "Limit": self.example_inference_limit,
            },
            deadline,
            len(clauses),
        )
        scored = []
        for line in lines:
            pos, _, neg = line.partition("|")
            negs = neg.split()
            scored.append(
                (
                    frozenset(map(int, pos.split())),
                    None if negs == ["?"] else frozenset(map(int, negs)),
                )
            )
        return scored

    def test_many(
        self,
        clauses: list[Clause],
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
        negatives_without_positives: bool = True,
    ) -> list[Outcome]:
        """:meth:`test` (stopping at the first negative, but with every positive covered
        even when a negative is) for many non-recursive clauses in one Prolog call; outcomes
        cached as ``test`` caches them. ``negatives_without_positives=False``: the
        positives are tested first, and for a clause covering none the negatives are not
        tested at all (its outcome has ``neg_known`` False; not cached for ``test``)."""
        keys = [(canonical(c),) for c in clauses]
        todo = [
            (i, c)
            for i, (c, key) in enumerate(zip(clauses, keys))
            if (key, "pos") not in self._cache
            and (key, True) not in self._cache
            and (negatives_without_positives or (key, "posfirst") not in self._cache)
        ]
        if todo:
            lines = self._lines(
                "ilp_test_clauses_text(Text, Limit, Mode, Lines)",
                {
                    "Text": _list_text(clause_text(c, directions) for _, c in todo),
                    "Limit": self.example_inference_limit,
                    "Mode": "pos" if negatives_without_positives else "posfirst",
                },
                deadline,
                len(todo),
            )
            for (i, _), line in zip(todo, lines):
                neg, *pos = line.split(" ")
                if neg == "unknown":
                    self._cache[(keys[i], "posfirst")] = Outcome(None, frozenset(), neg_known=False)
                    continue
                first = _neg(neg)
                outcome = Outcome(
                    first,
                    frozenset(map(int, pos)),
                    frozenset() if first is None else frozenset({first}),
                    False,
                )
                self._cache[(keys[i], False)] = outcome
                self._cache[(keys[i], "pos")] = outcome
        return [
            self._cache.get((key, "pos"))
            or _every_positive(self._cache.get((key, True)))
            or self._cache[(key, "posfirst")]
            for key in keys
        ]

    def unsat_cores(
        self,
        bodies: list[tuple[Literal, ...]],
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
        limit: int = SAT_INFERENCES,
    ) -> list[tuple[Literal, ...] | None]:
        """For each conjunction of background literals (every variable free): None when it
        has a solution in the background knowledge (running out of ``limit`` inferences or
        an error counts as one), else a minimal part of it that has none. One Prolog call
        for all; cached per body."""
        todo = [b for b in dict.fromkeys(bodies) if b not in self._sat_cache]
        if todo:
            ordered = [
                execution_order(Clause(Literal("ilp_none", ()), body), directions) for body in todo
            ]
            answer = self._query(
                "ilp_data(Text, _Bodies), ilp_unsat_cores(_Bodies, Limit, Cores)",
                {
                    "Text": _list_text(_list_text(map(literal_text, body)) for body in ordered),
                    "Limit": limit,
                },
                deadline,
            )
            if answer is None:
                raise SolverError("ilp_unsat_cores failed unexpectedly")
            self.prolog_calls += 1
            for body, core in zip(todo, answer["Cores"]):
                self._sat_cache[body] = (
                    None if core == "sat" else tuple(Literal(t.name, tuple(t.args)) for t in core)
                )
        return [self._sat_cache[b] for b in bodies]

    def pos_cores(
        self, clauses: list[Clause], directions: Mapping[str, tuple[str, ...]], deadline: float
    ) -> list[tuple[Literal, ...]]:
        """For non-recursive clauses known to cover no positive example: for each, a part of
        its body (literals dropped one at a time, in execution order) with which the head
        still surely covers no positive (an error or running out of the per-example
        inference limit counts as covering), so that every clause containing the head and
        that part covers no positive (Popper's explanation of a totally incomplete
        program). One Prolog call for all; cached per clause."""
        todo = [c for c in dict.fromkeys(clauses) if c not in self._core_cache]
        if todo:
            answer = self._query(
                "ilp_data(Text, _Clauses), ilp_pos_cores(_Clauses, Limit, Cores)",
                {
                    "Text": _list_text(clause_text(c, directions) for c in todo),
                    "Limit": self.example_inference_limit,
                },
                deadline,
            )
            if answer is None:
                raise SolverError("ilp_pos_cores failed unexpectedly")
            self.prolog_calls += 1
            for clause, core in zip(todo, answer["Cores"]):
                self._core_cache[clause] = tuple(Literal(t.name, tuple(t.args)) for t in core)
        return [self._core_cache[c] for c in clauses]

    def program_cores(
        self,
        programs: list[list[Clause]],
        directions: Mapping[str, tuple[str, ...]],
        deadline: float,
    ) -> list[list[Clause]]:
        """For recursive programs known to cover no positive example (clauses in the order
        to assert them): for each, a more general program -- the same clauses, some body
        literals dropped (never a recursive call; a clause keeps a literal, a recursive
        clause one besides its call) -- that surely covers no positive either (an error or
        running out of the per-example limits counts as covering), and whose remaining
        literals are called as before (``ilp_program_cores_text/3``). One Prolog call for
        all; cached per program."""
        keys = [tuple(canonical(c) for c in program) for program in programs]
        todo = {
            key: program
            for key, program in zip(keys, programs)
            if key not in self._program_core_cache
        }
        if todo:
            head, _ = self.head
            inputs = [i for i, mode in enumerate(directions.get(head, ())) if mode == "in"]
            limit = self.recursive_inference_limit
            text = _list_text(
                f"p({limit},{_list_text([str(i) for i in inputs])},"
                f"{_list_text(clause_text(c, directions) for c in program)})"
                for program in todo.values()
            )
            lines = self._lines(
                "ilp_program_cores_text(Text, Depth, Lines)",
                {"Text": text, "Depth": self.example_depth_limit},
                deadline,
                len(todo),
            )
            for (key, program), line in zip(todo.items(), lines):
                core = []
                for clause, kept in zip(program, line.split("|")):
                    body = execution_order(clause, directions)
                    core.append(Clause(clause.head, tuple(body[int(i)] for i in kept.split())))
                self._program_core_cache[key] = core
        return [self._program_core_cache[key] for key in keys]
