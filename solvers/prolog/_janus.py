"""The janus-swi transport: calls ``scir_bridge:invoke/3`` through ``janus_swi.query_once``.

janus converts Python ``str`` to Prolog atoms, ``int``/``float`` to numbers and ``list`` to
lists, and Prolog strings, numbers and lists back; the wire data uses only these, so both
transports hand ``prolog/bridge.pl`` the same terms. Needs SWI-Prolog >= 9.1.12 (janus-swi is
built against it). janus lets several Python threads call Prolog; we still serialise calls
with a lock, so both bridges behave the same.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from solvers.errors import ConfigError, SolverError

_LOCK = threading.RLock()
MIN_SWI = (9, 1, 12)


class JanusTransport:
    """Runs bridge operations in the SWI-Prolog that janus-swi embeds in this process."""

    name = "janus"

    def __init__(self, bridge_file: Path) -> None:
        try:
            import janus_swi
        except Exception as exc:  # ImportError, or a janus built against another libswipl
            raise ConfigError(f"janus-swi is not usable: {exc}") from exc
        self._janus = janus_swi
        with _LOCK:
            version = self._once("current_prolog_flag(version, V)", {})["V"]
            found = (version // 10000, version // 100 % 100, version % 100)
            if found < MIN_SWI:
                raise ConfigError(f"janus needs SWI-Prolog >= 9.1.12, found {found}")
            self._once("use_module(File)", {"File": str(bridge_file)})

    def _once(self, goal: str, inputs: dict[str, Any]) -> dict[str, Any]:
        try:
            answer = self._janus.query_once(goal, dict(inputs))
        except self._janus.PrologError as exc:
            raise SolverError(f"janus: {exc}") from exc
        if answer.get("truth") is not True:
            raise SolverError(f"janus: {goal} did not succeed")
        return answer

    def invoke(self, op: str, args: list) -> Any:
        """Call ``scir_bridge:invoke(op, args, Result)``; return ``Result`` as Python data."""
        with _LOCK:
            answer = self._once("scir_bridge:invoke(Op, Args, Result)", {"Op": op, "Args": args})
        return answer["Result"]
