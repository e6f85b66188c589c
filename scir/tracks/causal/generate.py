"""Building one causal problem: subgraph, XYZ, SCM, environments and options, redrawn until
the reference solver (GIES on the printed rows, without the known edges) picks the right
option.

Two constructions (``params["construction"]``):

- ``paper``: every draw is redrawn whole (graph, interventions with at least one on XYZ or a
  neighbour, data, options). Keeping only what GIES solves then favours draws whose
  interventions hit XYZ's partners and whose edges point into XYZ, so those features carry
  information about the answer.
- ``balanced`` (default): the *structure* -- subgraph, XYZ's edges (uniform over the acyclic
  edge sets, so each direction is equally likely), column order, intervention targets (XYZ
  plus uniformly drawn subgraph nodes, blind to XYZ's partners) and the options (the
  distractors drawn uniformly from the same acyclic edge sets as the correct one) -- is drawn
  once; when GIES fails, only the SCM and the rows are redrawn, up to ``DATA_DRAWS`` times,
  before a new structure is drawn. Selection by the solver thus acts on the noise, not on
  the features a solver sees. The SCM's parameters (``balanced_scm.py``) leave means,
  variances and R² of every node uninformative about the directions of XYZ's edges.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from scir.errors import ConfigError, GenerationError, SolverInputError
from scir.tracks.causal.balanced_scm import balanced_scm
from scir.tracks.causal.formal import CausalEnvironment, CausalFormal
from scir.tracks.causal.graph import (
    NEW_PROTEIN,
    TaskGraph,
    add_xyz,
    connected_subgraph,
    sachs_graph,
)
from scir.tracks.causal.options import EXACT, OPEN, Edge, choose_options, max_options
from scir.tracks.causal.scm import (
    Environment,
    choose_interventions,
    choose_interventions_blind,
    random_scm,
    sample_environments,
)
from scir.tracks.causal.solve import Dataset, Solution, run_gies

MAX_ATTEMPTS = 500  # GIES runs per task, both constructions
DATA_DRAWS = 25  # balanced: SCM and row redraws per structure


def task_rng(seed: int, index: int, salt: str = "") -> np.random.Generator:
    """The numpy Generator of task ``index`` of a file made with ``seed`` (any int seed).

    ``salt`` (the balanced construction passes its tier) keeps tiers independent: without it,
    task ``i`` of an Easy and a Hard file start from the same random state (the paper
    construction, kept byte for byte)."""
    prefix = f"scir.tracks.causal{':' + salt if salt else ''}"
    digest = hashlib.sha256(f"{prefix}:{seed}:{index}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def params_rng(params: dict[str, Any], tier: str, seed: int, index: int) -> np.random.Generator:
    """The Generator of task ``index`` of ``tier`` for ``params`` (tier-salted in the
    balanced construction, the original unsalted stream in the paper construction)."""
    if params.get("construction", "balanced") == "paper":
        return task_rng(seed, index)
    return task_rng(seed, index, f"balanced:{tier}")


@dataclass
class Problem:
    """A generated problem that GIES solves."""

    graph: TaskGraph
    columns: list[str]
    environments: list[Environment]
    options: list[frozenset[Edge]]
    answer_index: int
    solution: Solution
    attempts: int  # draws made; attempts - 1 were regenerated
    failures: dict[str, int]  # why the regenerated draws were rejected

    def formal(self) -> dict[str, Any]:
        """The task's formal object, in its JSON form (:meth:`CausalFormal.dump`)."""
        return CausalFormal(
            nodes=tuple(self.graph.nodes),
            environments=tuple(
                CausalEnvironment(e.name, tuple(e.targets), tuple(tuple(r) for r in e.rows), e.kind)
                for e in self.environments
            ),
            known_edges=tuple((a, b) for a, b in self.graph.known_edges),
            xyz_edges=tuple((a, b) for a, b in self.graph.xyz_edges),
            columns=tuple(self.columns),
        ).dump()


def is_open(params: dict[str, Any]) -> bool:
    """Whether ``params`` ask for an open task (``answer`` = ``open``: the exact edge set, no
    options); absent (every file made before open tasks existed) means options."""
    return params.get("answer", "options") == OPEN


def check_params(params: dict[str, Any]) -> None:
    """Reject parameter combinations no draw can satisfy (ConfigError)."""
    n, c, k = params["nodes"], params["connections"], params["options"]
    if c > n:
        raise ConfigError(f"--connections ({c}) cannot exceed --nodes ({n})", field="connections")
    if not is_open(params) and k > max_options(n, c):
        raise ConfigError(
            f"{n} nodes and {c} connections allow at most {max_options(n, c)} "
            f"distinct options; --options is {k}",
            field="options",
        )
    if params["interventions"] > n:
        raise ConfigError(
            f"--interventions ({params['interventions']}) cannot exceed the "
            f"{n + 1} proteins minus one",
            field="interventions",
        )


def draw(
    params: dict[str, Any], rng: np.random.Generator
) -> tuple[TaskGraph, list[str], list[Environment]]:
    """One draw of graph, column order and environments (no solver involved)."""
    sub = connected_subgraph(sachs_graph(params["graph"]), params["nodes"], rng)
    task_graph = add_xyz(sub, params["connections"], rng)
    nodes = task_graph.nodes
    columns = [nodes[int(i)] for i in rng.permutation(len(nodes))]
    scm = random_scm(task_graph, rng)
    interventions = choose_interventions(task_graph, params["interventions"], rng)
    envs = sample_environments(scm, interventions, params["samples"], columns, rng)
    return task_graph, columns, envs


def build(params: dict[str, Any], rng: np.random.Generator, task_id: str) -> Problem:
    """Draw problems until GIES maps the printed data to the correct option, with the
    construction of ``params["construction"]`` (``balanced`` when absent)."""
    if params.get("construction", "balanced") == "paper":
        return _build_paper(params, rng, task_id)
    return _build_balanced(params, rng, task_id)


def _options(
    params: dict[str, Any], task_graph: TaskGraph, rng: np.random.Generator
) -> tuple[list[frozenset[Edge]], int]:
    """The options of a draw and the index of the right one; an open task's only "option" is
    the gold edge set itself (no random numbers drawn), matched exactly by ``_solved``."""
    if is_open(params):
        return [frozenset(task_graph.xyz_edges)], 0
    return choose_options(task_graph.subgraph, task_graph.xyz_edges, params["options"], rng)


def _solved(
    columns: list[str],
    task_graph: TaskGraph,
    envs: list[Environment],
    options: list[frozenset[Edge]],
    answer: int,
    failures: dict[str, int],
    exact: bool = False,
) -> Solution | None:
    """GIES's solution of one draw when it picks the ``answer`` option (``exact``: when its
    set of XYZ's directed edges is that option's set, as open tasks need); else None, with the
    reason counted in ``failures`` (solver_input, no_match, wrong_option)."""
    ds = Dataset(
        columns,
        task_graph.nodes,
        [np.array(e.rows, dtype=np.float64) for e in envs],
        [sorted(columns.index(t) for t in e.targets) for e in envs],
        task_graph.known_edges,
    )
    try:
        solution = run_gies(ds, options, NEW_PROTEIN)
    except SolverInputError:  # e.g. a column constant after clipping
        reason = "solver_input"
    else:
        if solution.match.index == answer and (not exact or solution.match.how == EXACT):
            return solution
        reason = (
            "no_match"
            if solution.match.index is None
            else "extra_edges"
            if solution.match.index == answer
            else "wrong_option"
        )
    failures[reason] = failures.get(reason, 0) + 1
    return None


def _build_balanced(params: dict[str, Any], rng: np.random.Generator, task_id: str) -> Problem:
    check_params(params)
    failures: dict[str, int] = {}
    attempt = 0
    while attempt < MAX_ATTEMPTS:
        sub = connected_subgraph(sachs_graph(params["graph"]), params["nodes"], rng)
        task_graph = add_xyz(sub, params["connections"], rng)
        nodes = task_graph.nodes
        columns = [nodes[int(i)] for i in rng.permutation(len(nodes))]
        interventions = choose_interventions_blind(task_graph, params["interventions"], rng)
        try:
            options, answer = _options(params, task_graph, rng)
        except GenerationError:
            attempt += 1
            failures["too_few_options"] = failures.get("too_few_options", 0) + 1
            continue
        for _ in range(DATA_DRAWS):
            attempt += 1
            scm = balanced_scm(task_graph, rng)
            envs = sample_environments(scm, interventions, params["samples"], columns, rng)
            solution = _solved(
                columns, task_graph, envs, options, answer, failures, is_open(params)
            )
            if solution is not None:
                return Problem(
                    task_graph,
                    columns,
                    envs,
                    options,
                    answer,
                    solution,
                    attempt,
                    dict(sorted(failures.items())),
                )
            if attempt >= MAX_ATTEMPTS:
                break
        failures["new_structure"] = failures.get("new_structure", 0) + 1
    raise GenerationError(f"GIES solved none of {MAX_ATTEMPTS} draws ({failures})", task_id=task_id)


def _build_paper(params: dict[str, Any], rng: np.random.Generator, task_id: str) -> Problem:
    check_params(params)
    failures: dict[str, int] = {}
    for attempt in range(1, MAX_ATTEMPTS + 1):
        task_graph, columns, envs = draw(params, rng)
        try:
            options, answer = _options(params, task_graph, rng)
        except GenerationError:
            failures["too_few_options"] = failures.get("too_few_options", 0) + 1
            continue
        solution = _solved(columns, task_graph, envs, options, answer, failures, is_open(params))
        if solution is not None:
            return Problem(
                task_graph,
                columns,
                envs,
                options,
                answer,
                solution,
                attempt,
                dict(sorted(failures.items())),
            )
    raise GenerationError(f"GIES solved none of {MAX_ATTEMPTS} draws ({failures})", task_id=task_id)
