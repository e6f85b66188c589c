"""Answer options (sets of exactly ``c`` directed XYZ edges) and matching a found graph to them.

An option's text lists its edges, e.g. ``XYZ -> Raf; Mek -> XYZ``. Matching uses XYZ's
*directed* edges only (an undirected edge at XYZ counts as not found): an option whose set
equals the found set matches; otherwise an option matches when it is the only one whose set is
strictly contained in the found set; anything else is no match.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from scir.errors import ConfigError, GenerationError, TaskFormatError
from scir.outcomes.scoring import EXACT, LETTERS, SUBSET, match_subset  # noqa: F401 (re-exported)
from scir.outcomes.scoring import option_letter as letter
from scir.tracks.causal.graph import (
    NEW_PROTEIN,
    Edge,
    is_acyclic_with,
    reachability,
    sorted_edges,
    sorted_nodes,
)

MAX_OPTIONS = 20  # letters A..T
_NAME = r"[A-Za-z][A-Za-z0-9_]*"
_ONE = rf"({_NAME})\s*->\s*({_NAME})"
_OPTION = re.compile(rf"\s*{_ONE}(?:\s*;\s*{_ONE})*\s*")
_EDGE = re.compile(_ONE)


def option_text(edges: Iterable[Edge], new_protein: str = NEW_PROTEIN) -> str:
    """``XYZ -> Raf; Mek -> XYZ``: edges ordered by the partner of the new protein (canonical
    node order)."""
    keyed = [((b if a == new_protein else a), (a, b)) for a, b in edges]
    order = sorted_nodes(k for k, _ in keyed)
    ranked = sorted(keyed, key=lambda item: (order.index(item[0]), item[1]))
    return "; ".join(f"{a} -> {b}" for _, (a, b) in ranked)


def parse_option(
    text: str, *, task_id: str | None = None, index: int | None = None
) -> frozenset[Edge]:
    """The edge set of an option text; raises TaskFormatError on anything else."""
    if _OPTION.fullmatch(text) is None:
        raise TaskFormatError(
            f"option {index if index is not None else ''} is not a list "
            f"of 'A -> B' edges separated by ';': {text!r}",
            task_id=task_id,
            field="options",
        )
    edges = [(m.group(1), m.group(2)) for m in _EDGE.finditer(text)]
    if len(set(edges)) != len(edges):
        raise TaskFormatError(f"option repeats an edge: {text!r}", task_id=task_id, field="options")
    return frozenset(edges)


def candidate_sets(subgraph: nx.DiGraph, c: int) -> list[frozenset[Edge]]:
    """Every set of ``c`` directed XYZ edges to distinct subgraph nodes that keeps the graph
    acyclic, in a fixed order."""
    nodes = sorted_nodes(subgraph.nodes)
    reach = reachability(subgraph)
    out = []
    for partners in itertools.combinations(nodes, c):
        for directions in itertools.product((0, 1), repeat=c):
            edges = [
                (NEW_PROTEIN, v) if d == 0 else (v, NEW_PROTEIN)
                for v, d in zip(partners, directions)
            ]
            if is_acyclic_with(subgraph, edges, reach):
                out.append(frozenset(edges))
    return out


def max_options(n: int, c: int) -> int:
    """Upper bound on the distinct options for ``n`` subgraph nodes and ``c`` edges."""
    from math import comb

    return comb(n, c) * 2**c


def choose_options(
    subgraph: nx.DiGraph, correct: Sequence[Edge], k: int, rng: np.random.Generator
) -> tuple[list[frozenset[Edge]], int]:
    """``k`` distinct acyclic option sets, one of them ``correct``, in random order; returns
    (sets, index of the correct one)."""
    if not 2 <= k <= MAX_OPTIONS:
        raise ConfigError(f"--options must lie in 2..{MAX_OPTIONS}, got {k}", field="options")
    right = frozenset(correct)
    pool = [s for s in candidate_sets(subgraph, len(right)) if s != right]
    if len(pool) < k - 1:
        raise GenerationError(
            f"only {len(pool) + 1} acyclic edge sets exist for XYZ; {k} options are asked for"
        )
    picked = [pool[int(i)] for i in rng.choice(len(pool), size=k - 1, replace=False)]
    sets = [right] + picked
    order = [int(i) for i in rng.permutation(k)]
    sets = [sets[i] for i in order]
    return sets, order.index(0)


@dataclass(frozen=True)
class Match:
    """The outcome of mapping a found graph to the options."""

    found: tuple[Edge, ...]  # XYZ's directed edges in the found graph
    index: int | None  # matched option, or None
    how: str | None  # "exact" | "subset" | None

    @property
    def letter(self) -> str | None:
        return None if self.index is None else letter(self.index)


def fold_edge(edge: Edge) -> tuple[str, str]:
    """An edge with its names compared ignoring case."""
    return (edge[0].casefold(), edge[1].casefold())


def xyz_directed(directed: Iterable[Edge], new_protein: str = NEW_PROTEIN) -> list[Edge]:
    """The directed edges that touch the new protein (names compared case-insensitively)."""
    name = new_protein.casefold()
    return sorted_edges(e for e in directed if name in (e[0].casefold(), e[1].casefold()))


def match_options(found: Iterable[Edge], options: Sequence[Iterable[Edge]]) -> Match:
    """Map a found set of directed XYZ edges to an option: exact match first, else the unique
    option strictly contained in the found set; names compare case-insensitively."""
    found_list = tuple(sorted_edges(found))
    match = match_subset(found_list, options, fold=fold_edge)
    return Match(found_list, match.index, match.how)


# ---- open answers: the exact edge set, no options ------------------------------------------

OPEN = "open"  # Task.params["answer"] of an open task (absent: options)
_ARROW = r"(?:-+>|→|⟶|=>|\bcauses\b|\bregulates\b|\bactivates\b)"
_FREE_EDGE = re.compile(rf"({_NAME})\s*{_ARROW}\s*({_NAME})", re.IGNORECASE)
_FINAL = re.compile(r"(?im)^[\s>*_#-]*(?:final\s+)?answer\s*(?:is)?\s*[*_]*\s*[:=]")
_NONE = re.compile(r"(?i)\s*[\[({]?\s*(?:none|no edges?|\{\s*\}|\[\s*\]|∅)\s*[\])}]?\s*[.]?\s*")


def open_chance_sets(subgraph: nx.DiGraph, c: int) -> int:
    """How many answers an open task with ``c`` stated XYZ edges admits: the sets of ``c``
    directed edges between XYZ and distinct subgraph nodes that keep the known graph acyclic
    (:func:`candidate_sets`, counted exactly)."""
    return len(candidate_sets(subgraph, c))


def parse_open_answer(text: str, names: Sequence[str]) -> frozenset[Edge] | None:
    """XYZ's edge set stated in free text: the part after the last ``Answer:`` line (the whole
    text when there is none) read as edges ``A -> B`` (also ``A → B``, ``A => B``, ``A causes
    B``) separated by anything (``;``, ``,``, ``and``, new lines, list bullets). Protein names
    compare ignoring case and are returned as ``names`` spells them; an edge naming another
    word is skipped. ``none`` / ``no edges`` is the empty set. None when nothing is stated."""
    finals = list(_FINAL.finditer(text))
    part = text[finals[-1].end() :] if finals else text
    if finals:
        part = part.strip().strip("*_`\"'").strip()
    known = {n.casefold(): n for n in names}
    edges = []
    for m in _FREE_EDGE.finditer(part):
        a, b = m.group(1).casefold(), m.group(2).casefold()
        if a in known and b in known and a != b:
            edges.append((known[a], known[b]))
    if edges:
        return frozenset(edges)
    if finals and _NONE.fullmatch(part.splitlines()[0] if part else ""):
        return frozenset()
    return None


def edge_metrics(answer: Iterable[Edge], gold: Iterable[Edge]) -> dict[str, float | int]:
    """Edge precision, recall, F1 and SHD of an answered edge set against the gold set
    (names compared ignoring case). Precision of an empty answer is 1.0 when the gold is
    empty too, else 0.0; recall likewise; F1 is 0.0 when both are 0. SHD counts the node
    pairs whose edge differs (missing, extra or reversed: one each)."""
    a = {fold_edge(e) for e in answer}
    g = {fold_edge(e) for e in gold}
    tp = len(a & g)
    precision = tp / len(a) if a else (1.0 if not g else 0.0)
    recall = tp / len(g) if g else (1.0 if not a else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    pairs_a = {frozenset(e): e for e in a}
    pairs_g = {frozenset(e): e for e in g}
    shd = sum(1 for p in set(pairs_a) | set(pairs_g) if pairs_a.get(p) != pairs_g.get(p))
    return {"edge_precision": precision, "edge_recall": recall, "edge_f1": f1, "shd": shd}
