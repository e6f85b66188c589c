"""The interventional Gaussian BIC score of GIES (``GaussIntL0Pen`` of the ``gies`` package).

Each environment is centred on its own mean. A variable's local score uses only the samples of
the environments in which it is *not* intervened on: with ``n_k`` such samples and ``S_k`` the
pooled (per-environment centred) covariance of those samples,

    score(k, pa) = -n_k / 2 * (1 + log sigma^2_{k|pa}) - lambda * (|pa| + 1),
    lambda = 1/2 * log N,   N = all samples of all environments,

where ``sigma^2_{k|pa}`` is the residual variance of the least-squares regression of ``k`` on
``pa`` under ``S_k``. Parent sets are Python ``int`` bit masks (bit ``j`` set = ``j`` is a parent);
local scores are cached by ``(node, parent mask)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from solvers.errors import SolverInputError


def _validate_targets(targets: Sequence[Sequence[int]], n_envs: int, p: int) -> list[list[int]]:
    """Check the target family and return it as plain lists of ``int``."""
    if isinstance(targets, (str, bytes)) or not isinstance(targets, Sequence):
        raise SolverInputError(
            "targets must be a list with one list of column indices per environment"
        )
    if len(targets) != n_envs:
        raise SolverInputError(
            f"got {n_envs} data environments but {len(targets)} target lists; give one list per environment"
        )
    clean: list[list[int]] = []
    for e, env_targets in enumerate(targets):
        if isinstance(env_targets, (str, bytes)) or not isinstance(
            env_targets, (Sequence, np.ndarray)
        ):
            raise SolverInputError(f"targets of environment {e} must be a list of column indices")
        row: list[int] = []
        for t in env_targets:
            if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, np.integer)):
                raise SolverInputError(f"target {t!r} of environment {e} is not a column index")
            if not 0 <= int(t) < p:
                raise SolverInputError(
                    f"target {int(t)} of environment {e} is out of range 0..{p - 1}"
                )
            if int(t) in row:
                raise SolverInputError(f"target {int(t)} is listed twice in environment {e}")
            row.append(int(t))
        clean.append(row)
    for k in range(p):
        if all(k in row for row in clean):
            raise SolverInputError(
                f"variable {k} is intervened on in every environment (the target family is not "
                "conservative): its observational mechanism cannot be scored"
            )
    return clean


def _validate_data(data: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Check the environments' arrays and return them as float64 copies."""
    if isinstance(data, np.ndarray) or not isinstance(data, Sequence):
        raise SolverInputError("data must be a list of 2-D arrays, one per environment")
    if len(data) == 0:
        raise SolverInputError("data has no environment")
    arrays: list[np.ndarray] = []
    p = None
    for e, env in enumerate(data):
        try:
            arr = np.array(env, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise SolverInputError(f"environment {e}: data is not numeric ({exc})") from exc
        if arr.ndim != 2:
            raise SolverInputError(
                f"environment {e}: expected a 2-D array (rows x variables), got {arr.ndim}-D"
            )
        if arr.shape[0] < 2:
            raise SolverInputError(f"environment {e}: needs at least 2 rows, got {arr.shape[0]}")
        if arr.shape[1] < 1:
            raise SolverInputError(f"environment {e}: has no columns")
        if p is None:
            p = arr.shape[1]
        elif arr.shape[1] != p:
            raise SolverInputError(
                f"environment {e} has {arr.shape[1]} columns but environment 0 has {p}; all must match"
            )
        if not np.isfinite(arr).all():
            rows, cols = np.nonzero(~np.isfinite(arr))
            raise SolverInputError(
                f"environment {e}: non-finite value (NaN or inf) at row {int(rows[0])}, column {int(cols[0])}"
            )
        arrays.append(arr)
    return arrays


class GaussIntScore:
    """Cached interventional BIC score over a list of environments.

    ``data[e]`` is an ``n_e x p`` array, ``targets[e]`` the columns intervened on in environment
    ``e``. Raises :class:`SolverInputError` for malformed input.
    """

    def __init__(self, data: Sequence[np.ndarray], targets: Sequence[Sequence[int]]) -> None:
        arrays = _validate_data(data)
        self.p: int = arrays[0].shape[1]
        self.targets: list[list[int]] = _validate_targets(targets, len(arrays), self.p)
        self.n_obs = np.array([a.shape[0] for a in arrays], dtype=np.int64)
        self.N = int(self.n_obs.sum())
        self.lmbda = 0.5 * math.log(self.N)
        # per-environment scatter matrices of the environment-centred data
        scatter = np.stack([(a - a.mean(axis=0)).T @ (a - a.mean(axis=0)) for a in arrays])
        free = np.array(
            [[k not in row for row in self.targets] for k in range(self.p)], dtype=np.float64
        )
        self.n_free = free @ self.n_obs.astype(np.float64)  # samples where k is not intervened on
        # part_cov[k] = pooled covariance of the samples in which k is not intervened on
        self.part_cov = np.einsum("ke,eij->kij", free, scatter) / self.n_free[:, None, None]
        for k in range(self.p):
            var = self.part_cov[k, k, k]
            if not var > 1e-12 * max(1.0, float(np.abs(self.part_cov[k]).max())):
                raise SolverInputError(
                    f"variable {k} is constant within the environments where it is not intervened on"
                )
        self._half_n = [0.5 * float(n) for n in self.n_free]
        self._cache: dict[tuple[int, int], float] = {}

    def local_score(self, k: int, parents: int) -> float:
        """Local score of node ``k`` with the parents in bit mask ``parents`` (cached)."""
        key = (k, parents)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        value = self._compute(k, parents)
        self._cache[key] = value
        return value

    def _compute(self, k: int, parents: int) -> float:
        S = self.part_cov[k]
        pa = [j for j in range(self.p) if parents >> j & 1]
        n_pa = len(pa)
        if n_pa == 0:
            sigma = S[k, k]
        else:
            rhs = S[pa, k]
            try:
                b = np.linalg.solve(S[np.ix_(pa, pa)], rhs)
            except np.linalg.LinAlgError as exc:
                raise SolverInputError(
                    f"the columns {pa} are linearly dependent in the samples used for variable {k}"
                ) from exc
            sigma = S[k, k] - b @ rhs
        if not sigma > 0:
            raise SolverInputError(f"variable {k} is an exact linear function of columns {pa}")
        return -self._half_n[k] * (1.0 + math.log(sigma)) - self.lmbda * (n_pa + 1)

    def empty_graph_score(self) -> float:
        """Score of the graph without edges (the starting point of the search)."""
        return float(sum(self.local_score(k, 0) for k in range(self.p)))

    def graph_score(self, adjacency: np.ndarray) -> float:
        """Score of a DAG given as an adjacency matrix (``A[i, j] != 0`` means ``i -> j``)."""
        A = np.asarray(adjacency) != 0
        if A.shape != (self.p, self.p):
            raise SolverInputError(f"adjacency must be {self.p}x{self.p}, got {A.shape}")
        total = 0.0
        for k in range(self.p):
            mask = sum(1 << j for j in np.flatnonzero(A[:, k]))
            total += self.local_score(k, int(mask))
        return total
