"""Numbers of the equation track: how values are rounded and printed, and how an expression is
evaluated (always through the project's one evaluator, :mod:`solvers.equation.expression`).

Every value is rounded to a printed precision before anything else sees it: inputs to
:data:`SIG_X` significant digits, targets to :data:`SIG_Y`; :func:`printed` writes any stored
value back exactly (``float(printed(v)) == v``), so documents, CSV files and the formal object
agree digit for digit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from solvers.equation.expression import Equation, parse_equation

_LHS = re.compile(r"^\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*(?:\([^()=]*\))?|d[A-Za-z_]+/dt)\s*=(?!=)")

SIG_X = 4  # significant digits of a generated input value
SIG_Y = 6  # significant digits of a target (and of imported values)


def rounded(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant digits (as printed)."""
    return float(format(value, f".{digits}g"))


def printed(value: float) -> str:
    """A stored value as text, exactly (at most :data:`SIG_Y` significant digits)."""
    return format(value, f".{SIG_Y}g")


def right_side(text: str) -> str:
    """An equation's right-hand side: ``y = ...``, ``dA_dt = ...``, ``f(t, A) = ...`` and
    ``dA/dt = ...`` lose their left-hand side; surrounding backticks and a final period go."""
    text = text.strip().strip("`*$").strip()
    return _LHS.sub("", text, count=1).strip().rstrip(".").strip("`").strip()


def equation(text: str, inputs: Sequence[str]) -> Equation:
    """The parsed equation (FormalizationError for text outside the equation language)."""
    return parse_equation(text, list(inputs))


def evaluate(
    text: str, inputs: Sequence[str], X: Sequence[Sequence[float]], params: Sequence[float] = ()
) -> np.ndarray:
    """``text`` evaluated on the rows of ``X`` (columns in ``inputs`` order)."""
    rows = np.asarray(X, dtype=float).reshape(len(X), len(inputs))
    return equation(text, inputs).evaluate(rows, params)


def rms(values: np.ndarray) -> float:
    """The root mean square of ``values``."""
    return float(np.sqrt(np.mean(np.square(values))))


__all__ = ["SIG_X", "SIG_Y", "equation", "right_side", "evaluate", "printed", "rms", "rounded"]
