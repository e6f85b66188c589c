"""Kernel isolation for untrusted code, built on bubblewrap (``bwrap``, Debian's
``bubblewrap`` package, as Flatpak uses it).

    >>> argv = sandboxed([sys.executable, "-I", "worker.py"], visible=[worker_file])  # doctest: +SKIP
    >>> subprocess.Popen(argv, ...)                                                # doctest: +SKIP

:func:`sandboxed` wraps a command so that it runs

- as uid and gid 65534 (``nobody``) with no capabilities and ``no_new_privs``;
- in new user, pid, mount, ipc, uts, cgroup and network namespaces (no network at all, no
  view of other processes, no further user namespaces);
- on a root file system that holds only, read-only: ``/usr`` (and the ``/bin``, ``/lib``,
  ``/lib64``, ``/sbin`` links or folders of the host), the Python runtime running this code
  (``sys.base_prefix`` and, for a virtual environment, ``sys.prefix``) and the paths given
  as ``visible``; a fresh ``/proc`` of the new pid namespace, a minimal ``/dev``, and a
  private ``/tmp`` (a tmpfs capped at ``tmp_mb``, the working folder, gone with the
  sandbox);
- with only the environment given (``--clearenv``), in a new session, killed with its parent
  (``--die-with-parent``; the pid namespace ends every process in it).

Run as root, bubblewrap works in its privileged mode: it builds the mount and pid namespaces
as root (so the runtime is reachable wherever it is installed), ``setpriv`` then drops to
uid 65534 with every capability cleared, and an inner unprivileged ``bwrap`` adds the user
namespace, inside which the uid is 65534 on both sides of the map. Run as another user, one
unprivileged ``bwrap`` does it all (that user's uid outside, 65534 inside).

:func:`isolation` probes once per process whether this works here (a sandboxed ``true``) and
says which piece is missing when it does not; callers refuse to run untrusted code without
it unless told, in words that say it is unsafe, to run it anyway.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from solvers.errors import ConfigError

BWRAP_ENV = "SCIR_BWRAP"  # the bwrap executable (default: found on PATH)
SANDBOX_UID = 65534
ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
INSTALL_HINT = "install Debian's bubblewrap package (apt-get install bubblewrap)"


class IsolationUnavailable(ConfigError):
    """Untrusted code was to run isolated, and isolation cannot be had here."""


@dataclass(frozen=True)
class Isolation:
    """Whether untrusted code can run isolated here: ``tool`` (e.g. ``bubblewrap 0.8.0``),
    ``how`` (what the sandbox gives) or, when ``available`` is False, ``missing`` (the piece
    that is missing, in one line)."""

    available: bool
    tool: str = ""
    how: str = ""
    missing: str = ""

    def describe(self) -> str:
        """One line for ``scir doctor`` and error messages."""
        if self.available:
            return f"{self.tool}: {self.how}"
        return f"no isolation: {self.missing}"

    def require(self, what: str = "untrusted code") -> None:
        """Raise :class:`IsolationUnavailable` naming the missing piece, unless available."""
        if not self.available:
            raise IsolationUnavailable(f"cannot run {what} isolated: {self.missing}")


def bwrap_path() -> str | None:
    """The bwrap executable (``$SCIR_BWRAP``, else on PATH), or None."""
    given = os.environ.get(BWRAP_ENV)
    if given is not None:
        return given if os.path.isfile(given) and os.access(given, os.X_OK) else None
    return shutil.which("bwrap")


def _runtime() -> list[str]:
    """The folders of the running Python (base installation and virtual environment)."""
    paths = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    exe = os.path.realpath(sys.executable)
    if not any(exe.startswith(p + "/") for p in paths):
        paths.add(os.path.dirname(exe))
    # a venv's own path as written (its bin/python may be reached through it)
    paths |= {os.path.abspath(p) for p in (sys.prefix, sys.exec_prefix)}
    return sorted(p for p in paths if p not in ("/", "/usr") and not p.startswith("/usr/"))


def _parents(paths: Iterable[str]) -> list[str]:
    """Every ancestor folder of ``paths`` (outermost first), to be made traversable."""
    out: list[str] = []
    for p in paths:
        for parent in reversed(Path(p).parents):
            s = str(parent)
            if s != "/" and s not in out:
                out.append(s)
    return sorted(out, key=lambda s: s.count("/"))


def _mounts(visible: Sequence[str], tmp_mb: int) -> list[str]:
    """The file-system arguments shared by both modes."""
    # the private /tmp first: a runtime or visible path under /tmp (a checkout in /tmp/x)
    # is then bound on top of it instead of being hidden by it
    args = [
        "--perms",
        "01777",
        "--size",
        str(int(tmp_mb) << 20),
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in ROOT_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    binds = [
        p
        for p in dict.fromkeys([*_runtime(), *(os.path.abspath(v) for v in visible)])
        if os.path.exists(p)
    ]
    for parent in _parents(binds):
        if not any(parent == b or parent.startswith(b + "/") for b in binds):
            args += ["--perms", "0755", "--dir", parent]
    for path in binds:
        args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp"]
    return args


def _environment(env: Mapping[str, str]) -> list[str]:
    args = ["--clearenv"]
    for name, value in env.items():
        args += ["--setenv", name, value]
    return args


def sandboxed(
    command: Sequence[str],
    *,
    visible: Sequence[str | os.PathLike] = (),
    env: Mapping[str, str] | None = None,
    tmp_mb: int = 64,
) -> list[str]:
    """``command`` wrapped to run isolated (see the module docstring): the runtime, ``/usr``
    and ``visible`` read-only, a private ``/tmp`` of ``tmp_mb`` MB as working folder, only
    ``env`` as environment. Raises :class:`IsolationUnavailable` when bwrap is missing."""
    exe = bwrap_path()
    if exe is None:
        raise IsolationUnavailable(f"bubblewrap (bwrap) was not found: {INSTALL_HINT}")
    env = dict(env or {})
    env.setdefault("PATH", "/usr/bin:/bin")
    env.setdefault("HOME", "/tmp")
    env.setdefault("TMPDIR", "/tmp")
    mounts = _mounts([os.fspath(v) for v in visible], tmp_mb)
    namespaces = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
    ]
    if os.geteuid() != 0:
        return [
            exe,
            "--unshare-user",
            "--disable-userns",
            "--uid",
            str(SANDBOX_UID),
            "--gid",
            str(SANDBOX_UID),
            *namespaces,
            *mounts,
            *_environment(env),
            "--cap-drop",
            "ALL",
            "--",
            *command,
        ]
    uid = str(SANDBOX_UID)
    drop = [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]
    inner = [
        "bwrap",
        "--unshare-user",
        "--disable-userns",
        "--uid",
        uid,
        "--gid",
        uid,
        "--dev-bind",
        "/",
        "/",
        "--die-with-parent",
        "--new-session",
        "--chdir",
        "/tmp",
        "--cap-drop",
        "ALL",
        "--",
    ]
    return [
        exe,
        *namespaces,
        *mounts,
        *_environment(env),
        "--cap-drop",
        "ALL",
        "--cap-add",
        "CAP_SETUID",
        "--cap-add",
        "CAP_SETGID",
        "--cap-add",
        "CAP_SETPCAP",
        "--",
        *drop,
        *inner,
        *command,
    ]


def _bwrap_version(exe: str) -> str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "bubblewrap"
    return out.stdout.strip() or "bubblewrap"


PROBE = (
    "import os; assert os.getuid() == os.geteuid() == 65534; "
    "assert not os.path.exists('/etc/passwd'); print('isolated')"
)


@cache
def _probe(exe: str | None, euid: int) -> Isolation:
    if exe is None:
        return Isolation(False, missing=f"bubblewrap (bwrap) was not found: {INSTALL_HINT}")
    if sys.platform != "linux":
        return Isolation(False, missing=f"bubblewrap needs Linux (this is {sys.platform})")
    try:
        argv = sandboxed([sys.executable, "-I", "-c", PROBE], tmp_mb=1)
        out = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Isolation(False, missing=f"bubblewrap did not run: {exc}")
    if out.returncode != 0 or out.stdout.strip() != "isolated":
        why = (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1][:300]
        if "setpriv" in why:
            why += " (setpriv comes with util-linux)"
        elif "namespace" in why.lower() or "permission" in why.lower():
            why += (
                " (user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone"
                " / user.max_user_namespaces)"
            )
        return Isolation(False, missing=f"a sandboxed test command failed: {why}")
    mode = "privileged set-up, then setpriv" if euid == 0 else "unprivileged"
    return Isolation(
        True,
        _bwrap_version(exe),
        f"uid {SANDBOX_UID}, no capabilities; new user, pid, mount, ipc, uts and "
        f"network namespaces; read-only runtime, private /tmp ({mode})",
    )


def isolation() -> Isolation:
    """Whether :func:`sandboxed` works here (probed once per bwrap path and user)."""
    return _probe(bwrap_path(), os.geteuid())
