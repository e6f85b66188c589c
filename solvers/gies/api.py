"""Public entry points of the GIES solver: :func:`fit` on arrays, :func:`fit_frame` on a table."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.errors import SolverInputError
from solvers.gies.score import GaussIntScore
from solvers.gies.search import PHASES, SearchTrace, greedy_search


@dataclass
class GiesResult:
    """An estimated (interventional) essential graph.

    ``adjacency[i, j] != 0`` means an edge mark ``i -> j``; when both ``adjacency[i, j]`` and
    ``adjacency[j, i]`` are nonzero the edge ``i - j`` is undirected. ``score`` is the graph's
    score (BIC-type, higher is better); ``names`` optionally labels the nodes.
    """

    adjacency: np.ndarray
    score: float
    names: list[str] | None = None
    steps: list[tuple[str, int, int, float]] = field(default_factory=list)

    def _label(self, i: int) -> Any:
        return self.names[i] if self.names is not None else int(i)

    def directed_edges(self) -> list[tuple[Any, Any]]:
        """Directed edges ``(i, j)`` meaning ``i -> j``, sorted by node index."""
        A = self.adjacency != 0
        return [(self._label(i), self._label(j)) for i, j in zip(*np.nonzero(A & ~A.T))]

    def undirected_edges(self) -> list[tuple[Any, Any]]:
        """Undirected edges ``(i, j)`` with ``i`` before ``j`` in node order."""
        A = self.adjacency != 0
        return [(self._label(i), self._label(j)) for i, j in zip(*np.nonzero(np.triu(A & A.T)))]

    @property
    def n_edges(self) -> int:
        """Number of edges (an undirected edge counts once)."""
        return len(self.directed_edges()) + len(self.undirected_edges())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: nodes, directed and undirected edges, score, adjacency."""
        return {
            "nodes": list(self.names)
            if self.names is not None
            else list(range(len(self.adjacency))),
            "directed": [list(e) for e in self.directed_edges()],
            "undirected": [list(e) for e in self.undirected_edges()],
            "score": self.score,
            "adjacency": self.adjacency.astype(int).tolist(),
        }


def fit(
    data: Sequence[np.ndarray],
    targets: Sequence[Sequence[int]],
    *,
    names: Sequence[str] | None = None,
    phases: Sequence[str] = PHASES,
    iterate: bool = True,
) -> GiesResult:
    """Run GIES with the interventional Gaussian BIC score.

    ``data`` holds one ``n_e x p`` array per environment, ``targets`` one list of intervened
    column indices per environment (``[]`` for observational data). Returns the estimated
    interventional essential graph; raises :class:`SolverInputError` on malformed input.
    Reproduces ``gies.fit_bic`` of the ``gies`` package 0.0.3.
    """
    score = GaussIntScore(data, targets)
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != score.p:
            raise SolverInputError(f"got {len(names)} names for {score.p} variables")
    for phase in phases:
        if phase not in PHASES:
            raise SolverInputError(f"unknown phase {phase!r}; expected some of {list(PHASES)}")
    trace = SearchTrace()
    graph, total = greedy_search(score, phases=phases, iterate=iterate, trace=trace)
    return GiesResult(
        adjacency=graph.to_matrix(), score=float(total), names=names, steps=trace.steps
    )


def split_frame(
    frame: Any,
    env_column: str,
    targets_by_env: Mapping[Hashable, Sequence[str]],
    columns: Sequence[str] | None = None,
) -> tuple[list[np.ndarray], list[list[int]], list[str], list[Hashable]]:
    """Split a table with an environment column into GIES inputs.

    Returns ``(data, targets, names, environments)``; environments appear in order of first
    occurrence in the table. Every environment of the table must be a key of
    ``targets_by_env`` (value: the intervened column names); keys absent from the table are an
    error too, as they most likely are a misspelling.
    """
    if env_column not in frame.columns:
        raise SolverInputError(
            f"environment column {env_column!r} not in the table", field=env_column
        )
    names = [str(c) for c in (columns if columns is not None else frame.columns) if c != env_column]
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise SolverInputError(f"columns {missing} not in the table")
    if not names:
        raise SolverInputError("the table has no variable column besides the environment column")
    env_values = list(dict.fromkeys(frame[env_column].tolist()))
    keyed = {str(k): k for k in targets_by_env}
    data, targets = [], []
    for env in env_values:
        key = env if env in targets_by_env else keyed.get(str(env))
        if key is None:
            raise SolverInputError(
                f"environment {env!r} of the table has no entry in the targets", field=env_column
            )
        unknown = [t for t in targets_by_env[key] if t not in names]
        if unknown:
            raise SolverInputError(
                f"targets {unknown} of environment {env!r} are not variable columns"
            )
        block = frame.loc[frame[env_column] == env, names]
        try:
            arr = block.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise SolverInputError(f"environment {env!r}: non-numeric values ({exc})") from exc
        data.append(arr)
        targets.append([names.index(t) for t in targets_by_env[key]])
    extra = sorted(
        str(k)
        for k in targets_by_env
        if k not in env_values and str(k) not in {str(v) for v in env_values}
    )
    if extra:
        raise SolverInputError(f"targets name environments {extra} that are not in the table")
    return data, targets, names, env_values


def fit_frame(
    frame: Any,
    env_column: str,
    targets_by_env: Mapping[Hashable, Sequence[str]],
    *,
    columns: Sequence[str] | None = None,
) -> GiesResult:
    """Run GIES on a pandas DataFrame whose ``env_column`` names each row's environment.

    ``targets_by_env`` maps each environment value to the names of its intervened columns;
    the other columns (or ``columns``) are the variables. Node names are the column names.
    """
    data, targets, names, _ = split_frame(frame, env_column, targets_by_env, columns)
    return fit(data, targets, names=names)
