"""Causal graphs of the track: the Sachs network as a networkx DiGraph, connected subgraphs of
it, and the fictitious protein XYZ wired into a subgraph without creating a cycle.

Node names are the display names of the proteins (``Raf``, ``Mek``, ``Plcg``, ``PIP2``, ...),
used in the formal object, the options and the text alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import networkx as nx
import numpy as np

from scir.data.sachs import PROTEINS, ground_truth_edges
from scir.errors import ConfigError, GenerationError

GRAPHS = ("19", "20", "17")
NEW_PROTEIN = "XYZ"
# data name -> display name, in the data's canonical protein order
DISPLAY: dict[str, str] = {
    "raf": "Raf",
    "mek": "Mek",
    "plc": "Plcg",
    "pip2": "PIP2",
    "pip3": "PIP3",
    "erk": "Erk",
    "akt": "Akt",
    "pka": "PKA",
    "pkc": "PKC",
    "p38": "P38",
    "jnk": "Jnk",
}
ORDER = [DISPLAY[p] for p in PROTEINS]  # canonical node order
Edge = tuple[str, str]


@cache
def _edges(graph: str) -> tuple[Edge, ...]:
    if graph not in GRAPHS:
        raise ConfigError(
            f"unknown Sachs edge list {graph!r}; expected one of {list(GRAPHS)}", field="graph"
        )
    return tuple(sorted((DISPLAY[a], DISPLAY[b]) for a, b in ground_truth_edges(graph)))


def sachs_graph(graph: str = "19") -> nx.DiGraph:
    """The Sachs network of edge list ``graph`` (``"19"``, ``"20"`` or ``"17"``): all 11
    proteins as nodes (canonical order), the consensus edges as directed edges. A new object
    on every call."""
    g = nx.DiGraph()
    g.add_nodes_from(ORDER)
    g.add_edges_from(_edges(graph))
    if not nx.is_directed_acyclic_graph(g):
        raise ConfigError(f"Sachs edge list {graph} is not acyclic", field="graph")
    return g


def sorted_nodes(nodes) -> list[str]:
    """Nodes in canonical order (Sachs proteins in data order, then anything else by name)."""
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted(nodes, key=lambda n: (rank.get(n, len(rank)), n))


def sorted_edges(edges) -> list[Edge]:
    """Edges sorted by (source, target) in canonical node order."""
    rank = {name: i for i, name in enumerate(ORDER + [NEW_PROTEIN])}
    return sorted(
        edges, key=lambda e: (rank.get(e[0], len(rank)), e[0], rank.get(e[1], len(rank)), e[1])
    )


def connected_subgraph(g: nx.DiGraph, n: int, rng: np.random.Generator) -> nx.DiGraph:
    """A random weakly connected induced subgraph of ``n`` nodes: start at a random node of a
    component with at least ``n`` nodes, then add a random neighbour of the nodes chosen so far
    until there are ``n``."""
    undirected = g.to_undirected(as_view=True)
    eligible = [v for v in ORDER if v in g and len(nx.node_connected_component(undirected, v)) >= n]
    if n < 1 or not eligible:
        raise ConfigError(
            f"the Sachs graph has no connected subgraph of {n} nodes "
            f"(largest component: {max(len(c) for c in nx.connected_components(undirected))})",
            field="nodes",
        )
    chosen = [eligible[int(rng.integers(len(eligible)))]]
    while len(chosen) < n:
        frontier = sorted_nodes({w for v in chosen for w in undirected[v]} - set(chosen))
        chosen.append(frontier[int(rng.integers(len(frontier)))])
    return g.subgraph(sorted_nodes(chosen)).copy()


@dataclass
class TaskGraph:
    """The known subgraph, XYZ's edges, and the full graph the data are drawn from."""

    subgraph: nx.DiGraph
    xyz_edges: list[Edge]

    @property
    def full(self) -> nx.DiGraph:
        """The subgraph plus XYZ and its edges."""
        g = self.subgraph.copy()
        g.add_node(NEW_PROTEIN)
        g.add_edges_from(self.xyz_edges)
        return g

    @property
    def nodes(self) -> list[str]:
        """Subgraph nodes in canonical order, then XYZ."""
        return sorted_nodes(self.subgraph.nodes) + [NEW_PROTEIN]

    @property
    def known_edges(self) -> list[Edge]:
        return sorted_edges(self.subgraph.edges)

    def neighbours(self) -> list[str]:
        """The subgraph nodes adjacent to XYZ (either direction), canonical order."""
        return sorted_nodes({a if b == NEW_PROTEIN else b for a, b in self.xyz_edges})


def reachability(subgraph: nx.DiGraph) -> dict[str, frozenset[str]]:
    """Node -> the nodes reachable from it by a directed path (its descendants)."""
    return {v: frozenset(nx.descendants(subgraph, v)) for v in subgraph.nodes}


def is_acyclic_with(subgraph: nx.DiGraph, xyz_edges, reach: dict | None = None) -> bool:
    """Whether the subgraph plus XYZ with ``xyz_edges`` is a DAG: no edge ``XYZ -> v`` together
    with an edge ``u -> XYZ`` where ``u`` is reachable from ``v`` (or is ``v``). ``reach``:
    :func:`reachability` of the subgraph, when already computed."""
    reach = reachability(subgraph) if reach is None else reach
    into = {a for a, b in xyz_edges if b == NEW_PROTEIN}
    out = {b for a, b in xyz_edges if a == NEW_PROTEIN}
    return not any(v in into or reach[v] & into for v in out)


def add_xyz(
    subgraph: nx.DiGraph, c: int, rng: np.random.Generator, max_tries: int = 200
) -> TaskGraph:
    """Wire XYZ to ``c`` distinct random subgraph nodes, each edge in a random direction,
    redrawing until the graph stays acyclic."""
    nodes = sorted_nodes(subgraph.nodes)
    if not 1 <= c <= len(nodes):
        raise ConfigError(
            f"--connections must lie in 1..{len(nodes)} (the subgraph's nodes), got {c}",
            field="connections",
        )
    reach = reachability(subgraph)
    for _ in range(max_tries):
        partners = sorted_nodes(
            nodes[int(i)] for i in rng.choice(len(nodes), size=c, replace=False)
        )
        edges = [(NEW_PROTEIN, v) if rng.random() < 0.5 else (v, NEW_PROTEIN) for v in partners]
        if is_acyclic_with(subgraph, edges, reach):
            return TaskGraph(subgraph, sorted_edges(edges))
    raise GenerationError(f"no acyclic way to connect XYZ by {c} edges in {max_tries} draws")
