"""The equation evaluator (SR-Scientist's tool T2): fit an equation's constants to data.

    >>> res = fit("p0*x*exp(-p1*t)", X, y, ["x", "t"])              # doctest: +SKIP
    >>> res.params, res.mape, res.expression
    ((1.5, 0.25), 1.2e-09, '1.5*x*exp(-0.25*t)')
    >>> print(report(res))                                           # doctest: +SKIP

The parameters ``p0..`` minimise the mean squared error with BFGS
(``scipy.optimize.minimize(method="BFGS")``, 3-point finite-difference gradients) from
``starts`` starting points, by one of two strategies:

- ``projected`` (the default): variable projection. The parameters that enter linearly
  (:mod:`solvers.equation.projection`) are solved exactly by linear least squares for given
  values of the others, so BFGS runs only over the nonlinear ones (frequencies, rates,
  exponents). Start 0: the nonlinear parameters at ones (LLM-SR's initial value). Start 1
  and on: a deterministic grid search (:mod:`solvers.equation.grid`) -- each nonlinear
  parameter in turn is swept over ``GRID`` (magnitudes 1e-3 .. 1e3, 64 per decade, both
  signs; all values at once), each local minimum of the profile zoomed twice, and the
  parameter moved to the best; up to 3 rounds, and every pair of nonlinear parameters
  searched jointly on a coarser grid -- gives its end point, then the pairs' best points and
  the other zoomed local minima of the last round (best first); the starts left are
  log-uniform over the same decades with random signs from
  ``numpy.random.default_rng(seed)``. With two or more nonlinear parameters the grid search
  runs again from the best point, with one more descent. Finally the best point found is
  polished by BFGS over every parameter. Without nonlinear parameters the fit is one exact
  linear solve.
- ``bfgs`` (the previous strategy, kept for comparison): BFGS over every parameter; the
  first start is all ones, the others are drawn uniformly from [-5, 5] by
  ``numpy.random.default_rng(seed)``.

The same seed, the same fit. A start whose initial predictions are not finite is skipped;
non-finite predictions during a descent count as an infinite loss. The result is the lowest
loss seen (first start wins ties). With ``seconds``, no start begins after the budget and a
running one stops: the status is then ``time_limit`` and the result is the best seen so far.
If no start ever gave finite predictions the status is ``non_finite`` (parameters nan, errors
inf); no exception.

Scores (:mod:`solvers.equation.metrics`): MSE, NMSE, and MAPE in percent over the points whose
``|y|`` exceeds ``1e-8 * max|y|`` (the rest are skipped and counted).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from solvers.equation.expression import Equation, parse_equation
from solvers.equation.grid import grid_starts, log_uniform
from solvers.equation.metrics import mape, nmse
from solvers.equation.projection import Projection
from solvers.errors import ConfigError, TaskFormatError

START_LOW, START_HIGH = -5.0, 5.0
PROJECTED, BFGS = "projected", "bfgs"
STRATEGIES = (PROJECTED, BFGS)


class FitStatus(StrEnum):
    """How a fit ended."""

    OK = "ok"
    TIME_LIMIT = "time_limit"  # the budget ran out; the best fit seen so far
    NON_FINITE = "non_finite"  # no start gave finite predictions


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
        raise ConfigError(
            f"X must have shape (n, {len(eq.inputs)}) and y length n > 0; got "
            f"{A.shape} and {t.size}"
        )
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(t))):
        raise TaskFormatError("the data has non-finite values")
    return A, t


def starting_points(n: int, starts: int, seed: int) -> list[np.ndarray]:
    """The ``starts`` starting points of an ``n``-parameter ``bfgs`` fit (see the module
    docstring)."""
    rng = np.random.default_rng(seed)
    return [np.ones(n)] + [rng.uniform(START_LOW, START_HIGH, size=n) for _ in range(starts - 1)]


def fit(
    equation: str | Equation,
    X,
    y,
    inputs: Sequence[str] | None = None,
    *,
    starts: int = 10,
    seed: int = 0,
    max_params: int = 10,
    seconds: float | None = 30.0,
    strategy: str = PROJECTED,
) -> FitResult:
    """Fit the parameters of ``equation`` (text over ``inputs``, or a parsed ``Equation``) to
    ``X`` (rows, one column per input) and ``y`` by ``strategy`` (``projected``, the default,
    or ``bfgs``: see the module docstring). ``FormalizationError`` for equation text outside
    the language; ``ConfigError`` / ``TaskFormatError`` for bad arguments or data."""
    if isinstance(equation, Equation):
        eq = equation
        if inputs is not None and tuple(inputs) != eq.inputs:
            raise ConfigError(f"inputs {list(inputs)} differ from the equation's {list(eq.inputs)}")
    else:
        if inputs is None:
            raise ConfigError("equation text needs its inputs")
        eq = parse_equation(equation, inputs, max_params=max_params)
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ConfigError(f"starts must be a positive int, got {starts!r}")
    if strategy not in STRATEGIES:
        raise ConfigError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    A, t = _data(eq, X, y)
    search = _Search(eq, A, t, seconds)
    if eq.n_params == 0:
        return _result(eq, A, t, np.zeros(0), None, 0, FitStatus.OK, search.began)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if strategy == BFGS:
                search.multistart(starting_points(eq.n_params, starts, seed), search.loss)
            else:
                _projected(search, starts, seed)
        except _Budget:
            search.status = FitStatus.TIME_LIMIT
    if search.x is None:
        status = FitStatus.NON_FINITE if search.status is FitStatus.OK else search.status
        return _result(
            eq, A, t, np.full(eq.n_params, np.nan), None, search.tried, status, search.began
        )
    return _result(eq, A, t, search.x, search.start, search.tried, search.status, search.began)


class _Search:
    """The state of one fit: the data, the budget, the lowest loss seen (full parameter
    vector ``x``, found during start ``start``) and the starts tried."""

    def __init__(self, eq: Equation, A: np.ndarray, t: np.ndarray, seconds: float | None) -> None:
        self.eq, self.A, self.t = eq, A, t
        self.columns = {name: i for i, name in enumerate(eq.inputs)}
        self.began = time.monotonic()
        self.deadline = None if seconds is None else self.began + float(seconds)
        self.best = np.inf
        self.x: np.ndarray | None = None  # set together with start
        self.start: int | None = None
        self.current, self.tried, self.status = 0, 0, FitStatus.OK

    def check_budget(self) -> None:
        """_Budget once the time budget is spent."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Budget()

    def record(self, p: np.ndarray, pred: np.ndarray) -> float:
        """The MSE of predictions ``pred`` made with parameters ``p`` (inf if not finite),
        remembered when it is the lowest so far; _Budget once the budget is spent."""
        self.check_budget()
        value = float(np.mean((pred - self.t) ** 2))
        if not np.isfinite(value):
            return np.inf
        if value < self.best:
            self.best, self.x, self.start = value, np.array(p, dtype=float), self.current
        return value

    def loss(self, p: np.ndarray) -> float:
        """The MSE of the full parameter vector ``p``."""
        return self.record(p, self.eq.evaluate(self.A, p))

    def descend(self, f, x0: np.ndarray, gtol: float = 1e-12) -> None:
        """One BFGS descent of ``f`` from ``x0`` (3-point finite-difference gradients)."""
        from scipy.optimize import minimize

        minimize(
            f,
            x0,
            method="BFGS",
            jac="3-point",
            options={"gtol": gtol, "maxiter": 200 * x0.size + 200},
        )

    def multistart(self, points: Sequence[np.ndarray], f, first: int = 0) -> None:
        """BFGS from each point (numbered from ``first``); a point where ``f`` is not finite
        is skipped."""
        for k, x0 in enumerate(points):
            self.current = first + k
            self.tried += 1
            if np.isfinite(f(x0)):
                self.descend(f, x0)


def _projected(search: _Search, starts: int, seed: int) -> None:
    """The ``projected`` strategy (see the module docstring); raises _Budget when the budget
    runs out."""
    proj = Projection.of(search.eq.tree, search.eq.n_params)
    solve = proj.solver(search.A, search.t, search.columns)

    def loss(q: np.ndarray) -> float:
        solved = solve(q)
        if solved is None:  # a column or the offset is not finite
            search.check_budget()
            return np.inf
        return search.record(*solved)

    def profile(q: np.ndarray, ks: Sequence[int], values: np.ndarray) -> np.ndarray:
        return solve.profile(q, ks, values, tick=search.check_budget)

    m = len(proj.nonlinear)
    if m == 0:
        search.tried = 1
        loss(np.zeros(0))  # linear least squares: exact, one "start"
        return
    search.multistart([np.ones(m)], loss)
    if starts > 1:
        search.current = 1
        points = grid_starts(loss, profile, m)[: starts - 1]
        search.multistart(points, loss, first=1)
        rng = np.random.default_rng(seed)
        search.multistart(
            [log_uniform(rng, m) for _ in range(starts - 1 - len(points))],
            loss,
            first=1 + len(points),
        )
    if starts > 1 and m >= 2 and search.x is not None:
        # a second grid search from the best point: the parameters it got right are held
        # while coupled ones are searched again (pairs too), then one more descent
        assert search.start is not None
        search.current = search.start
        again = grid_starts(loss, profile, m, start=search.x[list(proj.nonlinear)])[0]
        search.descend(loss, again)
    if search.x is not None:  # polish the best: BFGS over every parameter
        assert search.start is not None
        search.current = search.start
        search.descend(search.loss, search.x.copy())


def _result(
    eq: Equation,
    A: np.ndarray,
    t: np.ndarray,
    p: np.ndarray,
    best_start: int | None,
    tried: int,
    status: FitStatus,
    began: float,
) -> FitResult:
    finite = bool(np.all(np.isfinite(p)))
    pred = eq.evaluate(A, p) if finite else np.full(t.size, np.nan)
    with np.errstate(all="ignore"):
        mse = float(np.mean((pred - t) ** 2)) if np.all(np.isfinite(pred)) else float("inf")
    m, skipped = mape(t, pred)
    return FitResult(
        eq.text,
        tuple(float(v) for v in p),
        mse,
        nmse(t, pred),
        m,
        skipped,
        eq.substitute(p) if finite else eq.text,
        tried,
        best_start,
        status,
        time.monotonic() - began,
    )


def report(result: FitResult) -> str:
    """The evaluator's output as an agent reads it (plain text, a few lines)."""
    lines = [f"equation: {result.equation}"]
    if result.status is FitStatus.NON_FINITE:
        lines.append(
            f"status: non_finite -- no start among {result.starts_tried} gave finite "
            "predictions on the data (check divisions, logs, square roots, "
            "overflowing exponentials)"
        )
        return "\n".join(lines)
    if not all(np.isfinite(result.params)):
        lines.append("status: time_limit -- the time budget ran out before a finite fit")
        return "\n".join(lines)
    if result.params:
        lines.append(f"fitted: {result.expression}")
        lines.append(
            "params: " + ", ".join(f"p{i} = {v:.10g}" for i, v in enumerate(result.params))
        )
    skipped = f" ({result.mape_skipped} points with y ~ 0 skipped)" if result.mape_skipped else ""
    lines.append(f"MAPE: {result.mape:.6g} %{skipped}")
    lines.append(f"MSE: {result.mse:.6g}   NMSE: {result.nmse:.6g}")
    if result.params:
        lines.append(
            f"starts: {result.starts_tried} (best: start {result.best_start}); "
            f"status: {result.status}; {result.seconds:.2f} s"
        )
    else:
        lines.append(f"no parameters to fit; status: {result.status}")
    if result.status is FitStatus.TIME_LIMIT:
        lines.append("note: the time budget ran out; the best fit seen so far is shown")
    return "\n".join(lines)
