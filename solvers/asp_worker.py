"""A forked worker for work that cannot be interrupted from inside (clingo's grounding): the
child runs the function and sends its result (or its toolkit error) back through a pipe; the
parent waits until the time limit plus a grace period and then kills the child. The child
shares the parent's memory copy-on-write (nothing is re-imported or re-read), ends with
``os._exit`` (no atexit handlers, no flushing of the parent's buffers), and is always reaped.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from typing import Any, Callable, TypeVar

from solvers import errors
from solvers.errors import ScirError, SolverError

T = TypeVar("T")
GRACE = 0.5            # seconds beyond the limit before the child is killed (its own timeout
                       # error, with its clingo detail, normally comes first)
_LOCATION = ("file", "line", "column", "task_id", "field")


def _child(fn: Callable[[], Any], fd: int) -> None:
    try:
        try:
            result: tuple = ("ok", fn())
        except ScirError as exc:
            result = ("error", type(exc).__name__, exc.message,
                      {k: getattr(exc, k) for k in _LOCATION})
        except BaseException as exc:         # noqa: BLE001 -- reported to the parent as such
            result = ("crash", f"{type(exc).__name__}: {exc}")
        data = pickle.dumps(result)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os._exit(0)


def run_in_worker(fn: Callable[[], T], seconds: float,
                  timeout_error: Callable[[float], ScirError]) -> T:
    """``fn()`` in a forked child; its toolkit errors are raised here with their type and
    location; past ``seconds`` (+ GRACE) the child is killed and ``timeout_error(elapsed)``
    raised. A child that dies without an answer is a SolverError."""
    start = time.monotonic()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # pragma: no cover -- the child
        os.close(read)
        _child(fn, write)
    os.close(write)
    chunks: list[bytes] = []
    try:
        while True:
            left = seconds + GRACE - (time.monotonic() - start)
            if left <= 0 or not select.select([read], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                raise timeout_error(time.monotonic() - start)
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    if not chunks:
        raise SolverError("the solver's worker process ended without an answer")
    result = pickle.loads(b"".join(chunks))
    if result[0] == "ok":
        return result[1]
    if result[0] == "error":
        _, name, message, location = result
        cls = getattr(errors, name, SolverError)
        raise cls(message, **location)
    raise SolverError(f"the solver's worker process failed: {result[1]}")
