"""gplearn (pure-Python genetic programming) as a baseline, and the conversion of its programs
into sympy.

gplearn 0.4.3 fits with scikit-learn 1.9 through its own ``validate_data`` call (checked by
``tests/test_symreg.py``). It has no clock, so :class:`GplearnRegressor` grows the run one
generation at a time (``warm_start``: the same random stream as one long run) and stops when
the next generation would pass the time limit.

Protected operators are mapped to their unprotected formulas -- the guard branch is dropped:
``div(a, b)`` (gplearn: ``a/b`` if ``|b| > 0.001`` else ``1``) -> ``a/b``; ``inv(a)``
(``1/a`` if ``|a| > 0.001`` else ``0``) -> ``1/a``; ``log(a)`` (``log|a|`` if ``|a| > 0.001``
else ``0``) -> ``log(Abs(a))``; ``sqrt(a)`` (``sqrt|a|``) -> ``sqrt(Abs(a))`` (exact); the
added ``exp(a)`` (``exp`` of ``a`` clipped to [-50, 50]) -> ``exp(a)``; ``tanh`` is exact. The
converted formula equals gplearn's prediction wherever no guard fires; the fit logs the
largest relative difference on the training data (``max_guard_deviation``)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from solvers.errors import SolverError
from solvers.symreg.base import (
    SRResult,
    check_data,
    library_class,
    placeholders,
    subsample,
    symbol,
    to_expression,
)

FUNCTIONS = ("add", "sub", "mul", "div", "sqrt", "log", "sin", "cos", "exp", "tanh")
EXACT = 1e-12  # a fit this close (mean absolute error / mean |y|) ends the search
EXP_CLIP = 50.0  # gplearn has no exp: ours computes exp(clip(a, -50, 50))


def _exp(a: np.ndarray) -> np.ndarray:
    return np.exp(np.clip(a, -EXP_CLIP, EXP_CLIP))


def _functions(names: Sequence[str]) -> list[object]:
    """gplearn's function objects for ``names``: its own, plus ``exp`` and ``tanh``."""
    from gplearn.functions import make_function

    extra = {
        "exp": make_function(function=_exp, name="exp", arity=1),
        "tanh": make_function(function=np.tanh, name="tanh", arity=1),
    }
    return [extra.get(name, name) for name in names]


# gplearn function name -> its formula on sympy arguments (the protection dropped, see above)
SYMPY_OF: dict[str, Callable[..., sympy.Expr]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "inv": lambda a: 1 / a,
    "abs": sympy.Abs,
    "sqrt": lambda a: sympy.sqrt(sympy.Abs(a)),
    "log": lambda a: sympy.log(sympy.Abs(a)),
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "sig": lambda a: 1 / (1 + sympy.exp(-a)),
    "exp": sympy.exp,
    "tanh": sympy.tanh,
}
# gplearn's max and min have no formula here: the equation language has no max/min


def program_to_sympy(program: Sequence[object], n_inputs: int) -> sympy.Expr:
    """A gplearn program (its prefix list: functions with ``.name``/``.arity``, ``int``
    column indices, ``float`` constants) as a sympy expression over the placeholders
    ``v0 ...``; raises :class:`SolverError` for a function without a formula here, a column
    out of range or a malformed list."""
    names = placeholders(n_inputs)
    stack: list[tuple[Any, list[sympy.Expr]]] = []  # (gplearn function, args so far)
    result: sympy.Expr | None = None
    for node in program:
        if result is not None:
            raise SolverError("gplearn program has nodes after its end")
        if hasattr(node, "arity") and hasattr(node, "name"):
            stack.append((node, []))
            continue
        if isinstance(node, (bool, np.bool_)):
            raise SolverError(f"gplearn program node {node!r} is not a terminal")
        if isinstance(node, (int, np.integer)):
            if not 0 <= int(node) < n_inputs:
                raise SolverError(f"gplearn program uses column {node} of {n_inputs}")
            term: sympy.Expr = symbol(names[int(node)])
        elif isinstance(node, (float, np.floating)):
            term = sympy.Float(float(node))
        else:
            raise SolverError(f"gplearn program node {node!r} is not a terminal")
        while stack:
            stack[-1][1].append(term)
            fn, args = stack[-1]
            if len(args) < fn.arity:
                break
            stack.pop()
            if fn.name not in SYMPY_OF:
                raise SolverError(f"gplearn function {fn.name!r} has no formula here")
            term = SYMPY_OF[fn.name](*args)
        if not stack:
            result = term
    if result is None:
        raise SolverError("gplearn program is incomplete")
    return result


@dataclass
class GplearnRegressor:
    """gplearn's ``SymbolicRegressor`` grown generation by generation under a clock. Settings:
    population 1000, at most 40 generations, tournament 20, parsimony 0.001, functions
    :data:`FUNCTIONS`, constants in [-5, 5], one job; at most 1000 training rows (a seeded
    sample of larger train splits: gplearn's time goes to its Python per-program work, so
    the sample changes little on LLM-SR's problems -- 33 instead of 29 generations in 20 s,
    test NMSE 0.0094 instead of 0.0107 on oscillator1 -- but bounds the memory and time of
    its vectorised evaluation). ``scale_target`` (off by default) runs the search on the
    standardised target ``(y - mean) / std`` and answers ``std * program + mean`` (linear
    scaling); measured on LLM-SR's four problems it did not help (oscillator1's test NMSE
    0.0094 -> 0.139, bactgrow a constant), so it stays an option."""

    population_size: int = 1000
    generations: int = 40
    tournament_size: int = 20
    parsimony_coefficient: float = 0.001
    functions: tuple[str, ...] = FUNCTIONS
    max_rows: int = 1000  # a seeded sample of larger train splits (0: every row)
    scale_target: bool = False  # search on the standardised target (linear scaling)
    name: str = "gplearn"

    def fit(
        self, X: np.ndarray, y: np.ndarray, inputs: Sequence[str], *, seconds: float, seed: int
    ) -> SRResult:
        """Fit within ``seconds`` (checked between generations: a generation is not started
        when the last one's duration would pass the limit) and return the best program."""
        Xa, ya = subsample(*check_data(X, y, inputs, seconds), self.max_rows, seed)
        mean, std = float(np.mean(ya)), float(np.std(ya))
        scaled = self.scale_target and std > 0 and np.isfinite(std)
        target = (ya - mean) / std if scaled else ya
        model = library_class("gplearn.genetic", "SymbolicRegressor", "gplearn")(
            population_size=self.population_size,
            generations=1,
            tournament_size=self.tournament_size,
            function_set=_functions(self.functions),
            parsimony_coefficient=self.parsimony_coefficient,
            const_range=(-5.0, 5.0),
            init_depth=(2, 6),
            warm_start=True,
            n_jobs=1,
            random_state=seed,
        )
        exact = EXACT * float(np.mean(np.abs(target)))  # mean absolute error of an exact fit
        start = time.monotonic()
        ran, last = 0, 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while ran < self.generations:
                elapsed = time.monotonic() - start
                if ran and elapsed + last > seconds:
                    break
                model.set_params(generations=ran + 1)
                tick = time.monotonic()
                model.fit(Xa, target)
                last, ran = time.monotonic() - tick, ran + 1
                if model._program.raw_fitness_ <= exact:  # nothing left to find
                    break
        elapsed = time.monotonic() - start
        program = model._program
        expr = program_to_sympy(program.program, len(inputs))
        deviation = guard_deviation(expr, program.execute(Xa), Xa)
        if scaled:
            expr = sympy.Float(std) * expr + sympy.Float(mean)
        expression, complexity = to_expression(expr, inputs)
        scaling = f", target scaled (std {std:.6g}, mean {mean:.6g})" if scaled else ""
        found = ran < self.generations and program.raw_fitness_ <= exact
        status = "ok" if ran >= self.generations or found else "timeout"
        return SRResult(
            expression=expression,
            seconds=elapsed,
            status=status,
            complexity=complexity,
            log=f"gplearn: {ran} generations on {len(ya)} rows{scaling}, "
            f"program {program}, max_guard_deviation {deviation:.3g}",
            extra={
                "generations": float(ran),
                "max_guard_deviation": deviation,
                "rows": float(len(ya)),
            },
        )


def guard_deviation(expr: sympy.Expr, predicted: np.ndarray, X: np.ndarray) -> float:
    """The largest relative difference between the converted formula and gplearn's own
    prediction on ``X`` (0 when no protection guard fires; inf where the formula is not
    finite)."""
    symbols = [symbol(p) for p in placeholders(X.shape[1])]
    with np.errstate(all="ignore"):
        values = np.broadcast_to(
            sympy.lambdify(symbols, expr, "numpy")(*X.T), predicted.shape
        ).astype(float)
        diff = np.abs(values - predicted) / np.maximum(np.abs(predicted), 1e-12)
    return float(np.max(np.where(np.isfinite(diff), diff, np.inf), initial=0.0))
