"""Reading results from one or more run directories, with conflicts named, never resolved
silently.

A result is identified by its key (:data:`scir.runs.store.RESULT_KEY`: task, arch,
presentation, model, constrained, seed). The same key in two run directories with the same
content (every field but the bookkeeping ones, :data:`VOLATILE`) is one result. With different
content it is a **conflict**: the result of the run listed first is used, the cell is marked
and the conflict (key, run directories, fields that differ) is listed in the report.

The runs' ``plan`` tables (what an experiment set out to run) are merged: a cell planned in
several runs counts the largest planned number.

Reports and the explorer read results through a ``rescore`` hook
(:class:`scir.reports.verdicts.Rescorer`): each stored result is replaced by its recomputed
form before results are merged, so conflicts, cells and numbers are those of the recomputed
verdicts, never of the stored ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scir.errors import ConfigError
from scir.experiments.cells import CellKey, cell_of
from scir.runs.store import RESULT_KEY, STORE_NAME, RunStore, result_key

# fields that differ between two runs of the same work without the outcome differing
VOLATILE = frozenset({"seconds", "cached_calls"})


@dataclass(frozen=True)
class Conflict:
    """One result key held with different content by two runs."""

    key: tuple  # RESULT_KEY values
    cell: CellKey
    used: str  # the run directory whose result is used (listed first)
    other: str  # the run directory whose result is not used
    fields: tuple[str, ...]  # the fields that differ

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "key": dict(zip(RESULT_KEY, self.key)),
            "cell": self.cell.to_dict(),
            "used": self.used,
            "other": self.other,
            "fields": list(self.fields),
        }


@dataclass(frozen=True)
class Loaded:
    """A stored result and the run directory it was read from."""

    run: str
    result: dict[str, Any]

    @property
    def cell(self) -> CellKey:
        return cell_of(self.result)


@dataclass
class Runs:
    """The results of some run directories after conflicts are settled."""

    dirs: list[str]
    results: list[Loaded] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    plan: dict[CellKey, int] = field(default_factory=dict)
    # (run, key) of results used with their stored verdict: no task record to recompute it
    unverified: set[tuple[str, tuple]] = field(default_factory=set)

    def is_unverified(self, item: Loaded) -> bool:
        """Whether a result is used with its stored verdict (see :attr:`unverified`)."""
        return (item.run, result_key(item.result)) in self.unverified

    def by_cell(self) -> dict[CellKey, list[Loaded]]:
        """The results grouped by cell, in the order read."""
        out: dict[CellKey, list[Loaded]] = {}
        for item in self.results:
            out.setdefault(item.cell, []).append(item)
        return out


def differing(a: dict[str, Any], b: dict[str, Any]) -> tuple[str, ...]:
    """The fields (outside :data:`VOLATILE`) whose values differ between two results."""
    names = (set(a) | set(b)) - VOLATILE
    return tuple(sorted(n for n in names if a.get(n) != b.get(n)))


def load_runs(
    run_dirs: list[str], rescore: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
) -> Runs:
    """Read every result and plan of ``run_dirs`` (in that order), each result passed through
    ``rescore(run, result)`` when given. A folder without a run store is a ConfigError naming
    it."""
    runs = Runs(dirs=[str(d) for d in run_dirs])
    first: dict[tuple, Loaded] = {}
    for run in runs.dirs:
        path = Path(run)
        if not (path / STORE_NAME).is_file():
            raise ConfigError(f"not a run directory (no {STORE_NAME})", file=str(path))
        with RunStore(path, readonly=True) as store:
            stored = store.results()
            planned = store.plan()
        for cell_dict, n in planned:
            try:
                cell = CellKey.from_dict(cell_dict)
            except (KeyError, TypeError, ValueError) as exc:
                raise ConfigError(f"malformed plan cell {cell_dict!r}", file=str(path)) from exc
            runs.plan[cell] = max(n, runs.plan.get(cell, 0))
        for result in stored:
            if rescore is not None:
                result = rescore(run, result)
            key = result_key(result)
            seen = first.get(key)
            if seen is None:
                item = Loaded(run, result)
                first[key] = item
                runs.results.append(item)
                continue
            fields = differing(seen.result, result)
            if fields:
                runs.conflicts.append(Conflict(key, seen.cell, seen.run, run, fields))
    return runs
