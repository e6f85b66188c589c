"""Causal: count features, per-option features and hand heuristics.

Option letters are arbitrary labels, so the count-feature models are per-option rankers
(the task-level counts go into every option's row). Per option (read from the option text and the network and conditions recovered from the
text): its position, letter and length; how many of its edges point into / out of the new
protein; how often its partners are intervened on (inhibited, activated), mentioned in the
text, and connected in the known network; how many other options share its edges, partners
and directions. No feature of these looks at the data tables (fitting them would solve the task);
the structural family (:mod:`scir.audit.causal_structure`) reads their marginal statistics.
Heuristics: the option whose partners are intervened most, whose edges point into (or out
of) the new protein, whose partners are mentioned most, whose edges other options repeat
most, and the longest option.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from scir.audit.baselines import Baseline, Heuristic, Spec, cached, pick, standard_specs
from scir.audit.items import Item
from scir.audit.text import mentions, text_features


def _options(item: Item) -> list[frozenset[tuple[str, str]]]:
    from scir.tracks.causal.options import parse_option

    return cached(
        item,
        "causal_options",
        lambda: [
            parse_option(o, task_id=item.task_id, index=k) for k, o in enumerate(item.task.options)
        ],
    )


def _network(item: Item) -> dict:
    if item.content is None or not item.content:
        return {}
    return item.content[0]


def _new_protein(item: Item) -> str:
    return str(
        _network(item).get("new_protein") or item.task.domain_metadata.get("new_protein") or "XYZ"
    )


def _letters(n: int) -> list[str]:
    from scir.tracks.causal.options import letter

    return [letter(k) for k in range(n)]


def features(item: Item) -> dict[str, float]:
    """Task-level count features (generic text features included); every option carries
    them, as option letters are arbitrary labels that no task-level model should predict."""
    task = item.task
    out = text_features(task.question, item.text, task.options)
    net = _network(item)
    new = _new_protein(item)
    envs = net.get("environments", [])
    out["parsed"] = float(bool(net))
    out["nodes"] = float(len(net.get("nodes", [])))
    out["known_edges"] = float(len(net.get("known_edges", [])))
    out["environments"] = float(len(envs))
    out["new_protein_intervened"] = float(sum(new in e.get("targets", []) for e in envs))
    out["new_protein_mentions"] = float(mentions(new, item.text))
    return out


def candidates(item: Item) -> list[tuple[str, dict[str, float]]]:
    """Every option (by letter) with its features."""
    options = _options(item)
    net = _network(item)
    new = _new_protein(item)
    envs = net.get("environments", [])
    known = [tuple(e) for e in net.get("known_edges", [])]
    indeg = Counter(b for _, b in known)
    outdeg = Counter(a for a, _ in known)
    edge_freq = Counter(e for o in options for e in o)
    partner_freq = Counter((b if a == new else a) for o in options for a, b in o)
    dir_freq = Counter((a == new) for o in options for a, b in o)
    text_mentions: dict[str, int] = {}
    task_level = cached(item, "features", lambda: features(item))
    n = len(options)
    rows = []
    for k, (letter, option) in enumerate(zip(_letters(n), options)):
        edges = sorted(option)
        partners = [(b if a == new else a) for a, b in edges]
        for p in partners:
            if p not in text_mentions:
                text_mentions[p] = mentions(p, item.text)
        inter = [sum(p in e.get("targets", []) for e in envs) for p in partners]
        inhib = [
            sum(p in e.get("targets", []) and e.get("kind") == "inhibition" for e in envs)
            for p in partners
        ]
        activ = [
            sum(p in e.get("targets", []) and e.get("kind") == "activation" for e in envs)
            for p in partners
        ]
        into = sum(1 for a, b in edges if b == new)
        m = max(1, len(edges))
        rows.append(
            (
                letter,
                {
                    **{f"task_{key}": value for key, value in task_level.items()},
                    "position": float(k),
                    "position_share": k / max(1, n - 1),
                    "first": float(k == 0),
                    "last": float(k == n - 1),
                    "chars": float(len(item.task.options[k])),
                    "edges": float(len(edges)),
                    "into": float(into),
                    "out_of": float(len(edges) - into),
                    "all_into": float(into == len(edges)),
                    "all_out": float(into == 0),
                    "partner_interventions": float(sum(inter)),
                    "partner_interventions_max": float(max(inter, default=0)),
                    "partner_intervened_any": float(any(inter)),
                    "partner_inhibitions": float(sum(inhib)),
                    "partner_activations": float(sum(activ)),
                    "partner_mentions": float(sum(text_mentions[p] for p in partners)),
                    "partner_known_in": float(sum(indeg[p] for p in partners)),
                    "partner_known_out": float(sum(outdeg[p] for p in partners)),
                    "partner_sources": float(sum(1 for p in partners if indeg[p] == 0)),
                    "partner_sinks": float(sum(1 for p in partners if outdeg[p] == 0)),
                    "edge_popularity": sum(edge_freq[e] - 1 for e in edges) / m,
                    "partner_popularity": sum(partner_freq[p] - 1 for p in partners) / m,
                    "direction_popularity": sum(dir_freq[a == new] for a, b in edges) / m,
                    "into_x_new_intervened": float(into)
                    * float(any(new in e.get("targets", []) for e in envs)),
                },
            )
        )
    return rows


def _by(feature: str, sign: float = 1.0):
    def rule(item: Item, rng: random.Random) -> str:
        rows = cached(item, "candidates", lambda: candidates(item))
        return pick([a for a, _ in rows], [sign * f[feature] for _, f in rows], rng)

    rule.__doc__ = f"the option with the highest {feature} (ties at random)"
    return rule


def _heuristic(feature: str) -> Callable[[int], Baseline]:
    """A :class:`Spec`'s ``make``: a fresh heuristic on ``feature`` per seed."""
    return lambda seed: Heuristic(_by(feature), seed)


def specs() -> list[Spec]:
    """Every causal baseline."""
    heuristics = [
        (
            "most-intervened-partners",
            "partner_interventions",
            "option whose partners are intervened on most",
        ),
        ("edges-into-new", "into", "option with the most edges into the new protein"),
        ("edges-out-of-new", "out_of", "option with the most edges out of the new protein"),
        (
            "most-mentioned-partners",
            "partner_mentions",
            "option whose partners the text mentions most",
        ),
        ("most-shared-edges", "edge_popularity", "option whose edges other options repeat most"),
        ("longest-option", "chars", "the longest option text"),
    ]
    from scir.audit import causal_structure

    return (
        standard_specs(None, candidates)
        + [
            Spec(name, "heuristic", description + " (ties at random)", _heuristic(feature))
            for name, feature, description in heuristics
        ]
        + causal_structure.specs()
    )
