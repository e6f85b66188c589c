"""Symbolic equivalence of a discovered equation and the ground truth, up to fitted constants.

The rule (:func:`equivalent`), sound and incomplete -- ``True`` only when sympy proves it:

1. Both texts are parsed (:func:`parse_equation`); the truth must have no parameters. The
   same canonical text (the oracle's answer) is equivalent without a proof.
2. The candidate's *constants* -- its parameters ``p_i`` and its float literals (``2.5``,
   ``2.0``; integer literals such as the ``2`` of ``x**2`` are structure) -- become unknowns
   ``theta``.
3. ``theta`` is fitted numerically (``scipy.optimize.least_squares``) so that the candidate
   matches the truth on sample points (the rows of ``X`` if given, else 64 seeded points
   uniform in [0.5, 3] per input), starting from the candidate's own values (parameters: 1),
   then from seeded random starts. No exact fit (relative residual above 1e-7) -> ``False``.
4. Each float literal of the candidate must lie within ``rtol`` (default 1e-3, relative) of
   its fitted value; parameters are free (any value will do).
5. Proof: each fitted value is snapped to an exact number (one of the truth's own constants,
   its negative or reciprocal, or ``sympy.nsimplify`` with pi and E), substituted into the
   candidate, and ``sympy.simplify(candidate - truth)`` must be 0 (truth floats
   rationalised). This step runs in a subprocess (``python -m solvers.equation.equivalence``)
   killed after ``seconds`` (default 10): simplify can take unbounded time. A timeout counts
   as not proved (``False``). The inputs are positive symbols when every sample point is
   positive (the default points are), else real symbols: the proof holds on that domain
   (``log(x*t) == log(x) + log(t)`` is proved for positive points only).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from solvers.equation.expression import parse_equation
from solvers.equation.tree import lift_floats, to_text
from solvers.errors import ConfigError

RESIDUAL_RTOL = 1e-7
SNAP_RTOL = 1e-8


def _points(X: np.ndarray | None, d: int, seed: int) -> np.ndarray:
    if X is not None:
        A = np.asarray(X, dtype=float).reshape(len(X), -1)
        if A.shape[1] != d:
            raise ConfigError(f"X must have {d} columns, got {A.shape[1]}")
        return A[:200]
    return np.random.default_rng(seed).uniform(0.5, 3.0, size=(64, d))


def _fit(
    skeleton, n: int, A: np.ndarray, target: np.ndarray, start: np.ndarray, seed: int
) -> np.ndarray | None:
    from scipy.optimize import least_squares

    scale = 1.0 + np.abs(target)

    def residual(theta: np.ndarray) -> np.ndarray:
        r = (skeleton.evaluate(A, theta) - target) / scale
        return np.where(np.isfinite(r), r, 1e6)

    rng = np.random.default_rng(seed)
    starts = [start] + [rng.uniform(-3.0, 3.0, size=n) for _ in range(8)]
    for s in starts:
        if n == 0:
            theta = np.zeros(0)
        else:
            try:
                theta = least_squares(
                    residual,
                    s,
                    method="lm" if len(A) >= n else "trf",
                    xtol=1e-15,
                    ftol=1e-15,
                    gtol=1e-15,
                    max_nfev=2000,
                ).x
            except (ValueError, FloatingPointError):
                continue
        if np.max(np.abs(residual(theta))) <= RESIDUAL_RTOL:
            return theta
        if n == 0:
            return None
    return None


def equivalent(
    candidate: str,
    truth: str,
    inputs: Sequence[str],
    *,
    X: np.ndarray | None = None,
    rtol: float = 1e-3,
    seconds: float = 10.0,
    seed: int = 0,
) -> bool:
    """Whether ``candidate`` equals ``truth`` for some values of its constants, its float
    literals being within ``rtol`` of those values (the rule in the module docstring).
    ``FormalizationError`` if either text does not parse; ``ConfigError`` if the truth has
    parameters."""
    cand = parse_equation(candidate, inputs)
    true = parse_equation(truth, inputs)
    if true.n_params:
        raise ConfigError(f"the truth {truth!r} has parameters; give it with its constants")
    if cand.text == true.text:
        return True
    floats: list[float] = []
    tree = lift_floats(cand.tree, cand.n_params, floats)
    n = cand.n_params + len(floats)
    skeleton = parse_equation(to_text(tree), inputs, max_params=max(n, 1))
    A = _points(X, len(cand.inputs), seed)
    target = true.evaluate(A)
    A, target = A[np.isfinite(target)], target[np.isfinite(target)]
    if len(A) < max(8, 2 * n):
        return False
    start = np.array([1.0] * cand.n_params + floats, dtype=float)
    theta = _fit(skeleton, skeleton.n_params, A, target, start, seed)
    if theta is None:
        return False
    for k, v in enumerate(floats):
        fitted = theta[cand.n_params + k]
        if not abs(v - fitted) <= rtol * abs(fitted) + 1e-12:
            return False
    return _prove(
        skeleton.text,
        true.text,
        cand.inputs,
        [float(t) for t in theta],
        bool(np.all(A > 0)),
        seconds,
    )


def _prove(
    skeleton: str,
    truth: str,
    inputs: Sequence[str],
    theta: list[float],
    positive: bool,
    seconds: float,
) -> bool:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p),
    )
    request = json.dumps(
        {
            "skeleton": skeleton,
            "truth": truth,
            "inputs": list(inputs),
            "theta": theta,
            "positive": positive,
        }
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "solvers.equation.equivalence"],
            input=request,
            capture_output=True,
            text=True,
            env=env,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        return False
    if done.returncode != 0:
        return False
    return bool(json.loads(done.stdout).get("equivalent"))


def _snap(value: float, known: list):
    """The simplest exact number near ``value`` (shortest text) among: the truth's numeric
    subexpressions, their negatives and reciprocals, the nearest integer, the nearest fraction
    with a denominator up to 1000, sympy's nsimplify with none, pi, E or both."""
    import sympy

    tol = SNAP_RTOL * max(1.0, abs(value))
    forms = [f for c in known for f in (c, -c, 1 / c if c != 0 else None) if f is not None]
    forms += [sympy.Integer(round(value)), sympy.Rational(value).limit_denominator(1000)]
    forms += [
        sympy.nsimplify(value, extra, tolerance=tol)
        for extra in ([], [sympy.pi], [sympy.E], [sympy.pi, sympy.E])
    ]
    close = [f for f in forms if math.isclose(float(f), value, rel_tol=SNAP_RTOL, abs_tol=1e-12)]
    return min(close, key=lambda f: len(str(f))) if close else sympy.nsimplify(value)


def prove(
    skeleton: str, truth: str, inputs: Sequence[str], theta: Sequence[float], positive: bool = False
) -> bool:
    """Step 5 of the rule (no time limit: call it through :func:`equivalent`); with
    ``positive`` the inputs are positive symbols, else real ones."""
    import sympy

    sk = parse_equation(skeleton, inputs, max_params=max(len(theta), 1))
    t = sympy.nsimplify(parse_equation(truth, inputs).to_sympy(positive=positive), rational=True)
    known = sorted(
        {a for a in sympy.preorder_traversal(t) if a.is_number and a != 0} | {sympy.pi, sympy.E},
        key=str,
    )
    expr = sk.to_sympy(positive=positive)
    subs = {sympy.Symbol(f"p{k}", real=True): _snap(v, known) for k, v in enumerate(theta)}
    expr = sympy.nsimplify(expr.subs(subs), rational=True)
    return sympy.simplify(expr - t) == 0


def main() -> int:
    """Worker: read ``{"skeleton", "truth", "inputs", "theta"}`` as JSON on stdin, print
    ``{"equivalent": bool}``."""
    request = json.load(sys.stdin)
    ok = prove(
        request["skeleton"],
        request["truth"],
        request["inputs"],
        request["theta"],
        bool(request.get("positive")),
    )
    json.dump({"equivalent": bool(ok)}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
