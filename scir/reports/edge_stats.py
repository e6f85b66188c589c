"""The edge metrics of open causal cells (``scir generate causal --answer open``).

An open causal task's answer is the exact set of XYZ's directed edges; its verdict is exact
match, and each answer also gets edge precision, recall, F1 and the structural Hamming
distance (SHD) against the gold set (``scir.tracks.causal.scoring.CausalScorer``, stored in the result's
``metrics``). Per cell, each problem counts once:

- a result with these metrics counts by them;
- a result without an answer (no answer, parse error, timeout, solver or backend error)
  counts as the empty set: precision, recall and F1 0, SHD the gold's number of edges (read
  from the stored gold answer, one ``->`` per edge);
- a cell none of whose results is of an open task (edge metrics, or an open tier such as
  ``n11c5open``) is not an open cell (None: no section, no
  key, so reports without open tasks are unchanged).

Exact match is the cell's accuracy (Table 1); here precision, recall, F1 and SHD are means
over the cell's problems.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import mean
from typing import Any

EDGE_METRICS = ("edge_precision", "edge_recall", "edge_f1", "shd")


@dataclass(frozen=True)
class EdgeStats:
    """A cell's mean edge metrics over ``n`` problems, and the share answered exactly."""

    n: int
    exact: float
    values: dict[str, float]  # EDGE_METRICS order

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "exact": self.exact, **self.values}


def has_edge_metrics(r: dict[str, Any]) -> bool:
    """Whether a stored result carries edge metrics (an answered open causal task)."""
    metrics = r.get("metrics")
    return isinstance(metrics, dict) and all(name in metrics for name in EDGE_METRICS)


def is_open_result(r: dict[str, Any]) -> bool:
    """Whether a stored result is of an open causal task: it carries edge metrics, or its
    task's tier is an open causal tier (``n11c5open``: ``CausalTrack.tier``)."""
    return has_edge_metrics(r) or (
        r.get("domain") == "causal" and str(r.get("tier", "")).endswith("open")
    )


def _counted(r: dict[str, Any]) -> dict[str, float]:
    if has_edge_metrics(r):
        return {name: float(r["metrics"][name]) for name in EDGE_METRICS}
    gold = str(r.get("gold") or "")
    return {
        "edge_precision": 0.0,
        "edge_recall": 0.0,
        "edge_f1": 0.0,
        "shd": float(gold.count("->")),
    }


def edge_stats(results: Iterable[dict[str, Any]]) -> EdgeStats | None:
    """The edge metrics of one cell's result dicts (each task once), or None when no result
    has them (not an open cell)."""
    items = list(results)
    if not any(is_open_result(r) for r in items):
        return None
    counted = [_counted(r) for r in items]
    return EdgeStats(
        len(items),
        mean(float(bool(r.get("correct"))) for r in items),
        {name: float(mean(c[name] for c in counted)) for name in EDGE_METRICS},
    )
