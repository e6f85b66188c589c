"""Sortability of causal data: how well a marginal statistic of each variable (its mean, its
variance, its R² regressed on all the others) orders the true graph.

Reisach et al. define var-sortability ("Beware of the Simulated DAG!", NeurIPS 2021, Sec. 3.1)
and R²-sortability (2023, Eq. 3) as the share of directed paths ``i -> ... -> j`` (of every
length, counted as often as the paths exist) along which the statistic increases, a tie
counting one half. 0.5 means the statistic says nothing about the causal order; 1 that sorting
by it recovers the order. Here the same measure is taken for the mean too (the paper
construction's positive intercepts make means increase along every edge), and, beside the
whole graph, for the edges of the new protein alone (the unknown edges the answer names).

The functions take plain arrays and edge lists; :func:`task_sortability` reads a causal task's
formal object (the true graph and the observational rows), for reports on generated files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

STATISTICS = ("mean", "var", "r2")


def r2_scores(rows: np.ndarray) -> np.ndarray:
    """R² of every column of ``rows`` (samples x variables) regressed, with an intercept, on
    all the other columns; 0 for a constant column."""
    rows = np.asarray(rows, dtype=float)
    n, d = rows.shape
    centred = rows - rows.mean(axis=0)
    out = np.zeros(d)
    for j in range(d):
        total = float(centred[:, j] @ centred[:, j])
        if total <= 1e-12 or d == 1:
            continue
        others = np.delete(centred, j, axis=1)
        coef, *_ = np.linalg.lstsq(others, centred[:, j], rcond=None)
        resid = centred[:, j] - others @ coef
        out[j] = max(0.0, 1.0 - float(resid @ resid) / total)
    return out


def node_statistics(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Per column of ``rows``: its mean, its variance and its R² on the other columns."""
    rows = np.asarray(rows, dtype=float)
    return {"mean": rows.mean(axis=0), "var": rows.var(axis=0), "r2": r2_scores(rows)}


def order_alignment(
    nodes: Sequence[str], edges: Iterable[tuple[str, str]], scores: Sequence[float] | np.ndarray
) -> float:
    """The share of directed paths (every length, with multiplicity) along which ``scores``
    (one per node, in ``nodes`` order) increase; ties count 1/2; NaN without edges."""
    index = {v: i for i, v in enumerate(nodes)}
    d = len(nodes)
    adj = np.zeros((d, d))
    for a, b in edges:
        adj[index[a], index[b]] = 1.0
    s = np.asarray(scores, dtype=float)
    diff = s[None, :] - s[:, None]  # [i, j] = score j - score i
    walks, paths, good = adj.copy(), 0.0, 0.0
    for _ in range(d - 1):
        paths += walks.sum()
        good += (walks * (diff > 0)).sum() + 0.5 * (walks * (diff == 0)).sum()
        walks = walks @ adj
    return good / paths if paths else float("nan")


def edge_alignment(
    nodes: Sequence[str], edges: Iterable[tuple[str, str]], scores: Sequence[float] | np.ndarray
) -> tuple[float, int]:
    """Along how many of ``edges`` (single edges, not paths) ``scores`` increase (ties 1/2),
    and how many edges there are."""
    index = {v: i for i, v in enumerate(nodes)}
    hits, n = 0.0, 0
    for a, b in edges:
        sa, sb = scores[index[a]], scores[index[b]]
        hits += 1.0 if sb > sa else 0.5 if sb == sa else 0.0
        n += 1
    return hits, n


@dataclass(frozen=True)
class Sortability:
    """One task's sortability per statistic: ``graph`` over the whole true graph (Reisach's
    measure), ``xyz_hits`` of ``xyz_edges`` edges of the new protein along which the statistic
    increases."""

    graph: dict[str, float]
    xyz_hits: dict[str, float]
    xyz_edges: int


def sortability(
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str]],
    xyz_edges: Sequence[tuple[str, str]],
    rows: np.ndarray,
) -> Sortability:
    """The sortability of ``rows`` (columns in ``nodes`` order) for the graph ``edges``
    (which include ``xyz_edges``)."""
    stats = node_statistics(rows)
    graph = {s: order_alignment(nodes, edges, stats[s]) for s in STATISTICS}
    hits = {s: edge_alignment(nodes, xyz_edges, stats[s])[0] for s in STATISTICS}
    return Sortability(graph, hits, len(xyz_edges))


def task_sortability(task) -> Sortability:
    """The sortability of a causal task's observational rows for its true graph (known edges
    plus ``formal.xyz_edges``), read from the formal object."""
    formal = task.formal
    columns = list(formal.get("columns") or formal["nodes"])
    xyz = [tuple(e) for e in formal.get("xyz_edges") or []]
    edges = [tuple(e) for e in formal.get("known_edges", [])] + xyz
    (observed,) = [e for e in formal["environments"] if not e.get("targets")][:1]
    return sortability(columns, edges, xyz, np.array(observed["rows"], dtype=float))


@dataclass(frozen=True)
class SortabilitySummary:
    """Sortability over a set of tasks: per statistic the mean whole-graph sortability and the
    share (with its 95% Wilson interval) of the new protein's edges it orients."""

    tasks: int
    graph: dict[str, float]
    xyz: dict[str, tuple[float, float, float]]  # share, low, high
    xyz_edges: int


def summarise(tasks) -> SortabilitySummary:
    """:func:`task_sortability` over ``tasks``, summarised."""
    from scir.reports.stats import wilson

    per = [task_sortability(t) for t in tasks]
    edges = sum(p.xyz_edges for p in per)
    graph = {
        s: float(np.nanmean([p.graph[s] for p in per])) if per else float("nan") for s in STATISTICS
    }
    xyz = {}
    for s in STATISTICS:
        hits = sum(p.xyz_hits[s] for p in per)
        ci = wilson(int(round(hits)), edges) if edges else None
        xyz[s] = (
            hits / edges if edges else float("nan"),
            ci.low if ci else float("nan"),
            ci.high if ci else float("nan"),
        )
    return SortabilitySummary(len(per), graph, xyz, edges)
