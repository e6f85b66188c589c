"""The experience buffer of the SR agent: every evaluated equation with its scores, and the
top-K best *distinct* equations by MAPE, fed to the start of each iteration.

Two records are the same equation when their canonical text (the skeleton as the equation
parser prints it, see :mod:`scir.pipelines.sr_agent.tools`) is the same; the buffer keeps the
best-scored record of each. Ties in MAPE are broken by MSE, then by first appearance, so the
order is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Record:
    """One evaluated equation: the skeleton as written, its canonical text, the fitted
    expression (constants substituted), its training MAPE (fraction) and MSE, and where it was
    evaluated (iteration and step, from 0)."""

    skeleton: str
    canonical: str
    expression: str
    mape: float
    mse: float
    iteration: int
    step: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def _score(value: float) -> float:
    """A score for ordering: NaN and infinities last."""
    return value if math.isfinite(value) else math.inf


class ExperienceBuffer:
    """The evaluated equations of one run, in the order they were added."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def add(self, record: Record) -> None:
        """Record one evaluation."""
        self.records.append(record)

    def __len__(self) -> int:
        return len(self.records)

    def _best_per_equation(self) -> list[tuple[int, Record]]:
        """(first index, best record) of each distinct canonical equation."""
        best: dict[str, tuple[int, Record]] = {}
        for index, record in enumerate(self.records):
            old = best.get(record.canonical)
            if old is None:
                best[record.canonical] = (index, record)
            elif (_score(record.mape), _score(record.mse)) < (
                _score(old[1].mape),
                _score(old[1].mse),
            ):
                best[record.canonical] = (old[0], record)
        return list(best.values())

    def top(self, k: int) -> list[Record]:
        """The ``k`` best distinct equations by MAPE (then MSE, then first appearance)."""
        ranked = sorted(
            self._best_per_equation(),
            key=lambda item: (_score(item[1].mape), _score(item[1].mse), item[0]),
        )
        return [record for _, record in ranked[:k]]

    def best_mape(self) -> float | None:
        """The lowest MAPE recorded (None when nothing was evaluated)."""
        scores = [r.mape for r in self.records if math.isfinite(r.mape)]
        return min(scores) if scores else None

    def lowest_mse(self) -> Record | None:
        """The record with the lowest training MSE (first one on ties; None when nothing
        finite was evaluated): the agent's final answer."""
        finite = [r for r in self.records if math.isfinite(r.mse)]
        return min(finite, key=lambda r: r.mse) if finite else None
