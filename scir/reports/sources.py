"""The task records behind the results of some run directories.

A run store holds results (task id, cell, answer, formalization, solver log, ...) and calls,
not the tasks. The explorer reads the task records from task files, in this order:

1. the files given with ``--tasks`` (an unreadable one is an error);
2. per run directory, the files the run records:
   - the task lists ``scir eval`` generated into ``RUNDIR/tasks/*.jsonl``;
   - the task files its experiment names (``RUNDIR/experiment.toml``, the copy ``scir eval``
     keeps; relative names resolved against the experiment file it was copied from, which
     ``RUNDIR/experiment.json`` records);
   - the files ``scir solve`` was given (the run's invocations; a relative name is taken
     relative to the current folder, as it was given).

A recorded file that is gone or no longer reads is noted, not an error (pass it with
``--tasks``). The first record of a task id is used, except that a rendered record (with
documents) replaces the same task's clean record (``scir render`` adds documents, the
obfuscated text and the renderer's provenance, nothing else); a later record of the same id
with other content is noted as a conflict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scir.errors import ScirError
from scir.experiments.eval_run import COPY, RECORD, read_record
from scir.experiments.eval_tasks import TASKS_DIR
from scir.experiments.experiment import load_experiment
from scir.runs.store import RunStore
from scir.tasks import Task
from scir.tracks.reading import read_tasks


@dataclass
class TaskSources:
    """The task records found, the files read and what could not be used."""

    tasks: dict[str, Task] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, path: Path, tasks: Iterable[Task]) -> None:
        """Add the records of one file (the first record of an id is kept, or its rendering)."""
        self.files.append(str(path))
        for task in tasks:
            seen = self.tasks.get(task.task_id)
            if seen is None or (
                _unrendered(seen) == _unrendered(task) and _renderings(seen) < _renderings(task)
            ):
                self.tasks[task.task_id] = task
            elif _unrendered(seen) != _unrendered(task):
                self.notes.append(
                    f"task {task.task_id}: {path} holds a different record than "
                    f"an earlier file; the earlier one is shown"
                )


# what ``scir render`` adds to a task (scir.rendering.template.render_task, and with --control
# scir.rendering.control.render_control)
RENDERED: dict[str, Any] = {
    "documents": [],
    "problem_obfuscated": "",
    "provenance": {},
    "documents_control": [],
    "problem_control": "",
}


def _renderings(task: Task) -> int:
    """How many renderings ``task`` holds (obf, ctl): a record with more replaces one with
    fewer."""
    return bool(task.documents) + bool(task.documents_control)


def _unrendered(task: Task) -> Task:
    """``task`` without what rendering adds."""
    return dataclasses.replace(task, **RENDERED)


def _experiment_files(run: Path) -> list[Path]:
    """The task files the experiment copied into ``run`` names (resolved)."""
    copy = run / COPY
    if not copy.is_file():
        return []
    base = run
    if (run / RECORD).is_file():
        source = read_record(run).get("source")
        if isinstance(source, str) and source:
            base = locate(Path(source), run).parent
    exp = load_experiment(copy)
    out = []
    for tiers in exp.tasks.values():
        for spec in tiers.values():
            if spec.file is not None:
                path = Path(spec.file)
                out.append(path if path.is_absolute() else base / path)
    return out


def locate(path: Path, run: Path) -> Path:
    """A path a run recorded: as it is when absolute (what runs record now) or found from the
    working directory; a relative path recorded by an older run that is not found from here is
    looked for beside the run directory and inside it (the usual places it was run from)."""
    if path.is_absolute() or path.exists():
        return path
    for base in (run.parent, run):
        if (base / path).exists():
            return base / path
    return path


def recorded_files(run: str | Path, notes: list[str] | None = None) -> list[Path]:
    """The task files a run directory records (see the module docstring), in that order; an
    experiment copy or record that does not read is noted in ``notes`` (the other files are
    still found), or raised when ``notes`` is None."""

    run = Path(run)
    files = sorted((run / TASKS_DIR).glob("*.jsonl"))
    try:
        files += _experiment_files(run)
    except ScirError as exc:
        if notes is None:
            raise
        notes.append(f"{run}: cannot read its experiment: {exc}")
    with RunStore(run, readonly=True) as store:
        invocations = store.invocations()
    for config in invocations:
        name = config.get("file")
        if isinstance(name, str) and name:
            files.append(locate(Path(name), run))
    return files


def find_tasks(run_dirs: list[str], explicit: list[str] | None = None) -> TaskSources:
    """The task records of ``explicit`` files, then of the files the runs record (each file
    read once). An explicit file that does not read raises its error; a recorded one is
    noted."""
    found = TaskSources()
    seen: set[Path] = set()
    for name in explicit or []:
        path = Path(name)
        seen.add(path.resolve())
        found.add(path, read_tasks(path))
    for run in run_dirs:
        try:
            recorded = recorded_files(run, found.notes)
        except ScirError as exc:  # e.g. a damaged invocations table
            found.notes.append(f"{run}: cannot read its experiment: {exc}")
            recorded = []
        for path in recorded:
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            if not path.is_file():
                found.notes.append(
                    f"{run}: its task file {path} is not there (pass it with --tasks)"
                )
                continue
            try:
                tasks = read_tasks(path)
            except (ScirError, OSError) as exc:
                found.notes.append(f"{run}: its task file {path} cannot be read: {exc}")
                continue
            found.add(path, tasks)
    return found
