"""The reference ``gies`` package (PyPI ``gies`` 0.0.3) for the benchmark scripts, and the
timer of their package / ours ratios.

This folder holds ``gies.py`` (the GIES benchmark), and a script's own folder comes first on
``sys.path``, so a plain ``import gies`` in a script here finds that file, not the package.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Callable, TypeVar

T = TypeVar("T")


def reference_gies() -> ModuleType | None:
    """The installed ``gies`` package, or None when it is not installed. Takes this folder off
    ``sys.path`` (and a ``gies`` module loaded from it out of ``sys.modules``) first."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    loaded = sys.modules.get("gies")
    if loaded is not None and not hasattr(loaded, "fit_bic"):
        del sys.modules["gies"]
    try:
        module = importlib.import_module("gies")
    except ImportError:
        return None
    return module if hasattr(module, "fit_bic") else None


def best_time(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """(the fastest of ``repeat`` runs of ``fn`` in seconds, the last run's result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out
