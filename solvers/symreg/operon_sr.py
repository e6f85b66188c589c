"""pyoperon (Operon, C++ genetic programming with nonlinear least-squares tuning of the
constants) as a baseline. Settings: a bi-objective search (R^2, length; NSGA-II) over
+ - * / exp log sqrt sin cos square, population 500, at most 300 generations, one thread
(deterministic with a seed), the model picked from the Pareto front by minimum description
length, Operon's own wall-clock limit (whole seconds, at least 1)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.symreg.base import (
    SRResult,
    check_data,
    library_class,
    parse_model,
    placeholders,
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
    precision: int = 15            # digits of the constants in the model text (float32 inside)
    name: str = "pyoperon"

    def fit(self, X: np.ndarray, y: np.ndarray, inputs: Sequence[str], *, seconds: float,
            seed: int) -> SRResult:
        """Fit within ``seconds`` (Operon checks the clock between generations; whole seconds,
        at least 1) and return the Pareto front's model of least BIC."""
        Xa, ya = check_data(X, y, inputs, seconds)
        model = library_class("pyoperon.sklearn", "SymbolicRegressor", "pyoperon")(
            allowed_symbols=self.symbols, objectives=["r2", "length"],
            population_size=self.population_size, generations=self.generations,
            max_length=self.max_length, n_threads=1, random_state=seed,
            max_time=max(1, math.floor(seconds)), model_selection_criterion=SELECTION)
        start = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # the MDL noise-level default warning
            model.fit(Xa, ya)
        elapsed = time.monotonic() - start
        text = model.get_model_string(model.model_, precision=self.precision,
                                      names=placeholders(len(inputs)))
        expression, complexity = to_expression(parse_model(text, inputs), inputs)
        ran = int(model.stats_["generations"])
        status = "ok" if ran >= self.generations else "timeout"
        return SRResult(expression=expression, seconds=elapsed, status=status,
                        complexity=complexity,
                        log=f"pyoperon: {ran} generations, model {text}",
                        extra={"generations": float(ran)})
