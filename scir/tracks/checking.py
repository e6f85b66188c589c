"""Checking hand-written work against a task (``scir check``): the record every track's checker
returns, the shared context (one sandbox for all tasks of a run) and how a track's checker is
found.

A track provides its checker either as a method ``check_hand_written(task, text, context)``
or, for the built-in tracks, as a function ``check(task, text, context)`` in the module
``check`` of its package (``scir/tracks/induction/check.py`` ...). The command never branches
on a track's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError
from scir.tasks import Task
from scir.tracks.base import Track


@dataclass
class HandCheck:
    """The verdict on one hand-written rule, formalization or graph for one task."""

    task_id: str
    track: str
    passed: bool  # the check passes: exit code 0
    summary: str  # one line saying why it passes or not
    lines: list[tuple[str, str]] = field(default_factory=list)  # (label, text) to print
    data: dict[str, Any] = field(default_factory=dict)  # JSON-ready details

    def to_json(self) -> dict[str, Any]:
        """The check as one JSON object."""
        return {
            "task_id": self.task_id,
            "track": self.track,
            "passed": self.passed,
            "summary": self.summary,
            **self.data,
        }


@dataclass
class CheckContext:
    """What the checkers of one ``scir check`` run share: limits and one sandbox worker
    (started at first use, closed by :meth:`close`)."""

    time_limit: float = 5.0  # seconds per sandboxed run / per Prover9 call
    inference_limit: int = 5_000_000  # Prolog inferences per sandboxed run
    memory_mb: int = 512  # address space of the sandbox worker
    _sandbox: Any = None

    def sandbox(self) -> Any:
        """The run's :class:`solvers.sandbox.Sandbox`."""
        if self._sandbox is None:
            from solvers.sandbox import Sandbox

            self._sandbox = Sandbox(
                time_limit=self.time_limit,
                inference_limit=self.inference_limit,
                memory_mb=self.memory_mb,
            )
        return self._sandbox

    def close(self) -> None:
        """Stop the sandbox worker, if one was started."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def __enter__(self) -> CheckContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Checker = Callable[[Task, str, CheckContext], HandCheck]


def checker_for(track: Track) -> Checker:
    """The track's checker of hand-written work (ConfigError when it has none)."""
    method = getattr(track, "check_hand_written", None)
    if callable(method):
        return method
    package = type(track).__module__.rpartition(".")[0]
    name = f"{package}.check"
    module = None
    if package:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    check = getattr(module, "check", None)
    if not callable(check):
        raise ConfigError(
            f"track {track.name!r} cannot check hand-written work (it has no "
            f"check_hand_written method and no module {name})",
            field="task",
        )
    return check


def listing(items: list[str], empty: str = "none") -> str:
    """Items joined with ", " (``empty`` when there are none)."""
    return ", ".join(items) if items else empty
