"""The per-answer metrics of a cell, over its problems (the Equation discovery section).

A scorer with these metrics (``Scorer.metrics``: the equation track's ``EquationScorer``) stores
them in each result (``PipelineResult.metrics``, :data:`scir.outcomes.regression.METRICS`).
Per cell, each problem (task) counts once:

- a result with metrics counts by them;
- a result without an answer (no answer, timeout, solver or backend error) fails every
  Acc_tau and the symbolic check, and its NMSE is infinite;
- an answered result without metrics (stored before metrics were recorded) is left out, so
  ``n`` may be below the cell's task count;
- the symbolic accuracy counts only problems with a ground truth: a stored ``symbolic`` of
  None (an imported problem without one) is left out of it, so over problems none of which
  has a ground truth it is undefined (NaN, shown "n/a", JSON null), never 0.

Acc_tau (for every tau) and the symbolic accuracy are shares of problems with a 95% Wilson
interval (:func:`scir.reports.stats.wilson`); NMSE ID and OOD are medians over problems with
the order-statistic interval (:func:`scir.reports.stats.median_interval`; a stored NMSE of
None, not finite, counts as infinite).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scir.outcomes.regression import METRICS
from scir.reports.stats import Interval, median_interval, wilson

NMSE = ("nmse_id", "nmse_ood")  # medians; the other metrics are shares
SHARES = tuple(m for m in METRICS if m not in NMSE)
SYMBOLIC = "symbolic"  # a share over problems with ground truth
NOT_APPLICABLE = "n/a"  # how a report shows an undefined symbolic


@dataclass(frozen=True)
class MetricStats:
    """A cell's metrics over ``n`` problems: each share (``acc_0.1`` ... ``symbolic``) and
    each NMSE median (``nmse_id``, ``nmse_ood``) with its interval."""

    n: int
    values: dict[str, Interval]  # METRICS order

    def to_dict(self) -> dict[str, Any]:
        """Flat columns: ``metrics_n`` and per metric its estimate, ``_low``, ``_high``."""
        return {"metrics_n": self.n, **flat(self.values)}


def flat(values: dict[str, Interval] | None) -> dict[str, Any]:
    """``{name: estimate, name_low: low, name_high: high}`` per metric (None when absent)."""
    out: dict[str, Any] = {}
    for name in METRICS:
        i = None if values is None else values[name]
        out.update(
            {name: i and i.estimate, f"{name}_low": i and i.low, f"{name}_high": i and i.high}
        )
    return out


def empty_columns() -> dict[str, Any]:
    """The columns of a cell without metrics (every value None)."""
    return {"metrics_n": None, **flat(None)}


def _counted(r: dict[str, Any], truth: bool = True) -> dict[str, Any] | None:
    """A result's metrics as counted (the module docstring), or None when left out;
    ``truth``: whether the result's problem has a ground truth (an unanswered result's
    ``symbolic`` is None when it has none)."""
    if r.get("metrics"):
        return r["metrics"]
    if r.get("answer") is None:
        out = {**{name: False for name in SHARES}, **{name: None for name in NMSE}}
        if not truth:
            out["symbolic"] = None
        return out
    return None


def _has_truth(r: dict[str, Any]) -> bool:
    """Whether a result's problem has a ground truth, as far as the result says: its stored
    gold answer is not empty (an imported equation problem without one has gold "")."""
    return r.get("gold", None) != ""


def metric_stats(results: Iterable[dict[str, Any]]) -> MetricStats:
    """The metrics of one cell's result dicts (each task once)."""
    counted = [m for m in (_counted(r, _has_truth(r)) for r in results) if m is not None]
    n = len(counted)
    values: dict[str, Interval] = {}
    for name in METRICS:
        if name in NMSE:
            values[name] = median_interval(
                [math.inf if m.get(name) is None else float(m[name]) for m in counted], lowest=0.0
            )
        elif name == SYMBOLIC:
            known = [m for m in counted if m.get(name, False) is not None]
            values[name] = wilson(sum(bool(m.get(name)) for m in known), len(known))
        else:
            values[name] = wilson(sum(bool(m.get(name)) for m in counted), n)
    return MetricStats(n, values)


def has_metrics(track_name: str, results: list[dict[str, Any]]) -> bool:
    """Whether a cell gets metrics: its track's scorer gives them with every verdict
    (``Scorer.metrics``), or (a track not registered here) some result carries them."""
    from scir.errors import ScirError
    from scir.tracks import get_track

    if any(
        r.get("metrics") and any(name in r["metrics"] for name in METRICS) for r in results
    ):  # equation metrics (open causal results carry others)
        return True
    try:
        return any(name in METRICS for name in get_track(track_name).scorer().metrics)
    except ScirError:  # a track not registered here: no rule to ask
        return False
