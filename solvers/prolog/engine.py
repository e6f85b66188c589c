"""One ``Engine`` over SWI-Prolog, behind either bridge (janus-swi or pyswip), and the
fresh temporary modules (``PrologModule``) in which all work happens.

Bridge choice (``select_bridge``): an explicit ``Engine(bridge=...)``; else the environment
variable ``SCIR_PROLOG_BRIDGE``; else the bridge already loaded in this process; else janus
when ``janus_swi`` is installed and SWI-Prolog >= 9.1.12, else pyswip. The two bridges cannot
share a process (each embeds its own SWI-Prolog), so there is one transport per process and
every ``Engine`` of that process uses it.

Thread safety: calls into Prolog are serialised by a process-wide lock (pyswip is not
thread-safe; janus is serialised the same way so both behave alike). A ``PrologModule`` may be
used from any thread; its operations run one at a time.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from solvers import resources
from solvers.errors import (
    ConfigError,
    ResourceError,
    SandboxViolation,
    SolverError,
    SolverInputError,
    SolverResourceLimit,
    SolverTimeout,
)
from solvers.prolog.terms import Term, from_wire, to_wire
from solvers.records import Record

BRIDGES = ("janus", "pyswip")
ENV_VAR = "SCIR_PROLOG_BRIDGE"
JANUS_MIN_SWI = (9, 1, 12)
_IMPORT_NAMES = {"janus": "janus_swi", "pyswip": "pyswip"}
_ERRORS: dict[str, type[SolverError]] = {
    "input": SolverInputError,
    "timeout": SolverTimeout,
    "resource": SolverResourceLimit,
    "violation": SandboxViolation,
    "error": SolverError,
}
_TRANSPORTS: dict[str, Any] = {}
_TRANSPORT_LOCK = threading.Lock()


def select_bridge(
    requested: str | None,
    env: str | None,
    *,
    loaded: str | None,
    janus_installed: bool,
    swi_version: tuple[int, int, int] | None,
) -> str:
    """Decide the bridge from the request, the environment and what this machine has."""
    choice = requested if requested is not None else (env.strip() if env else None)
    if choice:
        choice = choice.lower()
        if choice not in BRIDGES:
            raise ConfigError(f"unknown Prolog bridge {choice!r}; expected one of {BRIDGES}")
        if loaded is not None and loaded != choice:
            raise ConfigError(
                f"cannot use the {choice} bridge: {loaded} is already loaded in "
                "this process (the two cannot share a process)"
            )
        return choice
    if loaded is not None:
        return loaded
    if janus_installed and swi_version is not None and swi_version >= JANUS_MIN_SWI:
        return "janus"
    return "pyswip"


def loaded_bridge() -> str | None:
    """The bridge whose Python package is already imported in this process, if any."""
    for bridge in BRIDGES:
        if bridge in _TRANSPORTS or _IMPORT_NAMES[bridge] in sys.modules:
            return bridge
    return None


@lru_cache(maxsize=1)
def swi_version_of_executable() -> tuple[int, int, int] | None:
    """The version printed by ``swipl --version`` (``None`` if swipl is not on PATH)."""
    try:
        out = subprocess.run(
            ["swipl", "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"SWI-Prolog version (\d+)\.(\d+)\.(\d+)\b", out)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _installed(bridge: str) -> bool:
    return importlib.util.find_spec(_IMPORT_NAMES[bridge]) is not None


def _make_transport(bridge: str) -> Any:
    with _TRANSPORT_LOCK:
        if bridge not in _TRANSPORTS:
            other = loaded_bridge()
            if other is not None and other != bridge:
                raise ConfigError(f"cannot load the {bridge} bridge: {other} is already loaded")
            bridge_file = resources.path("prolog", "bridge.pl")
            if bridge == "janus":
                from solvers.prolog._janus import JanusTransport

                _TRANSPORTS[bridge] = JanusTransport(bridge_file)
            else:
                from solvers.prolog._pyswip import PyswipTransport

                _TRANSPORTS[bridge] = PyswipTransport(bridge_file)
        return _TRANSPORTS[bridge]


def _probe(bridge: str) -> int:
    """Entry point of the availability probe subprocess: 0 if ``bridge`` works."""
    try:
        Engine(bridge).module().close()
    except Exception:  # the probe reports any failure as "not available"
        return 1
    return 0


@cache
def _probe_in_subprocess(bridge: str) -> bool:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p),
    )
    env.pop(ENV_VAR, None)
    code = "import sys; from solvers.prolog.engine import _probe; sys.exit(_probe(sys.argv[1]))"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, bridge],
            env=env,
            timeout=120,
            capture_output=True,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def available_bridges() -> list[str]:
    """The bridges (subset of ``["janus", "pyswip"]``) that import and work on this machine.

    A bridge not loaded in this process is probed in a subprocess (cached), since loading it
    here would exclude the other one.
    """
    out = []
    for bridge in BRIDGES:
        if bridge in _TRANSPORTS or (_installed(bridge) and _probe_in_subprocess(bridge)):
            out.append(bridge)
    return out


def _unpack(result: Any) -> Any:
    if not isinstance(result, list) or not result:
        raise SolverError(f"malformed reply from the Prolog bridge: {result!r}")
    if result[0] == "ok":
        return result[1]
    kind, message = str(result[1]), str(result[2])
    raise _ERRORS.get(kind, SolverError)(message)


class Engine:
    """SWI-Prolog through janus-swi or pyswip; work happens in ``Engine.module()``."""

    def __init__(self, bridge: str | None = None) -> None:
        loaded = loaded_bridge()
        env = os.environ.get(ENV_VAR)
        janus_installed = loaded is None and _installed("janus")
        version = swi_version_of_executable() if janus_installed else None
        chosen = select_bridge(
            bridge, env, loaded=loaded, janus_installed=janus_installed, swi_version=version
        )
        try:
            self._transport = _make_transport(chosen)
        except ConfigError:
            if bridge or env or chosen != "janus":
                raise
            self._transport = _make_transport("pyswip")  # janus chosen by default but broken
        self.bridge: str = self._transport.name
        number = int(self.invoke("version", []))
        self.swi_version: tuple[int, int, int] = (
            number // 10000,
            number // 100 % 100,
            number % 100,
        )

    def __repr__(self) -> str:
        return f"Engine(bridge={self.bridge!r}, swi_version={self.swi_version})"

    def invoke(self, op: str, args: list) -> Any:
        """Low level: run bridge operation ``op`` (see prolog/bridge.pl) on wire ``args``."""
        return _unpack(self._transport.invoke(op, args))

    def load_support(self, name: str) -> None:
        """Load the trusted resource ``prolog/<name>`` globally (it adds bridge operations)."""
        self.invoke("load_global", [str(resources.path("prolog", name))])

    def module(self, prefix: str = "scir_tmp_") -> PrologModule:
        """A fresh temporary module; use it as a context manager (removed on exit)."""
        name = str(self.invoke("new_module", [prefix]))
        return PrologModule(self, name)


def _options(time_limit: float | None, limit: int | None) -> list[list]:
    options: list[list] = []
    if time_limit is not None:
        if not time_limit > 0:
            raise ConfigError(f"time_limit must be positive, got {time_limit!r}")
        options.append(["time_limit", float(time_limit)])
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit < 2**62:
            raise ConfigError(f"limit must be a non-negative int, got {limit!r}")
        options.append(["max_solutions", limit])
    return options


def _row_args(row: Any) -> tuple:
    return tuple(row) if isinstance(row, (tuple, list)) else (row,)


class PrologModule:
    """A temporary Prolog module: clauses here are invisible to every other module."""

    def __init__(self, engine: Engine, name: str) -> None:
        self._engine = engine
        self._name = name
        self._closed = False

    @property
    def name(self) -> str:
        """The module's Prolog name."""
        return self._name

    def __enter__(self) -> PrologModule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove every predicate and loaded source of the module, then the module."""
        if not self._closed:
            self._closed = True
            self._engine.invoke("destroy_module", [self._name])

    def _invoke(self, op: str, args: list) -> Any:
        if self._closed:
            raise SolverError(f"Prolog module {self._name} is closed")
        return self._engine.invoke(op, [self._name, *args])

    def consult(self, name: str) -> None:
        """Load resource ``prolog/<name>`` (extension optional) into this module."""
        self._invoke("load", [str(resources.path("prolog", name))])

    def consult_path(self, path: str | os.PathLike) -> None:
        """Load a trusted Prolog file into this module."""
        p = Path(path).resolve()
        if not p.is_file():
            raise ResourceError(f"no Prolog file {p}")
        self._invoke("load", [str(p)])

    def add_facts(self, name: str, rows: Iterable[Any], arity: int | None = None) -> int:
        """Assert ``name(*row)`` for each row (a tuple/list of values, or one value).

        With ``arity`` the predicate is declared dynamic first, so it exists (and simply
        fails) even when ``rows`` is empty. Returns the number of facts added.
        """
        clauses = [to_wire(Term(name, _row_args(row))) for row in rows]
        if arity is not None:
            self._invoke("declare_dynamic", [name, int(arity)])
        return int(self._invoke("add_clauses", [clauses])) if clauses else 0

    def add_records(self, records: Iterable[Record], record: type[Record] | None = None) -> int:
        """Assert typed records (:mod:`solvers.records`) as facts, each checked against its
        predicate's declared types; with ``record`` its predicate is declared dynamic first
        (so it exists even when ``records`` is empty). Returns the number added."""
        rows = list(records)
        if record is not None:
            self._invoke("declare_dynamic", [record.predicate, record.arity()])
        clauses = [to_wire(Term(r.predicate, r.args())) for r in rows]
        return int(self._invoke("add_clauses", [clauses])) if clauses else 0

    def add_fact(self, fact: Term | str) -> None:
        """Assert one fact (or a rule ``Term(':-', (Head, Body))``) given as a term."""
        self._invoke("add_clauses", [[to_wire(fact)]])

    def run_wire(
        self, goal: str, bindings: list[list], options: list[list]
    ) -> tuple[list, int, float]:
        """Low level: run ``goal`` with wire bindings ``[[name, wire], ...]`` and bridge
        options; returns (wire solutions, inferences, seconds)."""
        solutions, inferences, seconds = self._invoke("run", [goal, bindings, options])
        return solutions, int(inferences), float(seconds)

    def query(
        self,
        goal: str,
        bindings: dict[str, Any] | None = None,
        time_limit: float | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """All answers (at most ``limit``) of the fixed goal text ``goal``, as dicts of the
        goal's variables (minus the bound ones and those starting with ``_``)."""
        wire_bindings = [[k, to_wire(v)] for k, v in sorted((bindings or {}).items())]
        solutions, _, _ = self.run_wire(goal, wire_bindings, _options(time_limit, limit))
        return [{str(k): from_wire(w) for k, w in solution} for solution in solutions]

    def query_once(
        self, goal: str, bindings: dict[str, Any] | None = None, time_limit: float | None = None
    ) -> dict[str, Any] | None:
        """The first answer of ``goal``, or ``None`` if it fails."""
        answers = self.query(goal, bindings, time_limit=time_limit, limit=1)
        return answers[0] if answers else None

    def call(self, name: str, *args: Any, time_limit: float | None = None) -> bool:
        """Whether ``name(*args)`` succeeds (at least once) in this module."""
        solutions, _, _ = self._invoke(
            "call", [name, [to_wire(a) for a in args], _options(time_limit, 1)]
        )
        return bool(solutions)
