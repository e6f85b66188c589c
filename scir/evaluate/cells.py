"""The cell of a result: the grid coordinates every aggregate is taken over.

A cell is (track, difficulty, presentation, architecture, model, constrained, seed) -- the
axes of an experiment grid (``scir eval``). The run store keys a result by task and the cell's
run-side fields (arch, presentation, model, constrained, seed); track and difficulty come from
the task. :meth:`CellKey.to_dict` is the form stored in the run store's ``plan`` table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

CELL_FIELDS = ("track", "difficulty", "presentation", "arch", "model", "constrained", "seed")


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

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready fields (the run store's ``plan`` form)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CellKey":
        """A cell from :meth:`to_dict`'s form (missing constrained/seed: True/0)."""
        return cls(track=str(data["track"]), difficulty=str(data["difficulty"]),
                   presentation=str(data["presentation"]), arch=str(data["arch"]),
                   model=str(data["model"]), constrained=bool(data.get("constrained", True)),
                   seed=int(data.get("seed", 0)))

    def label(self) -> str:
        """A short human label, e.g. ``deduction/easy nl cot tiny``, with ``free`` for an
        unconstrained formalization and ``seed=K`` when the seed is not 0."""
        parts = [f"{self.track}/{self.difficulty}", self.presentation, self.arch, self.model]
        if not self.constrained:
            parts.append("free")
        if self.seed:
            parts.append(f"seed={self.seed}")
        return " ".join(parts)


def cell_of(result: dict[str, Any]) -> CellKey:
    """The cell of a stored result dict (``domain`` is the track; results stored before the
    difficulty was recorded have the difficulty ``?``)."""
    return CellKey(track=result["domain"], difficulty=result.get("difficulty") or "?",
                   presentation=result["presentation"], arch=result["arch"],
                   model=result["model"], constrained=bool(result.get("constrained", True)),
                   seed=int(result.get("seed", 0)))
