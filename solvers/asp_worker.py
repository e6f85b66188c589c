"""The clingo worker process: grounding and solving with a time limit that holds for grounding
too (clingo cannot interrupt its grounder).

One small worker per process (it imports only ``solvers.asp`` and clingo), started on first
use and kept; a request is the program (arguments, trusted texts, facts as
:class:`solvers.asp.Atom` records) and the call, sent as length-prefixed pickle frames over
its stdin; the answer (models, or the toolkit error with its type and location) comes back on
its stdout. Past the limit plus :data:`GRACE` the worker is killed (the next call starts a
new one) and the caller gets the same :class:`SolverTimeout` as a search that runs out of
time. Calls from several threads take turns. The worker ends when its stdin closes.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from solvers import errors
from solvers.errors import ScirError, SolverError

GRACE = 0.5  # seconds beyond the limit before the worker is killed (its own
# timeout error, with clingo's detail, normally comes first)
_LOCATION = ("file", "line", "column", "task_id", "field")
_HEADER = struct.Struct(">Q")


def _write(fd: int, payload: Any) -> None:
    data = pickle.dumps(payload)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, n: int, deadline: float | None) -> bytes | None:
    chunks, left = [], n
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                return None
        chunk = os.read(fd, left)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read(fd: int, deadline: float | None) -> Any:
    """One frame, or None when ``deadline`` passes first (EOFError if the pipe closed)."""
    head = _read_exactly(fd, _HEADER.size, deadline)
    if head is None:
        return None
    body = _read_exactly(fd, _HEADER.unpack(head)[0], deadline)
    return None if body is None else pickle.loads(body)


class _Worker:
    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.owner = os.getpid()
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        # the caller's import path, and -P: not the working directory first (a `solvers`
        # folder there, e.g. another checkout, would shadow the caller's package)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        return subprocess.Popen(
            [sys.executable, "-P", "-m", "solvers.asp_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            close_fds=True,
        )

    def stop(self) -> None:
        if self.proc is not None and self.owner == os.getpid():
            self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None

    def call(
        self, request: tuple, seconds: float, timeout_error: Callable[[float], ScirError]
    ) -> Any:
        with self.lock:
            start = time.monotonic()
            if self.owner != os.getpid():  # a forked copy of the owner: the worker (and
                self.proc, self.owner = None, os.getpid()  # its pipes) are the parent's
            if self.proc is None or self.proc.poll() is not None:
                self.stop()
                self.proc = self._start()
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                _write(self.proc.stdin.fileno(), request)
                answer = _read(self.proc.stdout.fileno(), start + seconds + GRACE)
            except (EOFError, BrokenPipeError, OSError) as exc:
                self.stop()
                raise SolverError(f"the clingo worker process died: {exc!r}") from exc
            if answer is None:
                self.stop()
                raise timeout_error(time.monotonic() - start)
        if answer[0] == "ok":
            return answer[1]
        if answer[0] == "error":
            _, name, message, location = answer
            raise getattr(errors, name, SolverError)(message, **location)
        raise SolverError(f"the clingo worker process failed: {answer[1]}")


_WORKER = _Worker()
atexit.register(_WORKER.stop)


def solve_in_worker(
    request: tuple, seconds: float, timeout_error: Callable[[float], ScirError]
) -> Any:
    """Send ``request`` (see :func:`_serve`) to the worker; its answer, or its toolkit error
    raised here with type and location; ``timeout_error(elapsed)`` past ``seconds`` + GRACE
    (the worker is then killed)."""
    return _WORKER.call(request, seconds, timeout_error)


def _serve(request: tuple) -> Any:
    from solvers.asp import AspProgram

    arguments, texts, facts, extra, optimize, time_limit = request
    program = AspProgram(arguments)
    program._texts, program._facts = list(texts), list(facts)
    return program._solve(extra, optimize, time_limit)


def main() -> None:
    """The worker's loop: one request per frame on stdin, one answer per frame on stdout."""
    import clingo  # noqa: F401  -- loaded before the first request

    fd_in, fd_out = sys.stdin.fileno(), sys.stdout.fileno()
    while True:
        try:
            request = _read(fd_in, None)
        except EOFError:
            return
        try:
            answer: tuple = ("ok", _serve(request))
        except ScirError as exc:
            answer = (
                "error",
                type(exc).__name__,
                exc.message,
                {k: getattr(exc, k) for k in _LOCATION},
            )
        except Exception as exc:
            answer = ("crash", f"{type(exc).__name__}: {exc}")
        _write(fd_out, answer)


if __name__ == "__main__":
    main()
