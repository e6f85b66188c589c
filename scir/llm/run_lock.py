"""One writer per run directory: an exclusive ``flock`` on ``RUNDIR/.lock``.

The holder writes its pid, host, command and start time into the file, so a second writer is
refused with who holds the run. The kernel drops the lock when the holder exits in any way
(SIGKILL included), so a stale file never blocks a restart; readers (``scir report``) take no
lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

from scir.errors import ConfigError, ScirError

LOCK_NAME = ".lock"


def lock_path(run: str | Path) -> Path:
    """The lock file of a run: ``RUN/.lock`` for a folder, ``RUN.lock`` for a ``.sqlite``."""
    run = Path(run)
    return run.with_name(run.name + ".lock") if run.suffix == ".sqlite" else run / LOCK_NAME


class RunLock:
    """Context manager holding the run's lock; raises ConfigError when another process has it."""

    def __init__(self, run: str | Path, command: str | None = None) -> None:
        """Lock ``run`` (a run folder or ``.sqlite`` file) for the command line ``command``."""
        self.path = lock_path(run)
        self.command = command if command is not None else " ".join(sys.argv)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (never waits)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ConfigError(f"cannot create the run's lock file: {exc.strerror}",
                              file=str(self.path)) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(_read_holder(fd))
            os.close(fd)
            raise ConfigError(f"the run is in use by {holder}; wait for it to finish or use "
                              f"another --run directory", file=str(self.path.parent)) from None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except OSError:          # e.g. a full disk: the lock holds; only its details are lost
            pass
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (the file stays; its content is only read while it is held)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RunLock":
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _read_holder(fd: int) -> dict[str, Any]:
    from scir.bounded import parse_json

    try:
        data = parse_json(os.pread(fd, 65536, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ScirError):       # unreadable, not JSON, nested too deep, ...
        return {}
    return data if isinstance(data, dict) else {}


def _describe(info: dict[str, Any]) -> str:
    if not info:
        return "another process (it has not written its details yet)"
    return (f"pid {info.get('pid')} on {info.get('host')} since {info.get('started')} "
            f"({info.get('command')})")
