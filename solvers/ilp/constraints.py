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
- **spec_any**: ``spec`` in programs of any number of clauses (sound for a clause whose
  coverage does not depend on the other clauses: no recursion).
- **red** (recursion without invention; Popper's redundancy constraint): for a program P
  of base clauses and k recursive clauses covering no positive: forbid programs with
  exactly k recursive clauses, each containing a distinct recursive clause of P, and a
  clause containing a base clause of P. A derivation ending in that clause uses only
  clauses containing P's, so P would cover what it covers: it proves no positive, and an
  optimal program does not have it.
- **rec_spec** (the same, Popper's first redundancy constraint): for a base clause B
  covering no positive on its own: forbid programs with exactly one recursive clause that
  contains B (every derivation starts with that clause, so B would cover its examples).
- a ``spec`` or ``gen`` constraint may be *sized* (``min_size``): it then bans only the
  programs of at least that many literals (noisy mode, Popper's bounds).
- **unsat** (:func:`unsat_rule`): a conjunction of background literals with no solution at
  all: forbid every clause, in any slot, containing it under any variable renaming (head
  variables included); such a clause can never succeed (Popper's UNSAT constraint).

Each constraint is one *non-ground* ASP integrity constraint: slots and body-only variables
are ASP variables (pairwise distinct; body-only variables above the head's), so clingo's
grounder instantiates every renaming and placement that the ground program can hold. It is
written as ASP text whose only data are numbers and predicate names printed by clingo as
symbols, so no name can become syntax (building clingo AST nodes from Python instead costs
~1 ms a constraint, more than the search step it prunes). The constraints of one size step are grounded together
before the next step (:meth:`solvers.ilp.generate.Generator.add_constraints`).

During a step, the running enumeration only needs P's variants banned (larger programs come
in later steps): :func:`variant_nogoods` gives them as ground nogoods over P's own variables.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from solvers.ilp.clauses import Clause, is_recursive

KINDS = ("spec", "spec_any", "gen", "exact", "red", "rec_spec")


@lru_cache(maxsize=4096)
def _sym(name: str) -> str:
    """A predicate name as clingo prints its symbol (a constant, or a quoted string when
    the name is not an ASP identifier): data never becomes program syntax."""
    from solvers.asp import to_symbol

    return str(to_symbol(name))  # as the generator's facts spell it


def _tuple(args: list[str]) -> str:
    return f"({args[0]},)" if len(args) == 1 else f"({','.join(args)})"


def unsat_rule(body: list[Any]) -> str:
    """The constraint forbidding the conjunction ``body`` (Literals) in every clause."""
    names = {v: f"V{v}" for lit in body for v in lit.args}
    parts = [
        f"body_literal(C,{_sym(lit.pred)},{len(lit.args)},{_tuple([names[v] for v in lit.args])})"
        for lit in body
    ]
    parts += [f"{a}!={b}" for a, b in itertools.combinations(names.values(), 2)]
    return ":- " + ", ".join(parts) + "."


def constraint_rule(
    program: Sequence[tuple[int, Clause]], kind: str, slots: int, min_size: int | None = None
) -> str:
    """The integrity constraint of ``kind`` for ``program``, as ASP text whose only data
    are numbers and clingo-printed symbols (see :func:`_sym`). ``min_size``: only programs
    of at least that many literals are banned (Popper's ``program_size_at_least``; here
    the size of the running solve, the external ``size_is/1``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown constraint kind {kind!r}")
    body: list[str] = []
    slot_terms: list[str] = []
    for i, (_slot, clause) in enumerate(program):
        slot = "0" if slots == 1 else f"C{i}"
        slot_terms.append(slot)
        arity = len(clause.head.args)
        names = {v: str(v) for v in clause.head.args}
        own = []
        for v in clause.body_only_vars:
            names[v] = f"V{i}_{v}"
            own.append(names[v])
        body.append(
            f"head_literal({slot},{_sym(clause.head.pred)},{arity},"
            f"{_tuple([names[v] for v in clause.head.args])})"
        )
        for lit in clause.body:
            body.append(
                f"body_literal({slot},{_sym(lit.pred)},{len(lit.args)},"
                f"{_tuple([names[v] for v in lit.args])})"
            )
        body += [f"{a}!={b}" for a, b in itertools.combinations(own, 2)]
        body += [f"{v}>={arity}" for v in own]
        if kind in ("gen", "exact"):
            body.append(f"body_size({slot},{len(clause.body)})")
    body += [f"{a}!={b}" for a, b in itertools.combinations(slot_terms, 2)]
    if kind in ("spec", "exact") and len(program) < slots:
        body.append(f"not clause({len(program)})")
    if kind in ("red", "rec_spec"):
        head = program[0][1].head
        name, arity = _sym(head.pred), len(head.args)
        if kind == "rec_spec":
            body.append(f"recursive_clause({slot_terms[0]},{name},{arity})")
        body.append(f"num_recursive({name},{_recursive_count([c for _, c in program], kind)})")
    if min_size is not None:
        body.append(f"size_is(S),S>={int(min_size)}")
    return ":- " + ", ".join(body) + "."


def variant_nogoods(gen: Any, program: Sequence[tuple[int, Clause]]) -> Iterator[list[int]]:
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
                found = gen.body_lit.get(
                    (slot, lit.pred, tuple(mapping.get(v, v) for v in lit.args))
                )
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


def spec_nogoods(gen: Any, clause: Clause, any_program: bool) -> Iterator[list[int]]:
    """Ground nogoods for the running enumeration banning every clause that contains
    ``clause`` (its head and body literals) under every injective renaming of its
    body-only variables onto the variables above the head's: the ground form of
    ``constraint_rule([(0, clause)], "spec_any" if any_program else "spec", slots)``, in
    every slot."""
    tail: list[int] = []
    if not any_program and gen.slots > 1:
        closing = gen.clause_lit.get(1)
        tail = [-closing] if closing is not None else []
    for slot in range(gen.slots):
        head = gen.head_lit.get((slot, clause.head.pred, clause.head.args))
        if head is not None:
            for lits in _containing(gen, slot, clause):
                yield sorted(set([head, *tail, *lits]))
        if not any_program:
            break  # a one-clause program has its clause in slot 0


def _containing(gen: Any, slot: int, clause: Clause) -> Iterator[list[int]]:
    """The program literals of ``clause``'s body at ``slot``, under every injective renaming
    of its body-only variables onto the variables above the head's (those the generator
    has)."""
    own = clause.body_only_vars
    free = range(len(clause.head.args), gen.bias.max_vars)
    for image in itertools.permutations(free, len(own)):
        mapping = dict(zip(own, image))
        lits = []
        for lit in clause.body:
            found = gen.body_lit.get((slot, lit.pred, tuple(mapping.get(v, v) for v in lit.args)))
            if found is None:
                break
            lits.append(found)
        else:
            yield lits


def redundancy_nogoods(gen: Any, program: list[Clause], kind: str) -> Iterator[list[int]]:
    """Ground nogoods for the running enumeration: the ground form of
    ``constraint_rule`` of ``kind`` (``red`` or ``rec_spec``) for ``program`` (its clauses
    on every assignment of distinct slots, every clause under every injective renaming of
    its body-only variables onto the variables above the head's)."""
    head = program[0].head
    count = gen.num_recursive_lit.get((head.pred, _recursive_count(program, kind)))
    if count is None:
        return
    for slots in itertools.permutations(range(gen.slots), len(program)):
        per_clause: list[list[list[int]]] = []
        for slot, clause in zip(slots, program):
            fixed = [gen.head_lit.get((slot, clause.head.pred, clause.head.args))]
            if kind == "rec_spec":  # None in slot 0: a recursive clause is never there
                fixed.append(gen.recursive_lit.get((slot, clause.head.pred)))
            if None in fixed:
                break
            options = [fixed + lits for lits in _containing(gen, slot, clause)]
            if not options:
                break
            per_clause.append(options)
        else:
            for combo in itertools.product(*per_clause):
                yield sorted(set(itertools.chain([count], *combo)))


def _recursive_count(program: list[Clause], kind: str) -> int:
    """How many recursive clauses the programs banned by a ``red`` / ``rec_spec``
    constraint of ``program`` have."""
    return 1 if kind == "rec_spec" else sum(1 for c in program if is_recursive(c))
