"""Greedy interventional equivalence search: forward (insert), backward (delete) and turning
phases over interventional essential graphs (Hauser & Buehlmann 2012, Alg. 1, 4 and 5).

Each step scores every valid operator and applies the best one; ties go to the first operator
in the ``gies`` package's order:

- insert ``(x, y, T)``: pairs of non-adjacent nodes in row-major order of ``(x, y)``;
- delete ``(x, y, H)``: directed edges ``x -> y`` in row-major order, then undirected edges
  ``x - y`` with ``x > y`` in row-major order;
- turn ``(x, y, C)``: nonzero entries ``A[y, x]`` in row-major order of ``(y, x)``;

and, within one pair, the subsets of the candidate set (sorted ascending) in binary counting
order with the smallest node as the most significant bit. A step is taken when it improves the
score by more than 0.001; the three phases repeat until a round improves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from solvers.gies.graphs import (
    PDAG,
    _na,
    _set,
    apply_delete,
    apply_insert,
    apply_turn,
    bits,
    distinguishing_pairs,
    replace_unprotected,
)
from solvers.gies.score import GaussIntScore

PHASES = ("forward", "backward", "turning")
MIN_IMPROVEMENT = 0.001


@dataclass
class SearchTrace:
    """What the search did: the operators applied, in order, with their score changes."""

    steps: list[tuple[str, int, int, float]] = field(default_factory=list)


def subsets_in_order(mask: int) -> list[int]:
    """All subsets of ``mask``, lowest node most significant, in binary counting order."""
    out = [0]
    for node in reversed(bits(mask)):
        b = 1 << node
        out = out + [s | b for s in out]
    return out


def _is_clique(nodes: int, adj: Sequence[int]) -> bool:
    rest = nodes
    while rest:
        low = rest & -rest
        rest ^= low
        if rest & ~adj[low.bit_length() - 1]:
            return False
    return True


def _reaches(
    out: Sequence[int], src: int, dst: int, blocked: int, skip_direct: bool = False
) -> bool:
    """Is there a semi-directed path ``src ~> dst`` that avoids ``blocked``?"""
    seen = blocked | (1 << src)
    frontier = out[src] & ~seen
    if skip_direct:
        frontier &= ~(1 << dst)
    target = 1 << dst
    while frontier:
        if frontier & target:
            return True
        seen |= frontier
        nxt = 0
        rest = frontier
        while rest:
            low = rest & -rest
            rest ^= low
            nxt |= out[low.bit_length() - 1]
        frontier = nxt & ~seen
    return False


class _Monotone:
    """Remembers subsets known to satisfy an upward-closed condition."""

    __slots__ = ("passed",)

    def __init__(self) -> None:
        self.passed: list[int] = []

    def known(self, subset: int) -> bool:
        return any(subset & s == s for s in self.passed)

    def add(self, subset: int) -> None:
        self.passed.append(subset)


def _insert_operators(G: PDAG, score: GaussIntScore) -> Iterator[tuple[float, int, int, int]]:
    p, out = G.p, G.out
    ne = [G.ne(i) for i in range(p)]
    adj = [G.adj(i) for i in range(p)]
    pa = [G.pa(i) for i in range(p)]
    ls = score.local_score
    for x in range(p):
        adj_x = adj[x] | (1 << x)
        bx = 1 << x
        for y in range(p):
            if adj_x >> y & 1:
                continue
            na = ne[y] & adj_x
            if not _is_clique(na, adj):
                continue  # every NA_yx u T contains NA_yx
            cond2 = _Monotone()
            for T in subsets_in_order(ne[y] & ~adj_x):
                C = na | T
                if T and not _is_clique(C, adj):
                    continue
                if not cond2.known(T):
                    if _reaches(out, y, x, C):
                        continue
                    cond2.add(T)
                aux = C | pa[y]
                yield ls(y, aux | bx) - ls(y, aux), x, y, T


def _delete_operators(G: PDAG, score: GaussIntScore) -> Iterator[tuple[float, int, int, int]]:
    p = G.p
    ne = [G.ne(i) for i in range(p)]
    adj = [G.adj(i) for i in range(p)]
    pa = [G.pa(i) for i in range(p)]
    ls = score.local_score
    edges = [(x, y) for x in range(p) for y in bits(G.ch(x))]
    edges += [(x, y) for x in range(p) for y in bits(ne[x]) if x > y]
    for x, y in edges:
        bx = 1 << x
        na = ne[y] & adj[x]
        cond1 = _Monotone()
        for H in subsets_in_order(na):
            if not cond1.known(H):
                if not _is_clique(na & ~H, adj):
                    continue
                cond1.add(H)
            aux = (na & ~H) | pa[y] | bx
            yield ls(y, aux & ~bx) - ls(y, aux), x, y, H


def _chain_component(ne: Sequence[int], i: int) -> int:
    seen = 1 << i
    frontier = seen
    while frontier:
        nxt = 0
        for j in bits(frontier):
            nxt |= ne[j]
        frontier = nxt & ~seen
        seen |= frontier
    return seen


def _turn_operators(G: PDAG, score: GaussIntScore) -> Iterator[tuple[float, int, int, int]]:
    p, out = G.p, G.out
    ne = [G.ne(i) for i in range(p)]
    adj = [G.adj(i) for i in range(p)]
    pa = [G.pa(i) for i in range(p)]
    ls = score.local_score
    for y in range(p):
        for x in bits(out[y]):
            bx, by = 1 << x, 1 << y
            na = ne[y] & adj[x]
            if not out[x] >> y & 1:  # y -> x: make it x -> y
                cond2 = _Monotone()
                for T in subsets_in_order(ne[y] & ~adj[x]):
                    C = na | T
                    if not _is_clique(C, adj):
                        continue
                    if not cond2.known(T):
                        if _reaches(out, y, x, C | ne[x], skip_direct=True):
                            continue
                        cond2.add(T)
                    new = ls(y, pa[y] | C | bx) + ls(x, pa[x] & ~by)
                    old = ls(y, pa[y] | C) + ls(x, pa[x])
                    yield new - old, x, y, T
                continue
            # x - y: make it x -> y
            non_adj = ne[y] & ~adj[x] & ~bx
            if not non_adj:
                continue
            cc = _chain_component(ne, y)
            sub_out = [out[i] & cc for i in range(p)]
            for C in subsets_in_order(ne[y] & ~bx):
                if not C & non_adj or not _is_clique(C, adj):
                    continue
                B = na & ~C
                if B and _separation_fails(sub_out, C, B, bx | by):
                    continue
                new = ls(y, pa[y] | C | bx) + ls(x, pa[x] | (C & na))
                old = ls(y, pa[y] | C) + ls(x, pa[x] | (C & na) | by)
                yield new - old, x, y, C


def _separation_fails(out: Sequence[int], sources: int, targets: int, blocked: int) -> bool:
    """Is some node of ``targets`` reachable from ``sources`` over paths avoiding ``blocked``?"""
    seen = sources | blocked
    frontier = sources
    while frontier:
        nxt = 0
        for j in bits(frontier):
            nxt |= out[j]
        frontier = nxt & ~seen
        if frontier & targets:
            return True
        seen |= frontier
    return False


_OPERATORS = {
    "forward": _insert_operators,
    "backward": _delete_operators,
    "turning": _turn_operators,
}


def best_operator(phase: str, G: PDAG, score: GaussIntScore) -> tuple[float, int, int, int] | None:
    """The highest-scoring valid operator of ``phase`` (first in operator order on ties)."""
    best = None
    best_delta = float("-inf")
    for op in _OPERATORS[phase](G, score):
        if op[0] > best_delta:
            best, best_delta = op, op[0]
    return best


def apply_operator(phase: str, G: PDAG, op: tuple[float, int, int, int]) -> PDAG:
    """The (partial) essential graph after applying ``op`` of ``phase`` to ``G``."""
    _, x, y, subset = op
    if phase == "forward":
        return apply_insert(G, x, y, subset)
    if phase == "backward":
        return apply_delete(G, x, y, subset)
    if G.out[x] >> y & 1:  # undirected: C is the subset itself
        return apply_turn(G, x, y, _set(subset))
    return apply_turn(G, x, y, _na(G, y, x) | _set(subset))


def greedy_search(
    score: GaussIntScore,
    phases: Sequence[str] = PHASES,
    iterate: bool = True,
    trace: SearchTrace | None = None,
) -> tuple[PDAG, float]:
    """Run GIES from the empty graph; return the essential graph found and its score."""
    for phase in phases:
        if phase not in _OPERATORS:
            raise ValueError(f"unknown phase {phase!r}; expected one of {PHASES}")
    distinguish = distinguishing_pairs(score.p, score.targets)
    G = PDAG.empty(score.p)
    total = score.empty_graph_score()
    while True:
        round_start = total
        for phase in phases:
            while True:
                op = best_operator(phase, G, score)
                if op is None or not op[0] > MIN_IMPROVEMENT:
                    break
                G = replace_unprotected(apply_operator(phase, G, op), distinguish)
                total += op[0]
                if trace is not None:
                    trace.steps.append((phase, op[1], op[2], op[0]))
        if total <= round_start or not iterate:
            return G, total
