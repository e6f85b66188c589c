"""One progress display for a whole ``scir eval`` grid: a tqdm bar when stderr is a terminal,
otherwise (batch logs) plain lines every N tasks or N seconds (also while one slow task runs),
each with done / planned, the running accuracy, the error counts, the current cell, the
generated tokens per second and the ETA from the pace of this session."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from scir.errors import ConfigError
from scir.experiments.cells import CellKey
from scir.outcomes.status import Status
from scir.progress import Heartbeat, Pace

ERRORS = (
    ("parse", Status.PARSE_ERROR.value),
    ("solver", Status.SOLVER_ERROR.value),
    ("timeout", Status.TIMEOUT.value),
    ("backend", Status.BACKEND_ERROR.value),
    ("no answer", Status.NO_ANSWER.value),
)


def parse_every(text: str) -> tuple[int | None, float | None]:
    """``--progress-every``: ``N`` tasks, ``Ns`` seconds, or both (``25,30s``)."""
    tasks, seconds = None, None
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)s", part)
        if m and float(m[1]) > 0:
            seconds = float(m[1])
        elif part.isdigit() and int(part) > 0:
            tasks = int(part)
        else:
            raise ConfigError(
                f"--progress-every takes N (tasks), Ns (seconds) or both "
                f"(e.g. 25,30s), got {text!r}",
                field="progress_every",
            )
    return tasks, seconds


def skip_line(cell: CellKey, reason: str) -> str:
    """The line that says a cell of the grid is not run: ``skipped  CELL: REASON``."""
    return f"skipped  {cell.label()}: {reason}"


def skip_summary(skipped: list[tuple[CellKey, str]]) -> str:
    """One line for every cell of a grid that is not run because its track does not take its
    architecture: ``skipped N cells (architecture not taken by the track): TRACK: ARCH, ...;
    ...`` (tracks with the same architectures share an entry; ``--dry-run`` lists the
    cells)."""
    per_track: dict[str, set[str]] = {}
    for cell, _ in skipped:
        per_track.setdefault(cell.track, set()).add(cell.arch)
    groups: dict[tuple[str, ...], list[str]] = {}
    for track, archs in sorted(per_track.items()):
        groups.setdefault(tuple(sorted(archs)), []).append(track)
    parts = [f"{', '.join(tracks)}: {', '.join(archs)}" for archs, tracks in groups.items()]
    return (
        f"skipped  {len(skipped)} cell{'s' if len(skipped) != 1 else ''} (architecture "
        f"not taken by the track): " + "; ".join(parts) + " (--dry-run lists them)"
    )


class GridProgress:
    """Counts of every planned (cell, task) result: stored ones first, then each finished."""

    def __init__(
        self,
        planned: int,
        *,
        stream: TextIO | None = None,
        bar: bool | None = None,
        every_tasks: int | None = None,
        every_seconds: float | None = 30.0,
    ) -> None:
        self.planned = planned
        self.stream = stream or sys.stderr
        self.bar_mode = self.stream.isatty() if bar is None else bar
        self.every_tasks = every_tasks
        self.every_seconds = every_seconds
        self.status: dict[tuple[CellKey, str], tuple[str, bool]] = {}
        self.counts: Counter = Counter()
        self.correct = 0
        self.cell: CellKey | None = None
        self._since = 0
        self._last = time.monotonic()
        self._bar = None
        self._pace: Pace | None = None
        self._beat: Heartbeat | None = None
        self._lock = threading.Lock()

    def record(self, cell: CellKey, task_id: str, status: str, correct: bool) -> None:
        """One result of a planned task (a stored one, or one just finished)."""
        old = self.status.get((cell, task_id))
        if old is not None:
            self.counts[old[0]] -= 1
            self.correct -= int(old[1])
        self.status[(cell, task_id)] = (status, bool(correct))
        self.counts[status] += 1
        self.correct += int(bool(correct))

    def skipped(self, skipped: list[tuple[CellKey, str]]) -> None:
        """Say which cells of the grid are not run (:func:`skip_summary`: one line)."""
        if skipped:
            print(skip_summary(skipped), file=self.stream, flush=True)

    def start(self) -> None:
        """Show the starting point (the stored results)."""
        self._pace = Pace(self.planned, done=len(self.status))
        if self.bar_mode:
            from tqdm import tqdm

            self._bar = tqdm(
                total=self.planned,
                initial=len(self.status),
                desc="eval",
                file=self.stream,
                dynamic_ncols=True,
            )
        else:
            self.line()
            if self.every_seconds is not None:  # a line even while one slow task runs
                self._beat = Heartbeat(self.every_seconds, self._beat_line).start()

    def _beat_line(self) -> None:
        assert self.every_seconds is not None  # the heartbeat runs only with a period
        if time.monotonic() - self._last >= self.every_seconds * 0.9:
            self.line()

    def line(self) -> str:
        """One plain progress line (also written to the stream)."""
        with self._lock:
            done = len(self.status)
            acc = f"{self.correct}/{done} = {100 * self.correct / done:.1f}%" if done else "-"
            errors = ", ".join(f"{name} {self.counts[s]}" for name, s in ERRORS)
            cell = self.cell.label() if self.cell is not None else "-"
            pace = ""
            if self._pace is not None:  # tokens/s and the ETA (or the time taken)
                pace = "; " + self._pace.summary().split("; ", 1)[-1]
            text = (
                f"eval {time.strftime('%H:%M:%S')}: {done}/{self.planned} done, accuracy "
                f"{acc}; errors: {errors}; cell {cell}{pace}"
            )
            print(text, file=self.stream, flush=True)
            self._last = time.monotonic()
        return text

    def _tick(self) -> None:
        if self._bar is not None:
            self._bar.update(1)
            done = max(1, len(self.status))
            self._bar.set_postfix_str(
                f"acc {100 * self.correct / done:.0f}% {self.cell.label() if self.cell else ''}"
            )
            return
        self._since += 1
        now = time.monotonic()
        if (self.every_tasks is not None and self._since >= self.every_tasks) or (
            self.every_seconds is not None and now - self._last >= self.every_seconds
        ):
            self.line()
            self._since, self._last = 0, now

    def wrap(self, cell: CellKey, results: Iterable[Any], check=None) -> Iterator[Any]:
        """Pass a cell's finished results through, counting each; ``check()`` runs after each
        (e.g. the wall-time budget) and may raise to stop the grid."""
        self.cell = cell
        for result in results:
            with self._lock:
                self.record(cell, result.task_id, result.status, result.correct)
                if self._pace is not None:
                    self._pace.done = len(self.status)
                    self._pace.tokens += int(getattr(result, "completion_tokens", 0) or 0)
            self._tick()
            yield result
            if check is not None:
                check()

    def close(self) -> None:
        """End the display (a last plain line in line mode)."""
        if self._beat is not None:
            self._beat.stop()
            self._beat = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        else:
            self.line()
