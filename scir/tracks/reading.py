"""Reading task files with every record checked by its track: the readers the toolkit uses.

:mod:`scir.tasks` validates a record's generic fields; here each record is also checked with
its track (:func:`check_with_track`: the ``domain`` names a registered track, the parameters
the track declares have their types, choices and ranges, and ``Track.validate_formal`` accepts
the answer, answer pool, options and formal object). The first problem is a TaskFormatError
naming the file, line, task and field.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from scir.errors import ScirError, TaskFormatError
from scir.tasks import MAX_MESSAGE_CHARS, Task, shorten
from scir.tasks import iter_tasks as _iter_tasks
from scir.tasks import read_tasks as _read_tasks
from scir.tracks import get_track, track_names

__all__ = ["check_with_track", "iter_tasks", "read_tasks", "task_from_dict"]


def read_tasks(path: str | os.PathLike) -> list[Task]:
    """All tasks of a JSONL file, each checked with its track; task ids must be unique (a
    repeat names both lines)."""
    return _read_tasks(path, check_with_track)


def iter_tasks(path: str | os.PathLike) -> Iterator[Task]:
    """Yield the tasks of a JSONL file one by one (blank lines are skipped), each checked with
    its track."""
    return _iter_tasks(path, check_with_track)


def task_from_dict(data: Any, *, file: str | None = None, line: int | None = None) -> Task:
    """A task from a parsed JSON object, every field validated and checked with its track."""
    return Task.from_dict(data, file=file, line=line, check=check_with_track)


def check_with_track(task: Task, *, file: str | None = None, line: int | None = None) -> None:
    """Check ``task`` with its track's ``validate_formal`` (answer, pool, options, formal).

    An unknown domain, and any error the track raises, becomes a TaskFormatError naming the
    file, line, task and field (a position inside a formula is kept in the message)."""
    try:
        track = get_track(task.domain)
    except ScirError as exc:  # an unknown name, or a track that cannot be loaded
        known = track_names()
        message = (
            exc.message
            if task.domain in known
            else f"unknown track {shorten(task.domain)} (known tracks: {', '.join(known)})"
        )
        raise TaskFormatError(
            message, file=file, line=line, task_id=task.task_id, field="domain"
        ) from exc
    try:
        _check_params(track, task.params)
        track.validate_formal(task)
    except ScirError as exc:
        message = exc.message
        if exc.line is not None or exc.column is not None:  # a position inside a formula
            where = ", ".join(
                f"{k} {v}" for k, v in (("line", exc.line), ("column", exc.column)) if v is not None
            )
            message = f"{message} (at {where} of the value)"
        if len(message) > MAX_MESSAGE_CHARS:  # e.g. a huge value quoted by a checker
            message = message[: MAX_MESSAGE_CHARS - 3] + "..."
        raise TaskFormatError(
            message, file=file, line=line, task_id=task.task_id, field=exc.field or "formal"
        ) from exc


def _check_params(track: Any, params: dict[str, Any]) -> None:
    """The track's declared parameters that a record states: type, choices and range (the
    tracks read them, e.g. to bound a formalization grammar); other keys are left alone."""
    for spec in track.parameters():
        if spec.name not in params:
            continue
        value, fld = params[spec.name], f"params.{spec.name}"
        wanted = (int, float) if spec.type is float else (spec.type,)
        if isinstance(value, bool) or not isinstance(value, wanted):
            raise TaskFormatError(
                f"expected {spec.type.__name__}, got {type(value).__name__}", field=fld
            )
        if spec.choices is not None and value not in spec.choices:
            raise TaskFormatError(
                f"must be one of {list(spec.choices)}, got {shorten(value)}", field=fld
            )
        if (spec.minimum is not None and value < spec.minimum) or (
            spec.maximum is not None and value > spec.maximum
        ):
            raise TaskFormatError(
                f"must lie in [{spec.minimum}, {spec.maximum}], got {shorten(value)}", field=fld
            )
