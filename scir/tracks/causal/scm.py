"""The linear-Gaussian structural causal model of a task and its environments.

Every protein ``j`` has a positive base level ``b_j`` and Gaussian noise of standard deviation
``s_j``; each edge ``i -> j`` a weight ``w_ij`` drawn uniformly from [0.8, 1.2]:

    x_j = max(0, b_j + sum_i w_ij x_i + e_j),   e_j ~ N(0, s_j^2)

(negative concentrations are clipped to 0, before the children see them). An inhibition holds
its target at 0; an activation holds it at ``ACTIVATION_FACTOR`` x its mean in the
observational environment. Every value is rounded to ``DECIMALS`` decimals -- the printed
precision -- as soon as it is drawn, so the solver, the text and the checks all see the same
numbers.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from scir.errors import ConfigError
from scir.tracks.causal.graph import NEW_PROTEIN, TaskGraph, sorted_nodes

DECIMALS = 2
WEIGHT_RANGE = (0.8, 1.2)
BASE_RANGE = (0.5, 2.0)
NOISE_RANGE = (0.3, 0.6)
ACTIVATION_FACTOR = 3.0
OBSERVATIONAL = "observational"
INHIBITION, ACTIVATION = "inhibition", "activation"
KINDS = (OBSERVATIONAL, INHIBITION, ACTIVATION)


@dataclass
class SCM:
    """Weights, base levels and noise scales over the nodes of a task graph."""

    graph: nx.DiGraph
    weights: dict[tuple[str, str], float]
    base: dict[str, float]
    noise: dict[str, float]

    @property
    def order(self) -> list[str]:
        """A topological order (ties broken by canonical node order, so deterministic)."""
        rank = {v: i for i, v in enumerate(sorted_nodes(self.graph.nodes))}
        return list(nx.lexicographical_topological_sort(self.graph, key=rank.__getitem__))


@dataclass
class Environment:
    """One experimental condition: its intervention and its (rounded) rows."""

    name: str
    kind: str  # observational | inhibition | activation
    targets: list[str]
    rows: list[list[float]] = field(default_factory=list)  # columns in the task's order


def random_scm(task_graph: TaskGraph, rng: np.random.Generator) -> SCM:
    """Draw weights, base levels and noise scales for the full graph (subgraph plus XYZ)."""
    g = task_graph.full
    nodes = sorted_nodes(g.nodes)
    edges = sorted(g.edges, key=lambda e: (nodes.index(e[0]), nodes.index(e[1])))
    weights = {e: float(rng.uniform(*WEIGHT_RANGE)) for e in edges}
    base = {v: float(rng.uniform(*BASE_RANGE)) for v in nodes}
    noise = {v: float(rng.uniform(*NOISE_RANGE)) for v in nodes}
    return SCM(g, weights, base, noise)


def environment_name(
    kind: str, targets: str | Sequence[str] | None = (), taken: Collection[str] = ()
) -> str:
    """An environment's name, the one naming scheme (the generator, the formalization parser
    and the codecs' readers use it): ``observational``, ``inhibit_Raf``, ``activate_XYZ``,
    ``activate_Raf_Mek`` for several targets (``targets``: one protein, several, or None);
    ``_2``, ``_3``, ... appended while the name is in ``taken``."""
    if isinstance(targets, str):
        targets = [targets]
    base = (
        OBSERVATIONAL
        if kind == OBSERVATIONAL
        else "_".join(["inhibit" if kind == INHIBITION else "activate", *(targets or ())])
    )
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def choose_interventions(
    task_graph: TaskGraph, k: int, rng: np.random.Generator
) -> list[tuple[str, str]]:
    """``k`` single-node interventions ``(kind, target)`` on distinct nodes, at least one on XYZ
    or a neighbour of XYZ, in random order; each an inhibition or an activation (even odds)."""
    nodes = task_graph.nodes
    if not 1 <= k <= len(nodes) - 1:
        raise ConfigError(
            f"--interventions must lie in 1..{len(nodes) - 1} (one node is never "
            f"intervened on), got {k}",
            field="interventions",
        )
    near = [NEW_PROTEIN] + task_graph.neighbours()
    first = near[int(rng.integers(len(near)))]
    rest = [v for v in nodes if v != first]
    picked = [first] + [rest[int(i)] for i in rng.choice(len(rest), size=k - 1, replace=False)]
    picked = [picked[int(i)] for i in rng.permutation(k)]
    return [(INHIBITION if rng.random() < 0.5 else ACTIVATION, v) for v in picked]


def choose_interventions_blind(
    task_graph: TaskGraph, k: int, rng: np.random.Generator
) -> list[tuple[str, str]]:
    """The balanced construction's targets, blind to where XYZ attaches: XYZ itself (which
    orients every XYZ edge for GIES, whatever its partners) plus ``k - 1`` distinct subgraph
    nodes drawn uniformly, in random order; each an inhibition or an activation (even
    odds). True partners are therefore intervened on exactly as often as other nodes."""
    nodes = task_graph.nodes
    if not 1 <= k <= len(nodes) - 1:
        raise ConfigError(
            f"--interventions must lie in 1..{len(nodes) - 1} (one node is never "
            f"intervened on), got {k}",
            field="interventions",
        )
    others = nodes[:-1]  # the subgraph nodes, canonical order
    picked = [NEW_PROTEIN] + [
        others[int(i)] for i in rng.choice(len(others), size=k - 1, replace=False)
    ]
    picked = [picked[int(i)] for i in rng.permutation(k)]
    return [(INHIBITION if rng.random() < 0.5 else ACTIVATION, v) for v in picked]


def _draw(
    scm: SCM, n: int, fixed: dict[str, float], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    values: dict[str, np.ndarray] = {}
    for v in scm.order:
        noise = rng.normal(0.0, scm.noise[v], size=n)  # drawn for every node: same stream
        if v in fixed:
            values[v] = np.full(n, fixed[v])
            continue
        x = scm.base[v] + noise
        for parent in scm.graph.predecessors(v):
            x = x + scm.weights[(parent, v)] * values[parent]
        values[v] = np.maximum(x, 0.0)
    return values


def _rounded_rows(values: dict[str, np.ndarray], columns: list[str]) -> list[list[float]]:
    table = np.column_stack([values[c] for c in columns])
    return [[round(float(x), DECIMALS) + 0.0 for x in row] for row in table]


def sample_environments(
    scm: SCM,
    interventions: list[tuple[str, str]],
    samples: int,
    columns: list[str],
    rng: np.random.Generator,
) -> list[Environment]:
    """The observational environment, then one per intervention, ``samples`` rows each, with
    values rounded to ``DECIMALS`` decimals and columns in ``columns`` order."""
    if samples < 2:
        raise ConfigError(f"--samples must be >= 2, got {samples}", field="samples")
    observed = _draw(scm, samples, {}, rng)
    envs = [Environment(OBSERVATIONAL, OBSERVATIONAL, [], _rounded_rows(observed, columns))]
    for kind, target in interventions:
        level = 0.0 if kind == INHIBITION else ACTIVATION_FACTOR * float(observed[target].mean())
        level = round(level, DECIMALS)
        values = _draw(scm, samples, {target: level}, rng)
        envs.append(
            Environment(
                environment_name(kind, target), kind, [target], _rounded_rows(values, columns)
            )
        )
    return envs
