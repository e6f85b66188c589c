"""Everything ``scir report`` shows, computed once: :func:`build_report` reads run directories
and returns a :class:`Report` (cells, the Table-1 grid, probes, paired differences, conflicts,
completeness, an optional run comparison, the obfuscation depth of the tasks the results are
over); :meth:`Report.to_dict` is ``report.json``.

The Table-1 grid has one row per (model, architecture, constrained, seed, backup) and one
column per (track, difficulty); each entry pairs the NL cell with the Obf cell of the same
coordinates. An ns cell run with a backup gives two rows: ``ns`` (without) and ``ns+backup``.

Every verdict is recomputed from the stored answer and the task file
(:class:`scir.reports.verdicts.Rescorer`, the ``verdicts`` of the report): a stored verdict
that disagrees is listed, never used; a run with results whose task no file holds is refused
unless ``unverified`` is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scir.experiments.cells import CellKey
from scir.outcomes.backup import arch_label
from scir.rendering.depth import DepthRow, depth_rows
from scir.reports.aggregate import CellStats, aggregate
from scir.reports.attribution import CellFailures, failures
from scir.reports.compare import Difference, Probe, compare_runs, differences, probes
from scir.reports.metric_stats import MetricStats, metric_stats
from scir.reports.runs import Conflict, Runs, load_runs
from scir.reports.verdicts import Rescorer
from scir.reports.versions import Versions, read_versions
from scir.runs.store import RESULT_KEY
from scir.tasks import Task

REPORT_VERSION = 1
# the file of a reproducible report's measurements (latency, versions), beside report.json
MEASUREMENTS = "measurements.json"


@dataclass(frozen=True, order=True)
class RowKey:
    """A Table-1 row: model x architecture (+ constrained, seed, backup)."""

    model: str
    arch: str
    constrained: bool = True
    seed: int = 0
    backup: str = ""

    def label(self) -> str:
        """``tiny ns``, with ``free`` for an unconstrained formalization and ``seed=K``."""
        return f"{self.model} {self.arch_label()}"

    def arch_label(self) -> str:
        """``ns``, ``ns free``, ``cot seed=1``, ``ns+backup``: the row without its model."""
        parts = [arch_label(self.arch, self.backup)]
        if not self.constrained:
            parts.append("free")
        if self.seed:
            parts.append(f"seed={self.seed}")
        return " ".join(parts)


@dataclass(frozen=True)
class Pair:
    """The NL and Obf cells of one Table-1 entry (None: not run)."""

    nl: CellStats | None
    obf: CellStats | None
    ctl: CellStats | None = None  # the control presentation (docs/rendering.md)

    def cells(self, with_ctl: bool) -> list[CellStats | None]:
        """The cells in arrow order: NL, (Ctl,) Obf."""
        return [self.nl, self.ctl, self.obf] if with_ctl else [self.nl, self.obf]


@dataclass
class Grid:
    """The Table-1 layout."""

    rows: list[RowKey]
    columns: list[tuple[str, str]]  # (track, difficulty)
    pairs: dict[tuple[RowKey, tuple[str, str]], Pair]

    def get(self, row: RowKey, column: tuple[str, str]) -> Pair:
        return self.pairs.get((row, column), Pair(None, None))

    @property
    def has_ctl(self) -> bool:
        """Whether any entry has a ``ctl`` cell (then entries read ``NL -> Ctl -> Obf``)."""
        return any(p.ctl is not None for p in self.pairs.values())

    @property
    def arrow(self) -> str:
        """The entries' presentations: ``NL -> Obf`` or ``NL -> Ctl -> Obf``."""
        return "NL -> Ctl -> Obf" if self.has_ctl else "NL -> Obf"


def grid(cells: list[CellStats]) -> Grid:
    """The Table-1 grid of some cells (cells of other presentations are left out)."""
    found: dict[tuple[RowKey, tuple[str, str]], dict[str, CellStats]] = {}
    for c in cells:
        k = c.cell
        if k.presentation not in ("nl", "ctl", "obf"):
            continue
        key = (RowKey(k.model, k.arch, k.constrained, k.seed, k.backup), (k.track, k.difficulty))
        found.setdefault(key, {})[k.presentation] = c
    rows = sorted({r for r, _ in found})
    columns = sorted({col for _, col in found})
    return Grid(
        rows,
        columns,
        {key: Pair(v.get("nl"), v.get("obf"), v.get("ctl")) for key, v in found.items()},
    )


@dataclass
class Report:
    """The computed report."""

    runs: Runs
    cells: list[CellStats]
    grid: Grid
    probes: list[Probe]
    differences: list[Difference]
    comparison: list[Difference] | None = None
    compared: tuple[str, str] | None = None
    verdicts: Rescorer | None = None
    versions: Versions | None = None
    # per cell, its failures attributed to a kind (scir.reports.attribution)
    failures: dict[CellKey, CellFailures] = field(default_factory=dict)
    # equation cells broken down by the problems' discipline (their ``science``, as
    # SR-Scientist's table): (cell, discipline, metrics); only cells of several disciplines
    disciplines: list[tuple[CellStats, str, MetricStats]] = field(default_factory=list)
    # the obfuscation depth of the rendered tasks the results are over (Table 2; empty when
    # no task has an obf rendering)
    depth: list[DepthRow] = field(default_factory=list)
    # reproducible: report.md and report.json leave out what two runs of one experiment that
    # gave the same answers do not share -- the wall-clock latency and the versions (the
    # commit, file paths, library releases) -- so that they compare byte for byte;
    # :meth:`measurements` holds them (``scir report --reproducible``: measurements.json)
    reproducible: bool = False

    def measurements(self) -> dict[str, Any]:
        """``measurements.json`` of a reproducible report: each cell's latency (seconds per
        task, mean and median) and the versions block (:meth:`Versions.to_dict`)."""
        return _finite(
            {
                "version": REPORT_VERSION,
                "runs": self.runs.dirs,
                "cells": [
                    {
                        "cell": c.cell.to_dict(),
                        "latency_mean": c.latency_mean,
                        "latency_median": c.latency_median,
                    }
                    for c in self.cells
                ],
                "versions": None if self.versions is None else self.versions.to_dict(),
            }
        )

    def cell_row(self, c: CellStats) -> dict[str, Any]:
        """A cell's row of report.json and report.csv (:meth:`CellStats.to_dict`; latency None
        in a reproducible report)."""
        row = c.to_dict()
        if self.reproducible:
            row.update(latency_mean=None, latency_median=None)
        return row

    def _versions_dict(self) -> dict[str, Any] | None:
        if self.versions is None:
            return None
        if not self.reproducible:
            return self.versions.to_dict()
        return {
            "summary": self.versions.summary(),
            "differences": sorted(self.versions.differences()),
            "in": MEASUREMENTS,
        }

    @property
    def conflicts(self) -> list[Conflict]:
        return self.runs.conflicts

    @property
    def metric_cells(self) -> list[CellStats]:
        """Cells whose track's scoring rule has per-answer metrics (the Equation discovery
        section)."""
        return [c for c in self.cells if c.metrics is not None]

    @property
    def incomplete(self) -> list[CellStats]:
        """Cells with a plan whose planned tasks are not all done."""
        return [c for c in self.cells if c.complete is False]

    def to_dict(self) -> dict[str, Any]:
        """``report.json``: every number the Markdown shows (keys: docs/evaluation.md)."""
        comparison = None
        if self.comparison is not None:
            # compare_runs sets comparison and compared together (load_report)
            assert self.compared is not None
            comparison = {
                "a": self.compared[0],
                "b": self.compared[1],
                "cells": [d.to_dict() for d in self.comparison],
            }
        table1 = [
            {
                "row": {
                    "model": r.model,
                    "arch": r.arch,
                    "constrained": r.constrained,
                    "seed": r.seed,
                    "backup": r.backup or None,
                    "label": r.label(),
                },
                "columns": [
                    {
                        "track": t,
                        "difficulty": d,
                        "nl": _cell_ref(self.grid.get(r, (t, d)).nl),
                        "obf": _cell_ref(self.grid.get(r, (t, d)).obf),
                        **(
                            {"ctl": _cell_ref(self.grid.get(r, (t, d)).ctl)}
                            if self.grid.has_ctl
                            else {}
                        ),
                    }
                    for t, d in self.grid.columns
                ],
            }
            for r in self.grid.rows
        ]
        return _finite(
            {
                "version": REPORT_VERSION,
                "runs": self.runs.dirs,
                **({"reproducible": True} if self.reproducible else {}),
                "cells": [self.cell_row(c) for c in self.cells],
                "table1": table1,
                "equation": [
                    {"cell": c.cell.to_dict(), "n": c.metrics.n, **_metric_intervals(c.metrics)}
                    for c in self.metric_cells
                    if c.metrics is not None
                ],
                "equation_by_discipline": [
                    {"cell": c.cell.to_dict(), "discipline": d, "n": m.n, **_metric_intervals(m)}
                    for c, d, m in self.disciplines
                ],
                **(
                    {
                        "causal_open": [
                            {"cell": c.cell.to_dict(), **c.edges.to_dict()}
                            for c in self.cells
                            if c.edges is not None
                        ]
                    }
                    if any(c.edges is not None for c in self.cells)
                    else {}
                ),
                "table2_depth": [r.to_dict() for r in self.depth],
                "probes": [p.to_dict() for p in self.probes],
                "differences": [d.to_dict() for d in self.differences],
                "conflicts": [c.to_dict() for c in self.conflicts],
                "failure_analysis": [
                    {"cell": cell.to_dict(), **f.to_dict()} for cell, f in self.failures.items()
                ],
                "incomplete": [
                    {**c.cell.to_dict(), "done": c.done, "planned": c.planned}
                    for c in self.incomplete
                ],
                "comparison": comparison,
                "verdicts": None if self.verdicts is None else verdicts_dict(self.verdicts),
                "versions": self._versions_dict(),
            }
        )


def verdicts_dict(check: Rescorer) -> dict[str, Any]:
    """``report.json``'s ``verdicts``: how many results were recomputed, from which task
    files, the stored verdicts that disagreed and the results left unverified."""
    return {
        "recomputed": len(check.verified),
        "task_files": check.files,
        "disagreements": [d.to_dict() for d in check.disagreeing()],
        "unverified": [
            {"run": run, "key": dict(zip(RESULT_KEY, key))} for run, key in check.unverified_keys()
        ],
    }


def _metric_intervals(m: MetricStats) -> dict[str, dict[str, Any]]:
    """report.json's intervals of a cell's equation metrics: each metric's estimate, bounds
    and small-sample mark (``not_applicable`` for symbolic over no problem with a ground
    truth)."""
    return {
        name: {
            "estimate": i.estimate,
            "low": i.low,
            "high": i.high,
            "small_n": i.small,
            **({"not_applicable": True} if name == "symbolic" and math.isnan(i.estimate) else {}),
        }
        for name, i in m.values.items()
    }


def _finite(value: Any) -> Any:
    """``value`` with NaN (an interval of no tasks) and infinities (an NMSE median or bound
    that is not finite) as None, so that the JSON is standard."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _cell_ref(c: CellStats | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "accuracy": c.accuracy.estimate,
        "low": c.accuracy.low,
        "high": c.accuracy.high,
        "n": c.n,
        "small_n": c.accuracy.small,
        "complete": c.complete,
        "conflicts": c.conflicts,
        "backup_used": c.backup_used,
    }


def load_verified(run_dirs: list[str], rescorer: Rescorer) -> Runs:
    """:func:`load_runs` with every verdict recomputed by ``rescorer`` (ConfigError for
    results it cannot verify, unless it allows them: they are then marked)."""
    runs = load_runs(run_dirs, rescorer)
    rescorer.finish()
    runs.unverified = {k for k in rescorer.unverified if k[0] in runs.dirs}
    return runs


DISCIPLINE_KEY = "science"  # the domain_metadata field that names a discipline


def by_discipline(
    runs: Runs, cells: list[CellStats], rescorer: Rescorer
) -> list[tuple[CellStats, str, MetricStats]]:
    """Each metric cell's results grouped by their task's discipline (``domain_metadata``
    :data:`DISCIPLINE_KEY`, read from the task files), with the metrics of each group; cells
    whose problems are all of one discipline (or unknown) are left out."""
    loaded = runs.by_cell()
    out = []
    for c in cells:
        if c.metrics is None or c.cell.backup or c.cell not in loaded:
            continue
        groups: dict[str, list[dict[str, Any]]] = {}
        for item in loaded[c.cell]:
            task_id = item.result.get("task_id")
            task = rescorer.tasks_of(item.run).get(task_id) if isinstance(task_id, str) else None
            name = task.domain_metadata.get(DISCIPLINE_KEY) if task is not None else None
            groups.setdefault(str(name) if name else "?", []).append(item.result)
        if len(groups) > 1:
            out += [(c, name, metric_stats(results)) for name, results in sorted(groups.items())]
    return out


def result_tasks(runs: Runs, rescorer: Rescorer) -> list[Task]:
    """The task records the results are over, once each (the first record of a task id), in
    the order read (results whose task no file holds are left out)."""
    seen: dict[str, Task] = {}
    for item in runs.results:
        task_id = item.result.get("task_id")
        if isinstance(task_id, str) and task_id not in seen:
            task = rescorer.tasks_of(item.run).get(task_id)
            if task is not None:
                seen[task_id] = task
    return list(seen.values())


def build_report(
    run_dirs: list[str],
    compare: bool = False,
    task_files: list[str] | None = None,
    unverified: bool = False,
    reproducible: bool = False,
) -> Report:
    """The report over ``run_dirs`` (merged; conflicts named), every verdict recomputed from
    the answers and the task files (``task_files`` first, then those the runs record;
    ``unverified``: use the stored verdicts of results whose task no file holds, marked,
    instead of refusing). With ``compare`` (exactly two run directories, A and B) also A's
    cells against B's (:func:`compare_runs`). ``reproducible``: see
    :attr:`Report.reproducible`."""
    from scir.errors import ConfigError

    if compare and len(run_dirs) != 2:
        raise ConfigError(
            f"--compare needs exactly two run directories (A B), got {len(run_dirs)}",
            field="compare",
        )
    rescorer = Rescorer(list(task_files or []), unverified)
    runs = load_verified(run_dirs, rescorer)
    cells = aggregate(runs)
    table = grid(cells)
    report = Report(
        runs,
        cells,
        table,
        probes(cells),
        differences(cells),
        verdicts=rescorer,
        versions=read_versions(runs.dirs),
        failures=failures([(item.cell, item.result) for item in runs.results]),
        disciplines=by_discipline(runs, cells, rescorer),
        depth=depth_rows(result_tasks(runs, rescorer), control=table.has_ctl),
        reproducible=reproducible,
    )
    if compare:
        a, b = (aggregate(load_verified([d], rescorer)) for d in run_dirs)
        report.comparison = compare_runs(a, b)
        report.compared = (str(run_dirs[0]), str(run_dirs[1]))
    return report


__all__ = ["MEASUREMENTS", "CellKey", "Grid", "Pair", "Report", "RowKey", "build_report", "grid"]
