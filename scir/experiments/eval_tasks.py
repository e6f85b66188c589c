"""The task lists of an experiment: per track and difficulty, a task file read as given, or
tasks generated (and template-rendered) from the experiment's spec into ``RUNDIR/tasks/``.

Generation is deterministic in the spec, so a generated file is written once and reused: a
rerun finds ``RUNDIR/tasks/TRACK-DIFFICULTY.jsonl`` with its spec and sha256 next to it
(``.spec.json``) and reads it after checking both; a file changed by hand is refused, a spec
changed in the experiment (allowed only while none of its cells has a result) regenerates it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scir.bounded import parse_json, read_text
from scir.errors import ConfigError
from scir.experiments.experiment import Experiment, TaskSource
from scir.tasks import Task, write_tasks
from scir.tracks.reading import read_tasks

TASKS_DIR = "tasks"
MAX_SPEC_BYTES = 1 << 20  # a generated task list's .spec.json


def task_path(run: Path, track: str, difficulty: str) -> Path:
    """Where a generated task list of a run lives."""
    return run / TASKS_DIR / f"{track}-{difficulty}.jsonl"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _generate(track_name: str, difficulty: str, source: TaskSource, n: int) -> list[Task]:
    from scir.tracks import get_track

    track = get_track(track_name)
    tasks = list(track.generate(n, source.seed, difficulty, dict(source.params)))
    for task in tasks:
        # explicit params make a task "custom"; in a grid it belongs to the section that
        # made it (the plan's cells are keyed by the section), so it carries that name
        task.difficulty = difficulty
    if source.render is not None:
        from scir.rendering.template import render_task

        tasks = [render_task(t, source.render.seed) for t in tasks]
        if source.render.control:
            from scir.rendering.control import render_control

            tasks = [render_control(t, source.render.seed) for t in tasks]
    return tasks


def prepare_tasks(
    exp: Experiment, run: Path, *, dry_run: bool = False
) -> dict[tuple[str, str], list[Task]]:
    """The tasks of every (track, difficulty) of the grid, at most ``tasks_per_cell`` each.
    With ``dry_run`` nothing is generated: a group not generated yet gets an empty list
    (:func:`planned_count` says how many tasks it will have)."""
    base = Path(exp.path).parent
    out: dict[tuple[str, str], list[Task]] = {}
    for track, tier in exp.groups():
        source = exp.task_source(track, tier)
        where = f"tasks.{track}.{tier}"
        if source.file is not None:
            path = Path(source.file)
            path = path if path.is_absolute() else base / path
            tasks = read_tasks(path)
            wrong = [t.task_id for t in tasks if t.domain != track]
            if wrong:
                raise ConfigError(
                    f"{where}: task {wrong[0]} is a {tasks[0].domain} task, not {track}",
                    file=str(path),
                    field=where,
                )
            out[(track, tier)] = tasks[: exp.tasks_per_cell]
            continue
        n = source.n or exp.tasks_per_cell
        path = task_path(run, track, tier)
        spec_path = path.with_suffix(".spec.json")
        spec = {"track": track, "difficulty": tier, "n": n, **source.model_dump(mode="json")}
        if path.exists() and spec_path.exists():
            recorded = parse_json(
                read_text(spec_path, MAX_SPEC_BYTES, ConfigError, "the generated tasks' spec"),
                file=str(spec_path),
            )
            if isinstance(recorded, dict) and recorded.get("spec") == spec:
                if _sha(path) != recorded.get("sha256"):
                    raise ConfigError(
                        f"{where}: the generated task file was changed after it "
                        f"was written (sha256 differs); delete it to regenerate",
                        file=str(path),
                        field=where,
                    )
                out[(track, tier)] = read_tasks(path)[: exp.tasks_per_cell]
                continue
        if dry_run:
            out[(track, tier)] = []
            continue
        tasks = _generate(track, tier, source, n)
        write_tasks(path, tasks)
        spec_path.write_text(
            json.dumps({"spec": spec, "sha256": _sha(path)}, indent=1, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        out[(track, tier)] = tasks[: exp.tasks_per_cell]
    return out


def planned_count(
    exp: Experiment, tasks: dict[tuple[str, str], list[Task]], track: str, tier: str
) -> int:
    """The planned task count of a cell of (track, tier): its task list's length, or for a
    spec not generated yet (dry run) what it will generate."""
    got = tasks.get((track, tier))
    if got:
        return len(got)
    source = exp.task_source(track, tier)
    if source.file is None:
        return min(source.n or exp.tasks_per_cell, exp.tasks_per_cell)
    return 0
