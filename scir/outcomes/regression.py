"""Regression metrics: Acc_tau, NMSE and symbolic equivalence.

Conventions (one place for each):

- relative error of a point: ``|y_pred - y_true| / |y_true|``; where ``y_true == 0`` it is 0
  if the prediction is exactly 0 and ``inf`` otherwise (no epsilon: a zero target is met
  only exactly); a non-finite prediction (nan, +-inf) has error ``inf``.
- a point is correct at ``tau`` if its relative error is ``< tau`` (strict);
- Acc_tau of a problem: at least ``share`` (default 0.95) of its points are correct;
- NMSE: ``mean((y_true - y_pred)**2) / var(y_true)`` with the population variance (ddof 0),
  as LLM-SR reports it; ``inf`` if any prediction is non-finite; a constant ``y_true``
  (variance 0) gives 0 for an exact prediction and ``inf`` otherwise;
- MAPE (the evaluator's score, :func:`solvers.equation.metrics.mape`): ``100 * mean``
  relative error in percent over the points with ``|y_true| > 1e-8 * max|y_true|``;
- symbolic equivalence: :func:`solvers.equation.equivalence.equivalent` (up to fitted
  constants, proved by sympy under a time limit in a subprocess).

The per-answer metrics (:data:`METRICS`, stored by the pipelines in
``PipelineResult.metrics``) are ``acc_0.1``, ``acc_0.01``, ``acc_0.001`` (Acc_tau on the
in-domain test data), ``nmse_id``, ``nmse_ood`` (NMSE in and out of domain; None when not
finite) and ``symbolic`` (equivalence with the ground truth); the scorer of the track whose
rule has them computes them.

``y_true`` must be finite (``TaskFormatError`` otherwise); both arrays are flattened and must
have the same, non-zero length (``ConfigError``). ``relative_errors`` and ``nmse`` are
defined in :mod:`solvers.equation.metrics` (the evaluator uses them too) and re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scir.errors import ConfigError
from solvers.equation.equivalence import equivalent
from solvers.equation.metrics import nmse, relative_errors

__all__ = [
    "METRICS",
    "SHARE",
    "TAUS",
    "acc_name",
    "acc_tau",
    "nmse",
    "point_correct",
    "relative_errors",
    "symbolic_equivalent",
]

TAUS = (0.1, 0.01, 0.001)
SHARE = 0.95


def acc_name(tau: float) -> str:
    """The metric name of Acc_tau: ``acc_0.01``."""
    return f"acc_{tau:g}"


# the per-answer metrics, in this order (PipelineResult.metrics keys)
METRICS = tuple(acc_name(t) for t in TAUS) + ("nmse_id", "nmse_ood", "symbolic")


def point_correct(y_true, y_pred, tau: float) -> np.ndarray:
    """Per-point booleans: relative error ``< tau``."""
    if not tau > 0:
        raise ConfigError(f"tau must be positive, got {tau!r}")
    return relative_errors(y_true, y_pred) < tau


def acc_tau(y_true, y_pred, tau: float, share: float = SHARE) -> bool:
    """Whether at least ``share`` of the points are correct at ``tau``."""
    if not 0 < share <= 1:
        raise ConfigError(f"share must be in (0, 1], got {share!r}")
    return bool(np.mean(point_correct(y_true, y_pred, tau)) >= share)


def symbolic_equivalent(
    candidate: str,
    truth: str,
    inputs: Sequence[str],
    *,
    X: np.ndarray | None = None,
    rtol: float = 1e-3,
    seconds: float = 10.0,
) -> bool:
    """Whether the candidate equation equals the truth up to fitted constants (float
    literals within ``rtol`` of the fitted values, parameters free), proved by sympy within
    ``seconds``; ``X``: sample points for the fit (default: seeded points in [0.5, 3]).
    ``FormalizationError`` if a text does not parse."""
    return equivalent(candidate, truth, inputs, X=X, rtol=rtol, seconds=seconds)
