"""Answer-pool statistics of induction task sets, beside the paper's (SciR, arXiv 2606.13020:
single-answer tasks 131/200 Easy and 105/200 Hard; mean pool size 1.43 and 1.58; pools of at
most four; mean chance 3.2% and 3.5%)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scir.tasks import Task


@dataclass(frozen=True)
class PoolStats:
    """Pool-size statistics of a set of tasks."""

    tasks: int
    single: int  # tasks whose pool has exactly one rule
    mean_size: float
    max_size: int
    mean_chance: float  # mean of |pool| / 45

    @property
    def single_share(self) -> float:
        return self.single / self.tasks if self.tasks else 0.0


PAPER: dict[str, PoolStats] = {
    "easy": PoolStats(tasks=200, single=131, mean_size=1.43, max_size=4, mean_chance=0.032),
    "hard": PoolStats(tasks=200, single=105, mean_size=1.58, max_size=4, mean_chance=0.035),
}


def pool_statistics(tasks: Iterable[Task]) -> PoolStats:
    """Pool statistics of ``tasks`` (from their stored answer pools)."""
    sizes = [len(t.answer_pool) for t in tasks]
    n = len(sizes)
    if not n:
        return PoolStats(0, 0, 0.0, 0, 0.0)
    return PoolStats(
        tasks=n,
        single=sum(1 for s in sizes if s == 1),
        mean_size=sum(sizes) / n,
        max_size=max(sizes),
        mean_chance=sum(s / 45 for s in sizes) / n,
    )


def format_pool_statistics(ours: dict[str, PoolStats]) -> str:
    """A Markdown table of our statistics per difficulty beside the paper's."""
    rows = [
        "| difficulty | tasks | single-answer (ours) | single-answer (paper) | "
        "mean pool (ours) | mean pool (paper) | max pool (ours / paper) | "
        "mean chance (ours / paper) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for level, stats in ours.items():
        paper = PAPER.get(level)
        if paper is None:
            rows.append(
                f"| {level} | {stats.tasks} | {stats.single}/{stats.tasks} | - | "
                f"{stats.mean_size:.2f} | - | {stats.max_size} / - | "
                f"{stats.mean_chance:.1%} / - |"
            )
            continue
        rows.append(
            f"| {level} | {stats.tasks} | {stats.single}/{stats.tasks} "
            f"({stats.single_share:.0%}) | {paper.single}/{paper.tasks} "
            f"({paper.single_share:.0%}) | {stats.mean_size:.2f} | "
            f"{paper.mean_size:.2f} | {stats.max_size} / {paper.max_size} | "
            f"{stats.mean_chance:.1%} / {paper.mean_chance:.1%} |"
        )
    return "\n".join(rows)
