"""Point-wise errors of an equation's predictions, shared by the evaluator (tool T2) and the
track's metrics (:mod:`scir.outcomes.regression`, which documents the conventions).

- relative error: ``|y_pred - y_true| / |y_true|``; 0 where ``y_true == y_pred == 0``,
  ``inf`` where ``y_true == 0 != y_pred`` and where the prediction is not finite;
- NMSE: ``mean((y_true - y_pred)**2) / var(y_true)`` (population variance), ``inf`` for a
  non-finite prediction; for a constant ``y_true`` 0 if exact, else ``inf``;
- MAPE: ``100 * mean(relative error)`` in percent, over the points with
  ``|y_true| > MAPE_ZERO * max|y_true|`` (targets that are zero on the data's scale are
  skipped: a relative error means nothing there).
"""

from __future__ import annotations

import numpy as np

from solvers.errors import ConfigError, TaskFormatError

MAPE_ZERO = 1e-8


def as_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Both as flat float arrays of the same non-zero length; ``y_true`` finite."""
    t = np.asarray(y_true, dtype=float).reshape(-1)
    p = np.asarray(y_pred, dtype=float).reshape(-1)
    if t.shape != p.shape or t.size == 0:
        raise ConfigError(
            f"y_true and y_pred must have the same non-zero length, got {t.size} and {p.size}"
        )
    if not np.all(np.isfinite(t)):
        raise TaskFormatError("y_true has non-finite values")
    return t, p


def relative_errors(y_true, y_pred) -> np.ndarray:
    """Per-point relative errors (conventions in the module docstring)."""
    t, p = as_pair(y_true, y_pred)
    with np.errstate(all="ignore"):
        err = np.abs(p - t) / np.abs(t)
    zero = t == 0
    err[zero] = np.where(p[zero] == 0, 0.0, np.inf)
    err[~np.isfinite(p)] = np.inf
    return err


def nmse(y_true, y_pred) -> float:
    """Normalised mean squared error (conventions in the module docstring)."""
    t, p = as_pair(y_true, y_pred)
    if not np.all(np.isfinite(p)):
        return float("inf")
    with np.errstate(all="ignore"):
        mse = float(np.mean((t - p) ** 2))
        var = float(np.var(t))
    if var == 0:
        return 0.0 if mse == 0 else float("inf")
    return mse / var


def mape(y_true, y_pred) -> tuple[float, int]:
    """(MAPE in percent, number of points skipped as ``|y_true|`` near 0); MAPE is nan when
    every point is skipped."""
    t, p = as_pair(y_true, y_pred)
    keep = np.abs(t) > MAPE_ZERO * float(np.max(np.abs(t)))
    skipped = int(t.size - np.count_nonzero(keep))
    if not keep.any():
        return float("nan"), skipped
    return 100.0 * float(np.mean(relative_errors(t[keep], p[keep]))), skipped
