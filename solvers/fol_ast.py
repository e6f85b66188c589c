"""The FOL formula AST (Prover9 fragment: no function symbols), its printer and analyses.

:func:`to_prover9` prints a formula so that :func:`solvers.fol.parse_formula` gives it back, in
the canonical spacing that the bounded per-task grammars of :mod:`solvers.fol_grammar` accept:
minimal parentheses under Prover9's precedences (``&`` binds tighter than ``|``, both
right-associative, then ``->``/``<->``; a quantifier's body is a unary formula).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from solvers.errors import SolverInputError


@dataclass(frozen=True)
class Const:
    """A constant (Prover9: a name starting with a-t)."""

    name: str


@dataclass(frozen=True)
class Var:
    """A variable (Prover9: a name starting with u-z)."""

    name: str


Term = Const | Var


@dataclass(frozen=True)
class Atom:
    """``pred(args)``; a proposition when ``args`` is empty."""

    pred: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True)
class Eq:
    """``left = right`` (``left != right`` is ``Not(Eq(left, right))``)."""

    left: Term
    right: Term


@dataclass(frozen=True)
class Not:
    """``-body``."""

    body: Formula


@dataclass(frozen=True)
class And:
    """``left & right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Or:
    """``left | right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Implies:
    """``left -> right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Iff:
    """``left <-> right``."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Forall:
    """``all var body``."""

    var: str
    body: Formula


@dataclass(frozen=True)
class Exists:
    """``exists var body``."""

    var: str
    body: Formula


Formula = Atom | Eq | Not | And | Or | Implies | Iff | Forall | Exists
BINARY = (And, Or, Implies, Iff)


def _term(t: Term) -> str:
    return t.name


def is_literal(f: Formula) -> bool:
    """An atom, an equation, or the negation of one (``-p(a)``, ``a != b``)."""
    return isinstance(f, (Atom, Eq)) or (isinstance(f, Not) and isinstance(f.body, (Atom, Eq)))


def _unary(f: Formula) -> str:
    """``f`` in a position that takes a unary formula (parenthesized when binary)."""
    return f"({to_prover9(f)})" if isinstance(f, BINARY) else to_prover9(f)


def to_prover9(f: Formula) -> str:
    """Prover9 text of ``f`` without the final ``.``; ``parse_formula`` gives ``f`` back."""
    if isinstance(f, Atom):
        return f"{f.pred}({','.join(_term(a) for a in f.args)})" if f.args else f.pred
    if isinstance(f, Eq):
        return f"{_term(f.left)} = {_term(f.right)}"
    if isinstance(f, Not):
        if isinstance(f.body, Eq):
            return f"{_term(f.body.left)} != {_term(f.body.right)}"
        if isinstance(f.body, Atom):
            return f"-{to_prover9(f.body)}"
        return f"-({to_prover9(f.body)})"
    if isinstance(f, (Forall, Exists)):
        word = "all" if isinstance(f, Forall) else "exists"
        return f"{word} {f.var} {_unary(f.body)}"
    if isinstance(f, (Implies, Iff)):
        op = " -> " if isinstance(f, Implies) else " <-> "
        return op.join(
            f"({to_prover9(x)})" if isinstance(x, (Implies, Iff)) else to_prover9(x)
            for x in (f.left, f.right)
        )
    if isinstance(f, (And, Or)):
        op = " & " if isinstance(f, And) else " | "
        looser = (Implies, Iff, Or) if isinstance(f, And) else (Implies, Iff)
        left = (
            f"({to_prover9(f.left)})"
            if isinstance(f.left, looser + (type(f),))
            else to_prover9(f.left)
        )
        right = f"({to_prover9(f.right)})" if isinstance(f.right, looser) else to_prover9(f.right)
        return f"{left}{op}{right}"
    raise TypeError(f"not a formula: {f!r}")


def format_formulas(formulas: Iterable[Formula]) -> str:
    """The canonical text of a formula list: one ``formula.`` per line, newline-terminated."""
    return "".join(f"{to_prover9(f)}.\n" for f in formulas)


def walk(f: Formula) -> Iterator[Formula]:
    """``f`` and all its subformulas, depth first, left to right."""
    yield f
    if isinstance(f, Not):
        yield from walk(f.body)
    elif isinstance(f, (Forall, Exists)):
        yield from walk(f.body)
    elif isinstance(f, BINARY):
        yield from walk(f.left)
        yield from walk(f.right)


def signature(formulas: Iterable[Formula]) -> tuple[dict[str, int], list[str]]:
    """``({predicate: arity}, [constants])``, both sorted by name.

    Raises SolverInputError when a predicate is used with two arities or a name is used both
    as a predicate and a constant (Prover9 rejects both).
    """
    predicates: dict[str, int] = {}
    constants: set[str] = set()
    for formula in formulas:
        for node in walk(formula):
            if isinstance(node, Atom):
                if predicates.setdefault(node.pred, len(node.args)) != len(node.args):
                    raise SolverInputError(
                        f"predicate {node.pred} is used with arities "
                        f"{predicates[node.pred]} and {len(node.args)}"
                    )
                terms: tuple[Term, ...] = node.args
            elif isinstance(node, Eq):
                terms = (node.left, node.right)
            else:
                continue
            constants.update(t.name for t in terms if isinstance(t, Const))
    clash = sorted(constants & predicates.keys())
    if clash:
        raise SolverInputError(f"names used both as predicate and constant: {', '.join(clash)}")
    return dict(sorted(predicates.items())), sorted(constants)


def free_variables(f: Formula) -> list[str]:
    """Free variables of ``f`` in order of first occurrence (left to right)."""
    found: list[str] = []

    def visit(g: Formula, bound: frozenset[str]) -> None:
        if isinstance(g, (Atom, Eq)):
            terms = g.args if isinstance(g, Atom) else (g.left, g.right)
            for t in terms:
                if isinstance(t, Var) and t.name not in bound and t.name not in found:
                    found.append(t.name)
        elif isinstance(g, Not):
            visit(g.body, bound)
        elif isinstance(g, (Forall, Exists)):
            visit(g.body, bound | {g.var})
        else:
            visit(g.left, bound)
            visit(g.right, bound)

    visit(f, frozenset())
    return found


def universal_closure(f: Formula) -> Formula:
    """``f`` with its free variables universally quantified (Prover9's reading of them)."""
    for name in reversed(free_variables(f)):
        f = Forall(name, f)
    return f
