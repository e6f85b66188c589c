"""Solving a causal formal object: validate it, run GIES (or GES on pooled rows), and map XYZ's
directed edges to an option.

The formal object (a :class:`CausalFormal`) may come from the generator (gold, validated by
``CausalFormal.load``) or from a model's formalization (built by the parser). The known edges
are not given to the solver: the reference solver recovers the whole graph from the data
alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scir.errors import SolverInputError
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.graph import NEW_PROTEIN, Edge
from scir.tracks.causal.options import Match, match_options, xyz_directed


@dataclass
class Dataset:
    """A validated formal object: column names, and per environment its rows and targets."""

    columns: list[str]
    names: list[str]
    data: list[np.ndarray]
    targets: list[list[int]]
    known_edges: list[Edge]

    def pooled(self) -> np.ndarray:
        """All rows of all environments stacked (for observational-only solvers)."""
        return np.vstack(self.data)


def dataset(
    formal: CausalFormal, *, task_id: str | None = None, new_protein: str = NEW_PROTEIN
) -> Dataset:
    """A formal object (validated by :meth:`CausalFormal.load` or built by the parser) as
    solver input: names matched ignoring case to the spelling of ``nodes``, rows as arrays,
    targets as column indices. SolverInputError when the new protein is not among the nodes.
    """
    known = {v.casefold(): v for v in formal.nodes}
    if new_protein.casefold() not in known:
        raise SolverInputError(
            f"the new protein {new_protein} is not among the nodes",
            task_id=task_id,
            field="formal.nodes",
        )
    nodes = list(formal.nodes)
    columns = [known[c.casefold()] for c in formal.column_order]
    known_edges = [(known[a.casefold()], known[b.casefold()]) for a, b in formal.known_edges]
    data = [
        np.array(env.rows, dtype=float).reshape(len(env.rows), len(columns))
        for env in formal.environments
    ]
    targets = [
        sorted(columns.index(known[t.casefold()]) for t in env.targets)
        for env in formal.environments
    ]
    return Dataset(columns, nodes, data, targets, known_edges)


@dataclass
class Solution:
    """What a solver found: XYZ's directed and undirected edges, and the option match."""

    solver: str
    match: Match
    directed: list[Edge]
    undirected: list[Edge]

    @property
    def letter(self) -> str | None:
        return self.match.letter


def _solution(
    solver: str, result: Any, options: Sequence[frozenset[Edge]], new_protein: str
) -> Solution:
    directed = [tuple(e) for e in result.directed_edges()]
    undirected = [tuple(e) for e in result.undirected_edges()]
    found = xyz_directed(directed, new_protein)
    return Solution(solver, match_options(found, options), directed, undirected)


def run_gies(
    ds: Dataset, options: Sequence[frozenset[Edge]], new_protein: str = NEW_PROTEIN
) -> Solution:
    """GIES on the environments with their intervention targets, mapped to an option."""
    from solvers.gies import fit

    return _solution("gies", fit(ds.data, ds.targets, names=ds.columns), options, new_protein)


def run_ges(
    ds: Dataset, options: Sequence[frozenset[Edge]], new_protein: str = NEW_PROTEIN
) -> Solution:
    """GES (causal-learn, BIC) on all rows pooled, targets ignored, mapped to an option."""
    from solvers.gies import fit_ges

    return _solution("ges", fit_ges(ds.pooled(), names=ds.columns), options, new_protein)
