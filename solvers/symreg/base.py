"""What every symbolic-regression baseline shares: the result record, the interface, the check
of the data a baseline is given, and the conversion of a library's model text into the
project's expression syntax (sympy-printable, variables named by ``inputs``, constants inline).

Nothing here runs at import; each baseline imports its library only when it fits."""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import sympy
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

from solvers.equation.expression import parse_equation, validate_inputs
from solvers.errors import ConfigError, FormalizationError, SolverError, SolverInputError

SR_STATUSES = ("ok", "timeout")
"""``ok``: the search ran its whole generation budget; ``timeout``: the time limit stopped it
first (the expression is still the best found so far)."""


class RegressorUnavailable(ConfigError):
    """A baseline whose library (or runtime, e.g. Julia for PySR) is not installed here."""


@dataclass
class SRResult:
    """One fit: the expression in the project's syntax, wall-clock seconds, ``status`` (one of
    :data:`SR_STATUSES`), the expression's size (sympy tree nodes) and the library's log."""

    expression: str
    seconds: float
    status: str
    complexity: int
    log: str = ""
    extra: dict[str, float] = field(default_factory=dict)


class Regressor(Protocol):
    """A symbolic-regression baseline: ``fit`` searches an expression of ``inputs`` for ``y``
    within ``seconds`` of wall-clock time; the same ``seed`` gives the same expression when the
    search ends on its generation budget rather than on the clock."""

    name: str

    def fit(
        self, X: np.ndarray, y: np.ndarray, inputs: Sequence[str], *, seconds: float, seed: int
    ) -> SRResult:
        """Fit and return the best expression found (see :class:`SRResult`)."""
        ...


def library_class(module: str, name: str, package: str) -> type:
    """Class ``name`` of a baseline's library module, imported now; raises
    :class:`RegressorUnavailable` naming the pip ``package`` when it is not installed."""
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise RegressorUnavailable(
            f"{package} is not installed (pip install {package}, or the project's `symreg` extra)"
        ) from exc


def check_data(
    X: object, y: object, inputs: Sequence[str], seconds: float
) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as a finite float matrix with one column per input and ``y`` as a finite vector
    of as many rows; raises :class:`SolverInputError` otherwise, and :class:`ConfigError` for
    a time limit that is not positive or input names the equation language does not accept
    (:func:`solvers.equation.expression.validate_inputs`).

    Both are returned as fresh float64 arrays that own their memory: C-contiguous, native
    byte order and *writable*, whatever the caller passed (float32 columns, a read-only
    view such as pandas 3's ``Series.to_numpy()``, a big-endian HDF5 dataset). The libraries
    need that: pyoperon 0.6's ``FitLeastSquares`` (nanobind, a non-const ``ndarray``)
    refuses a read-only target with ``TypeError: incompatible function arguments`` after the
    whole search, and scikit-learn's ``check_X_y`` hands such an array on unchanged."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ConfigError(f"seconds must be a positive number, got {seconds!r}", field="seconds")
    try:
        Xa = np.asarray(X, dtype=float)
        ya = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise SolverInputError(f"data are not numeric: {exc}") from exc
    if Xa.ndim == 1:
        Xa = Xa.reshape(-1, 1)
    names = list(validate_inputs(inputs))
    if Xa.ndim != 2 or Xa.shape[1] != len(names) or not names:
        raise SolverInputError(
            f"X must have one column per input ({len(names)}), got shape {Xa.shape}"
        )
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0] or Xa.shape[0] < 2:
        raise SolverInputError(
            f"y must be a vector of {Xa.shape[0]} values (at least 2), got shape {ya.shape}"
        )
    if not (np.isfinite(Xa).all() and np.isfinite(ya).all()):
        raise SolverInputError("data contain NaN or infinite values")
    return (
        np.array(Xa, dtype=np.float64, order="C", copy=True),
        np.array(ya, dtype=np.float64, order="C", copy=True),
    )


def subsample(
    X: np.ndarray, y: np.ndarray, max_rows: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_rows`` rows of ``X`` and ``y``, drawn without replacement by ``seed``
    (kept in their order); all rows when there are no more (``max_rows`` 0: no limit).
    Public problems have thousands of training rows (LLM-SR's oscillators 10,000): a search
    of a few seconds explores far more programs on a sample, and the answer is still judged
    on every test row."""
    if not max_rows or X.shape[0] <= max_rows:
        return X, y
    keep = np.sort(np.random.default_rng(seed).choice(X.shape[0], max_rows, replace=False))
    return X[keep], y[keep]


def placeholders(n: int) -> list[str]:
    """The variable names a library is given (``v0``, ``v1``, ...): real input names may clash
    with sympy's own (``S``, ``gamma``), so they are put in only after parsing."""
    return [f"v{i}" for i in range(n)]


def symbol(name: str) -> sympy.Symbol:
    """The sympy symbol of a variable: real, so that sympy never rewrites ``exp(-a*x)``
    into ``exp(-a*re(x))`` (``re`` is not in the equation language)."""
    return sympy.Symbol(name, real=True)


def to_expression(expr: sympy.Expr, inputs: Sequence[str]) -> tuple[str, int]:
    """A sympy expression over the placeholders, with the real input names put in, as the
    equation language's canonical text (:func:`solvers.equation.expression.parse_equation`
    of ``str``) and its size (sympy tree nodes). Raises :class:`SolverError` for an expression
    that is not a finite real formula (``nan``, ``zoo``, ``I``) or not in the language."""
    names = placeholders(len(inputs))
    real = expr.xreplace({symbol(p): symbol(n) for p, n in zip(names, inputs)})
    if real.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo, sympy.I):
        raise SolverError(f"the model is not a finite real formula: {real}")
    try:
        text = parse_equation(str(real), inputs, max_params=0).text
    except FormalizationError as exc:
        raise SolverError(f"the model {real} is not in the equation language: {exc}") from exc
    return text, sum(1 for _ in sympy.preorder_traversal(real))


def parse_model(text: str, inputs: Sequence[str]) -> sympy.Expr:
    """A library's infix model text over the placeholders (``v0`` ...; ``^`` for powers) as a
    sympy expression; raises :class:`SolverError` when it does not parse."""
    symbols = {p: symbol(p) for p in placeholders(len(inputs))}
    allowed = {
        name: getattr(sympy, name)
        for name in (
            "exp",
            "log",
            "sqrt",
            "sin",
            "cos",
            "tan",
            "tanh",
            "Abs",
            "Float",
            "Integer",
            "Rational",
            "Symbol",
            "Pow",
            "Mul",
            "Add",
        )
    }
    allowed["abs"] = sympy.Abs
    try:
        expr = parse_expr(
            text,
            local_dict=symbols,
            global_dict=allowed,
            transformations=standard_transformations + (convert_xor,),
        )
    except (SyntaxError, TypeError, NameError, ValueError, AttributeError) as exc:
        raise SolverError(f"cannot read the model {text!r}: {exc}") from exc
    if not isinstance(expr, sympy.Expr) or expr.free_symbols - set(symbols.values()):
        raise SolverError(f"the model {text!r} uses names other than the inputs")
    return expr
