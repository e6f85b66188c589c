"""Statistics of task files (what ``scir stats`` and ``scir render`` print; formatted by
:mod:`scir.reports.statsformat`): per task and per (domain, tier) group, in the manner of the SciR
paper's Table 2 -- input characters of the clean and rendered texts and their ratio, reference
items, answer distribution, mean chance (the paper's definition) and mean constrained chance
(among the answers the question allows), induction pool sizes -- plus the rendering record
(renderer, genres used, retries) and, for a render run, the dropped tasks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from statistics import mean
from typing import Any

from scir.errors import ScirError
from scir.tasks import Task


@dataclass
class TaskStats:
    """The numbers of one task."""

    task_id: str
    domain: str
    tier: str
    difficulty: str
    blocks: int
    chars_nl: int
    chars_obf: int  # 0 when not rendered
    ratio: float | None
    items: int | None  # reference items (the formalizer's count_items), None if unknown
    answer: str
    chance: float
    chance_constrained: float
    pool: int
    renderer: str | None
    genres: list[str]
    retries: int


def reference_items(task: Task) -> int | None:
    """The track's ``formalizer().reference_items(task)`` (``count_items`` of the typed formal
    object), or None
    when the track cannot count."""
    from scir.tracks import track_of

    try:
        return track_of(task).formalizer().reference_items(task)
    except (ScirError, TypeError, ValueError):  # unknown track, malformed formal object
        return None


def task_stats(task: Task) -> TaskStats:
    """The statistics of one task (ConfigError for a task of an unknown track)."""
    from scir.tracks import track_of

    nl = len(task.problem_nl or "\n\n".join(task.blocks))
    obf = len(task.problem_obfuscated)
    render = task.provenance.get("render") if isinstance(task.provenance, dict) else None
    render = render if isinstance(render, dict) else {}
    return TaskStats(
        task_id=task.task_id,
        domain=track_of(task).name,
        tier=task.tier,
        difficulty=task.difficulty,
        blocks=len(task.blocks),
        chars_nl=nl,
        chars_obf=obf,
        ratio=round(obf / nl, 3) if obf and nl else None,
        items=reference_items(task),
        answer=task.answer,
        chance=task.chance,
        chance_constrained=float(
            task.chance_constrained if task.chance_constrained is not None else task.chance
        ),
        pool=len(task.answer_pool),
        renderer=render.get("renderer"),
        genres=[d.genre for d in task.documents],
        retries=int(render.get("retries", 0) or 0),
    )


@dataclass
class GroupStats:
    """The numbers of one (domain, tier) group."""

    domain: str
    tier: str
    difficulties: list[str]
    tasks: int
    rendered: int
    chars_nl: float
    chars_obf: float | None
    ratio: float | None
    items: float | None
    answers: dict[str, int]
    chance: float
    chance_constrained: float
    pool_sizes: dict[int, int]
    mean_pool: float
    single_answer: int
    renderers: dict[str, int]
    genres: dict[str, int]
    retries: int
    dropped: int = 0
    drop_reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def group_stats(
    stats: Iterable[TaskStats], dropped: Iterable[dict[str, Any]] = ()
) -> list[GroupStats]:
    """Per (domain, tier) statistics, sorted; ``dropped`` are a render run's drop records
    (``{"task_id", "domain", "tier", "reason"}``)."""
    groups: dict[tuple[str, str], list[TaskStats]] = {}
    for s in stats:
        groups.setdefault((s.domain, s.tier), []).append(s)
    drops: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for d in dropped:
        drops.setdefault((d["domain"], d["tier"]), []).append(d)
    out = []
    for key in sorted(set(groups) | set(drops)):
        items = groups.get(key, [])
        rendered = [s for s in items if s.chars_obf]
        ratios = [s.ratio for s in rendered if s.ratio is not None]  # 0.0 for a tiny Obf text
        counted = [s.items for s in items if s.items is not None]
        pools = Counter(s.pool for s in items)
        out.append(
            GroupStats(
                domain=key[0],
                tier=key[1],
                difficulties=sorted({s.difficulty for s in items}),
                tasks=len(items),
                rendered=len(rendered),
                chars_nl=round(mean(s.chars_nl for s in items), 1) if items else 0.0,
                chars_obf=round(mean(s.chars_obf for s in rendered), 1) if rendered else None,
                ratio=round(mean(ratios), 3) if ratios else None,
                items=round(mean(counted), 1) if counted else None,
                answers=dict(sorted(Counter(s.answer for s in items).items())),
                chance=round(mean(s.chance for s in items), 4) if items else 0.0,
                chance_constrained=(
                    round(mean(s.chance_constrained for s in items), 4) if items else 0.0
                ),
                pool_sizes=dict(sorted(pools.items())),
                mean_pool=round(mean(s.pool for s in items), 2) if items else 0.0,
                single_answer=pools.get(1, 0),
                renderers=dict(sorted(Counter(s.renderer for s in rendered if s.renderer).items())),
                genres=dict(sorted(Counter(g for s in items for g in s.genres).items())),
                retries=sum(s.retries for s in items),
                dropped=len(drops.get(key, [])),
                drop_reasons=[f"{d['task_id']}: {d['reason']}" for d in drops.get(key, [])],
            )
        )
    return out
