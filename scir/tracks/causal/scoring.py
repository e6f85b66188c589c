"""The causal track's scorer (:class:`CausalScorer`) and the task readings it scores by.

- Option tasks (rule ``option``): the generic :class:`~scir.outcomes.scoring.OptionScorer`
  given the causal items: each option's set of XYZ's directed edges (:func:`option_sets`),
  the edge set an answer such as ``XYZ -> Raf; Mek -> XYZ`` states (:func:`answer_items`),
  edges compared with protein names ignoring case (:func:`~scir.tracks.causal.options.
  fold_edge`). An option letter in the pool is right; a stated set is matched to an option
  by :func:`~scir.outcomes.scoring.match_subset`.
- Open tasks (rule ``edges``): the answer states exactly the gold edge set (names compared
  ignoring case); the assessment carries the answer's edge precision, recall, F1 and SHD
  against the gold set (:func:`~scir.tracks.causal.options.edge_metrics`; an answer stating
  no set counts as the empty set).
"""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.outcomes.scoring import OPTION, Assessment, OptionScorer
from scir.tasks import Task
from scir.tracks.base import load_formal
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.generate import is_open
from scir.tracks.causal.graph import NEW_PROTEIN, Edge
from scir.tracks.causal.options import (
    MAX_OPTIONS,
    edge_metrics,
    fold_edge,
    parse_open_answer,
    parse_option,
)

EDGES = "edges"  # the rule of an open task, as exports record it


def is_open_task(task: Task) -> bool:
    """Whether a task is open (``params["answer"] == "open"``: the answer is the exact edge
    set, there are no options); a task without the field has options -- unless it has none,
    as a release record of an open task (``scir export --format scir``: no params; an option
    task always has options)."""
    return is_open(task.params) or not task.options


def new_protein(task: Task) -> str:
    """The name of the task's new protein (``domain_metadata``, default ``XYZ``)."""
    name = task.domain_metadata.get("new_protein", NEW_PROTEIN)
    return name if isinstance(name, str) and name else NEW_PROTEIN


def option_sets(task: Task) -> list[frozenset[Edge]]:
    """The edge sets of a task's options (TaskFormatError if an option is malformed)."""
    if not task.options:
        raise TaskFormatError("causal tasks need options", task_id=task.task_id, field="options")
    if len(task.options) > MAX_OPTIONS:
        raise TaskFormatError(
            f"at most {MAX_OPTIONS} options (A..T)", task_id=task.task_id, field="options"
        )
    return [parse_option(t, task_id=task.task_id, index=i) for i, t in enumerate(task.options)]


def answer_items(task: Task, answer: str) -> frozenset[Edge] | None:
    """XYZ's edges stated by an answer such as ``XYZ -> Raf; Mek -> XYZ`` (None for other
    text)."""
    try:
        return parse_option(answer, task_id=task.task_id)
    except TaskFormatError:
        return None


def open_answer(task: Task, text: str) -> frozenset[Edge] | None:
    """The edge set an open task's answer states (None when it states none); names are the
    task's proteins (``domain_metadata``, so release records without a formal object score
    too)."""
    nodes = task.domain_metadata.get("subgraph_nodes")
    names = (
        [str(n) for n in nodes] + [new_protein(task)]
        if isinstance(nodes, list) and nodes
        else list(load_formal(CausalFormal, task).nodes)
    )
    return parse_open_answer(text, names)


def open_gold(task: Task) -> frozenset[Edge]:
    """An open task's gold edge set: its answer's edges (``XYZ -> Raf; Mek -> XYZ``)."""
    return parse_option(task.answer, task_id=task.task_id)


class CausalScorer(OptionScorer):
    """``option`` for option tasks (letters, or stated edge sets by subset match), ``edges``
    for open tasks (the exact set, with edge metrics); the module docstring."""

    rule = OPTION

    def __init__(self) -> None:
        super().__init__(option_items=option_sets, answer_items=answer_items, fold=fold_edge)

    def rule_of(self, task: Task) -> str:
        """``edges`` for an open task (the exact set of XYZ's directed edges), else
        ``option``."""
        return EDGES if is_open_task(task) else self.rule

    def score(self, task: Task, answer: str | None) -> bool:
        if not is_open_task(task):
            return super().score(task, answer)
        if answer is None:
            return False
        got = open_answer(task, answer)
        gold = {fold_edge(e) for e in open_gold(task)}
        return got is not None and {fold_edge(e) for e in got} == gold

    def answer_metrics(self, task: Task, answer: str | None) -> dict[str, Any] | None:
        """Open tasks: edge precision, recall, F1 and SHD of the answer's edge set against
        the gold (an answer stating no set counts as the empty set); None for option tasks."""
        if not is_open_task(task):
            return None
        got = None if answer is None else open_answer(task, answer)
        return edge_metrics(got or (), open_gold(task))

    def assess(self, task: Task, answer: str | None) -> Assessment:
        """The verdict with, for an open task, the answer's edge metrics."""
        return Assessment(bool(self.score(task, answer)), self.answer_metrics(task, answer))


__all__ = [
    "EDGES",
    "CausalScorer",
    "answer_items",
    "is_open_task",
    "new_protein",
    "open_answer",
    "open_gold",
    "option_sets",
]
