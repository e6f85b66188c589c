"""Constraints learned from failures, as ground nogoods over the generator's atoms.

A tested program ``P`` (clauses at slots) yields up to two kinds of constraint, each modulo
renaming of every clause's body-only variables and over every placement of P's clauses on
distinct slots of the candidate program:

- **specialisation** (``spec``): forbid programs with as many clauses as P whose every clause
  contains (the body of) a distinct clause of P. They cover a subset of what P covers, for
  definite programs, recursive ones included.
- **generalisation** (``gen``): forbid programs containing every clause of P exactly (same
  body size); they cover a superset of what P covers. With one slot it bans P's variants.
- **exact**: forbid P's variants only (``gen`` with as many clauses as P).

Placements and renamings are enumerated in Python and looked up in the generator's literal
index; combinations absent from the ground program are skipped (they cannot occur). At most
``cap`` nogoods per constraint are produced: fewer nogoods prune less but never wrongly.
"""

from __future__ import annotations

import itertools
from typing import Iterator

from solvers.ilp.clauses import Clause
from solvers.ilp.generate import Generator, Program

DEFAULT_CAP = 600


def _clause_options(gen: Generator, slot: int, clause: Clause, exact: bool,
                    cap: int) -> list[list[int]]:
    """Literal sets placing ``clause`` at ``slot`` under every renaming of its body-only
    variables (head literal, body literals, and the body size when ``exact``)."""
    head = gen.head_lit.get((slot, clause.head.pred, clause.head.args))
    if head is None:
        return []
    size = None
    if exact:
        size = gen.size_lit.get((slot, len(clause.body)))
        if size is None:
            return []
    first = len(clause.head.args)
    body_vars = clause.body_only_vars
    options: list[list[int]] = []
    for image in itertools.permutations(range(first, gen.bias.max_vars), len(body_vars)):
        mapping = dict(zip(body_vars, image))
        lits = [head]
        for lit in clause.body:
            found = gen.body_lit.get((slot, lit.pred, tuple(mapping.get(v, v) for v in lit.args)))
            if found is None:
                break
            lits.append(found)
        else:
            if size is not None:
                lits.append(size)
            options.append(lits)
            if len(options) >= cap:
                break
    return options


def nogoods(gen: Generator, program: Program, kind: str, cap: int = DEFAULT_CAP) -> Iterator[list[int]]:
    """The nogoods of constraint ``kind`` (``spec``, ``gen`` or ``exact``) for ``program``."""
    clauses = [clause for _, clause in program]
    k = len(clauses)
    slots = gen.slots
    if kind not in ("spec", "gen", "exact"):
        raise ValueError(f"unknown constraint kind {kind!r}")
    exact = kind != "spec"
    tail: list[int] = []
    if kind != "gen" and k < slots:
        closing = gen.clause_lit.get(k)
        if closing is not None:
            tail = [-closing]
    produced = 0
    seen: set[frozenset[int]] = set()
    for placement in itertools.permutations(range(slots), k):
        per_clause = [_clause_options(gen, s, c, exact, cap) for s, c in zip(placement, clauses)]
        if any(not options for options in per_clause):
            continue
        for combo in itertools.product(*per_clause):
            nogood = frozenset(itertools.chain(tail, *combo))
            if nogood in seen:
                continue
            seen.add(nogood)
            yield sorted(nogood)
            produced += 1
            if produced >= cap:
                return
