"""Progress of long work where nobody watches a terminal (CI, nohup, Ray workers, batch logs):
plain lines, at least one every ``seconds`` even while one slow item runs, each with done /
total, what the finished items say (running accuracy, errors, generated tokens per second)
and an ETA from the pace so far.

    >>> for result in plain_progress(results, total=10, desc="solve ns"):  # doctest: +SKIP
    ...     ...
    solve ns 10:02:31: 3/10 done, accuracy 1/3, errors: parse 1; 41.2 tokens/s; ETA 2m10s

On a terminal the commands draw a tqdm bar instead (:func:`scir.commands._common.progress`).
``SCIR_PROGRESS_SECONDS`` sets the interval (default 30).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
SECONDS_ENV = "SCIR_PROGRESS_SECONDS"
DEFAULT_SECONDS = 30.0
ERRORS = (
    ("parse", "parse_error"),
    ("solver", "solver_error"),
    ("timeout", "timeout"),
    ("backend", "backend_error"),
    ("no answer", "no_answer"),
)


def interval() -> float:
    """Seconds between lines: ``$SCIR_PROGRESS_SECONDS`` (a positive number), else 30."""
    try:
        value = float(os.environ.get(SECONDS_ENV, DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS
    return value if value > 0 else DEFAULT_SECONDS


def duration(seconds: float) -> str:
    """``2h05m``, ``3m10s``, ``12s``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class Heartbeat:
    """Calls ``emit()`` every ``seconds`` from a daemon thread until :meth:`stop`."""

    def __init__(self, seconds: float, emit: Callable[[], Any]) -> None:
        self.seconds = seconds
        self.emit = emit
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="scir-progress")

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            self.emit()

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()


class Pace:
    """Done / total, finished items' statuses and tokens, and the ETA from the pace of the
    items finished since it started (items counted as already done do not speed it up)."""

    def __init__(self, total: int | None, done: int = 0) -> None:
        self.total = total
        self.done = done
        self.started_with = done
        self.begun = time.monotonic()
        self.answered = 0
        self.correct = 0
        self.tokens = 0
        self.counts: dict[str, int] = {}

    def add(self, item: Any = None) -> None:
        """One finished item; a pipeline result also counts its verdict, status and tokens."""
        self.done += 1
        status = getattr(item, "status", None)
        if isinstance(status, str):
            self.answered += 1
            self.correct += int(bool(getattr(item, "correct", False)))
            self.counts[status] = self.counts.get(status, 0) + 1
            self.tokens += int(getattr(item, "completion_tokens", 0) or 0)

    def summary(self) -> str:
        """``3/10 done, accuracy 1/3, errors: parse 1; 41.2 tokens/s; ETA 2m10s``."""
        elapsed = time.monotonic() - self.begun
        parts = [f"{self.done}/{self.total if self.total is not None else '?'} done"]
        if self.answered:
            parts[0] += f", accuracy {self.correct}/{self.answered}"
            errors = ", ".join(
                f"{name} {self.counts[s]}" for name, s in ERRORS if self.counts.get(s)
            )
            if errors:
                parts[0] += f", errors: {errors}"
        if self.tokens and elapsed > 0:
            parts.append(f"{self.tokens / elapsed:.1f} tokens/s")
        new = self.done - self.started_with
        if self.total is not None and self.done >= self.total:
            parts.append(f"took {duration(elapsed)}")
        elif self.total is not None and new > 0:
            parts.append(f"ETA {duration(elapsed / new * (self.total - self.done))}")
        else:
            parts.append("ETA -")
        return "; ".join(parts)


def plain_progress(
    items: Iterable[T],
    total: int | None = None,
    desc: str = "",
    stream: TextIO | None = None,
    seconds: float | None = None,
) -> Iterator[T]:
    """Pass ``items`` through, writing a plain progress line to ``stream`` (stderr) every
    ``seconds`` (:func:`interval`), and a last one at the end when any was written (work
    shorter than the interval stays quiet)."""
    out = stream or sys.stderr
    pace = Pace(total)
    lock = threading.Lock()
    written = [0]

    def line() -> None:
        with lock:
            print(f"{desc} {time.strftime('%H:%M:%S')}: {pace.summary()}", file=out, flush=True)
            written[0] += 1

    beat = Heartbeat(seconds or interval(), line).start()
    try:
        for item in items:
            with lock:
                pace.add(item)
            yield item
    finally:
        beat.stop()
    if written[0]:
        line()
