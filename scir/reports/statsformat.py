"""Formatting the task-file statistics computed by :mod:`scir.reports.taskstats` (Table-2
style Markdown for ``scir stats`` and ``scir render``)."""

from __future__ import annotations

from collections.abc import Iterable

from scir.errors import ScirError
from scir.reports.taskstats import GroupStats, TaskStats
from scir.tracks import get_track


def _answer_pools(track: str) -> bool:
    """Whether the track's tasks may accept several answers (False for an unknown track)."""
    try:
        return get_track(track).answer_pools
    except ScirError:
        return False


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def format_groups(groups: list[GroupStats]) -> str:
    """The groups as Markdown: a Table-2-style table, then answers, pools and rendering."""
    lines = [
        "| domain | tier | tasks | chars NL | chars Obf | Obf/NL | reference items | "
        "mean chance | constrained chance | rendered | retries | dropped |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in groups:
        lines.append(
            f"| {g.domain} | {g.tier} | {g.tasks} | {_num(g.chars_nl)} | "
            f"{_num(g.chars_obf)} | {_num(g.ratio, 2)} | {_num(g.items)} | "
            f"{g.chance:.1%} | {g.chance_constrained:.1%} | {g.rendered} | "
            f"{g.retries} | {g.dropped} |"
        )
    lines.append("")
    for g in groups:
        answers = ", ".join(f"{a} {n}" for a, n in g.answers.items()) or "-"
        lines.append(f"- {g.domain} {g.tier} answers: {answers}")
        if _answer_pools(g.domain):
            sizes = ", ".join(f"{k}: {v}" for k, v in g.pool_sizes.items())
            lines.append(
                f"  pool sizes {{{sizes}}}, mean {g.mean_pool:.2f}, single-answer "
                f"{g.single_answer}/{g.tasks}"
            )
        if g.genres:
            renderers = ", ".join(f"{r} {n}" for r, n in g.renderers.items())
            lines.append(
                f"  rendered by {renderers or '-'}; genres: "
                + ", ".join(f"{k} {v}" for k, v in g.genres.items())
            )
        for reason in g.drop_reasons:
            lines.append(f"  dropped {reason}")
    return "\n".join(lines)


def format_tasks(stats: Iterable[TaskStats]) -> str:
    """One Markdown row per task."""
    lines = [
        "| task | chars NL | chars Obf | Obf/NL | blocks | genres | retries |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for s in stats:
        lines.append(
            f"| {s.task_id} | {s.chars_nl} | {s.chars_obf or '-'} | "
            f"{_num(s.ratio, 2)} | {s.blocks} | {', '.join(s.genres) or '-'} | "
            f"{s.retries} |"
        )
    return "\n".join(lines)
