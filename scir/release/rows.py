"""Tasks -> released rows, grouped by config (the track) and split (difficulty x presentation).

Every task gives an ``nl`` row; a task with rendered documents also gives an ``obf`` row, and
one with control documents (``scir render --control``) a ``ctl`` row, in the split
``{difficulty}_{presentation}`` (e.g. ``easy_nl``, ``easy_ctl``, ``hard_obf``). The same task
given twice (a clean file and its rendered copy) is kept once, the rendered copy winning; two
different tasks under one id are refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError
from scir.release.schema import COLUMNS, JSON
from scir.tasks import Task
from scir.tracks import get_track

NL, CTL, OBF = "nl", "ctl", "obf"
PRESENTATIONS = (NL, CTL, OBF)
# what must agree for two records of one id to be the same task (rendering may differ)
_IDENTITY = (
    "domain",
    "difficulty",
    "tier",
    "seed",
    "params",
    "question",
    "options",
    "answer",
    "answer_pool",
    "chance",
    "formal",
    "blocks",
    "problem_nl",
)


@dataclass
class Source:
    """One input file and the tasks read from it (for the card's generation section)."""

    name: str
    tasks: list[Task]


@dataclass
class Split:
    """One split of one config: its name, data-file path (relative to the folder) and rows."""

    config: str
    name: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"data/{self.config}/{self.name}.jsonl"


def split_name(difficulty: str, presentation: str) -> str:
    """The split of a task's rows in one presentation, e.g. ``easy_obf``."""
    return f"{difficulty}_{presentation}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def row(task: Task, presentation: str) -> dict[str, Any]:
    """The released row of ``task`` in ``presentation`` (columns of :data:`COLUMNS`)."""
    data = task.to_dict()
    data["presentation"] = presentation
    data["scoring"] = get_track(task.domain).scorer().rule_of(task)
    if presentation == NL:
        data["problem"], data["documents"] = task.problem_nl, []
    elif presentation == CTL:
        data["problem"], data["blocks"] = task.problem_control, []
        data["documents"] = [{"genre": d.genre, "text": d.text} for d in task.documents_control]
    else:
        data["problem"], data["blocks"] = task.problem_obfuscated, []
    return {c.name: _json(data[c.name]) if c.kind == JSON else data[c.name] for c in COLUMNS}


def merge_tasks(sources: Iterable[Source]) -> list[Task]:
    """The tasks of every source in order, each id once (a rendered copy replaces a clean
    one); ConfigError when one id names two different tasks."""
    kept: dict[tuple[str, str], Task] = {}
    origin: dict[tuple[str, str], str] = {}
    for source in sources:
        for task in source.tasks:
            key = (task.domain, task.task_id)
            if key not in kept:
                kept[key], origin[key] = task, source.name
                continue
            old = kept[key]
            if any(getattr(old, f) != getattr(task, f) for f in _IDENTITY):
                raise ConfigError(
                    f"task {task.task_id} in {source.name} differs from the task "
                    f"of the same id in {origin[key]}",
                    file=source.name,
                    task_id=task.task_id,
                    field="task_id",
                )
            if _renderings(task) > _renderings(old):
                kept[key], origin[key] = task, source.name
    return list(kept.values())


def _renderings(task: Task) -> int:
    """How many renderings a record holds (obf, ctl): the one with more is kept."""
    return bool(task.documents) + bool(task.documents_control)


def splits(tasks: Iterable[Task]) -> dict[str, list[Split]]:
    """config -> its splits (sorted by name), rows in task order; an obf row only for a task
    with documents, a ctl row only for one with control documents."""
    out: dict[str, dict[str, Split]] = {}
    for task in tasks:
        for presentation in PRESENTATIONS:
            if (presentation == OBF and not task.documents) or (
                presentation == CTL and not task.documents_control
            ):
                continue
            name = split_name(task.difficulty, presentation)
            config = out.setdefault(task.domain, {})
            config.setdefault(name, Split(task.domain, name)).rows.append(row(task, presentation))
    return {c: [s for _, s in sorted(parts.items())] for c, parts in sorted(out.items())}
