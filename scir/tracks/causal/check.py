"""``scir check`` for causal: a hand-written causal graph against one task.

The file is an edge list (``grammars/causal_edges.lark``): directed edges ``A -> B`` between
the task's proteins, separated by newlines, ``;`` or ``,``, with ``#`` / ``%`` comments. The
task's known edges belong to the graph whether listed or not. Reported:

- the new protein's directed edges in the graph and the option they match, by the track's
  rule (:func:`scir.tracks.causal.options.match_options`: exact, else the one option
  strictly contained), against the gold answer;
- the graph's interventional BIC score on the task's data (:mod:`solvers.gies`, the score
  GIES maximises; higher is better) beside the score of the graph GIES finds and of the gold
  graph (known edges plus the answer's edges).

The check passes when the matched option is the gold answer; for an open task (no options)
when the graph's set of XYZ's directed edges is the gold set exactly, with edge precision,
recall, F1 and SHD against it reported. Unknown proteins, self-loops,
repeated edges and cycles are errors with line and column.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from scir.errors import ConfigError, FormalizationError
from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.causal.graph import NEW_PROTEIN, Edge
from scir.tracks.causal.options import edge_metrics, match_options, option_text, xyz_directed
from scir.tracks.causal.scoring import is_open_task, option_sets
from scir.tracks.causal.solve import Dataset, dataset
from scir.tracks.checking import CheckContext, HandCheck
from scir.tracks.formal_text import generic_parser, syntax_error, token_error

MAX_CHARS = 100_000


def read_edges(text: str, nodes: list[str], known: list[Edge]) -> list[Edge]:
    """The edges of a hand-written edge list, names as the task spells them; raises
    FormalizationError (line, column) on bad syntax, an unknown protein, a self-loop, a
    repeated edge or a cycle (with the known edges)."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    if len(text) > MAX_CHARS:
        raise FormalizationError(
            f"edge list too long ({len(text)} characters; at most {MAX_CHARS})"
        )
    try:
        tree = generic_parser("causal_edges.lark").parse(text + "\n")
    except UnexpectedCharacters as exc:
        raise syntax_error(
            exc,
            f"unexpected character {exc.char!r}; expected edges "
            "'A -> B' separated by newlines or ';'",
        ) from exc
    except UnexpectedToken as exc:
        got = "the end" if exc.token.type == "$END" else repr(exc.token.value)
        raise syntax_error(
            exc, f"unexpected {got}; expected edges 'A -> B' separated by newlines or ';'"
        ) from exc
    except UnexpectedInput as exc:
        raise syntax_error(exc, "expected edges 'A -> B'") from exc
    names = {n.casefold(): n for n in nodes}
    graph = nx.DiGraph(known)
    graph.add_nodes_from(nodes)
    seen: dict[Edge, int] = {}
    edges: list[Edge] = []
    for item in tree.children:
        a_tok, b_tok = item.children
        for tok in (a_tok, b_tok):
            if str(tok).casefold() not in names:
                raise token_error(
                    f"unknown protein {str(tok)!r}; this task's proteins are {', '.join(nodes)}",
                    tok,
                )
        a, b = names[str(a_tok).casefold()], names[str(b_tok).casefold()]
        if a == b:
            raise token_error(f"self-loop {a} -> {a}", a_tok)
        if (a, b) in seen:
            raise token_error(
                f"edge {a} -> {b} is listed twice (first on line {seen[(a, b)]})", a_tok
            )
        seen[(a, b)] = a_tok.line
        edges.append((a, b))
        if (a, b) in graph.edges:
            continue  # a known edge, listed
        graph.add_edge(a, b)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = nx.find_cycle(graph, source=b)
            path = " -> ".join([e[0] for e in cycle] + [cycle[-1][1]])
            raise token_error(
                f"edge {a} -> {b} closes the cycle {path} (the task's known edges count)", a_tok
            )
    return edges


def _score(ds: Dataset, edges: list[Edge], score: Any) -> float:
    index = {name: i for i, name in enumerate(ds.columns)}
    adjacency = np.zeros((len(ds.columns), len(ds.columns)), dtype=int)
    for a, b in edges:
        adjacency[index[a], index[b]] = 1
    return float(score.graph_score(adjacency))


def _check_open(
    task: Task,
    ds: Dataset,
    graph: list[Edge],
    edges: list[Edge],
    known: list[Edge],
    mine: list[Edge],
    new: str,
    gold_formal: Any,
) -> HandCheck:
    """An open task: the graph's set of XYZ's directed edges against the gold set (exact
    match passes), with edge precision, recall, F1 and SHD, and the BIC scores."""
    from solvers.gies import GaussIntScore, fit

    gold_xyz = [tuple(e) for e in (gold_formal.xyz_edges or ())]
    metrics = edge_metrics(mine, gold_xyz)
    gies = fit(ds.data, ds.targets, names=ds.columns)
    gies_xyz = xyz_directed(gies.directed_edges(), new)
    score = GaussIntScore(ds.data, ds.targets)
    scores = {
        "yours": _score(ds, graph, score),
        "gies": float(gies.score),
        "gold": _score(ds, known + gold_xyz, score),
    }
    passed = metrics["shd"] == 0
    lines = [
        (
            "graph",
            f"{len(graph)} edges ({len(edges)} listed, {len(known)} known; "
            f"{len([e for e in known if e not in edges])} known edges not listed)",
        ),
        (new, option_text(mine, new) or "no directed edge"),
        ("gold", option_text(gold_xyz, new)),
        (
            "edges",
            f"precision {metrics['edge_precision']:.2f}, recall "
            f"{metrics['edge_recall']:.2f}, F1 {metrics['edge_f1']:.2f}, SHD "
            f"{metrics['shd']}",
        ),
        (
            "BIC",
            f"yours {scores['yours']:.2f}, GIES's graph {scores['gies']:.2f} "
            f"({option_text(gies_xyz, new) or 'no directed XYZ edge'}), gold graph "
            f"{scores['gold']:.2f} (higher is better)",
        ),
    ]
    summary = (
        "states exactly the gold edge set"
        if passed
        else f"differs from the gold edge set (SHD {metrics['shd']})"
    )
    data: dict[str, Any] = {
        "edges": [list(e) for e in graph],
        "xyz_edges": [list(e) for e in mine],
        "answer": task.answer,
        "exact": passed,
        **metrics,
        "bic": scores,
        "gies_xyz_edges": [list(e) for e in gies_xyz],
    }
    return HandCheck(task.task_id, task.domain, passed, summary, lines, data)


def check(task: Task, text: str, context: CheckContext) -> HandCheck:
    """Check a hand-written edge list against a causal task."""
    from scir.tracks.causal.track import CausalTrack
    from solvers.gies import GaussIntScore, fit

    track = get_track(task.domain)
    if not isinstance(track, CausalTrack):
        raise ConfigError(
            f"track {task.domain!r} is not a CausalTrack (got {type(track).__name__})",
            task_id=task.task_id,
            field="track",
        )
    new = task.domain_metadata.get("new_protein") or NEW_PROTEIN
    gold_formal = track.formal(task)
    ds = dataset(gold_formal, task_id=task.task_id, new_protein=new)
    known = list(ds.known_edges)
    edges = read_edges(text, ds.names, known)
    graph = known + [e for e in edges if e not in known]
    mine = xyz_directed(graph, new)
    if is_open_task(task):
        return _check_open(task, ds, graph, edges, known, mine, new, gold_formal)
    options = option_sets(task)
    match = match_options(mine, options)
    gies = fit(ds.data, ds.targets, names=ds.columns)  # the reference solver's run
    gies_match = match_options(xyz_directed(gies.directed_edges(), new), options)
    score = GaussIntScore(ds.data, ds.targets)
    gold_xyz = [tuple(e) for e in (gold_formal.xyz_edges or ())]
    scores = {
        "yours": _score(ds, graph, score),
        "gies": float(gies.score),
        "gold": _score(ds, known + gold_xyz, score),
    }
    found = match.letter
    passed = found == task.answer
    matched = (
        f"option {found} ({match.how} match: {task.options[match.index]})"
        if found and match.index is not None
        else "no option"
    )
    lines = [
        (
            "graph",
            f"{len(graph)} edges ({len(edges)} listed, {len(known)} known; "
            f"{len([e for e in known if e not in edges])} known edges not listed)",
        ),
        (new, option_text(mine, new) or "no directed edge"),
        ("option", f"{matched}; gold answer {task.answer} ({option_text(gold_xyz, new)})"),
        (
            "BIC",
            f"yours {scores['yours']:.2f}, GIES's graph {scores['gies']:.2f} (option "
            f"{gies_match.letter or 'none'}), gold graph {scores['gold']:.2f} (higher is "
            "better)",
        ),
    ]
    summary = (
        f"matches option {found}, the gold answer"
        if passed
        else f"matches {'option ' + found if found else 'no option'}, gold answer {task.answer}"
    )
    data: dict[str, Any] = {
        "edges": [list(e) for e in graph],
        "xyz_edges": [list(e) for e in mine],
        "option": found,
        "match": match.how,
        "answer": task.answer,
        "bic": scores,
        "gies_option": gies_match.letter,
    }
    return HandCheck(task.task_id, task.domain, passed, summary, lines, data)
