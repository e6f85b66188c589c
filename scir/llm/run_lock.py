"""One writer per run directory: an exclusive ``flock`` on ``RUNDIR/.lock``.

The holder writes its pid, host, command and start time into the file, so a second writer is
refused with who holds the run. The kernel drops the lock when the holder exits in any way
(SIGKILL included), so a stale file never blocks a restart; readers (``scir report``) take no
lock. The holder removes the file when it is done (succeeded or failed), so a finished command
leaves no ``.lock`` behind; a lock is held only on the file that is at the path (a writer that
locked a file just removed by its previous holder tries again), so removing it is safe.
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
        for _ in range(100):
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _describe(_read_holder(fd))
                os.close(fd)
                raise ConfigError(
                    f"the run is in use by {holder}; wait for it to finish or "
                    f"use another --run directory",
                    file=str(self.path.parent),
                ) from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # removed by its holder meanwhile: lock the new file
        else:  # pragma: no cover - 100 holders in a row
            raise ConfigError(
                "cannot lock the run: its lock file keeps being replaced", file=str(self.path)
            )
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": self.command,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except OSError:  # e.g. a full disk: the lock holds; only its details are lost
            pass
        self._fd = fd

    def _open(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ConfigError(
                f"cannot create the run's lock file: {exc.strerror}", file=str(self.path)
            ) from exc

    def release(self) -> None:
        """Remove the lock file, then drop the lock."""
        if self._fd is not None:
            try:
                if _same_file(self._fd, self.path):
                    os.unlink(self.path)
            except OSError:  # e.g. a read-only folder: the file stays, harmless
                pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open file ``fd`` is the one at ``path``."""
    try:
        now = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


def _read_holder(fd: int) -> dict[str, Any]:
    from scir.bounded import parse_json

    try:
        data = parse_json(os.pread(fd, 65536, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ScirError):  # unreadable, not JSON, nested too deep, ...
        return {}
    return data if isinstance(data, dict) else {}


def _describe(info: dict[str, Any]) -> str:
    if not info:
        return "another process (it has not written its details yet)"
    return (
        f"pid {info.get('pid')} on {info.get('host')} since {info.get('started')} "
        f"({info.get('command')})"
    )
