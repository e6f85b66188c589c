"""The data analyzer's worker: ``python -I _analyzer_worker.py`` (run by file, no ``solvers``
import: ``-I`` ignores PYTHONPATH). Started by :func:`solvers.equation.analyzer.analyze`.

Protocol: a JSON request on stdin ``{"code", "columns", "data", "max_output", "cwd",
"status_fd", "memory_mb", "cpu_seconds", "file_limit_mb"}``; the worker sets its resource
limits (CPU time, file size, no core, address space ``STARTUP_MB + memory_mb``), imports
numpy (and pandas when the code mentions ``df`` or ``pd``), lowers the address space to
what it then uses plus ``memory_mb``, builds ``data`` / ``df``, writes ``ready`` on
``status_fd``, installs the audit hook (which cannot be removed), then executes the
untrusted code with stdout / stderr capped at ``max_output`` characters each.

A refused operation does not happen: the hook raises :class:`SandboxRefusal` (a
PermissionError) in the code and writes ``violation: <reason>`` on ``status_fd`` (the first
:data:`MAX_REPORTED`). Exit codes: 0 done, 1 the code raised (traceback on stderr),
:data:`EXIT_VIOLATION` the code ended on an uncaught refusal, :data:`EXIT_MEMORY` a
MemoryError.

The hook's policy (everything it needs is bound as default arguments: C functions,
immutable values and a private copy of the path normaliser; the hook is reachable by no
name, ``gc`` walks and tracers are refused, and changing the ``__code__`` / ``__defaults__``
of the hook or the normaliser is refused, so the code cannot rewire it):

- writes (``open`` for writing, ``os.remove``, ``os.rename``, ``os.mkdir``, ``os.chmod``,
  ``os.truncate``, ...) only to paths under the working folder, written without ``..``
  (the folder holds no links, so the lexical check is the kernel's);
  symbolic and hard links, FIFOs, ``os.chdir`` refused; at most :data:`MAX_WRITE_OPENS`
  opens for writing;
- reads (``open``, ``os.listdir``, ``os.scandir``) only under the working folder, the
  Python installation and ``sys.path`` folders, ``/usr``, ``/lib``, ``/lib64``, the CPU
  and cgroup information libraries read, and a few device files (a lexical check: a
  symbolic link inside those folders could lead elsewhere);
- imports only of modules in the Python installation (not from the working folder, where
  the code could write a native extension);
- refused outright: processes (``os.fork``, ``os.system``, ``os.exec``, ``os.posix_spawn``,
  ``subprocess.Popen``, ``pty``), sub-interpreters (which would not have the hook), raising
  resource limits, signals to other
  processes (``os.kill``), sockets
  (every ``socket.*`` event), ``ctypes`` (every ``ctypes.*`` event), adding audit hooks,
  ``gc`` object walks, ``sys.settrace`` / ``sys.setprofile`` (a tracer would see the
  hook's frames), and importing ``_posixsubprocess`` (whose ``fork_exec`` is not
  audited; the copy pandas' imports loaded is removed from ``sys.modules`` and from the
  modules referring to it before the code runs);
- ``os.open`` (which may carry a ``dir_fd`` the event does not show) only inside the
  working folder; write events with a ``dir_fd`` refused; paths must be ``str`` or
  ``bytes`` (a path-like object could name another file at its next use).
"""

from __future__ import annotations

import json
import os
import sys
from types import FunctionType

EXIT_VIOLATION = 101
MAX_REPORTED = 20
EXIT_MEMORY = 102
MAX_WRITE_OPENS = 64
STARTUP_MB = 1024  # address space allowed for start-up, before memory_mb applies
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_REFUSED = (
    "os.fork",
    "os.forkpty",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "subprocess.Popen",
    "pty.spawn",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
    "os.symlink",
    "os.link",
    "os.mkfifo",
    "os.mknod",
    "os.chdir",
    "os.chroot",
    "os.setxattr",
    "os.removexattr",
    "sys.addaudithook",
    "gc.get_objects",
    "gc.get_referrers",
    "gc.get_referents",
    "sys.remote_exec",
    "sys.settrace",
    "sys.setprofile",
    "resource.setrlimit",
    "resource.prlimit",
    "cpython.PyInterpreterState_New",
)
_REFUSED_MODULES = (
    "_posixsubprocess",
    "_xxsubinterpreters",
    "_xxinterpchannels",
    "_interpreters",
    "_interpchannels",
    "_interpqueues",
)
# write events: the positions of their path arguments and of their dir_fd arguments
_PATH_WRITES = {
    "os.remove": ((0,), (1,)),
    "os.rmdir": ((0,), (1,)),
    "os.mkdir": ((0,), (2,)),
    "os.chmod": ((0,), (2,)),
    "os.chown": ((0,), (3,)),
    "os.utime": ((0,), (3,)),
    "os.truncate": ((0,), ()),
    "os.rename": ((0, 1), (2, 3)),
}


class SandboxRefusal(PermissionError):
    """What a refused operation raises in the code (a PermissionError, so libraries that
    try something optional and catch OSError go on)."""


class _Stream:
    """A text stream writing to a file descriptor, keeping at most ``limit`` characters and
    one more when there was more (so that the reader can tell the output was cut)."""

    def __init__(self, fd: int, limit: int) -> None:
        self.fd, self.left, self.cut = fd, limit + 1, False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.left > 0:
            part = text[: self.left]
            self.left -= len(part)
            data = part.encode("utf-8", "replace")
            while data:
                data = data[os.write(self.fd, data) :]
        if len(text) and self.left <= 0 and not self.cut:
            self.cut = True
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return "utf-8"


def _normal(path: str, cwd: str) -> tuple[str, bool]:
    """(absolute lexical normal form, whether the path had a ``..`` segment)."""
    if not path.startswith("/"):
        path = cwd + "/" + path
    parts: list[str] = []
    dotdot = False
    for seg in path.split("/"):
        if seg == "" or seg == ".":
            continue
        if seg == "..":
            dotdot = True
            if parts:
                parts.pop()
            continue
        parts.append(seg)
    return "/" + "/".join(parts), dotdot


def make_hook(
    cwd: str,
    read_roots: tuple[str, ...],
    status_fd: int,
    runtime_roots: tuple[str, ...] | None = None,
):
    """The audit hook for a run in ``cwd`` (see the module docstring); modules are imported
    only from ``runtime_roots`` (default: ``read_roots`` without ``cwd``), which may lie
    under ``cwd`` when the runtime is bound read-only there (a checkout under /tmp)."""
    if runtime_roots is None:
        runtime_roots = tuple(r for r in read_roots if r != cwd)
    normal = FunctionType(_normal.__code__, {}, "normal")  # a private copy, no globals
    guarded: list = [normal]
    told, opens = [0], [0]  # the hook's counters, mutable cells

    def hook(
        event,
        args,
        _cwd=cwd,
        _reads=read_roots,
        _runtime=runtime_roots,
        _fd=status_fd,
        _refused=_REFUSED,
        _path_writes=_PATH_WRITES,
        _wflags=_WRITE_FLAGS,
        _normal=normal,
        _write=os.write,
        _error=SandboxRefusal,
        _str=str,
        _bytes=bytes,
        _int=int,
        _len=len,
        _told=told,
        _max_told=MAX_REPORTED,
        _isinstance=isinstance,
        _repr=repr,
        any=any,
        _guarded=guarded,
        _opens=opens,
        _max_opens=MAX_WRITE_OPENS,
        _modules=_REFUSED_MODULES,
    ):

        def refuse(reason):
            if _told[0] < _max_told:  # the parent lists the first refusals
                _told[0] += 1
                _write(_fd, ("violation: " + reason + "\n").encode("utf-8", "replace"))
            raise _error("sandbox: " + reason)

        def inside(path, roots, strict):
            # str or bytes only: a path-like object could answer differently on its next use
            if _isinstance(path, _bytes):
                path = path.decode("utf-8", "surrogateescape")
            elif not _isinstance(path, _str):
                return False
            norm, dotdot = _normal(path, _cwd)
            if strict and dotdot:
                return False
            for root in roots:
                if norm == root or norm.startswith(root + "/"):
                    return True
            return False

        if event == "open":
            path, mode, flags = args
            if _isinstance(path, _int):
                return  # an open descriptor: opened under this hook
            shown = _repr(path) if _isinstance(path, (_str, _bytes)) else "a path-like object"
            writing = _isinstance(flags, _int) and flags & _wflags
            if mode is not None:
                m = _str(mode)
                writing = writing or "w" in m or "a" in m or "x" in m or "+" in m
            if writing or mode is None:  # os.open (may carry a dir_fd): the folder only
                if not inside(path, (_cwd,), True):
                    refuse(
                        f"opening {shown} is not allowed (writes and os.open only inside "
                        "the working folder, with a str path without '..')"
                    )
                if writing:
                    _opens[0] += 1
                    if _opens[0] > _max_opens:
                        refuse(f"more than {_max_opens} files opened for writing")
            elif not inside(path, _reads, False):
                refuse(
                    f"reading {shown} is not allowed (only the working folder and the "
                    "Python installation)"
                )
            return
        if event.startswith("socket.") or event.startswith("ctypes."):
            refuse(f"{event} is not allowed (no network, no ctypes)")
        if event in _refused or event.startswith("os.exec") or event.startswith("os.spawn"):
            refuse(f"{event} is not allowed (no processes, links, signals or hooks)")
        spec = _path_writes.get(event)
        if spec is not None:
            paths, dir_fds = spec
            for i in paths:
                if not inside(args[i], (_cwd,), True):
                    refuse(
                        f"{event} on {_repr(args[i])} is not allowed (only inside the "
                        "working folder, with a str path without '..')"
                    )
            for i in dir_fds:
                if i < _len(args) and args[i] is not None and args[i] != -1:  # -1: none
                    refuse(f"{event} with dir_fd is not allowed")
            return
        if event == "os.listdir" or event == "os.scandir":
            path = args[0] if args else "."
            if path is not None and not _isinstance(path, _int) and not inside(path, _reads, False):
                refuse(f"{event} of {_repr(path)} is not allowed")
            return
        if event == "import" and args:
            if args[0] in _modules:
                refuse(f"importing {args[0]} is not allowed (no processes, no interpreters)")
            where = args[1] if _len(args) > 1 else None
            if where is not None and not inside(where, _runtime, False):
                refuse(
                    f"importing {args[0]} from {_repr(where)} is not allowed (only the "
                    "Python installation's modules)"
                )
        if event == "object.__setattr__" and args and any(args[0] is g for g in _guarded):
            refuse("changing the sandbox's own functions is not allowed")

    guarded.append(hook)
    return hook


def _read_roots(cwd: str) -> tuple[str, ...]:
    roots = {
        cwd,
        "/usr",
        "/lib",
        "/lib64",
        "/dev/null",
        "/dev/urandom",
        "/dev/zero",
        "/etc/localtime",
        "/etc/timezone",
        "/sys/fs/cgroup",
        "/sys/devices/system/cpu",
        "/proc/cpuinfo",
        "/proc/meminfo",
        os.path.realpath(__file__),
    }  # tracebacks
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path):
        if p and os.path.isabs(p):
            roots.add(os.path.normpath(p))
            roots.add(os.path.realpath(p))
    return tuple(sorted(r.rstrip("/") or "/" for r in roots if r != "/"))


def _forget_posixsubprocess() -> None:
    """Drop the loaded ``_posixsubprocess`` (its ``fork_exec`` is not audited) from
    ``sys.modules`` and from every module attribute naming it or its ``fork_exec``."""
    mod = sys.modules.pop("_posixsubprocess", None)
    if mod is None:
        return
    for m in list(sys.modules.values()):
        for name, value in list(getattr(m, "__dict__", {}).items()):
            if value is mod or value is getattr(mod, "fork_exec", None):
                setattr(m, name, None)


def _address_space() -> int | None:
    """The process's current address space in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _limit_memory(mb: int, base: int) -> None:
    import resource

    value = base + mb * (1 << 20)
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(resource.RLIMIT_AS, (value, value))  # hard too: it only goes down


def _set_limits(request: dict) -> None:
    import resource
    import signal

    mb = 1 << 20
    _limit_memory(int(request["memory_mb"]) + STARTUP_MB, 0)
    for which, value in (
        (resource.RLIMIT_CPU, int(request["cpu_seconds"])),
        (resource.RLIMIT_FSIZE, int(request["file_limit_mb"]) * mb),
        (resource.RLIMIT_CORE, 0),
    ):
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        top = value + 2 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(
            which, (value, top if hard == resource.RLIM_INFINITY else min(top, hard))
        )
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write raises OSError


def _no_new_processes() -> None:
    """RLIMIT_NPROC 0: the kernel refuses fork and threads (not for root, which Linux
    exempts: the audit hook is the guard there)."""
    import resource

    if os.geteuid() != 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _traceback(exc: BaseException) -> str:
    """The traceback without this file's frames (the worker's and the hook's)."""
    import traceback

    here = os.path.realpath(__file__)
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__, limit=-12)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if os.path.realpath(f.filename) != here]
    )
    return "".join(te.format())


def main() -> int:
    """Run one request (see the module docstring)."""
    request = json.loads(sys.stdin.read())
    status_fd = int(request["status_fd"])
    _set_limits(request)
    if sys.path and os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__)):
        del sys.path[0]  # the solvers package is not the code's
    import re
    import subprocess  # noqa: F401  (loaded now so that a later import needs no _posixsubprocess)

    import numpy as np

    cwd = os.path.realpath(request["cwd"])
    os.chdir(cwd)
    columns = [str(c) for c in request["columns"]]
    data = np.array(request["data"], dtype=float).reshape(-1, len(columns))
    namespace = {
        "__name__": "__main__",
        "__builtins__": __builtins__,
        "np": np,
        "data": data,
        "columns": list(columns),
    }
    if re.search(r"\b(df|pd)\b", request["code"]):  # pandas costs a second to load
        import pandas as pd

        namespace.update(pd=pd, df=pd.DataFrame(data.copy(), columns=columns))
    limit = int(request["max_output"])
    out, err = _Stream(1, limit), _Stream(2, limit)
    sys.stdout, sys.stderr = out, err
    try:
        code = compile(request["code"], "<analysis>", "exec")
    except (SyntaxError, ValueError) as exc:
        err.write(f"{type(exc).__name__}: {exc}\n")
        os.write(status_fd, b"ready\n")
        return 1
    import linecache
    import traceback  # noqa: F401  (loaded before the hook)

    linecache.cache["<analysis>"] = (
        len(request["code"]),
        None,
        request["code"].splitlines(True),
        "<analysis>",
    )
    _forget_posixsubprocess()
    _limit_memory(int(request["memory_mb"]), _address_space() or STARTUP_MB * (1 << 20))
    _no_new_processes()
    os.write(status_fd, b"ready\n")
    sys.addaudithook(make_hook(cwd, _read_roots(cwd), status_fd))
    del request
    try:
        exec(code, namespace)
    except MemoryError:
        namespace.clear()
        err.write("MemoryError: the analysis ran out of memory\n")
        return EXIT_MEMORY
    except SandboxRefusal as exc:
        err.write(_traceback(exc))
        return EXIT_VIOLATION
    except SystemExit as exc:
        return 0 if exc.code in (None, 0) else 1
    except BaseException as exc:  # the code's own error, reported as text
        err.write(_traceback(exc))
        return 1
    return 0


if __name__ == "__main__":
    code = main()
    os._exit(code)
