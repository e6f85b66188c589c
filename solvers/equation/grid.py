"""The grid search of the evaluator's ``projected`` strategy
(:mod:`solvers.equation.evaluator`): starting points for the nonlinear parameters from
profiles of the projected loss over a fixed grid, and log-uniform random starts.

``loss(q)`` is the projected loss of nonlinear values ``q`` (recorded by the evaluator);
``profile(q, ks, values)`` the projected losses with parameters ``ks`` at each row of
``values``, the others at ``q``, computed at once
(:meth:`solvers.equation.projection.Solver.profile`). Everything here is deterministic.
"""

from __future__ import annotations

import itertools

import numpy as np

GRID_LOW, GRID_HIGH, GRID_PER_DECADE = -3, 3, 64
_MAGNITUDES = 10.0 ** np.linspace(GRID_LOW, GRID_HIGH, (GRID_HIGH - GRID_LOW) * GRID_PER_DECADE + 1)
GRID = np.concatenate([_MAGNITUDES, -_MAGNITUDES])
_HALF = _MAGNITUDES.size
ROUND_GAIN = 0.01  # a coordinate round that gains less is the last
PAIR_MAX = 4  # pairs are searched jointly up to this many parameters
_PAIR_AXIS = np.concatenate(
    [10.0 ** np.linspace(GRID_LOW, GRID_HIGH, 49), -(10.0 ** np.linspace(GRID_LOW, GRID_HIGH, 49))]
)
PAIR_GRID = np.array([(a, b) for a in _PAIR_AXIS for b in _PAIR_AXIS])  # 8 per decade
ZOOM = 9  # points of each zoom onto a local minimum of a profile


def log_uniform(rng: np.random.Generator, m: int) -> np.ndarray:
    """A random start of ``m`` nonlinear parameters: magnitudes log-uniform over the grid's
    decades, random signs."""
    return rng.choice([-1.0, 1.0], size=m) * 10.0 ** rng.uniform(GRID_LOW, GRID_HIGH, size=m)


def _minima(profile, q: np.ndarray, j: int) -> list[tuple[float, float]]:
    """The local minima of the ``j``-th nonlinear parameter's profile over :data:`GRID` (the
    others at ``q``), each zoomed twice onto :data:`ZOOM` points between its neighbours:
    ``(loss, value)`` pairs."""
    coarse = profile(q, [j], GRID)
    brackets = []
    for half in (slice(0, _HALF), slice(_HALF, None)):  # positive, negative
        grid, v = GRID[half], coarse[half]
        inner = (v[1:-1] <= v[:-2]) & (v[1:-1] <= v[2:]) & np.isfinite(v[1:-1])
        brackets += [(grid[k - 1], grid[k + 1]) for k in np.flatnonzero(inner) + 1]
    if not brackets:
        return []
    lows, highs = np.array(brackets).T
    for _ in range(2):
        points = lows[:, None] + (highs - lows)[:, None] * np.linspace(0.0, 1.0, ZOOM)
        losses = profile(q, [j], points.ravel()).reshape(points.shape)
        best = np.argmin(losses, axis=1)
        rows = np.arange(len(lows))
        step = (highs - lows) / (ZOOM - 1)
        centre = points[rows, best]
        lows, highs = centre - step, centre + step
    return [(v, x) for v, x in zip(losses[rows, best].tolist(), centre.tolist()) if np.isfinite(v)]


def _coordinates(
    loss, profile, q: np.ndarray, current: float, rounds: int
) -> tuple[np.ndarray, float, list[tuple[float, int, np.ndarray]]]:
    """The coordinate search of :func:`grid_starts` from ``q`` (loss ``current``): the end
    point, its loss, and the last round's zoomed minima as ``(loss, parameter, point)``."""
    m = q.size
    candidates: list[tuple[float, int, np.ndarray]] = []
    for _ in range(rounds):
        changed, candidates = False, []
        for j in range(m):
            found = _minima(profile, q, j)
            for value, x in found:
                point = q.copy()
                point[j] = x
                candidates.append((value, j, point))
            if found:  # the lowest; positive on a tie
                x = min(found, key=lambda f: (f[0], f[1] < 0))[1]
                trial = q.copy()
                trial[j] = x
                value = loss(trial)  # the exact solve, recorded as the best
                if value < current:
                    changed |= value < (1.0 - ROUND_GAIN) * current
                    current, q = value, trial
        if not changed:
            break
    return q, current, candidates


def _pairs(profile, q: np.ndarray) -> list[tuple[float, int, np.ndarray]]:
    """For each pair of nonlinear parameters (with 2 to :data:`PAIR_MAX` of them), the best
    point of :data:`PAIR_GRID` over the pair, the others at ``q``: ``(loss, -1, point)``."""
    m = q.size
    if not 2 <= m <= PAIR_MAX:
        return []
    out = []
    for j, k in itertools.combinations(range(m), 2):
        losses = profile(q, [j, k], PAIR_GRID)
        best = int(np.argmin(losses))
        if np.isfinite(losses[best]):
            point = q.copy()
            point[[j, k]] = PAIR_GRID[best]
            out.append((float(losses[best]), -1, point))
    return out


def grid_starts(
    loss, profile, m: int, rounds: int = 3, start: np.ndarray | None = None
) -> list[np.ndarray]:
    """Starts from a coordinate search: from ``start`` (default all ones), each nonlinear
    parameter in turn moves to the lowest of its profile's zoomed local minima (:func:`_minima`;
    ``profile(q, ks, values)``: the projected losses of ``q`` with parameters ``ks`` at each
    row of values) when that lowers the loss, the others held, until a round lowers the
    loss by less than :data:`ROUND_GAIN` (at most ``rounds``). Then every pair of nonlinear
    parameters is searched jointly on :data:`PAIR_GRID` (coupled parameters such as
    ``strain**p1`` and ``tanh(p3*strain)``); when a pair's best point is lower, the
    coordinate search goes on from it. The first start is where it ends; then the pairs'
    best points and the other minima of the last round's profiles (that parameter at the
    minimum, the others as held then), lowest loss first, one per distinct loss
    (``sin(-p*t)`` mirrors ``sin(p*t)``)."""
    q = np.ones(m) if start is None else np.array(start, dtype=float)
    q, current, candidates = _coordinates(loss, profile, q, loss(q), rounds)
    pairs = _pairs(profile, q)
    if pairs:
        value, _, point = min(pairs, key=lambda c: c[0])
        if loss(point) < current:
            q, current, candidates = _coordinates(loss, profile, point, loss(point), rounds)
    candidates = sorted(pairs + candidates, key=lambda c: (c[0], c[1]))
    out, seen = [q], [current]
    for value, _, point in candidates:
        if not np.isclose(value, seen, rtol=1e-9, atol=0.0).any():
            out.append(point)
            seen.append(value)
    return out


__all__ = ["GRID", "PAIR_GRID", "grid_starts", "log_uniform"]
