"""Partially directed graphs as bit masks, and the graph side of the GIES operators.

A graph over ``p`` nodes is a :class:`PDAG`: ``out[i]`` has bit ``j`` set when the adjacency
matrix has ``A[i, j] != 0``, ``inn[j]`` has bit ``i`` set in the same case. ``i -> j`` is directed
when only ``A[i, j]`` is set, ``i - j`` is undirected when both are.

The operators' graph changes (:func:`apply_insert`, :func:`apply_delete`, :func:`apply_turn`)
orient the chain component(s) involved along a maximum-cardinality-search ordering and are
followed by :func:`replace_unprotected`, which turns every edge that is not strongly protected
(Hauser & Buehlmann 2012, Def. 14) back into an undirected one, giving the interventional
essential graph. To reproduce the ``gies`` package exactly, the node orders that seed the
search are built with the same Python set operations as the package (set iteration order is
part of its tie-breaking).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


def bits(mask: int) -> list[int]:
    """The set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(nodes: Iterable[int]) -> int:
    """Bit mask with the given nodes set."""
    m = 0
    for i in nodes:
        m |= 1 << int(i)
    return m


@dataclass
class PDAG:
    """A partially directed graph as row (``out``) and column (``inn``) bit masks."""

    out: list[int]
    inn: list[int]

    @classmethod
    def empty(cls, p: int) -> PDAG:
        """The graph without edges over ``p`` nodes."""
        return cls([0] * p, [0] * p)

    @classmethod
    def from_matrix(cls, A: np.ndarray) -> PDAG:
        """Build from an adjacency matrix (``A[i, j] != 0`` means an edge mark ``i -> j``)."""
        nz = np.asarray(A) != 0
        p = nz.shape[0]
        return cls(
            [mask_of(np.flatnonzero(nz[i])) for i in range(p)],
            [mask_of(np.flatnonzero(nz[:, j])) for j in range(p)],
        )

    @property
    def p(self) -> int:
        """Number of nodes."""
        return len(self.out)

    def copy(self) -> PDAG:
        """An independent copy."""
        return PDAG(list(self.out), list(self.inn))

    def to_matrix(self) -> np.ndarray:
        """Adjacency matrix (int8, 1 where ``A[i, j] != 0``)."""
        p = self.p
        A = np.zeros((p, p), dtype=np.int8)
        for i in range(p):
            A[i, bits(self.out[i])] = 1
        return A

    def set_edge(self, i: int, j: int, value: bool) -> None:
        """Set or clear the mark ``A[i, j]``."""
        if value:
            self.out[i] |= 1 << j
            self.inn[j] |= 1 << i
        else:
            self.out[i] &= ~(1 << j)
            self.inn[j] &= ~(1 << i)

    # neighbourhoods as masks
    def ne(self, i: int) -> int:
        """Undirected neighbours of ``i``."""
        return self.out[i] & self.inn[i]

    def pa(self, i: int) -> int:
        """Parents of ``i`` (directed edges into ``i``)."""
        return self.inn[i] & ~self.out[i]

    def ch(self, i: int) -> int:
        """Children of ``i`` (directed edges out of ``i``)."""
        return self.out[i] & ~self.inn[i]

    def adj(self, i: int) -> int:
        """Nodes adjacent to ``i`` by any edge."""
        return self.out[i] | self.inn[i]

    def n_edges(self) -> int:
        """Number of adjacencies (an undirected edge counts once)."""
        return sum(bin(self.adj(i)).count("1") for i in range(self.p)) // 2


# ---------------------------------------------------------------------------------------------
# Node sets built like the gies package builds them (its set iteration order breaks ties)


def _set(mask: int) -> set[int]:
    """A set filled in ascending order, as ``set(np.where(...)[0])`` is."""
    return set(bits(mask))


def _na(G: PDAG, y: int, x: int) -> set[int]:
    """Neighbours of ``y`` adjacent to ``x``, as a set built like the package's."""
    return _set(G.ne(y)) & _set(G.adj(x))


def chain_component_set(G: PDAG, i: int) -> set[int]:
    """Nodes reachable from ``i`` over undirected edges, in the package's set order."""
    visited: set[int] = set()
    pending = {i}
    while pending:
        current = pending
        for j in current:
            visited.add(j)
            pending = (pending | _set(G.ne(j))) - visited
    return visited


def max_cardinality_ordering(G: PDAG, nodes: Sequence[int]) -> list[int]:
    """Maximum cardinality search over the undirected edges of ``G`` among ``nodes``.

    Ties go to the earliest node of ``nodes``; a node listed twice keeps the weight it had
    when its first copy was taken.
    """
    remaining = [int(n) for n in nodes]
    weights = [0] * len(remaining)
    taken = 0
    ordering: list[int] = []
    for _ in range(len(remaining)):
        idx = weights.index(max(weights))
        m = remaining.pop(idx)
        weights.pop(idx)
        ordering.append(m)
        if not taken >> m & 1:
            nm = G.ne(m) & ~taken
            if nm:
                for r_idx, r in enumerate(remaining):
                    if nm >> r & 1:
                        weights[r_idx] += 1
        taken |= 1 << m
    return ordering


def orient_along(G: PDAG, ordering: Sequence[int]) -> None:
    """Orient, in place, every edge among ``ordering`` from the earlier to the later node."""
    ord_mask = mask_of(ordering)
    for i in ordering:
        for j in bits(G.out[i] & ord_mask):
            G.set_edge(j, i, False)


def apply_insert(G: PDAG, x: int, y: int, T: int) -> PDAG:
    """Insert ``x -> y`` with the neighbour set ``T`` of ``y`` (a mask) oriented into ``y``."""
    C = _na(G, y, x) | _set(T)
    cc = chain_component_set(G, y)
    nodes = list(C) + [y] + list(cc - {y} - C)
    new = G.copy()
    orient_along(new, max_cardinality_ordering(G, nodes))
    new.set_edge(x, y, True)
    return new


def apply_delete(G: PDAG, x: int, y: int, H: int) -> PDAG:
    """Delete the edge ``x -> y`` or ``x - y``, orienting ``y - h`` as ``y -> h`` for ``h`` in ``H``."""
    C = _na(G, y, x) - _set(H)
    cc = chain_component_set(G, y)
    if G.ne(y) >> x & 1:
        nodes = list(C) + [x] + [y] + list(cc - {y} - C)
    else:
        nodes = list(C) + [y] + list(cc - {y} - C)
    new = G.copy()
    orient_along(new, max_cardinality_ordering(G, nodes))
    new.set_edge(x, y, False)
    new.set_edge(y, x, False)
    return new


def apply_turn(G: PDAG, x: int, y: int, C_set: set[int]) -> PDAG:
    """Turn ``y -> x`` or ``x - y`` into ``x -> y``, with the neighbours ``C_set`` of ``y`` as parents."""
    C = set(C_set)
    new = G.copy()
    if not G.out[x] >> y & 1:  # directed y -> x
        cc_x = chain_component_set(G, x)
        orient_along(new, max_cardinality_ordering(G, [x] + list(cc_x - {x})))
        cc_y = chain_component_set(G, y)
        nodes_y = list(C) + [y] + list(cc_y - {y} - C)
    else:  # undirected x - y
        cc_y = chain_component_set(G, y)
        nodes_y = list(C) + [y] + [x] + list(cc_y - {y} - C - {x})
    orient_along(new, max_cardinality_ordering(G, nodes_y))
    new.set_edge(y, x, False)
    new.set_edge(x, y, True)
    return new


# ---------------------------------------------------------------------------------------------
# From a partial to a complete interventional essential graph


def distinguishing_pairs(p: int, targets: Sequence[Sequence[int]]) -> list[int]:
    """``result[a]`` has bit ``b`` set when some target set holds exactly one of ``a`` and ``b``."""
    env_masks = [mask_of(t) for t in targets]
    result = [0] * p
    for a in range(p):
        for tm in env_masks:
            if tm >> a & 1:
                result[a] |= ~tm & ((1 << p) - 1)
            else:
                result[a] |= tm
    return result


def strongly_protected(G: PDAG, a: int, b: int, distinguish: Sequence[int]) -> bool:
    """Whether the directed edge ``a -> b`` is strongly protected in ``G`` (Def. 14 of the paper).

    As in the ``gies`` package, configuration (d) asks the two middle nodes not to be joined by
    an *undirected* edge.
    """
    if distinguish[a] >> b & 1:
        return True
    out, inn = G.out, G.inn
    adj_a = out[a] | inn[a]
    adj_b = out[b] | inn[b]
    if (inn[a] & ~out[a]) & ~adj_b:  # (a) c -> a -> b, c not adjacent to b
        return True
    into_b = inn[b] & ~out[b] & ~(1 << a)
    if into_b & ~adj_a:  # (b) a -> b <- c, c not adjacent to a
        return True
    if into_b & (out[a] & ~inn[a]):  # (c) a -> c -> b
        return True
    both = into_b & (out[a] & inn[a])  # (d) a - c1 -> b, a - c2 -> b
    for c1 in bits(both):
        if both & ~(1 << c1) & ~(out[c1] & inn[c1]):
            return True
    return False


def replace_unprotected(G: PDAG, distinguish: Sequence[int]) -> PDAG:
    """Undirect, pass after pass, the directed edges of ``G`` that are not strongly protected."""
    E = G.copy()
    candidates = [(a, b) for a in range(E.p) for b in bits(E.out[a] & ~E.inn[a])]
    while True:
        kept = []
        changed = False
        for a, b in candidates:
            if strongly_protected(E, a, b, distinguish):
                kept.append((a, b))
            else:
                E.set_edge(b, a, True)
                changed = True
        if not changed:
            return E
        candidates = kept
