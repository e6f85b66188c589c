"""Symbolic-regression baselines without a language model (pyoperon, gplearn, PySR) behind one
interface (:class:`Regressor`: ``fit(X, y, inputs, *, seconds, seed) -> SRResult``). Each
answers an expression in the project's expression syntax (sympy-printable, variables named by
``inputs``, constants inline), so the equation track's one evaluator judges every baseline.
This package never imports ``scir``; the libraries are imported only when a baseline fits."""

from __future__ import annotations

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


def get_regressor(name: str) -> Regressor:
    """The baseline called ``name`` (one of :data:`REGRESSORS`) with its default settings;
    raises :class:`ConfigError` for another name."""
    if name not in REGRESSORS:
        raise ConfigError(
            f"regressor must be one of {', '.join(REGRESSORS)}, got {name!r}", field="regressor"
        )
    return REGRESSORS[name]()


__all__ = [
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
