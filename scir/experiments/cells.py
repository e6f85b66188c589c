"""The cell of a result: the grid coordinates every aggregate is taken over.

A cell is (track, difficulty, presentation, architecture, model, constrained, seed) -- the
axes of an experiment grid (``scir eval``). The run store keys a result by task and the cell's
run-side fields (arch, presentation, model, constrained, seed); track and difficulty come from
the task. :meth:`CellKey.plan_dict` is the form stored in the run store's ``plan`` table.

``backup`` is not a run-side field: an ns cell run with a backup holds one result per task,
and a report shows it twice -- as the cell itself (NS without backup) and as the same key with
``backup`` set (NS with the backup's answers counted, :mod:`scir.outcomes.backup`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from scir.outcomes.backup import arch_label

CELL_FIELDS = (
    "track",
    "difficulty",
    "presentation",
    "arch",
    "model",
    "constrained",
    "seed",
    "backup",
)


@dataclass(frozen=True, order=True)
class CellKey:
    """One cell of the grid."""

    track: str
    difficulty: str
    presentation: str
    arch: str
    model: str
    constrained: bool = True
    seed: int = 0
    backup: str = ""  # the with-backup view of an ns cell ("" the cell itself)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready fields (``backup``: None when unset), as reports write them."""
        return {**dataclasses.asdict(self), "backup": self.backup or None}

    def plan_dict(self) -> dict[str, Any]:
        """The form stored in the run store's ``plan`` table and in ``experiment.json``:
        :meth:`to_dict` without ``backup`` when unset, i.e. the form a cell had before backups
        existed (so a run recorded then is read the same)."""
        out = self.to_dict()
        if not self.backup:
            del out["backup"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CellKey:
        """A cell from :meth:`to_dict`'s or :meth:`plan_dict`'s form (missing
        constrained/seed/backup: True/0/none)."""
        return cls(
            track=str(data["track"]),
            difficulty=str(data["difficulty"]),
            presentation=str(data["presentation"]),
            arch=str(data["arch"]),
            model=str(data["model"]),
            constrained=bool(data.get("constrained", True)),
            seed=int(data.get("seed", 0)),
            backup=str(data.get("backup") or ""),
        )

    def arch_label(self) -> str:
        """The architecture, ``ns+backup`` for the with-backup view."""
        return arch_label(self.arch, self.backup)

    def label(self) -> str:
        """A short human label, e.g. ``deduction/easy nl cot tiny``, with ``free`` for an
        unconstrained formalization and ``seed=K`` when the seed is not 0."""
        parts = [
            f"{self.track}/{self.difficulty}",
            self.presentation,
            self.arch_label(),
            self.model,
        ]
        if not self.constrained:
            parts.append("free")
        if self.seed:
            parts.append(f"seed={self.seed}")
        return " ".join(parts)


def cell_of(result: dict[str, Any]) -> CellKey:
    """The cell of a stored result dict (``domain`` is the track; results stored before the
    difficulty was recorded have the difficulty ``?``)."""
    return CellKey(
        track=result["domain"],
        difficulty=result.get("difficulty") or "?",
        presentation=result["presentation"],
        arch=result["arch"],
        model=result["model"],
        constrained=bool(result.get("constrained", True)),
        seed=int(result.get("seed", 0)),
    )
