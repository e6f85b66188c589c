"""pyoperon (Operon, C++ genetic programming with nonlinear least-squares tuning of the
constants) as a baseline. Settings: a bi-objective search (R^2, length; NSGA-II) over
+ - * / exp log sqrt sin cos tanh square, population 500, at most 1000 generations, one
thread (deterministic with a seed), the model picked from the Pareto front by the Bayesian
information criterion, Operon's own wall-clock limit (whole seconds, at least 1), and at most
2000 training rows (a seeded sample of larger train splits: on LLM-SR's 10,000-row problems a
20 s search ran 316-441 generations on all rows and 612-1000 on a sample, with
a lower test NMSE on all four problems; docs/equation_baselines.md)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.errors import SolverError
from solvers.symreg.base import (
    SRResult,
    check_data,
    library_class,
    parse_model,
    placeholders,
    subsample,
    to_expression,
)

SYMBOLS = "add,sub,mul,div,exp,log,sqrt,sin,cos,tanh,square,constant,variable"
SELECTION = "bayesian_information_criterion"


@dataclass
class OperonRegressor:
    """Operon through ``pyoperon.sklearn.SymbolicRegressor`` (settings: module docstring)."""

    population_size: int = 500
    generations: int = 1000
    max_length: int = 40
    symbols: str = SYMBOLS
    precision: int = 15  # digits of the constants in the model text (float32 inside)
    max_rows: int = 2000  # a seeded sample of larger train splits (0: every row)
    name: str = "pyoperon"

    def fit(
        self, X: np.ndarray, y: np.ndarray, inputs: Sequence[str], *, seconds: float, seed: int
    ) -> SRResult:
        """Fit within ``seconds`` (Operon checks the clock between generations; whole seconds,
        at least 1) and return the Pareto front's model of least BIC."""
        Xa, ya = subsample(*check_data(X, y, inputs, seconds), self.max_rows, seed)
        model = library_class("pyoperon.sklearn", "SymbolicRegressor", "pyoperon")(
            allowed_symbols=self.symbols,
            objectives=["r2", "length"],
            population_size=self.population_size,
            generations=self.generations,
            max_length=self.max_length,
            n_threads=1,
            random_state=seed,
            max_time=max(1, math.floor(seconds)),
            model_selection_criterion=SELECTION,
        )
        start = time.monotonic()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the MDL noise-level default warning
                model.fit(Xa, ya)
            text = model.get_model_string(
                model.model_, precision=self.precision, names=placeholders(len(inputs))
            )
        except (TypeError, ValueError, RuntimeError, MemoryError) as exc:
            # a failure inside the library (its bindings, its own checks) is the baseline's
            # error on these data, never a traceback
            raise SolverError(f"pyoperon failed: {type(exc).__name__}: {exc}") from exc
        elapsed = time.monotonic() - start
        expression, complexity = to_expression(parse_model(text, inputs), inputs)
        ran = int(model.stats_["generations"])
        status = "ok" if ran >= self.generations else "timeout"
        return SRResult(
            expression=expression,
            seconds=elapsed,
            status=status,
            complexity=complexity,
            log=f"pyoperon: {ran} generations on {len(ya)} rows, model {text}",
            extra={"generations": float(ran), "rows": float(len(ya))},
        )
