"""Symbolic-regression baselines without a language model (pyoperon, gplearn, PySR) behind one
interface (:class:`Regressor`: ``fit(X, y, inputs, *, seconds, seed) -> SRResult``). Each
answers an expression in the project's expression syntax (sympy-printable, variables named by
``inputs``, constants inline), so the equation track's one evaluator judges every baseline.
This package never imports ``scir``; the libraries are imported only when a baseline fits."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from solvers.errors import ConfigError
from solvers.symreg.base import SR_STATUSES, Regressor, RegressorUnavailable, SRResult, check_data
from solvers.symreg.gplearn_sr import GplearnRegressor, program_to_sympy
from solvers.symreg.operon_sr import OperonRegressor
from solvers.symreg.pysr_sr import PySRRegressor

REGRESSORS: dict[str, Callable[[], Regressor]] = {
    "pyoperon": OperonRegressor,
    "gplearn": GplearnRegressor,
    "pysr": PySRRegressor,
}


# each baseline's search budget in generations (PySR calls them iterations)
BUDGET_FIELD = {"pyoperon": "generations", "gplearn": "generations", "pysr": "niterations"}
MAX_GENERATIONS = 1_000_000


def get_regressor(name: str, generations: int | None = None) -> Regressor:
    """The baseline called ``name`` (one of :data:`REGRESSORS`) with its default settings,
    or with a search of ``generations`` generations instead of its default budget (the clock
    still stops it first if it runs out; a search that ends on its generations gives the same
    expression for the same seed, however loaded the machine); raises :class:`ConfigError`
    for another name or a budget below 1."""
    if name not in REGRESSORS:
        raise ConfigError(
            f"regressor must be one of {', '.join(REGRESSORS)}, got {name!r}", field="regressor"
        )
    regressor = REGRESSORS[name]()
    if generations is None:
        return regressor
    if (
        isinstance(generations, bool)
        or not isinstance(generations, int)
        or not 1 <= generations <= MAX_GENERATIONS
    ):
        raise ConfigError(
            f"generations must be an integer from 1 to {MAX_GENERATIONS}, got {generations!r}",
            field="generations",
        )
    return dataclasses.replace(regressor, **{BUDGET_FIELD[name]: generations})  # type: ignore[type-var]


__all__ = [
    "BUDGET_FIELD",
    "REGRESSORS",
    "SR_STATUSES",
    "GplearnRegressor",
    "OperonRegressor",
    "PySRRegressor",
    "Regressor",
    "RegressorUnavailable",
    "SRResult",
    "check_data",
    "get_regressor",
    "program_to_sympy",
]
