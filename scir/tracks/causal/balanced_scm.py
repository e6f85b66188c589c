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
   with ``tau_j`` log-uniform on ``SCALE_RANGE`` and ``mu_j = LEVEL tau_j``, drawn for every
   node alike: means and variances are independent of the graph (varsortability 0.5 in
   expectation). ``LEVEL`` (20 standard deviations above 0, a coefficient of variation of
   5%) keeps concentrations positive also under interventions: inhibiting a protein moves
   it ``LEVEL`` of its standard deviations down, and a child by at most ``sqrt(0.8) LEVEL <
   LEVEL - 2`` of its own (its parents explain at most 80% of its variance, all weights
   being positive), so a protein that is not intervened on stays clear of 0 (the paper's
   clipping is kept for the odd value that would not).

The latent model is then written as the printed one's weights, base levels and noise scales
(an :class:`~scir.tracks.causal.scm.SCM`), so interventions, clipping and rounding act as in
the paper construction: an inhibition holds a protein at 0 (``LEVEL`` standard deviations below
its mean), an activation at 3x its observational mean. Interventions remain the signal.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from scir.tracks.causal.graph import NEW_PROTEIN, TaskGraph, sorted_nodes
from scir.tracks.causal.scm import SCM

R2_RANGE = (0.5, 0.8)  # parental R² of a subgraph node; an XYZ edge's strength r_e
WEIGHT_SIZE = (0.5, 1.5)  # relative sizes of a node's (positive) parent weights
SCALE_RANGE = (0.1, 0.5)  # printed standard deviation tau_j (log-uniform)
LEVEL = 20.0  # printed mean in standard deviations above 0
PARENT_SCALE_PENALTY = 0.1  # keeps an out-partner's other parents' weights near their draw


def _covariance(
    order: list[str], weights: dict[tuple[str, str], float], noise: dict[str, float]
) -> np.ndarray:
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


def _subgraph_model(
    sub: nx.DiGraph, order: list[str], rank: dict[str, int], rng: np.random.Generator
) -> tuple[dict, dict]:
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


def _attach_xyz(
    task_graph: TaskGraph, order: list[str], weights: dict, noise: dict, rng: np.random.Generator
) -> tuple[dict, dict]:
    """Step 2: XYZ's edge weights (and each out-partner's noise and parents' weights) solved
    so that XYZ and its partners have the R² of the direction-free reference (module
    docstring)."""
    from scipy.optimize import least_squares

    edges = task_graph.xyz_edges
    strength = [rng.uniform(*R2_RANGE) for _ in edges]
    lam = [r / (1.0 - r) for r in strength]
    partners = [b if a == NEW_PROTEIN else a for a, b in edges]
    into = [b == NEW_PROTEIN for _, b in edges]
    noise = {**noise, NEW_PROTEIN: 1.0}
    # the reference: every edge into XYZ, weights sqrt(lambda_e), whatever the true directions
    sub_order = [v for v in order if v != NEW_PROTEIN]  # a topological order of it
    reference = {**weights, **{(v, NEW_PROTEIN): float(np.sqrt(x)) for v, x in zip(partners, lam)}}
    ratio = dict(
        zip(
            sub_order + [NEW_PROTEIN],
            precision_ratio(_covariance(sub_order + [NEW_PROTEIN], reference, noise)),
        )
    )
    target = np.log([ratio[NEW_PROTEIN]] + [ratio[v] for v in partners])
    parents = {v: [p for (p, c) in weights if c == v] for v in partners}

    def model(theta) -> tuple[dict, dict, list[float]]:
        w, s, k, scales = dict(weights), dict(noise), 0, []
        for e, v in enumerate(partners):
            if into[e]:  # v -> XYZ: its weight in XYZ's equation
                w[(v, NEW_PROTEIN)] = float(np.exp(theta[k]))
                k += 1
                continue
            # XYZ -> v: XYZ's weight in v's equation, v's noise, and (when v has other
            # parents) a common factor on their weights, kept near 1 by the fit
            w[(NEW_PROTEIN, v)] = float(np.exp(theta[k]))
            s[v] = float(np.exp(theta[k + 1]))
            k += 2
            if parents[v]:
                for p in parents[v]:
                    w[(p, v)] = weights[(p, v)] * float(np.exp(theta[k]))
                scales.append(float(theta[k]))
                k += 1
        return w, s, scales

    def residual(theta) -> np.ndarray:
        w, s, scales = model(theta)
        got = dict(zip(order, precision_ratio(_covariance(order, w, s))))
        fit = np.log([got[NEW_PROTEIN]] + [got[v] for v in partners]) - target
        return np.concatenate([fit, PARENT_SCALE_PENALTY * np.array(scales)])

    start: list[float] = []  # the reference itself when every edge points into XYZ
    for e, v in enumerate(partners):
        if into[e]:
            start.append(0.5 * np.log(lam[e]))
        else:  # XYZ takes the share r_e of v's noise
            start += [
                0.5 * np.log(strength[e] * noise[v]),
                np.log((1.0 - strength[e]) * noise[v]),
            ] + ([0.0] if parents[v] else [])
    fit = least_squares(residual, np.array(start), method="trf", bounds=(-8.0, 8.0))
    w, s, _ = model(fit.x)
    return w, s


def balanced_scm(task_graph: TaskGraph, rng: np.random.Generator) -> SCM:
    """An SCM over the full graph (subgraph plus XYZ) whose means, variances and R² carry no
    information about the directions of XYZ's edges (module docstring)."""
    g = task_graph.full
    nodes = sorted_nodes(g.nodes)
    rank = {v: i for i, v in enumerate(nodes)}
    order = list(nx.lexicographical_topological_sort(g, key=rank.__getitem__))
    # the subgraph's own order, so that its draws do not depend on XYZ's edges
    sub_order = list(nx.lexicographical_topological_sort(task_graph.subgraph, key=rank.__getitem__))
    weights, noise = _subgraph_model(task_graph.subgraph, sub_order, rank, rng)
    weights, noise = _attach_xyz(task_graph, order, weights, noise, rng)
    sd = dict(zip(order, np.sqrt(np.diag(_covariance(order, weights, noise)))))
    tau = {v: float(np.exp(rng.uniform(*np.log(SCALE_RANGE)))) for v in nodes}
    mu = {v: LEVEL * tau[v] for v in nodes}
    edges = sorted(g.edges, key=lambda e: (rank[e[0]], rank[e[1]]))
    w = {(p, c): float(weights[(p, c)] * sd[p] / sd[c] * tau[c] / tau[p]) for p, c in edges}
    base = {v: float(mu[v] - sum(w[(p, v)] * mu[p] for p in g.predecessors(v))) for v in nodes}
    scale = {v: float(tau[v] * np.sqrt(noise[v]) / sd[v]) for v in nodes}
    return SCM(g, w, base, scale)
