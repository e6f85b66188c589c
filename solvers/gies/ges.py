"""GES on pooled observational data through causal-learn (BIC score), as a :class:`GiesResult`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solvers.errors import SolverError, SolverInputError
from solvers.gies.api import GiesResult


def fit_ges(data_pooled: np.ndarray, *, names: Sequence[str] | None = None) -> GiesResult:
    """Run causal-learn's GES (``local_score_BIC``) on one ``n x p`` array.

    Returns the estimated CPDAG with our adjacency convention (``A[i, j] != 0`` means ``i -> j``,
    both directions = undirected) and causal-learn's total score of it: the Gaussian BIC
    ``sum_k -n/2 (1 + log sigma_k^2) - 1/2 log(n) (|pa_k| + 1)``, higher is better -- the
    same value :class:`solvers.gies.GaussIntScore` gives a DAG of that class on one environment.
    """
    try:
        X = np.array(data_pooled, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SolverInputError(f"data is not numeric ({exc})") from exc
    if X.ndim != 2:
        raise SolverInputError(f"expected a 2-D array (rows x variables), got {X.ndim}-D")
    if X.shape[0] < 2 or X.shape[1] < 1:
        raise SolverInputError(f"needs at least 2 rows and 1 column, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise SolverInputError("data contains NaN or inf")
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != X.shape[1]:
            raise SolverInputError(f"got {len(names)} names for {X.shape[1]} variables")
    try:
        from causallearn.search.ScoreBased.GES import ges
    except ImportError as exc:  # pragma: no cover - causal-learn is a dependency
        raise SolverError("fit_ges needs causal-learn (pip install causal-learn)") from exc
    try:
        record = ges(X, score_func="local_score_BIC")
    except (ValueError, np.linalg.LinAlgError) as exc:
        raise SolverError(f"causal-learn GES failed: {exc}") from exc
    # causal-learn's GeneralGraph: G[j, i] == 1 and G[i, j] == -1 means i -> j;
    # G[i, j] == G[j, i] == -1 means i - j.
    G = np.asarray(record["G"].graph)
    p = X.shape[1]
    A = np.zeros((p, p), dtype=np.int8)
    for i in range(p):
        for j in range(p):
            if i == j:
                continue
            if G[i, j] == -1 and G[j, i] == 1:
                A[i, j] = 1
            elif G[i, j] == -1 and G[j, i] == -1:
                A[i, j] = 1
    return GiesResult(adjacency=A, score=float(record["score"]), names=names)
