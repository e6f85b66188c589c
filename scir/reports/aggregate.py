"""The numbers of one cell (:class:`scir.experiments.cells.CellKey`) of a grid.

Per cell: tasks ``n`` and correct answers; accuracy with its 95% Wilson interval;
chance-normalised accuracy ``max(0, (A - c) / (1 - c))`` with ``c`` the cell's mean chance
(the paper's definition) and with the mean constrained chance (among the answers the question
allows); a count per status (:data:`scir.outcomes.status.STATUS_VALUES`); the executable rate
(share of results whose ``executable`` is true among those that record it: ``ns`` and
``symbcot``); Table-2 statistics (mean input characters, reference items, extracted items);
tokens, cost and latency (the result's ``seconds``: mean and median); completeness (``done``:
results other than ``backend_error``, which a rerun retries; ``planned`` from the run's plan,
None when no plan names the cell) and the number of conflicting results; for ns cells run with
a backup, the number of tasks the backup answered (``backup_used``); for tracks whose scoring
rule has per-answer metrics (equation), those metrics over the cell's problems
(:mod:`scir.reports.metric_stats`).

An ns cell whose results were run with a backup gets a second aggregate, its key with
``backup`` set, over the same results as :func:`scir.outcomes.backup.with_backup` counts them
(NS with backup); the cell itself is NS without backup.

The results reach here with their verdicts recomputed from the answers and the task files
(:mod:`scir.reports.verdicts`); ``unverified`` counts those used with their stored verdict
(a report made with ``--unverified``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import mean, median
from typing import Any

from scir.experiments.cells import CellKey
from scir.outcomes.backup import backup_of, used, with_backup
from scir.outcomes.status import STATUS_VALUES, Status
from scir.reports.edge_stats import EdgeStats, edge_stats
from scir.reports.metric_stats import MetricStats, empty_columns, has_metrics, metric_stats
from scir.reports.runs import Runs
from scir.reports.stats import Interval, normalised_accuracy, wilson


@dataclass
class CellStats:
    """The aggregate of one cell."""

    cell: CellKey
    n: int
    correct: int
    accuracy: Interval
    chance: float | None  # mean of the tasks' chance (None: no tasks)
    chance_constrained: float | None  # mean constrained chance (chance where none stored)
    normalised: float | None  # with the paper's chance
    normalised_constrained: float | None
    statuses: dict[str, int]  # every status, in STATUS_VALUES order
    executable: float | None  # share of executable formalizations (None: not recorded)
    input_chars: float | None
    reference_items: float | None
    extracted_items: float | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_mean: float | None  # seconds per task
    latency_median: float | None
    done: int
    planned: int | None
    conflicts: int = 0
    backup_used: int | None = None  # tasks the backup answered (None: run without backup)
    # the scoring rule's metrics over the cell's problems (equation: Acc_tau, NMSE, symbolic;
    # scir.reports.metric_stats); None for tracks whose rule has none
    metrics: MetricStats | None = None
    # results used with their stored verdict (no task record to recompute it; reports made
    # with --unverified only: scir.reports.verdicts)
    unverified: int = 0
    # extraction against the gold (Track.extraction), means over the results that have it
    extraction_precision: float | None = None
    extraction_recall: float | None = None
    outcomes: dict[str, int] = field(default_factory=dict, repr=False)  # task id -> 0/1
    # open causal cells: mean edge precision, recall, F1, SHD (scir.reports.edge_stats);
    # None for every other cell (kept out of to_dict, so other reports are unchanged)
    edges: EdgeStats | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def complete(self) -> bool | None:
        """Whether every planned task is done (None: no plan names the cell)."""
        return None if self.planned is None else self.done >= self.planned

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the cell's key fields flattened in; no per-task outcomes)."""
        return {
            **self.cell.to_dict(),
            "n": self.n,
            "correct": self.correct,
            "accuracy": self.accuracy.estimate,
            "accuracy_low": self.accuracy.low,
            "accuracy_high": self.accuracy.high,
            "chance": self.chance,
            "chance_constrained": self.chance_constrained,
            "normalised": self.normalised,
            "normalised_constrained": self.normalised_constrained,
            **{f"status_{s}": c for s, c in self.statuses.items()},
            "executable": self.executable,
            "input_chars": self.input_chars,
            "reference_items": self.reference_items,
            "extracted_items": self.extracted_items,
            "extraction_precision": self.extraction_precision,
            "extraction_recall": self.extraction_recall,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
            "latency_mean": self.latency_mean,
            "latency_median": self.latency_median,
            "done": self.done,
            "planned": self.planned,
            "complete": self.complete,
            "conflicts": self.conflicts,
            "unverified": self.unverified,
            "backup_used": self.backup_used,
            "small_n": self.accuracy.small,
            **(empty_columns() if self.metrics is None else self.metrics.to_dict()),
        }


def _mean(values: list[float]) -> float | None:
    return float(mean(values)) if values else None


def _extraction_mean(results: list[dict[str, Any]], name: str) -> float | None:
    """The mean of one extraction figure (precision, recall) over the results that have it."""
    values = [
        float(r["extraction"][name])
        for r in results
        if isinstance(r.get("extraction"), dict) and r["extraction"].get(name) is not None
    ]
    return _mean(values)


def cell_stats(
    cell: CellKey,
    results: Iterable[dict[str, Any]],
    planned: int | None = None,
    conflicts: int = 0,
    unverified: int = 0,
) -> CellStats:
    """The aggregate of one cell's result dicts (each task once)."""
    items = list(results)
    n = len(items)
    correct = sum(bool(r["correct"]) for r in items)
    interval = wilson(correct, n)
    chance = _mean([float(r["chance"]) for r in items])
    constrained = _mean(
        [
            float(r["chance"] if r.get("chance_constrained") is None else r["chance_constrained"])
            for r in items
        ]
    )
    statuses = {s: 0 for s in STATUS_VALUES}
    for r in items:
        statuses[r["status"]] += 1
    recorded = [bool(r["executable"]) for r in items if r.get("executable") is not None]
    seconds = [float(r.get("seconds", 0.0)) for r in items]
    return CellStats(
        cell=cell,
        n=n,
        correct=correct,
        accuracy=interval,
        chance=chance,
        chance_constrained=constrained,
        # the means are None exactly when the cell has no results (n == 0)
        normalised=None if chance is None else normalised_accuracy(interval.estimate, chance),
        normalised_constrained=(
            None if constrained is None else normalised_accuracy(interval.estimate, constrained)
        ),
        statuses=statuses,
        executable=_mean([float(x) for x in recorded]),
        input_chars=_mean([float(r.get("input_chars", 0)) for r in items]),
        reference_items=_mean(
            [float(r["reference_items"]) for r in items if r.get("reference_items") is not None]
        ),
        extracted_items=_mean([float(r["items"]) for r in items if r.get("items") is not None]),
        extraction_precision=_extraction_mean(items, "precision"),
        extraction_recall=_extraction_mean(items, "recall"),
        prompt_tokens=sum(int(r.get("prompt_tokens", 0)) for r in items),
        completion_tokens=sum(int(r.get("completion_tokens", 0)) for r in items),
        cost_usd=sum(float(r.get("cost_usd", 0.0)) for r in items),
        latency_mean=_mean(seconds),
        latency_median=float(median(seconds)) if seconds else None,
        done=n - statuses[Status.BACKEND_ERROR.value],
        planned=planned,
        conflicts=conflicts,
        unverified=unverified,
        backup_used=(sum(used(r) for r in items) if any(backup_of(r) for r in items) else None),
        outcomes={r["task_id"]: int(bool(r["correct"])) for r in items},
        metrics=metric_stats(items) if has_metrics(cell.track, items) else None,
        edges=edge_stats(items),
    )


def by_cell_with_backup(runs: Runs) -> dict[CellKey, list[dict[str, Any]]]:
    """The results grouped by cell, plus for each ns cell with results run with a backup the
    with-backup view: the cell's key with ``backup`` set, over those results as
    :func:`with_backup` counts them."""
    groups: dict[CellKey, list[dict[str, Any]]] = {}
    for cell, loaded in runs.by_cell().items():
        results = [item.result for item in loaded]
        groups[cell] = results
        for backup in sorted({backup_of(r) for r in results} - {""}):
            groups[dataclasses.replace(cell, backup=backup)] = [
                with_backup(r) for r in results if backup_of(r) == backup
            ]
    return groups


def aggregate(runs: Runs) -> list[CellStats]:
    """One :class:`CellStats` per cell with results or a plan (and per with-backup view),
    sorted by cell; a with-backup view shares its cell's conflicts."""
    groups = by_cell_with_backup(runs)
    conflicts: dict[CellKey, int] = {}
    for c in runs.conflicts:
        conflicts[c.cell] = conflicts.get(c.cell, 0) + 1
    unverified: dict[CellKey, int] = {}
    for item in runs.results:
        if runs.is_unverified(item):
            unverified[item.cell] = unverified.get(item.cell, 0) + 1
    cells = sorted(set(groups) | set(runs.plan))
    return [
        cell_stats(
            cell,
            groups.get(cell, []),
            runs.plan.get(cell),
            conflicts.get(dataclasses.replace(cell, backup=""), 0),
            unverified.get(dataclasses.replace(cell, backup=""), 0),
        )
        for cell in cells
    ]
