"""The data analyzer (SR-Scientist's tool T1): run an agent's Python on the training data in a
sandboxed subprocess and return what it printed.

    >>> res = analyze("print(df.describe())", X_and_y, ["x", "t", "y"])   # doctest: +SKIP
    >>> res.status, res.stdout[:40]
    (<AnalysisStatus.OK: 'ok'>, '               x          t          y...')

The code sees ``data`` (a float numpy array, one column per name in ``columns``), ``df``
(a pandas DataFrame of a copy of it, with those column names), ``columns``, ``np`` and
``pd`` (``df`` and ``pd`` are defined when the code mentions them: pandas takes a second to
load); numpy, pandas and scipy can be imported. It runs in a fresh temporary folder (its
working directory, deleted afterwards) in a separate process
(``python -I solvers/equation/_analyzer_worker.py``), with:

- time: ``seconds`` of wall time after start-up (then the process group is killed) and a
  CPU-time limit (RLIMIT_CPU) of ``seconds`` plus the start-up allowance;
- memory: ``memory_mb`` of address space (RLIMIT_AS) on top of what the worker uses once
  numpy (and pandas) are loaded (about 330 MB with pandas; scipy.stats takes 150 MB more);
  a MemoryError ends the run;
- files: RLIMIT_FSIZE of :data:`FILE_LIMIT_MB` per file; writes only inside the folder;
- an audit hook installed before the code runs (audit hooks cannot be removed) refusing
  processes (fork, exec, system, subprocess, pty), sockets, ctypes, writes and ``os.open``
  outside the folder, reads outside the folder and the Python installation (see
  :mod:`solvers.equation._analyzer_worker` for the exact policy); a refused operation does
  not happen and raises a PermissionError in the code (libraries trying something optional
  go on); the refusals are listed in ``refused``;
- no network namespace at all when ``unshare -n`` works (root on Linux), as a second wall;
- an empty environment (``PATH``, ``HOME`` and ``TMPDIR`` = the folder, one thread for
  OpenMP / OpenBLAS / MKL / numexpr);
- stdout and stderr each cut to ``max_output`` characters.

Design: the outcome is a status field, never an exception for what the code does --
:class:`AnalysisStatus` ``ok``, ``error`` (the code raised; traceback in ``stderr``),
``timeout``, ``memory``, ``violation`` (the code ended on a refused operation it did not
catch; reason in ``message``),
``crashed`` (the process died otherwise). :meth:`AnalysisResult.raise_for_status` turns a
failure into the toolkit's errors (``SolverTimeout``, ``SolverResourceLimit``,
``SandboxViolation``, ``SandboxCrash``, ``SolverError``) for callers who want them. Wrong
arguments (not the code) raise ``ConfigError``. The host process never runs the code.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import numpy as np

from solvers.equation._analyzer_worker import EXIT_MEMORY, EXIT_VIOLATION
from solvers.errors import (
    ConfigError,
    SandboxCrash,
    SandboxViolation,
    SolverError,
    SolverResourceLimit,
    SolverTimeout,
)
from solvers.isolation import isolation, sandboxed

WORKER = Path(__file__).resolve().parent / "_analyzer_worker.py"
FILE_LIMIT_MB = 16
WORK_MB = 64  # the private working folder (a tmpfs) when isolated
MAX_CODE_CHARS = 100_000
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


class AnalysisStatus(StrEnum):
    """How an analysis ended."""

    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    VIOLATION = "violation"
    CRASHED = "crashed"


_ERRORS: dict[AnalysisStatus, type[SolverError]] = {
    AnalysisStatus.ERROR: SolverError,
    AnalysisStatus.TIMEOUT: SolverTimeout,
    AnalysisStatus.MEMORY: SolverResourceLimit,
    AnalysisStatus.VIOLATION: SandboxViolation,
    AnalysisStatus.CRASHED: SandboxCrash,
}


@dataclass(frozen=True)
class AnalysisResult:
    """What the code printed (each stream cut to ``max_output`` characters; ``truncated``
    says whether anything was cut), the status, a one-line ``message`` for a failure, the
    seconds the code ran (after start-up) and the operations the sandbox refused (the first
    20, also those the code caught)."""

    stdout: str
    stderr: str
    status: AnalysisStatus
    seconds: float
    message: str = ""
    truncated: bool = False
    refused: tuple[str, ...] = ()

    def raise_for_status(self) -> None:
        """Raise the toolkit error matching a failed status; nothing for ``ok``."""
        if self.status is not AnalysisStatus.OK:
            raise _ERRORS[self.status](self.message or str(self.status))

    def text(self) -> str:
        """The tool's output as an agent reads it: stdout, then stderr, then the status."""
        parts = [self.stdout.rstrip("\n")] if self.stdout else []
        if self.stderr:
            parts.append("[stderr]\n" + self.stderr.rstrip("\n"))
        if self.truncated:
            parts.append("[output truncated]")
        if self.refused and self.status is not AnalysisStatus.VIOLATION:
            for reason in dict.fromkeys(self.refused):
                n = self.refused.count(reason)
                parts.append(f"[refused{f' {n}x' if n > 1 else ''}: {reason}]")
        if self.status is not AnalysisStatus.OK:
            parts.append(f"[status: {self.status}] {self.message}".rstrip())
        return "\n".join(parts)


@lru_cache(maxsize=1)
def network_namespace() -> bool:
    """Whether ``unshare -n`` works here (root on Linux): then the code runs without a
    network at all."""
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        return subprocess.run([exe, "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _table(data, columns: Sequence[str] | None) -> tuple[list, list[str]]:
    try:
        import pandas as pd

        is_frame = isinstance(data, pd.DataFrame)
    except ImportError:  # pragma: no cover - pandas is a core dependency
        is_frame = False
    if is_frame:
        names = [str(c) for c in (columns if columns is not None else data.columns)]
        values = data.to_numpy(dtype=float)
    else:
        values = np.asarray(data, dtype=float)
        names = [str(c) for c in (columns or [])]
    if values.ndim != 2 or values.shape[1] != len(names) or len(set(names)) != len(names):
        raise ConfigError(
            f"data must be 2-D with one distinct column name per column; got "
            f"shape {values.shape} and columns {names}"
        )
    return values.tolist(), names


def _read(path: Path, limit: int) -> tuple[str, bool]:
    with open(path, "rb") as fh:
        raw = fh.read(limit * 4 + 4)
        more = bool(fh.read(1))
    text = raw.decode("utf-8", "replace")
    return text[:limit], more or len(text) > limit


def analyze(
    code: str,
    data,
    columns: Sequence[str] | None = None,
    *,
    seconds: float = 10.0,
    memory_mb: int = 512,
    max_output: int = 20_000,
    startup_seconds: float = 60.0,
    isolate: bool = True,
) -> AnalysisResult:
    """Run untrusted ``code`` on ``data`` (a 2-D array with ``columns``, or a DataFrame) in
    the sandbox described in the module docstring; never raises for what the code does.
    ``isolate`` (the default) runs it under :mod:`solvers.isolation` and raises
    :class:`~solvers.isolation.IsolationUnavailable` where that cannot be had; False runs it
    with only the process-level walls (audit hook, rlimits, ``unshare -n``): unsafe."""
    if isolate:
        isolation().require("the analyzer's code")
    if not isinstance(code, str):
        raise ConfigError(f"code must be text, got {type(code).__name__}")
    if not seconds > 0 or memory_mb < 256 or max_output < 1:
        raise ConfigError("seconds must be positive, memory_mb at least 256, max_output >= 1")
    if len(code) > MAX_CODE_CHARS:
        return AnalysisResult(
            "",
            "",
            AnalysisStatus.ERROR,
            0.0,
            f"the code is {len(code)} characters long (limit {MAX_CODE_CHARS})",
        )
    rows, names = _table(data, columns)
    private = Path(tempfile.mkdtemp(prefix="scir-analysis-out-"))
    # unisolated, the code works in a host folder; isolated, in the sandbox's private /tmp
    work = None if isolate else Path(tempfile.mkdtemp(prefix="scir-analysis-")).resolve()
    try:
        return _run(
            code, rows, names, work, private, seconds, memory_mb, max_output, startup_seconds
        )
    finally:
        if work is not None:
            _remove_tree(work)
        shutil.rmtree(private, ignore_errors=True)


def _remove_tree(path: Path) -> None:
    """Remove a folder the code may have filled with anything (a directory chain deeper than
    Python's recursion limit included): ``rm -rf`` first, ``shutil.rmtree`` as a fallback."""
    try:
        subprocess.run(
            ["rm", "-rf", "--one-file-system", "--", str(path)], timeout=120, capture_output=True
        )
    except (OSError, subprocess.SubprocessError):
        pass
    shutil.rmtree(path, ignore_errors=True)


def isolated(command: Sequence[str], env: dict[str, str] | None = None) -> list[str]:
    """``command`` wrapped in the analyzer's sandbox (:func:`solvers.isolation.sandboxed`
    with the worker file visible and a :data:`WORK_MB` working folder); what the tests attack
    with the audit hook out of the way."""
    return sandboxed(command, visible=[WORKER], env=env, tmp_mb=WORK_MB)


def _command(work: Path | None, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The worker's command line and the environment to start it with."""
    command = [sys.executable, "-I", str(WORKER)]
    if work is None:
        return isolated(command, env), {"PATH": "/usr/bin:/bin"}
    if network_namespace():
        command = [shutil.which("unshare") or "unshare", "-n", "--"] + command
    return command, env


def _run(
    code: str,
    rows: list,
    names: list[str],
    work: Path | None,
    private: Path,
    seconds: float,
    memory_mb: int,
    max_output: int,
    startup_seconds: float,
) -> AnalysisResult:
    status_r, status_w = os.pipe()
    cwd = "/tmp" if work is None else str(work)
    request = {
        "code": code,
        "columns": names,
        "data": rows,
        "max_output": max_output,
        "cwd": cwd,
        "status_fd": status_w,
        "memory_mb": memory_mb,
        "cpu_seconds": math.ceil(seconds + startup_seconds),
        "file_limit_mb": FILE_LIMIT_MB,
    }
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": cwd,
        "TMPDIR": cwd,
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        **{v: "1" for v in THREAD_VARIABLES},
    }
    command, env = _command(work, env)
    out_path, err_path = private / "stdout", private / "stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                cwd=private if work is None else work,
                env=env,
                pass_fds=(status_w,),
                start_new_session=True,
                close_fds=True,
            )
        finally:
            os.close(status_w)
    status_lines: list[bytes] = []
    try:
        try:
            assert proc.stdin is not None  # opened with stdin=PIPE
            proc.stdin.write(json.dumps(request).encode("utf-8"))
            proc.stdin.close()
        except BrokenPipeError:
            pass
        ready = _wait_ready(status_r, proc, time.monotonic() + startup_seconds, status_lines)
        began = time.monotonic()
        killed = False
        if ready:
            try:
                proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                killed = True
        elif proc.poll() is None:
            killed = True
        if killed:
            _kill_group(proc)
        elapsed = time.monotonic() - began
        status_lines.append(_drain(status_r))
    finally:
        if proc.poll() is None:
            _kill_group(proc)
        os.close(status_r)
    stdout, cut_out = _read(out_path, max_output)
    stderr, cut_err = _read(err_path, max_output)
    note = b"".join(status_lines).decode("utf-8", "replace")
    refused = tuple(
        line[len("violation: ") :] for line in note.splitlines() if line.startswith("violation: ")
    )
    status, message = _outcome(proc.returncode, ready, killed, refused, seconds, stderr)
    return AnalysisResult(
        stdout, stderr, status, elapsed if ready else 0.0, message, cut_out or cut_err, refused
    )


def _wait_ready(fd: int, proc: subprocess.Popen, deadline: float, lines: list[bytes]) -> bool:
    buf = b""
    while b"ready\n" not in buf:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        readable, _, _ = select.select([fd], [], [], min(remaining, 0.5))
        if readable:
            chunk = os.read(fd, 4096)
            if not chunk:
                lines.append(buf)
                return False
            buf += chunk
        elif proc.poll() is not None:
            lines.append(buf)
            return False
    lines.append(buf.replace(b"ready\n", b"", 1))
    return True


def _drain(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    try:
        while len(chunks) < 16:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    except BlockingIOError:
        pass
    return b"".join(chunks)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def _outcome(
    code: int, ready: bool, killed: bool, refused: tuple[str, ...], seconds: float, stderr: str
) -> tuple[AnalysisStatus, str]:
    if not ready:
        if killed:
            return AnalysisStatus.CRASHED, "the analysis worker did not start in time"
        return AnalysisStatus.CRASHED, (
            f"the analysis worker failed to start (exit code {code}): {stderr.strip()[-500:]}"
        )
    if killed:
        return AnalysisStatus.TIMEOUT, f"the code ran over its time limit of {seconds:g} s"
    if code == EXIT_VIOLATION and refused:
        last = stderr.strip().splitlines()[-1:] or [""]
        head = "SandboxRefusal: sandbox: "
        return AnalysisStatus.VIOLATION, (
            last[0][len(head) :] if last[0].startswith(head) else refused[-1]
        )
    if code == EXIT_MEMORY:
        return AnalysisStatus.MEMORY, "the code ran out of memory"
    if code == -signal.SIGXCPU:
        return AnalysisStatus.TIMEOUT, "the code ran over its CPU-time limit"
    if code == 0:
        return AnalysisStatus.OK, ""
    if code == 1:
        last = stderr.strip().splitlines()[-1:] or ["the code raised an exception"]
        return AnalysisStatus.ERROR, last[0][:300]
    if code < 0:
        return AnalysisStatus.CRASHED, f"the process died of signal {signal.Signals(-code).name}"
    return AnalysisStatus.ERROR, f"the process exited with code {code}"
