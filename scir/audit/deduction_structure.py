"""Deduction: the structural family -- the premise graph with every name erased, read by
Weisfeiler-Lehman subtree features, whole task and per tree.

A solver sees the premises (recovered from the text: the clean-NL structure, or for Obf the
reference extractors) and the statement. Drawn as a graph, the premises are edges between
terms: ``all``, ``no``, ``some``, ``some_not`` between two predicates (directed by subject and
object; ``no`` and ``some`` are symmetric and drawn so), ``fact``/``neg_fact`` between a
predicate and a constant, ``exists`` a mark on its predicate. The statement's terms are the
only names kept, as their role (subject, object) and the statement's form. Without them the
premises fall apart into *trees* (connected components), and a construction that builds the
proof differently from the distractors, or breaks trees by a local edit that leaves a motif,
gives the answer away to anything that reads local structure -- no chaining needed.

Features (identities erased, so nothing of the vocabulary is read):

* ``wl``: Weisfeiler-Lehman subtree labels (Shervashidze et al. 2011) of the whole graph, for
  ``ITERATIONS`` refinements, counted; the statement's nodes carry the statement's form, so
  its polarity reaches every tree within a few refinements;
* ``tree``: the same labels computed per tree (the tree with the statement's nodes attached
  to it alone), summed over trees and their maximum over trees, and the count of trees per
  *tree signature* (the tree's whole label multiset, hashed) -- a tree kind that only intact
  proofs have is one feature;
* degrees: per node role (each statement term, inner terms) the number of edges of each
  type (form and direction) at a node, counted, and the statement terms' own degrees;
* per-tree degree motifs: trees by their largest number of incoming and outgoing ``all``
  edges at one predicate, with and without an existence mark, and by whether they hold a
  negative premise, crossed with the statement's polarity.

Gradient boosting and logistic regression over these features, and the issue's fixed rule
(a tree whose predicates have at most one incoming and one unmarked outgoing ``all`` edge
decides: True when its polarity, "holds a negative premise", equals the statement's, else
False; no such tree: Unknown) are scored against chance like every baseline.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scir.audit.baselines import Heuristic, Spec, cached, classifier
from scir.audit.items import Item

ITERATIONS = 3
MIN_ROWS = 3  # a feature is used when non-zero in at least this many training tasks
SYMMETRIC = ("no", "some")


def _negative() -> frozenset[str]:
    from scir.tracks.deduction.logic import negative_kinds

    return negative_kinds()  # asp/deduction.lp's negative/1


@dataclass
class Graph:
    """Terms as nodes (``labels``: initial label per term), premises as labelled edges
    (``edges``: term -> [(edge label, other term)], both directions), the statement's terms,
    its form, and which premises each tree holds."""

    labels: dict[str, str]
    edges: dict[str, list[tuple[str, str]]]
    statement_terms: tuple[str, ...]
    statement_kind: str
    premises: list[Any]


def _h(text: str) -> str:
    return format(zlib.crc32(text.encode()), "08x")


def statement_formula(item: Item) -> Any | None:
    """The statement as a fragment formula: the goal-form formula over the premises' terms
    whose sentence, in the task's lexicon, is the question's statement (None when none is)."""
    from scir.audit.deduction import _premises, statement
    from scir.tracks.deduction import templates
    from scir.tracks.deduction.logic import Formula, goal_kinds, kinds

    premises = _premises(item)
    lexicon_json = item.task.domain_metadata.get("lexicon")
    if premises is None or not isinstance(lexicon_json, dict):
        return None
    try:
        lexicon = templates.Lexicon.from_json(lexicon_json)
    except (KeyError, TypeError, ValueError):
        return None
    text = " ".join(statement(item.task.question).split()).lower()
    preds = sorted({p for f in premises for p in f.predicates} & set(lexicon.nouns))
    consts = sorted({c for f in premises for c in f.constants} & set(lexicon.names))
    mentioned_p = [
        p
        for p in preds
        if lexicon.nouns[p][0].lower() in text or lexicon.nouns[p][1].lower() in text
    ]
    mentioned_c = [c for c in consts if lexicon.names[c].lower() in text]
    for kind in goal_kinds():
        sorts = kinds()[kind]
        pools = [mentioned_p if s == "p" else mentioned_c for s in sorts]
        combos = (
            [(a,) for a in pools[0]]
            if len(pools) == 1
            else [(a, b) for a in pools[0] for b in pools[1] if a != b]
        )
        for args in combos:
            formula = Formula(kind, args)
            try:
                said = templates.sentence(formula, lexicon)
            except (KeyError, ValueError):
                continue
            if " ".join(said.split()).lower().rstrip(".") in text:
                return formula
    return None


def graph(item: Item) -> Graph | None:
    """The item's premise graph (None when the premises or the statement cannot be read)."""
    from scir.audit.deduction import _premises

    def compute():
        premises = _premises(item)
        stmt = statement_formula(item)
        if premises is None or stmt is None:
            return None
        roles = {t: f"s{k}" for k, t in enumerate(stmt.args)}
        labels: dict[str, str] = {}
        marks: Counter = Counter()
        edges: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for f in premises:
            for t in f.args:
                sort = "c" if t in f.constants else "p"
                labels.setdefault(
                    t, f"{sort}:{roles.get(t, '-')}:{stmt.kind if t in roles else ''}"
                )
            if f.kind == "exists":
                marks[f.args[0]] += 1
                continue
            a, b = f.args
            if f.kind in SYMMETRIC:
                edges[a].append((f.kind, b))
                edges[b].append((f.kind, a))
            else:
                edges[a].append((f"{f.kind}>", b))
                edges[b].append((f"{f.kind}<", a))
        for t in stmt.args:
            labels.setdefault(t, f"{'c' if t in stmt.constants else 'p'}:{roles[t]}:{stmt.kind}")
        for t in labels:
            labels[t] += f":e{marks[t]}"
        return Graph(labels, dict(edges), tuple(stmt.args), stmt.kind, premises)

    return cached(item, "deduction_graph", compute)


def wl_labels(
    labels: dict[str, str],
    edges: dict[str, list[tuple[str, str]]],
    nodes: set[str],
    iterations: int = ITERATIONS,
) -> list[dict[str, str]]:
    """Weisfeiler-Lehman refinement of ``labels`` on the subgraph over ``nodes``: one
    node -> label map per iteration (0 the initial labels), labels hashed."""
    current = {n: _h(labels[n]) for n in nodes}
    out = [current]
    for _ in range(iterations):
        current = {
            n: _h(
                current[n]
                + "|"
                + ",".join(sorted(f"{e}{current[m]}" for e, m in edges.get(n, ()) if m in nodes))
            )
            for n in nodes
        }
        out.append(current)
    return out


def trees(g: Graph) -> list[set[str]]:
    """The connected components of the graph without the statement's terms, each with the
    statement's terms it touches added (so a tree's labels see the statement)."""
    rest = set(g.labels) - set(g.statement_terms)
    seen: set[str] = set()
    out = []
    for start in sorted(rest):
        if start in seen:
            continue
        component, stack = set(), [start]
        while stack:
            n = stack.pop()
            if n in component:
                continue
            component.add(n)
            stack.extend(m for _, m in g.edges.get(n, ()) if m in rest and m not in component)
        seen |= component
        touched = {m for n in component for _, m in g.edges.get(n, ()) if m in g.statement_terms}
        out.append(component | touched)
    return out


def _tree_facts(g: Graph, nodes: set[str]) -> tuple[int, int, bool, bool]:
    """(largest in-degree, largest unmarked out-degree of ``all`` edges at one predicate,
    holds a negative premise, touches both statement terms) of one tree."""
    inner = nodes - set(g.statement_terms)
    max_in = max_out = 0
    negative = False
    for n in nodes:
        ins = sum(1 for e, m in g.edges.get(n, ()) if e == "all<" and m in nodes)
        outs = sum(1 for e, m in g.edges.get(n, ()) if e == "all>" and m in nodes)
        marked = not g.labels[n].endswith(":e0") or any(
            e.startswith("fact") for e, _ in g.edges.get(n, ())
        )
        max_in = max(max_in, ins)
        if not marked:
            max_out = max(max_out, outs)
        if n in inner:
            negative |= any(
                e.rstrip("<>") in _negative() and (m in nodes) for e, m in g.edges.get(n, ())
            )
    return max_in, max_out, negative, set(g.statement_terms) <= nodes


def features(item: Item) -> dict[str, float]:
    """WL features of the whole graph and per tree, tree signatures, per-tree motifs."""

    def compute():
        g = graph(item)
        if g is None:
            return {"readable": 0.0}
        out: dict[str, float] = defaultdict(float)
        out["readable"] = 1.0
        stmt_negative = g.statement_kind in _negative()
        out[f"stmt={g.statement_kind}"] = 1.0
        for it, labels in enumerate(wl_labels(g.labels, g.edges, set(g.labels))):
            for label in labels.values():
                out[f"wl{it}:{label}"] += 1
        roles = {t: f"s{k}" for k, t in enumerate(g.statement_terms)}
        for node in g.labels:  # degree profile per edge type and role
            degrees = Counter(e for e, _ in g.edges.get(node, ()))
            role = roles.get(node, "inner")
            for etype, k in degrees.items():
                out[f"deg:{role}:{etype}={min(k, 6)}"] += 1
                if node in roles:
                    out[f"stmtdeg:{role}:{etype}"] = float(k)
        tree_sets = trees(g)
        out["trees"] = float(len(tree_sets))
        maxima: dict[str, float] = defaultdict(float)
        for nodes in tree_sets:
            refined = wl_labels(g.labels, g.edges, nodes)
            counts = Counter(
                f"tree{it}:{label}"
                for it, labels in enumerate(refined)
                for label in labels.values()
            )
            for key, value in counts.items():
                out[key] += value
                maxima[key] = max(maxima[key], value)
            signature = _h(",".join(sorted(refined[-1].values())))
            out[f"sig:{signature}"] += 1
            max_in, max_out, negative, both = _tree_facts(g, nodes)
            motif = f"in{min(max_in, 3)}:out{min(max_out, 3)}"
            out[f"motif:{motif}"] += 1
            out[f"motif:{motif}:match{int(negative == stmt_negative)}"] += 1
            out[f"polarity_match{int(negative == stmt_negative)}"] += 1
            out[f"tree_size:{min(len(nodes), 20)}"] += 1
            out[f"spans_statement{int(both)}"] += 1
        for key, value in maxima.items():
            out[f"max:{key}"] = value
        return dict(out)

    return cached(item, "deduction_structure", compute)


def _decide(
    item: Item, rng: random.Random, polarity: Callable[[Graph, set[str]], bool | None]
) -> str:
    """True/False when a piece reads as a proof (``polarity(g, piece)``: whether it is a
    negative one, None when it does not read as a proof) by its polarity against the
    statement's; Unknown when none does; ties and unreadable items at random."""
    g = graph(item)
    if g is None:
        return rng.choice(("True", "False", "Unknown"))
    negative_statement = g.statement_kind in _negative()
    votes = {
        "True" if negative == negative_statement else "False"
        for negative in (polarity(g, nodes) for nodes in trees(g))
        if negative is not None
    }
    return rng.choice(sorted(votes)) if votes else "Unknown"


def _motif_free(g: Graph, nodes: set[str]) -> bool | None:
    max_in, max_out, negative, _ = _tree_facts(g, nodes)
    return negative if max_in <= 1 and max_out <= 1 else None


def motif_rule(item: Item, rng: random.Random) -> str:
    """The reviewer's rule: a tree without a converse motif (no predicate with two incoming
    ``all`` edges, none with two outgoing ones and no existence mark) decides by whether it
    holds a negative premise against the statement's polarity; else Unknown. Ties at
    random."""
    return _decide(item, rng, _motif_free)


def route(g: Graph, nodes: set[str]) -> list[str] | None:
    """The shortest path, inside one piece, between the statement's two terms (through the
    piece's own terms only), or None when the piece does not join them."""
    from collections import deque

    first, last = g.statement_terms[0], g.statement_terms[-1]
    if first == last:
        return None
    inner = nodes - set(g.statement_terms)
    previous: dict[str, str | None] = {first: None}
    queue = deque([first])
    while queue:
        n = queue.popleft()
        for _, m in sorted(g.edges.get(n, ())):
            if m == last and n != first:
                previous[last] = n
                queue.clear()
                break
            if m in inner and m not in previous:
                previous[m] = n
                queue.append(m)
    if last not in previous:
        return None
    path: list[str] = []
    node: str | None = last
    while node is not None:
        path.append(node)
        node = previous[node]
    return path[::-1]


def chain_rule(item: Item, rng: random.Random) -> str:
    """A crude solver, for reference (family ``solver``, never flagged): in every piece,
    follow the chain of premises between the statement's terms; a chain with no converse
    motif along it (no term with two incoming ``all`` edges of the chain, none with two
    outgoing ones without an existence premise) is read as a proof, negative when it holds a
    negative premise; it decides True or False against the statement's polarity; no such
    chain: Unknown (ties at random). It reads the proof itself -- what every construction
    must leave readable -- so its accuracy shows how much of a task a chain-follower solves,
    not an artifact."""
    return _decide(item, rng, _chain_polarity)


def _chain_polarity(g: Graph, nodes: set[str]) -> bool | None:
    """Whether the piece's chain between the statement's terms is negative; None when there
    is no chain or it shows a converse motif."""
    path = route(g, nodes)
    if path is None:
        return None
    on = set(path)
    for n in path[1:-1]:
        ins = sum(1 for e, m in g.edges.get(n, ()) if e == "all<" and m in on)
        outs = sum(1 for e, m in g.edges.get(n, ()) if e == "all>" and m in on)
        if ins >= 2 or (outs >= 2 and g.labels[n].endswith(":e0")):
            return None
    return any(
        e.rstrip("<>") in _negative()
        for a, b in zip(path, path[1:])
        for e, m in g.edges.get(a, ())
        if m == b
    )


def specs() -> list[Spec]:
    """The structural deduction baselines."""
    return [
        Spec(
            f"wl-{kind}",
            "structural",
            f"{label} on Weisfeiler-Lehman subtree features of the premise graph (whole "
            "task and per tree, names erased), tree signatures and degree motifs",
            classifier(features, kind, "wl", min_rows=MIN_ROWS),
        )
        for kind, label in (("boost", "gradient boosting"), ("logreg", "logistic regression"))
    ] + [
        Spec(
            "motif-rule",
            "structural",
            "a tree without a converse motif decides by its polarity against the "
            "statement's, else Unknown",
            lambda seed: Heuristic(motif_rule, seed),
        ),
        Spec(
            "chain-rule",
            "solver",
            "reference, never flagged: follows the chain between the statement's terms in "
            "each piece; a chain without a converse motif decides by its polarity",
            lambda seed: Heuristic(chain_rule, seed),
        ),
    ]
