"""Metrics of the equation track: Acc_tau, NMSE and symbolic equivalence.

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

Per answer (:func:`answer_metrics`, stored by the pipelines in ``PipelineResult.metrics``):
``acc_0.1``, ``acc_0.01``, ``acc_0.001`` (Acc_tau on ``test_id``), ``nmse_id``, ``nmse_ood``
(NMSE on ``test_id`` / ``test_ood``; None when not finite) and ``symbolic`` (equivalence with
the ground truth; attempted only when Acc_0.1 holds on ``test_id``: an answer off by 10% on a
twentieth of the noise-free in-domain points after its fit is not the law, and a proof costs
seconds). The predictions use the answer's parameters fitted once on ``train``.

``y_true`` must be finite (``TaskFormatError`` otherwise); both arrays are flattened and must
have the same, non-zero length (``ConfigError``). ``relative_errors`` and ``nmse`` are
defined in :mod:`solvers.equation.metrics` (the evaluator uses them too) and re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scir.errors import ConfigError, ScirError
from solvers.equation.equivalence import equivalent
from solvers.equation.metrics import nmse, relative_errors

__all__ = [
    "METRICS",
    "SHARE",
    "SYMBOLIC_SECONDS",
    "TAUS",
    "acc_name",
    "acc_tau",
    "answer_metrics",
    "nmse",
    "point_correct",
    "relative_errors",
    "symbolic_equivalent",
]

TAUS = (0.1, 0.01, 0.001)
SHARE = 0.95
SYMBOLIC_SECONDS = 10.0  # sympy's time for one equivalence proof of an answer


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


def _finite_nmse(y_true, y_pred) -> float | None:
    value = float(nmse(y_true, y_pred))
    return value if math.isfinite(value) else None


def answer_metrics(
    formal: Any, answer: str | None, predict: Callable[[np.ndarray], np.ndarray] | None
) -> dict[str, Any]:
    """The metrics of one answer (:data:`METRICS`; the module docstring) on a formal object
    with ``inputs``, ``expression`` (the truth) and ``splits`` ``train``, ``test_id``,
    ``test_ood``; ``predict`` maps rows to predictions with the answer's fitted parameters
    (None: no answer, text outside the language, or no fit: every Acc_tau and ``symbolic``
    false, both NMSE None). ``symbolic`` is None -- not applicable -- when the formal object
    has no ground truth (an empty ``expression``: an imported problem without one)."""
    out: dict[str, Any] = {name: False for name in METRICS}
    out["nmse_id"] = out["nmse_ood"] = None
    if not getattr(formal, "expression", ""):
        out["symbolic"] = None  # no ground truth: not applicable, never "false"
    if predict is None or answer is None:
        return out
    for split, key in (("test_id", "nmse_id"), ("test_ood", "nmse_ood")):
        data = formal.splits[split]
        try:
            predicted = predict(data.X)
            out[key] = _finite_nmse(data.y, predicted)
            if split == "test_id":
                for tau in TAUS:
                    out[acc_name(tau)] = acc_tau(data.y, predicted, tau)
        except ScirError:
            continue
    if out[acc_name(max(TAUS))] and out["symbolic"] is not None:
        try:
            out["symbolic"] = symbolic_equivalent(
                answer,
                formal.expression,
                list(formal.inputs),
                X=np.asarray(formal.splits["train"].X),
                seconds=SYMBOLIC_SECONDS,
            )
        except ScirError:
            out["symbolic"] = False
    return out
