"""The equation evaluator (SR-Scientist's tool T2): fit an equation's constants to data.

    >>> res = fit("p0*x*exp(-p1*t)", X, y, ["x", "t"])              # doctest: +SKIP
    >>> res.params, res.mape, res.expression
    ((1.5, 0.25), 1.2e-09, '1.5*x*exp(-0.25*t)')
    >>> print(report(res))                                           # doctest: +SKIP

The parameters ``p0..`` minimise the mean squared error with BFGS
(``scipy.optimize.minimize(method="BFGS")``, 3-point finite-difference gradients) from
``starts`` starting points: the first is all ones (LLM-SR's initial value), the others are
drawn uniformly from [-5, 5] by ``numpy.random.default_rng(seed)`` -- the same seed, the same
fit. A start whose initial predictions are not finite is skipped; non-finite predictions
during a descent count as an infinite loss. The result is the lowest loss seen (first start
wins ties). With ``seconds``, no start begins after the budget and a running one stops: the
status is then ``time_limit`` and the result is the best seen so far. If no start ever gave
finite predictions the status is ``non_finite`` (parameters nan, errors inf); no exception.

Scores (:mod:`solvers.equation.metrics`): MSE, NMSE, and MAPE in percent over the points whose
``|y|`` exceeds ``1e-8 * max|y|`` (the rest are skipped and counted).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from enum import Enum
from typing import Sequence

import numpy as np

from solvers.errors import ConfigError, TaskFormatError
from solvers.equation.expression import Equation, parse_equation
from solvers.equation.metrics import mape, nmse

START_LOW, START_HIGH = -5.0, 5.0


class FitStatus(str, Enum):
    """How a fit ended."""

    OK = "ok"
    TIME_LIMIT = "time_limit"       # the budget ran out; the best fit seen so far
    NON_FINITE = "non_finite"       # no start gave finite predictions

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class FitResult:
    """A fitted equation: the canonical ``equation``, the fitted ``params``, its scores on
    the data, the ``expression`` with the constants substituted, the starts tried (and the
    index of the best one, 0 = all ones; None without parameters), the status and the
    seconds spent."""

    equation: str
    params: tuple[float, ...]
    mse: float
    nmse: float
    mape: float
    mape_skipped: int
    expression: str
    starts_tried: int
    best_start: int | None
    status: FitStatus
    seconds: float


class _Budget(Exception):
    pass


def _data(eq: Equation, X, y) -> tuple[np.ndarray, np.ndarray]:
    A = np.asarray(X, dtype=float)
    if A.ndim == 1 and len(eq.inputs) == 1:
        A = A.reshape(-1, 1)
    t = np.asarray(y, dtype=float).reshape(-1)
    if A.ndim != 2 or A.shape[1] != len(eq.inputs) or A.shape[0] != t.size or t.size == 0:
        raise ConfigError(f"X must have shape (n, {len(eq.inputs)}) and y length n > 0; got "
                          f"{A.shape} and {t.size}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(t))):
        raise TaskFormatError("the data has non-finite values")
    return A, t


def starting_points(n: int, starts: int, seed: int) -> list[np.ndarray]:
    """The ``starts`` starting points of an ``n``-parameter fit (see the module docstring)."""
    rng = np.random.default_rng(seed)
    return [np.ones(n)] + [rng.uniform(START_LOW, START_HIGH, size=n) for _ in range(starts - 1)]


def fit(equation: str | Equation, X, y, inputs: Sequence[str] | None = None, *,
        starts: int = 10, seed: int = 0, max_params: int = 10,
        seconds: float | None = 30.0) -> FitResult:
    """Fit the parameters of ``equation`` (text over ``inputs``, or a parsed ``Equation``) to
    ``X`` (rows, one column per input) and ``y``. ``FormalizationError`` for equation text
    outside the language; ``ConfigError`` / ``TaskFormatError`` for bad arguments or data."""
    from scipy.optimize import minimize

    if isinstance(equation, Equation):
        eq = equation
        if inputs is not None and tuple(inputs) != eq.inputs:
            raise ConfigError(f"inputs {list(inputs)} differ from the equation's "
                              f"{list(eq.inputs)}")
    else:
        if inputs is None:
            raise ConfigError("equation text needs its inputs")
        eq = parse_equation(equation, inputs, max_params=max_params)
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ConfigError(f"starts must be a positive int, got {starts!r}")
    A, t = _data(eq, X, y)
    began = time.monotonic()
    deadline = None if seconds is None else began + float(seconds)
    best: dict = {"loss": np.inf, "x": None, "start": None}

    def loss(p: np.ndarray) -> float:
        if deadline is not None and time.monotonic() > deadline:
            raise _Budget()
        value = float(np.mean((eq.evaluate(A, p) - t) ** 2))
        if not np.isfinite(value):
            return np.inf
        if value < best["loss"]:
            best.update(loss=value, x=np.array(p, dtype=float), start=current)
        return value

    n = eq.n_params
    status, tried, current = FitStatus.OK, 0, 0
    if n == 0:
        return _result(eq, A, t, np.zeros(0), None, 0, status, began)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for current, x0 in enumerate(starting_points(n, starts, seed)):
            try:
                tried += 1
                if not np.isfinite(loss(x0)):
                    continue                       # skipped: not finite at the start
                minimize(loss, x0, method="BFGS", jac="3-point",
                         options={"gtol": 1e-12, "maxiter": 200 * n + 200})
            except _Budget:
                status = FitStatus.TIME_LIMIT
                break
    if best["x"] is None:
        return _result(eq, A, t, np.full(n, np.nan), None, tried,
                       FitStatus.NON_FINITE if status is FitStatus.OK else status, began)
    return _result(eq, A, t, best["x"], best["start"], tried, status, began)


def _result(eq: Equation, A: np.ndarray, t: np.ndarray, p: np.ndarray, best_start: int | None,
            tried: int, status: FitStatus, began: float) -> FitResult:
    finite = bool(np.all(np.isfinite(p)))
    pred = eq.evaluate(A, p) if finite else np.full(t.size, np.nan)
    with np.errstate(all="ignore"):
        mse = float(np.mean((pred - t) ** 2)) if np.all(np.isfinite(pred)) else float("inf")
    m, skipped = mape(t, pred)
    return FitResult(eq.text, tuple(float(v) for v in p), mse, nmse(t, pred), m, skipped,
                     eq.substitute(p) if finite else eq.text, tried, best_start, status,
                     time.monotonic() - began)


def report(result: FitResult) -> str:
    """The evaluator's output as an agent reads it (plain text, a few lines)."""
    lines = [f"equation: {result.equation}"]
    if result.status is FitStatus.NON_FINITE:
        lines.append(f"status: non_finite -- no start among {result.starts_tried} gave finite "
                     "predictions on the data (check divisions, logs, square roots, "
                     "overflowing exponentials)")
        return "\n".join(lines)
    if not all(np.isfinite(result.params)):
        lines.append("status: time_limit -- the time budget ran out before a finite fit")
        return "\n".join(lines)
    if result.params:
        lines.append(f"fitted: {result.expression}")
        lines.append("params: " + ", ".join(f"p{i} = {v:.10g}"
                                            for i, v in enumerate(result.params)))
    skipped = (f" ({result.mape_skipped} points with y ~ 0 skipped)"
               if result.mape_skipped else "")
    lines.append(f"MAPE: {result.mape:.6g} %{skipped}")
    lines.append(f"MSE: {result.mse:.6g}   NMSE: {result.nmse:.6g}")
    if result.params:
        lines.append(f"starts: {result.starts_tried} (best: start {result.best_start}); "
                     f"status: {result.status}; {result.seconds:.2f} s")
    else:
        lines.append(f"no parameters to fit; status: {result.status}")
    if result.status is FitStatus.TIME_LIMIT:
        lines.append("note: the time budget ran out; the best fit seen so far is shown")
    return "\n".join(lines)
