"""The learning-from-failures loop: generate a clause, test it, turn the failure into bans,
by increasing clause size (literals, head included).

Constraints (each tested clause C gets at least one, which also excludes C itself):
- C covers a negative: ban its generalisations (clauses whose body lies within C's body);
  they cover that negative too.
- C covers no positive: ban its specialisations (supersets of C's body); they cover none.
- C covers positives and no negative (a *good* clause): ban its specialisations too; they
  cover a subset of C's positives with more literals, so no optimal program needs them.
Each ban is added for C and its renamings of body-only variables (at most
``max_renamings``); a generated clause that is a variant of a tested one is not tested again.

Classic mode: with ``max_clauses = 1`` the first clause covering every positive and no
negative is optimal (sizes increase); otherwise good clauses are combined after each size
(:mod:`solvers.ilp.combine`) and the search stops once no larger clause can take part in a
smaller program. Partial mode: the clause with the most positives and no negative, ties by
size then canonical order (the size of the first best clause is searched to the end).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from solvers.ilp.bias import IlpBias
from solvers.ilp.clauses import Clause, canonical, renamings, sort_key
from solvers.ilp.combine import combine
from solvers.ilp.generate import Generator
from solvers.ilp.tester import Outcome, Tester


@dataclass
class SearchState:
    """What the search knows so far (also what a timeout returns)."""

    program: list[Clause] = field(default_factory=list)
    covered: frozenset[int] = frozenset()
    tested: int = 0
    variants: int = 0
    bans: int = 0


def search(bias: IlpBias, tester: Tester, deadline: float, state: SearchState,
           max_renamings: int = 24) -> SearchState:
    """Run the loop for ``bias`` (its mode decides the goal) and fill ``state``; raises
    SolverTimeout past ``deadline`` (``state`` then holds the best program found so far)."""
    tester.declare(bias.body_preds, deadline)
    generator = Generator(bias)
    try:
        return _search(bias, tester, deadline, state, max_renamings, generator)
    finally:
        generator.close()


def _search(bias: IlpBias, tester: Tester, deadline: float, state: SearchState,
            max_renamings: int, generator: Generator) -> SearchState:
    seen: dict[Clause, Outcome] = {}
    good: dict[Clause, frozenset[int]] = {}
    n_pos = tester.n_pos
    partial = bias.mode == "partial"
    best_key: tuple | None = None
    best_size: int | None = None    # classic: size of the best program found
    combined = 0                    # classic: number of good clauses at the last combine

    for size in generator.sizes():
        if best_size is not None and size >= best_size:
            break
        generator.set_size(size)
        while True:
            clause = generator.next_clause(deadline)
            if clause is None:
                break
            key = canonical(clause)
            outcome = seen.get(key)
            if outcome is None:
                outcome = tester.test(clause, bias.directions, deadline)
                seen[key] = outcome
                state.tested += 1
                variants = list(renamings(clause, bias.max_vars, max_renamings))
            else:
                state.variants += 1
                variants = [clause]
            _constrain(generator, outcome, variants)
            state.bans = generator.ban_count
            if outcome.neg is not None or not outcome.pos:
                continue
            if partial:
                rank = (-len(outcome.pos), sort_key(clause))
                if best_key is None or rank < best_key:
                    best_key = rank
                    state.program, state.covered = [clause], outcome.pos
            elif len(outcome.pos) == n_pos:
                state.program, state.covered = [clause], outcome.pos
                return state
            else:
                good[key] = outcome.pos
        if partial and len(state.covered) == n_pos:
            break
        if not partial and bias.max_clauses > 1 and len(good) > combined:
            combined = len(good)
            remaining = deadline - time.monotonic()
            chosen = combine(good, n_pos, bias.max_clauses, max(remaining, 0.001))
            if chosen is not None:
                total = sum(c.size for c in chosen)
                if best_size is None or total < best_size:
                    best_size = total
                    state.program = chosen
                    state.covered = frozenset().union(*(good[canonical(c)] for c in chosen))
    return state


def _constrain(generator: Generator, outcome: Outcome, variants: list[Clause]) -> None:
    kinds = []
    if outcome.neg is not None:
        kinds.append("gen_ban")
    if outcome.neg is None or not outcome.pos:
        kinds.append("spec_ban")
    same_vars = variants[0].body_only_vars
    for kind in kinds:
        for variant in variants:
            # a generalisation ban only matters for renamings within the same variables:
            # generated clauses use variables without gaps
            if kind == "spec_ban" or variant.body_only_vars == same_vars:
                generator.ban(kind, variant.body)
