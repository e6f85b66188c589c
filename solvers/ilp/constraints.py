"""Constraints learned from failures, for the generator.

A tested program ``P`` (clauses at slots) yields up to two kinds of constraint, each modulo
renaming of every clause's body-only variables and over every placement of P's clauses on
distinct slots of a candidate program:

- **specialisation** (``spec``): forbid programs with as many clauses as P whose every clause
  contains (the body of) a distinct clause of P. They cover a subset of what P covers, for
  definite programs, recursive ones included.
- **generalisation** (``gen``): forbid programs containing every clause of P exactly (same
  body size); they cover a superset of what P covers.
- **exact**: forbid P's variants (``gen`` with as many clauses as P).
- **unsat** (:func:`unsat_ast`): a conjunction of background literals with no solution at
  all: forbid every clause, in any slot, containing it under any variable renaming (head
  variables included); such a clause can never succeed (Popper's UNSAT constraint).

Each constraint is one *non-ground* ASP integrity constraint, built as a clingo AST (never
as text): slots and body-only variables are ASP variables (pairwise distinct; body-only
variables above the head's), so clingo's grounder instantiates every renaming and placement
that the ground program can hold. The constraints of one size step are grounded together
before the next step (:meth:`solvers.ilp.generate.Generator.add_constraints`).

During a step, the running enumeration only needs P's variants banned (larger programs come
in later steps): :func:`variant_nogoods` gives them as ground nogoods over P's own variables.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterator

from solvers.ilp.clauses import Clause

KINDS = ("spec", "gen", "exact")


def _ast_tools() -> Any:
    from clingo import Function as Sym
    from clingo import Number, ast

    pos = ast.Position("<constraint>", 1, 1)
    loc = ast.Location(pos, pos)

    class T:
        @staticmethod
        def term(value: Any) -> Any:
            if isinstance(value, int):
                return ast.SymbolicTerm(loc, Number(value))
            return ast.SymbolicTerm(loc, Sym(value))

        @staticmethod
        def var(name: str) -> Any:
            return ast.Variable(loc, name)

        @staticmethod
        def tup(args: list[Any]) -> Any:
            return ast.Function(loc, "", args, False)

        @staticmethod
        def atom(name: str, args: list[Any], positive: bool = True) -> Any:
            sign = ast.Sign.NoSign if positive else ast.Sign.Negation
            return ast.Literal(loc, sign, ast.SymbolicAtom(ast.Function(loc, name, args, False)))

        @staticmethod
        def compare(a: Any, op: str, b: Any) -> Any:
            kind = {"!=": ast.ComparisonOperator.NotEqual,
                    ">=": ast.ComparisonOperator.GreaterEqual}[op]
            return ast.Literal(loc, ast.Sign.NoSign, ast.Comparison(a, [ast.Guard(kind, b)]))

        @staticmethod
        def rule(body: list[Any]) -> Any:
            return ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.BooleanConstant(False)),
                            body)
    return T


def unsat_ast(body: list[Any]) -> Any:
    """The constraint forbidding the conjunction ``body`` (Literals) in every clause."""
    t = _ast_tools()
    names = {v: t.var(f"V{v}") for lit in body for v in lit.args}
    parts = [t.atom("body_literal", [t.var("C"), t.term(lit.pred), t.term(len(lit.args)),
                                     t.tup([names[v] for v in lit.args])]) for lit in body]
    parts += [t.compare(a, "!=", b) for a, b in itertools.combinations(names.values(), 2)]
    return t.rule(parts)


def constraint_ast(program: list[tuple[int, Clause]], kind: str, slots: int) -> Any:
    """The integrity constraint of ``kind`` for ``program`` as a clingo AST Rule."""
    from clingo import Function as Sym
    from clingo import Number, ast

    if kind not in KINDS:
        raise ValueError(f"unknown constraint kind {kind!r}")
    pos = ast.Position("<constraint>", 1, 1)
    loc = ast.Location(pos, pos)

    def term(value: Any) -> Any:
        if isinstance(value, int):
            return ast.SymbolicTerm(loc, Number(value))
        return ast.SymbolicTerm(loc, Sym(value))

    def var(name: str) -> Any:
        return ast.Variable(loc, name)

    def atom(name: str, args: list[Any], positive: bool = True) -> Any:
        sign = ast.Sign.NoSign if positive else ast.Sign.Negation
        return ast.Literal(loc, sign, ast.SymbolicAtom(ast.Function(loc, name, args, False)))

    def differ(a: Any, b: Any) -> Any:
        return ast.Literal(loc, ast.Sign.NoSign, ast.Comparison(
            a, [ast.Guard(ast.ComparisonOperator.NotEqual, b)]))

    def at_least(a: Any, low: int) -> Any:
        return ast.Literal(loc, ast.Sign.NoSign, ast.Comparison(
            a, [ast.Guard(ast.ComparisonOperator.GreaterEqual, term(low))]))

    body: list[Any] = []
    slot_terms: list[Any] = []
    for i, (_slot, clause) in enumerate(program):
        slot = term(0) if slots == 1 else var(f"C{i}")
        slot_terms.append(slot)
        arity = len(clause.head.args)
        names = {v: term(v) for v in clause.head.args}
        own = []
        for v in clause.body_only_vars:
            names[v] = var(f"V{i}_{v}")
            own.append(names[v])
        body.append(atom("head_literal", [slot, term(clause.head.pred), term(arity),
                                          ast.Function(loc, "", [names[v] for v in clause.head.args], False)]))
        for lit in clause.body:
            args = [names[v] for v in lit.args]
            body.append(atom("body_literal", [slot, term(lit.pred), term(len(lit.args)),
                                              ast.Function(loc, "", args, False)]))
        for a, b in itertools.combinations(own, 2):
            body.append(differ(a, b))
        for v in own:
            body.append(at_least(v, arity))
        if kind != "spec":
            body.append(atom("body_size", [slot, term(len(clause.body))]))
    for a, b in itertools.combinations(slot_terms, 2):
        body.append(differ(a, b))
    if kind != "gen" and len(program) < slots:
        body.append(atom("clause", [term(len(program))], positive=False))
    return ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.BooleanConstant(False)), body)


def variant_nogoods(gen: Any, program: list[tuple[int, Clause]]) -> Iterator[list[int]]:
    """Ground nogoods banning ``program``'s variants at its own slots: every permutation of
    each clause's body-only variables among themselves (the generator numbers variables
    without gaps, so variants use the same ones), with the clauses' body sizes."""
    per_clause: list[list[list[int]]] = []
    for slot, clause in program:
        head = gen.head_lit.get((slot, clause.head.pred, clause.head.args))
        size = gen.size_lit.get((slot, len(clause.body)))
        if head is None or size is None:
            return
        own = clause.body_only_vars
        options = []
        for image in itertools.permutations(own):
            mapping = dict(zip(own, image))
            lits = [head, size]
            for lit in clause.body:
                found = gen.body_lit.get((slot, lit.pred, tuple(mapping.get(v, v) for v in lit.args)))
                if found is None:
                    break
                lits.append(found)
            else:
                options.append(lits)
        per_clause.append(options)
    closing = gen.clause_lit.get(len(program))
    tail = [-closing] if closing is not None else []
    for combo in itertools.product(*per_clause):
        yield sorted(set(itertools.chain(tail, *combo)))
