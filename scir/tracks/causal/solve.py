"""Solving a causal formal object: validate it, run GIES (or GES on pooled rows), and map XYZ's
directed edges to an option.

The formal object may come from the generator (gold) or from a model's formalization, so it is
validated field by field first; anything malformed is a :class:`SolverInputError` naming the
field. The known edges are validated but not given to the solver: the reference solver
recovers the whole graph from the data alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from scir.errors import SolverInputError
from scir.tracks.causal.graph import NEW_PROTEIN, Edge
from scir.tracks.causal.options import Match, match_options, xyz_directed
from scir.tracks.causal.scm import KINDS


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


def _fail(message: str, field: str, task_id: str | None) -> SolverInputError:
    return SolverInputError(message, task_id=task_id, field=field)


def _names(value: Any, field: str, task_id: str | None) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip()
                                                           for v in value):
        raise _fail("expected a non-empty list of protein names", field, task_id)
    folded = [v.casefold() for v in value]
    if len(set(folded)) != len(folded):
        dup = next(v for v in value if folded.count(v.casefold()) > 1)
        raise _fail(f"protein {dup!r} is listed twice", field, task_id)
    return list(value)


def _node(name: Any, known: dict[str, str], field: str, task_id: str | None) -> str:
    if not isinstance(name, str) or name.casefold() not in known:
        raise _fail(f"unknown protein {name!r} (known: {', '.join(known.values())})", field,
                    task_id)
    return known[name.casefold()]


def _number(value: Any, field: str, task_id: str | None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(f"expected a finite number, got {value!r}", field, task_id)
    return float(value)


def dataset(formal: Any, *, task_id: str | None = None,
            new_protein: str = NEW_PROTEIN) -> Dataset:
    """Validate a causal formal object and turn it into solver input.

    Needs ``nodes`` (protein names, the new protein among them), ``environments`` (each with
    ``name``, ``targets`` and ``rows``; ``kind`` optional) and optionally ``columns`` (the
    order of the values in every row; default ``nodes``) and ``known_edges``.
    """
    if not isinstance(formal, dict):
        raise _fail("a causal formalization must be an object", "formal", task_id)
    nodes = _names(formal.get("nodes"), "formal.nodes", task_id)
    known = {v.casefold(): v for v in nodes}
    if new_protein.casefold() not in known:
        raise _fail(f"the new protein {new_protein} is not among the nodes", "formal.nodes",
                    task_id)
    columns = nodes
    if formal.get("columns") is not None:
        columns = _names(formal["columns"], "formal.columns", task_id)
        if sorted(c.casefold() for c in columns) != sorted(known):
            raise _fail("columns must name every node exactly once", "formal.columns", task_id)
        columns = [known[c.casefold()] for c in columns]
    edges = formal.get("known_edges", [])
    if not isinstance(edges, list):
        raise _fail("expected a list of [from, to] pairs", "formal.known_edges", task_id)
    known_edges = []
    for i, e in enumerate(edges):
        where = f"formal.known_edges[{i}]"
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            raise _fail("expected a [from, to] pair", where, task_id)
        known_edges.append((_node(e[0], known, where, task_id), _node(e[1], known, where, task_id)))
    envs = formal.get("environments")
    if not isinstance(envs, list) or not envs:
        raise _fail("expected a non-empty list of environments", "formal.environments", task_id)
    width = len(columns)
    data, targets, seen = [], [], set()
    for e, env in enumerate(envs):
        where = f"formal.environments[{e}]"
        if not isinstance(env, dict):
            raise _fail("an environment must be an object", where, task_id)
        name = env.get("name")
        if not isinstance(name, str) or not name.strip():
            raise _fail("expected a non-empty name", where + ".name", task_id)
        if name in seen:
            raise _fail(f"environment {name!r} appears twice", where + ".name", task_id)
        seen.add(name)
        if "kind" in env and env["kind"] not in KINDS:
            raise _fail(f"kind must be one of {', '.join(KINDS)}", where + ".kind", task_id)
        raw_targets = env.get("targets")
        if not isinstance(raw_targets, list):
            raise _fail("expected a list of protein names", where + ".targets", task_id)
        env_targets = [_node(t, known, where + ".targets", task_id) for t in raw_targets]
        if len(set(env_targets)) != len(env_targets):
            raise _fail("a target is listed twice", where + ".targets", task_id)
        rows = env.get("rows")
        if not isinstance(rows, list) or len(rows) < 2:
            raise _fail("expected a list of at least 2 rows", where + ".rows", task_id)
        table = np.empty((len(rows), width))
        for r, row in enumerate(rows):
            rwhere = f"{where}.rows[{r}]"
            if not isinstance(row, list) or len(row) != width:
                raise _fail(f"expected a row of {width} numbers (one per column)", rwhere, task_id)
            table[r] = [_number(v, rwhere, task_id) for v in row]
        data.append(table)
        targets.append(sorted(columns.index(t) for t in env_targets))
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


def _solution(solver: str, result: Any, options: Sequence[frozenset[Edge]],
              new_protein: str) -> Solution:
    directed = [tuple(e) for e in result.directed_edges()]
    undirected = [tuple(e) for e in result.undirected_edges()]
    found = xyz_directed(directed, new_protein)
    return Solution(solver, match_options(found, options), directed, undirected)


def run_gies(ds: Dataset, options: Sequence[frozenset[Edge]],
             new_protein: str = NEW_PROTEIN) -> Solution:
    """GIES on the environments with their intervention targets, mapped to an option."""
    from solvers.gies import fit

    return _solution("gies", fit(ds.data, ds.targets, names=ds.columns), options, new_protein)


def run_ges(ds: Dataset, options: Sequence[frozenset[Edge]],
            new_protein: str = NEW_PROTEIN) -> Solution:
    """GES (causal-learn, BIC) on all rows pooled, targets ignored, mapped to an option."""
    from solvers.gies import fit_ges

    return _solution("ges", fit_ges(ds.pooled(), names=ds.columns), options, new_protein)
