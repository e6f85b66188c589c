"""Candidate clauses as Python records: literals over variable indices, canonical forms
under renaming, execution order, Prolog printing and the data term sent to the tester.

A clause's variables are small integers: the head of ``p/2`` is always ``p(0, 1)``; variables
that occur only in the body are numbered from the head's arity upwards (``max_vars`` in all).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    pass

# Beyond this many renamings to compare, canonical forms fall back to signature order.
_CANON_MAX_PERMUTATIONS = 720


class Literal(NamedTuple):
    """``pred(V1, ..., Vn)`` with variables given as integer indices (a named tuple: the
    search builds, hashes and sorts millions of them, and tuples do that in C)."""

    pred: str
    args: tuple[int, ...]

    def rename(self, mapping: Mapping[int, int]) -> Literal:
        """This literal with every variable ``v`` replaced by ``mapping.get(v, v)``."""
        return Literal(self.pred, tuple(mapping.get(v, v) for v in self.args))


@dataclass(frozen=True)
class Clause:
    """A definite clause ``head :- body`` (the body is a set, kept sorted)."""

    head: Literal
    body: tuple[Literal, ...]
    _hash: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "body", tuple(sorted(set(self.body))))
        # clauses are dict keys and set members throughout the search: hash once
        object.__setattr__(self, "_hash", hash((self.head, self.body)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def size(self) -> int:
        """Number of literals (head included): Popper's clause size."""
        return 1 + len(self.body)

    @property
    def head_vars(self) -> frozenset[int]:
        """The variables of the head."""
        return frozenset(self.head.args)

    @property
    def body_only_vars(self) -> tuple[int, ...]:
        """Variables occurring in the body but not in the head, ascending."""
        return tuple(sorted({v for lit in self.body for v in lit.args} - self.head_vars))

    def rename(self, mapping: Mapping[int, int]) -> Clause:
        """The clause with body-only variables renamed by ``mapping``."""
        return Clause(self.head, tuple(lit.rename(mapping) for lit in self.body))


@lru_cache(maxsize=200_000)
def canonical(clause: Clause) -> Clause:
    """The variant of ``clause`` whose sorted body is smallest over the renamings of its
    body-only variables onto ``arity, arity+1, ...`` that keep variables in the order of
    their signatures (the sorted (predicate, position, head variables) occurrences of a
    variable, which renaming preserves): variants share one canonical form, and only
    variables with equal signatures are permuted among themselves.

    Beyond ``_CANON_MAX_PERMUTATIONS`` such renamings, variables are renumbered by
    signature and first appearance instead (a normal form that may miss some variants).
    """
    body_vars = clause.body_only_vars
    if not body_vars:
        return clause
    first = len(clause.head.args)
    head = clause.head_vars
    occurrences: dict[int, list[tuple]] = {v: [] for v in body_vars}
    for lit in clause.body:
        shape = tuple(a if a in head else -1 for a in lit.args)
        for i, a in enumerate(lit.args):
            if a not in head:
                occurrences[a].append((lit.pred, i, shape))
    signature = {v: tuple(sorted(found)) for v, found in occurrences.items()}
    ordered = sorted(body_vars, key=signature.__getitem__)
    groups: list[list[int]] = []
    last = None
    for v in ordered:
        sig = signature[v]
        if sig != last:
            groups.append([])
            last = sig
        groups[-1].append(v)
    if len(groups) == len(ordered):  # every signature distinct: one renaming
        return clause.rename({v: first + i for i, v in enumerate(ordered)})
    count = 1
    for group in groups:
        count *= math.factorial(len(group))
    if count > _CANON_MAX_PERMUTATIONS:
        return clause.rename({v: first + i for i, v in enumerate(ordered)})
    best: Clause | None = None
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        flat = [v for group in choice for v in group]
        candidate = clause.rename({v: first + i for i, v in enumerate(flat)})
        if best is None or candidate.body < best.body:
            best = candidate
    return best if best is not None else clause


def is_recursive(clause: Clause) -> bool:
    """Whether a body literal calls the head predicate."""
    return any(
        lit.pred == clause.head.pred and len(lit.args) == len(clause.head.args)
        for lit in clause.body
    )


def redundant_literal(clause: Clause) -> Literal | None:
    """A body literal whose removal leaves a logically equivalent clause, or None: the first
    (in body order) ``L`` such that the clause theta-subsumes itself without ``L`` by a
    substitution fixing the head variables (Popper's ``redundant_literal/1``: the clause as a
    set of literals, the head negated, subsumes that set less one literal). E.g.
    ``f(A,B) :- tail(A,C), tail(A,D), f(D,B)``: ``tail(A,C)`` (C -> D). Such a clause is never
    part of an optimal program: its reduct has the same meaning and fewer literals."""
    fixed = clause.head_vars
    for dropped in clause.body:
        target = [lit for lit in clause.body if lit != dropped]
        if _subsumes(clause.body, target, fixed):
            return dropped
    return None


def _subsumes(source: tuple[Literal, ...], target: list[Literal], fixed: frozenset[int]) -> bool:
    """Whether a substitution of the variables of ``source`` outside ``fixed`` maps every
    literal of ``source`` onto a literal of ``target`` (backtracking, the literals with
    fewest candidates first)."""
    options = []
    for lit in source:
        found = [
            t
            for t in target
            if t.pred == lit.pred
            and len(t.args) == len(lit.args)
            and all(a == b for a, b in zip(lit.args, t.args) if a in fixed)
        ]
        if not found:
            return False
        options.append((lit, found))
    options.sort(key=lambda item: len(item[1]))

    def extend(i: int, theta: dict[int, int]) -> bool:
        if i == len(options):
            return True
        lit, found = options[i]
        for t in found:
            added = []
            for a, b in zip(lit.args, t.args):
                if a in fixed:
                    continue
                bound = theta.get(a)
                if bound is None:
                    theta[a] = b
                    added.append(a)
                elif bound != b:
                    break
            else:
                if extend(i + 1, theta):
                    return True
            for a in added:
                del theta[a]
        return False

    return extend(0, {})


def execution_order(
    clause: Clause, directions: Mapping[str, tuple[str, ...]]
) -> tuple[Literal, ...]:
    """The body in the order Prolog runs it, chosen like a query planner: among the
    literals that can run (their ``in`` arguments bound by the head or an earlier literal;
    any literal when its predicate has no directions), first non-recursive ones (a call of
    the head predicate waits while others can run, as in Popper), then the one sharing the
    most bound variables (a literal whose variables are all bound, a test, before any
    other), then the one with fewest new variables, then the one whose new variables occur
    in more of the remaining literals (so they become tests), then sorted order.
    Deterministic."""
    bound = set(clause.head.args)
    head = (clause.head.pred, len(clause.head.args))
    # per literal: (literal, its variables, its input positions' variables or None, is a call
    # of the head predicate), computed once
    rest = []
    for lit in clause.body:
        modes = directions.get(lit.pred)
        inputs = None if modes is None else {v for m, v in zip(modes, lit.args) if m == "in"}
        rest.append((lit, set(lit.args), inputs, (lit.pred, len(lit.args)) == head))
    ordered: list[Literal] = []
    while rest:
        # no runnable literal: take them all (the generator forbids this)
        runnable = [item for item in rest if item[2] is None or item[2] <= bound] or rest
        best_key = best = None
        for item in runnable:
            lit, variables, _, recursive = item
            shared = len(variables & bound)
            new = variables - bound
            links = (
                sum(1 for other in rest if other is not item and not new.isdisjoint(other[1]))
                if new
                else 0
            )
            key = (recursive, shared < len(variables), -shared, len(new), -links, lit)
            if best_key is None or key < best_key:
                best_key, best = key, item
        assert best is not None  # runnable is never empty while rest is not
        rest.remove(best)
        ordered.append(best[0])
        bound.update(best[1])
    return tuple(ordered)


def var_name(index: int) -> str:
    """``A``, ``B``, ..., ``Z``, then ``A1``, ``B1``, ..."""
    letter, round_ = chr(ord("A") + index % 26), index // 26
    return letter if round_ == 0 else f"{letter}{round_}"


def show(clause: Clause, directions: Mapping[str, tuple[str, ...]] | None = None) -> str:
    """The clause in Prolog syntax, variables named A, B, ... (head first, then body order)."""
    from solvers.prolog import Term

    body = execution_order(clause, directions or {})
    names: dict[int, str] = {}
    for lit in (clause.head, *body):
        for v in lit.args:
            names.setdefault(v, var_name(len(names)))

    def lit_text(lit: Literal) -> str:
        name = str(Term(lit.pred))
        return f"{name}({','.join(names[v] for v in lit.args)})" if lit.args else name

    return f"{lit_text(clause.head)} :- {', '.join(lit_text(b) for b in body)}."


def sort_key(clause: Clause) -> tuple:
    """Deterministic order among candidate clauses: size, then canonical body."""
    return (clause.size, canonical(clause).body)


@lru_cache(maxsize=100_000)
def literal_text(lit: Literal) -> str:
    """The literal as data for ``prolog/ilp_test.pl``, in Prolog text: variable ``i`` is the
    integer ``i``; the functor is always quoted."""
    from solvers.prolog.terms import quote_always

    name = quote_always(lit.pred)
    return f"{name}({','.join(map(str, lit.args))})" if lit.args else name


def clause_text(clause: Clause, directions: Mapping[str, tuple[str, ...]] | None = None) -> str:
    """``clause(Head, [B1, ...])`` (body in execution order) with variable ``i`` written as
    the integer ``i``: the data term that ``prolog/ilp_test.pl`` turns into a real clause,
    as Prolog text for its ``ilp_data/2`` to read back (one string crosses to Prolog many
    times faster than the same term built cell by cell: a batch of 64 clauses is some
    2,000 cells)."""
    body = execution_order(clause, directions or {})
    return f"clause({literal_text(clause.head)},[{','.join(map(literal_text, body))}])"
