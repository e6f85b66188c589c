"""Views across cells: the probes, paired differences, and two runs side by side.

- **Probes** per (track, difficulty, model, seed), over grammar-constrained cells:
  reasoning = NL.CoT (the model reasons over clean text), extraction = Obf.NS (it formalizes a
  rendered document; the solver reasons), joint = Obf.CoT (both at once). A probe whose cell
  has no results is missing (None).
- **Paired differences** between two cells that differ in one axis only, over the tasks
  present in both: NL - Obf (presentation), NS - CoT (architecture), constrained -
  unconstrained (formalization decoding), NS with backup - NS without (``backup_vs_none``,
  over the same results). Mean of the per-task 0/1 differences with a seeded
  paired bootstrap interval (:func:`scir.reports.stats.paired_difference`).
- **Run comparison** (``scir report A B --compare``): cells of run A and run B matched on every
  axis but the model (so two models, or two runs of one model, line up), A - B over the tasks
  present in both.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from scir.experiments.cells import CellKey
from scir.reports.aggregate import CellStats
from scir.reports.stats import Interval, paired_difference

PROBES = (("reasoning", "nl", "cot"), ("extraction", "obf", "ns"), ("joint", "obf", "cot"))
PROBE_ARCHS = frozenset(arch for _, _, arch in PROBES)  # the architectures probes compare
# (name, axis, first value, second value): the difference is first - second
CONTRASTS = (
    ("nl_vs_obf", "presentation", "nl", "obf"),
    ("nl_vs_ctl", "presentation", "nl", "ctl"),
    ("ctl_vs_obf", "presentation", "ctl", "obf"),
    ("ns_vs_cot", "arch", "ns", "cot"),
    ("constrained_vs_unconstrained", "constrained", True, False),
    ("backup_vs_none", "backup", "cot", ""),
)


def _interval_dict(i: Interval | None) -> dict[str, Any] | None:
    return (
        None
        if i is None
        else {"estimate": i.estimate, "low": i.low, "high": i.high, "n": i.n, "small_n": i.small}
    )


@dataclass(frozen=True)
class Probe:
    """The three probes of one (track, difficulty, model, seed)."""

    track: str
    difficulty: str
    model: str
    seed: int
    reasoning: Interval | None
    extraction: Interval | None
    joint: Interval | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "track": self.track,
            "difficulty": self.difficulty,
            "model": self.model,
            "seed": self.seed,
            **{name: _interval_dict(getattr(self, name)) for name, _, _ in PROBES},
        }


def probes(cells: list[CellStats]) -> list[Probe]:
    """The probes of every (track, difficulty, model, seed) that has a CoT or NS cell."""
    index = {c.cell: c for c in cells if c.n > 0}
    keys = sorted(
        {
            (c.cell.track, c.cell.difficulty, c.cell.model, c.cell.seed)
            for c in cells
            if c.cell.arch in PROBE_ARCHS
        }
    )
    out = []
    for track, difficulty, model, seed in keys:
        found = {}
        for name, presentation, arch in PROBES:
            hit = index.get(CellKey(track, difficulty, presentation, arch, model, True, seed))
            found[name] = None if hit is None else hit.accuracy
        out.append(Probe(track, difficulty, model, seed, **found))
    return out


@dataclass(frozen=True)
class Difference:
    """A paired difference first - second over the tasks both cells hold."""

    contrast: str  # a CONTRASTS name, or "a_vs_b" for a run comparison
    first: CellKey
    second: CellKey
    tasks: int  # tasks present in both
    first_accuracy: float | None  # over those tasks
    second_accuracy: float | None
    difference: Interval

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "contrast": self.contrast,
            "first": self.first.to_dict(),
            "second": self.second.to_dict(),
            "tasks": self.tasks,
            "first_accuracy": self.first_accuracy,
            "second_accuracy": self.second_accuracy,
            "difference": _interval_dict(self.difference),
        }


def paired(contrast: str, first: CellStats, second: CellStats) -> Difference:
    """The paired difference of two cells over their common tasks (sorted by task id)."""
    common = sorted(set(first.outcomes) & set(second.outcomes))
    a = [first.outcomes[t] for t in common]
    b = [second.outcomes[t] for t in common]
    return Difference(
        contrast,
        first.cell,
        second.cell,
        len(common),
        sum(a) / len(a) if a else None,
        sum(b) / len(b) if b else None,
        paired_difference(a, b),
    )


def differences(cells: list[CellStats]) -> list[Difference]:
    """Every contrast of :data:`CONTRASTS` between two cells with results, in cell order."""
    index = {c.cell: c for c in cells if c.n > 0}
    out = []
    for name, axis, first_value, second_value in CONTRASTS:
        for key in sorted(index):
            if getattr(key, axis) != first_value:
                continue
            changes: dict[str, Any] = {axis: second_value}  # the contrast's axis and value
            other = dataclasses.replace(key, **changes)
            if other in index:
                out.append(paired(name, index[key], index[other]))
    return out


def _without_model(key: CellKey) -> tuple:
    return (
        key.track,
        key.difficulty,
        key.presentation,
        key.arch,
        key.constrained,
        key.seed,
        key.backup,
    )


def compare_runs(first: list[CellStats], second: list[CellStats]) -> list[Difference]:
    """Run A's cells against run B's, matched on every axis but the model: A - B over the
    tasks present in both (one row per matching pair of cells)."""
    by_axes: dict[tuple, list[CellStats]] = {}
    for c in second:
        if c.n > 0:
            by_axes.setdefault(_without_model(c.cell), []).append(c)
    out = []
    for a in sorted((c for c in first if c.n > 0), key=lambda c: c.cell):
        for b in sorted(by_axes.get(_without_model(a.cell), []), key=lambda c: c.cell):
            out.append(paired("a_vs_b", a, b))
    return out
