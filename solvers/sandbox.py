"""Run untrusted Prolog (a model's formalization) in a reusable worker process.

    with Sandbox(time_limit=2.0, inference_limit=5_000_000, memory_mb=512) as sb:
        res = sb.run(program, {"covers": 2, "edge": 2}, "covers(X, Y)", {"X": "a"})
        res.answers      # [{'Y': 'b'}, ...]

Steps of ``run``: (1) ``check_program`` in this process -- the strict Python reader and the
whitelist (``prolog/sandbox_whitelist.pl``); nothing runs yet; (2) the checked clauses go to
the worker (``python -m solvers._sandbox_worker``) as terms, where ``prolog/sandbox.pl``
checks them again and asserts them into a fresh temporary module; (3) the trusted ``goal``
runs under a time limit, an inference limit, Prolog's stack limit and the worker's
address-space limit (RLIMIT_AS) and a budget of new-atom characters, and the answers are
capped in cells, depth and characters of text; (4) the module is destroyed. This process also enforces a hard deadline: a worker that overruns it
is killed. Errors: ``SandboxViolation`` (whitelist), ``SolverInputError`` (syntax, with line
and column), ``SolverTimeout``, ``SolverResourceLimit`` (inferences, stack, memory, answer
size), ``SolverError`` (a Prolog exception), ``SandboxCrash`` (the worker died; a new one is
started at once). The calling process never runs untrusted code and never dies with it.

Thread safety: one ``run`` at a time per ``Sandbox`` (a lock); use several sandboxes for
parallel work.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solvers._sandbox_worker import HEADER, MAX_REQUEST_BYTES, encode_frame
from solvers.errors import (
    ConfigError,
    SandboxCrash,
    SandboxViolation,
    SolverError,
    SolverInputError,
    SolverResourceLimit,
    SolverTimeout,
)
from solvers.isolation import isolation, sandboxed
from solvers.prolog._pyswip import swipl_location
from solvers.prolog.engine import ENV_VAR
from solvers.prolog.terms import from_wire, to_wire
from solvers.sandbox_policy import ClauseInfo, check_program

__all__ = ["ClauseInfo", "Sandbox", "SandboxResult", "check_program"]

_REPLY_ERRORS: dict[str, type[SolverError]] = {
    cls.__name__: cls
    for cls in (
        SolverError,
        SolverInputError,
        SolverTimeout,
        SolverResourceLimit,
        SandboxViolation,
        SandboxCrash,
    )
}


@dataclass(frozen=True)
class SandboxResult:
    """Answers (dicts of the goal's variables), run time of the goal, inferences used."""

    answers: list[dict[str, Any]]
    seconds: float
    inferences: int | None


class _Deadline(Exception):
    pass


class _Died(Exception):
    pass


def _kill(holder: list) -> None:
    proc = holder[0] if holder else None
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait(timeout=10)


class Sandbox:
    """A worker process for untrusted Prolog, reused across runs; close() or use ``with``."""

    def __init__(
        self,
        time_limit: float = 2.0,
        inference_limit: int | None = 5_000_000,
        memory_mb: int = 512,
        *,
        max_answer_cells: int = 200_000,
        max_answer_depth: int = 200,
        max_answer_chars: int = 4_000_000,
        bridge: str | None = None,
        isolate: bool = True,
        startup_timeout: float = 60.0,
        deadline_grace: float = 5.0,
    ) -> None:
        """Limits per run: ``time_limit`` seconds (Prolog's call_with_time_limit),
        ``inference_limit`` (None: none), answers of at most ``max_answer_cells`` cells,
        ``max_answer_depth`` levels and ``max_answer_chars`` characters of atoms and strings
        (each occurrence counted). Per worker: ``memory_mb`` of address space, half of it
        as Prolog's stack limit. The parent kills a worker that has not answered after
        ``1.5 * time_limit + deadline_grace`` seconds. ``bridge`` picks the worker's Prolog
        bridge (default: as ``Engine()``). ``isolate`` runs the worker in the kernel sandbox
        of :mod:`solvers.isolation` where it can be had (the whitelist, the limits and the
        separate process are the walls where it cannot). The worker starts at the first
        run."""
        if not time_limit > 0:
            raise ConfigError(f"time_limit must be positive, got {time_limit!r}")
        if inference_limit is not None and inference_limit <= 0:
            raise ConfigError(f"inference_limit must be positive or None, got {inference_limit}")
        if memory_mb < 128:
            raise ConfigError(f"memory_mb must be at least 128, got {memory_mb}")
        self.time_limit = float(time_limit)
        self.inference_limit = inference_limit
        self.memory_mb = int(memory_mb)
        self.max_answer_cells = int(max_answer_cells)
        self.max_answer_depth = int(max_answer_depth)
        self.max_answer_chars = int(max_answer_chars)
        self.bridge = bridge
        self.isolate = bool(isolate)
        self.startup_timeout = float(startup_timeout)
        self.deadline_grace = float(deadline_grace)
        self._lock = threading.Lock()
        self._holder: list = [None]
        self._ready = False
        self._closed = False
        fd, log_path = tempfile.mkstemp(prefix="scir-sandbox-", suffix=".log")
        os.close(fd)
        self._log = open(log_path, "a+b")  # O_APPEND: truncating it between runs is safe
        os.unlink(log_path)
        self._finalizer = weakref.finalize(self, _kill, self._holder)

    # -- process management -------------------------------------------------------------

    @property
    def worker_pid(self) -> int | None:
        """The pid of the current worker process (None before the first run)."""
        proc = self._holder[0]
        return proc.pid if proc is not None and proc.poll() is None else None

    def _command(self) -> tuple[list[str], dict[str, str]]:
        """The worker's command and environment: inside :func:`solvers.isolation.sandboxed`
        (only the runtime, ``/usr`` and this package with its logic files visible; no
        network, no other process) when isolation can be had, else a plain subprocess."""
        root = Path(__file__).resolve().parent.parent
        stack_mb = max(64, self.memory_mb // 2)
        command = [
            sys.executable,
            "-m",
            "solvers._sandbox_worker",
            "--memory-mb",
            str(self.memory_mb),
            "--stack-mb",
            str(stack_mb),
        ]
        if not (self.isolate and isolation().available):
            env = dict(
                os.environ,
                MALLOC_ARENA_MAX="2",
                PYTHONPATH=os.pathsep.join(
                    p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p
                ),
            )
            if self.bridge is not None:
                env[ENV_VAR] = self.bridge
            return command, env
        env = {"MALLOC_ARENA_MAX": "2", "PYTHONPATH": str(root), "LANG": "C.UTF-8"}
        bridge = self.bridge or os.environ.get(ENV_VAR)
        if bridge:
            env[ENV_VAR] = bridge
        located = swipl_location()  # found here: the sandbox cannot run swipl's probe
        if located is not None:
            env["LIBSWIPL_PATH"], env["SWI_HOME_DIR"] = located
        visible = [root / "solvers", *(root / k for k in ("prolog", "asp", "grammars"))]
        return sandboxed(command, visible=[v for v in visible if v.exists()], env=env, tmp_mb=16), {
            "PATH": "/usr/bin:/bin"
        }

    def _spawn(self) -> None:
        command, env = self._command()
        self._holder[0] = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
            bufsize=0,
            close_fds=True,
            start_new_session=True,
        )
        self._ready = False

    def _replace(self) -> str:
        """Kill the worker (if alive), start a new one; return how the old one ended."""
        proc = self._holder[0]
        how = "unknown"
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            code = proc.wait(timeout=10)
            how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
        self._spawn()
        return how

    def _stderr_tail(self) -> str:
        self._log.flush()
        self._log.seek(0)
        tail = self._log.read()[-1500:].decode("utf-8", "replace").strip()
        return f"; worker stderr: {tail}" if tail else ""

    def _read_frame(self, deadline: float, max_bytes: int) -> Any:
        header = self._read_exact(HEADER.size, deadline)
        (size,) = HEADER.unpack(header)
        if size > max_bytes:
            raise _Died(f"reply of {size} bytes exceeds the protocol limit")
        return json.loads(self._read_exact(size, deadline).decode("utf-8"))

    def _read_exact(self, n: int, deadline: float) -> bytes:
        fd = self._holder[0].stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline()
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise _Died("worker closed its output")
            buf += chunk
        return bytes(buf)

    def _ensure_ready(self) -> None:
        proc = self._holder[0]
        if proc is None or proc.poll() is not None:
            self._spawn()
        if self._ready:
            return
        try:
            hello = self._read_frame(time.monotonic() + self.startup_timeout, 1 << 20)
        except (_Deadline, _Died, ValueError) as exc:
            how = self._replace()
            raise SandboxCrash(
                f"sandbox worker failed to start ({how}){self._stderr_tail()}"
            ) from exc
        except BaseException:
            self._replace()
            raise
        if not hello.get("ready"):
            self._replace()
            raise ConfigError(f"sandbox worker cannot run Prolog: {hello.get('message')}")
        self._ready = True

    def close(self) -> None:
        """Stop the worker process."""
        with self._lock:
            self._closed = True
            proc = self._holder[0]
            if proc is not None and proc.poll() is None:
                proc.stdin.close()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
            self._holder[0] = None
            self._log.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running ------------------------------------------------------------------------

    def _options(self, max_solutions: int) -> list[list]:
        options = [
            ["time_limit", self.time_limit],
            ["max_solutions", max_solutions],
            ["max_cells", self.max_answer_cells],
            ["max_depth", self.max_answer_depth],
            ["max_text", self.max_answer_chars],
        ]
        if self.inference_limit is not None:
            options.append(["inference_limit", int(self.inference_limit)])
        return options

    def run(
        self,
        program: str,
        declared: Mapping[str, int],
        goal: str,
        bindings: dict[str, Any] | None = None,
        max_solutions: int = 1000,
    ) -> SandboxResult:
        """Check ``program`` (untrusted), load it with the ``declared`` predicates
        (name -> arity) into a fresh module of the worker and return the answers of the
        trusted goal text ``goal`` (data in ``bindings``), at most ``max_solutions``."""
        if (
            isinstance(max_solutions, bool)
            or not isinstance(max_solutions, int)
            or max_solutions < 0
        ):
            raise ConfigError(f"max_solutions must be a non-negative int, got {max_solutions!r}")
        infos = check_program(program, declared)
        request = {
            "op": "run",
            "declared": [[name, arity] for name, arity in sorted(declared.items())],
            "clauses": [to_wire(info.term, deep="flat") for info in infos],  # any depth
            "goal": goal,
            "bindings": [[k, to_wire(v)] for k, v in sorted((bindings or {}).items())],
            "options": self._options(max_solutions),
        }
        try:
            frame = encode_frame(request)
        except UnicodeEncodeError as exc:  # e.g. a lone surrogate in the goal text
            raise SolverInputError(f"text that UTF-8 cannot encode: {exc.reason}") from None
        if len(frame) > MAX_REQUEST_BYTES:
            raise SolverInputError(
                f"program too large for the sandbox: {len(frame)} bytes "
                f"encoded (limit {MAX_REQUEST_BYTES})"
            )
        with self._lock:
            if self._closed:
                raise SolverError("the sandbox is closed")
            self._ensure_ready()
            reply = self._exchange(frame)
        if not reply.get("ok"):
            cls = _REPLY_ERRORS.get(str(reply.get("error")), SolverError)
            raise cls(str(reply.get("message")), line=reply.get("line"), column=reply.get("column"))
        answers = [{str(k): from_wire(w) for k, w in solution} for solution in reply["answers"]]
        return SandboxResult(answers, float(reply["seconds"]), int(reply["inferences"]))

    def _exchange(self, frame: bytes) -> dict[str, Any]:
        self._log.truncate(0)
        deadline_s = self.time_limit * 1.5 + self.deadline_grace
        proc = self._holder[0]
        try:
            proc.stdin.write(frame)
            proc.stdin.flush()
            return self._read_frame(time.monotonic() + deadline_s, 64 << 20)
        except _Deadline:
            self._replace()
            raise SolverTimeout(
                f"the sandboxed program overran the hard deadline of "
                f"{deadline_s:.1f} s; the worker was killed and replaced"
            ) from None
        except (_Died, OSError, ValueError) as exc:
            tail = self._stderr_tail()
            how = self._replace()
            raise SandboxCrash(
                f"the sandbox worker died ({how}) while running the program; "
                f"it has been replaced{tail}"
            ) from exc
        except BaseException:
            self._replace()  # interrupted mid-request (e.g. Ctrl-C): never reuse that stream
            raise
