"""PySR (Julia's SymbolicRegression.jl behind a Python face) as an optional baseline.

UNTESTED HERE: this machine has no Julia, and PySR installs Julia and its Julia packages
through juliapkg the first time it is imported -- a download, which the project never does at
run time. So :func:`availability` looks for the ``pysr`` package and a ``julia`` on PATH
without importing anything, and :class:`PySRRegressor` raises :class:`RegressorUnavailable`
("PySR needs Julia, which is not installed here") before any import when either is missing.
When both are there it imports PySR with juliapkg set offline (``PYTHON_JULIAPKG_OFFLINE``)
and pointed at that Julia (``PYTHON_JULIAPKG_EXE``), so a missing Julia package fails instead
of being fetched."""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.errors import SolverError
from solvers.symreg.base import (
    RegressorUnavailable,
    SRResult,
    check_data,
    placeholders,
    to_expression,
)

UNAVAILABLE = "PySR needs Julia, which is not installed here"


def availability() -> str | None:
    """``None`` when PySR can run here, else why not (never imports PySR or Julia)."""
    if shutil.which("julia") is None:
        return f"{UNAVAILABLE} (no `julia` on PATH)"
    if importlib.util.find_spec("pysr") is None:
        return "PySR is not installed (pip install pysr; it also needs Julia on PATH)"
    return None


@dataclass
class PySRRegressor:
    """PySR with serial, deterministic search: 40 iterations at most, operators
    + - * / and exp log sqrt sin cos, model chosen by PySR's ``best`` rule."""

    niterations: int = 40
    name: str = "pysr"

    def fit(
        self, X: np.ndarray, y: np.ndarray, inputs: Sequence[str], *, seconds: float, seed: int
    ) -> SRResult:
        """Fit within ``seconds`` (PySR's own ``timeout_in_seconds``); raises
        :class:`RegressorUnavailable` when PySR or Julia is missing (checked first)."""
        reason = availability()
        if reason is not None:
            raise RegressorUnavailable(reason)
        Xa, ya = check_data(X, y, inputs, seconds)
        os.environ["PYTHON_JULIAPKG_OFFLINE"] = "yes"
        os.environ["PYTHON_JULIAPKG_EXE"] = shutil.which("julia") or "julia"
        try:
            from pysr import PySRRegressor as Model
        except Exception as exc:  # juliacall's failures are plain Exceptions
            raise RegressorUnavailable(f"PySR cannot start offline here: {exc}") from exc
        model = Model(
            niterations=self.niterations,
            timeout_in_seconds=seconds,
            binary_operators=["+", "-", "*", "/"],
            unary_operators=["exp", "log", "sqrt", "sin", "cos"],
            parallelism="serial",
            deterministic=True,
            random_state=seed,
            progress=False,
            verbosity=0,
            temp_equation_file=True,
        )
        start = time.monotonic()
        try:
            model.fit(Xa, ya, variable_names=placeholders(len(inputs)))
            expr = model.sympy()
        except Exception as exc:
            raise SolverError(f"PySR failed: {exc}") from exc
        elapsed = time.monotonic() - start
        expression, complexity = to_expression(expr, inputs)
        status = "timeout" if elapsed >= seconds else "ok"
        return SRResult(
            expression=expression,
            seconds=elapsed,
            status=status,
            complexity=complexity,
            log=f"pysr: model {expr}",
        )
