"""The balanced construction's SCM: parameters whose marginal statistics do not order the graph.

The paper's parameters (positive base levels and weights near 1, :func:`scm.random_scm`) make
every child's mean and variance larger than its parent's, so observational means orient almost
every edge: the artifact Reisach et al. (NeurIPS 2021, "Beware of the Simulated DAG!") call
varsortability, and its scale-free cousin, R²-sortability (Reisach et al. 2023). Here the
same linear-Gaussian SCM (``x_j = max(0, b_j + sum_i w_ij x_i + e_j)``) gets parameters drawn
in three steps:

1. **A standardised latent model** ``z`` over the subgraph (every ``Var(z_j) = 1``, as in
   the "internally standardised" SCMs of Ormaniec et al. 2024): each non-source node's
   parents explain a share ``rho_j ~ U(R2_RANGE)`` of its variance, drawn independently of
   where it sits; the weights are positive (every known relation activates, as in the
   paper) with relative sizes ``U(WEIGHT_SIZE)``.
2. **XYZ attached symmetrically.** Each XYZ edge ``e`` gets a strength ``lambda_e =
   r_e / (1 - r_e)``, ``r_e ~ U(R2_RANGE)`` (positive weight). Whatever the edges'
   directions, the parameters of XYZ's edges (and of an out-partner's noise) are solved so
   that ``1 / (1 - R²)`` (R² of a node regressed on all the others) is ``1 + sum_e lambda_e``
   for XYZ and ``1 / (1 - R²_sub(v)) + lambda_e`` for each partner ``v`` (its R² in the
   subgraph alone, plus the edge's strength). Adding an edge at XYZ thus raises the R² of
   both ends by the same amounts in either direction: the R² of XYZ and of its partners do
   not depend on the directions of XYZ's edges (exactly for one edge into XYZ, by least
   squares otherwise). When reversing the edge gives a Markov-equivalent graph (the partner
   has no other parent), both directions give the same observational distribution. When
   it does not, the observational data differ as they must: an edge out of XYZ into a
   partner with other parents forms a v-structure (XYZ independent of those parents), the
   signal of constraint-based discovery, not an artifact.
3. **Random printed scales.** Every node is printed as ``x_j = mu_j + tau_j z_j / sd(z_j)``
   with ``tau_j`` log-uniform on ``SCALE_RANGE`` and ``mu_j = k_j tau_j``, ``k_j ~
   U(LEVEL_RANGE)``, drawn for every node alike: means and variances are independent of the
   graph (varsortability 0.5 in expectation). ``k`` (about 10, a coefficient of variation
   near 10%) keeps concentrations positive, also under interventions: inhibiting a parent
   (``k`` standard deviations down) lowers a child by at most ``sqrt(rho) k`` of its own
   ``k``, so no protein that is not intervened on is held at 0 by the clipping (the rare
   negative value is clipped to 0 as in the paper).

The latent model is then written as the printed one's weights, base levels and noise scales
(an :class:`~scir.tracks.causal.scm.SCM`), so interventions, clipping and rounding act as in
the paper construction: an inhibition holds a protein at 0 (``k`` standard deviations below
its mean), an activation at 3x its observational mean. Interventions remain the signal.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from scir.tracks.causal.graph import NEW_PROTEIN, TaskGraph, sorted_nodes
from scir.tracks.causal.scm import SCM

R2_RANGE = (0.5, 0.9)          # parental R² of a subgraph node; an XYZ edge's strength r_e
WEIGHT_SIZE = (0.5, 1.5)       # relative sizes of a node's (positive) parent weights
SCALE_RANGE = (0.15, 0.75)     # printed standard deviation tau_j (log-uniform)
LEVEL_RANGE = (9.0, 11.0)      # printed mean in standard deviations above 0, k_j


def _covariance(order: list[str], weights: dict[tuple[str, str], float],
                noise: dict[str, float]) -> np.ndarray:
    """The covariance of a linear SCM (``noise``: variances) over ``order``."""
    index = {v: i for i, v in enumerate(order)}
    b = np.zeros((len(order), len(order)))
    for (parent, child), w in weights.items():
        b[index[parent], index[child]] = w
    m = np.linalg.inv(np.eye(len(order)) - b)
    return m.T @ np.diag([noise[v] for v in order]) @ m


def precision_ratio(cov: np.ndarray) -> np.ndarray:
    """``1 / (1 - R²)`` of every variable regressed on all the others: the diagonal of the
    covariance times the diagonal of its inverse."""
    return np.diag(cov) * np.diag(np.linalg.inv(cov))


def _subgraph_model(sub: nx.DiGraph, order: list[str], rank: dict[str, int],
                    rng: np.random.Generator) -> tuple[dict, dict]:
    """Step 1: standardised weights and noise variances over the subgraph (``order``: its
    nodes, topologically sorted)."""
    weights: dict[tuple[str, str], float] = {}
    noise: dict[str, float] = {}
    index = {v: i for i, v in enumerate(order)}
    cov = np.zeros((len(order), len(order)))
    for v in order:
        j = index[v]
        parents = sorted(sub.predecessors(v), key=rank.__getitem__)
        if parents:
            a = np.array([rng.uniform(*WEIGHT_SIZE) for _ in parents])
            at = [index[p] for p in parents]
            rho = rng.uniform(*R2_RANGE)
            a *= np.sqrt(rho / float(a @ cov[np.ix_(at, at)] @ a))
            weights.update({(p, v): float(x) for p, x in zip(parents, a)})
            cov[j, :j] = a @ cov[at, :j]
            cov[:j, j] = cov[j, :j]
            noise[v] = 1.0 - rho
        else:
            noise[v] = 1.0
        cov[j, j] = 1.0
    return weights, noise


def _attach_xyz(task_graph: TaskGraph, order: list[str], weights: dict, noise: dict,
                sub_ratio: dict[str, float], rng: np.random.Generator) -> tuple[dict, dict]:
    """Step 2: XYZ's edge weights (and each out-partner's noise) solved for the symmetric
    R² targets."""
    from scipy.optimize import least_squares

    edges = task_graph.xyz_edges
    strength = [rng.uniform(*R2_RANGE) for _ in edges]
    lam = [r / (1.0 - r) for r in strength]
    partners = [b if a == NEW_PROTEIN else a for a, b in edges]
    into = [b == NEW_PROTEIN for _, b in edges]
    target = np.log([1.0 + sum(lam)] + [sub_ratio[v] + x for v, x in zip(partners, lam)])
    noise = {**noise, NEW_PROTEIN: 1.0}

    def model(theta) -> tuple[dict, dict]:
        w, s, k = dict(weights), dict(noise), 0
        for e, v in enumerate(partners):
            if into[e]:                       # v -> XYZ: its weight in XYZ's equation
                w[(v, NEW_PROTEIN)] = float(np.exp(theta[k]))
                k += 1
            else:                             # XYZ -> v: XYZ's weight and v's new noise
                w[(NEW_PROTEIN, v)] = float(np.exp(theta[k]))
                s[v] = float(np.exp(theta[k + 1]))
                k += 2
        return w, s

    def residual(theta) -> np.ndarray:
        w, s = model(theta)
        ratio = dict(zip(order, precision_ratio(_covariance(order, w, s))))
        return np.log([ratio[NEW_PROTEIN]] + [ratio[v] for v in partners]) - target

    start: list[float] = []          # exact for edges into XYZ from uncorrelated partners
    for e, v in enumerate(partners):
        if into[e]:
            start.append(0.5 * np.log(lam[e]))
        else:                         # XYZ takes the share r_e of v's noise
            start += [0.5 * np.log(strength[e] * noise[v]),
                      np.log((1.0 - strength[e]) * noise[v])]
    fit = least_squares(residual, np.array(start), method="trf", bounds=(-8.0, 8.0))
    return model(fit.x)


def balanced_scm(task_graph: TaskGraph, rng: np.random.Generator) -> SCM:
    """An SCM over the full graph (subgraph plus XYZ) whose means, variances and R² carry no
    information about the directions of XYZ's edges (module docstring)."""
    g = task_graph.full
    nodes = sorted_nodes(g.nodes)
    rank = {v: i for i, v in enumerate(nodes)}
    order = list(nx.lexicographical_topological_sort(g, key=rank.__getitem__))
    sub_order = [v for v in order if v != NEW_PROTEIN]
    weights, noise = _subgraph_model(task_graph.subgraph, sub_order, rank, rng)
    sub_ratio = dict(zip(sub_order, precision_ratio(_covariance(sub_order, weights, noise))))
    weights, noise = _attach_xyz(task_graph, order, weights, noise, sub_ratio, rng)
    sd = dict(zip(order, np.sqrt(np.diag(_covariance(order, weights, noise)))))
    tau = {v: float(np.exp(rng.uniform(*np.log(SCALE_RANGE)))) for v in nodes}
    mu = {v: tau[v] * float(rng.uniform(*LEVEL_RANGE)) for v in nodes}
    edges = sorted(g.edges, key=lambda e: (rank[e[0]], rank[e[1]]))
    w = {(p, c): float(weights[(p, c)] * sd[p] / sd[c] * tau[c] / tau[p]) for p, c in edges}
    base = {v: float(mu[v] - sum(w[(p, v)] * mu[p] for p in g.predecessors(v))) for v in nodes}
    scale = {v: float(tau[v] * np.sqrt(noise[v]) / sd[v]) for v in nodes}
    return SCM(g, w, base, scale)
