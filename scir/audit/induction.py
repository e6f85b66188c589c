"""Induction: count features, per-pair features and hand heuristics.

Read from the facts and examples recovered from the text: how often each relation type
occurs, how many proteins and drug pairs each candidate pair of relation types connects
through a shared protein ("co-occurrence", examples ignored), and the candidate's category.
No feature checks a rule against the examples (that would solve the task, not find a
shortcut). Heuristics: a random same-category pair over the relation types present in the
facts; the most co-occurring same-category pair; the same-category pair of the most frequent
relation types.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from scir.audit.baselines import Heuristic, Spec, cached, pick, standard_specs
from scir.audit.items import Item
from scir.audit.text import text_features


def _world():
    from scir.tracks.induction.world import load_world

    return load_world()


def _facts(item: Item) -> list[tuple[str, str, str]]:
    if item.content is None or not item.content:
        return []
    return [tuple(f) for f in item.content[0].get("facts", []) if len(f) == 3]


def _examples(item: Item, index: int) -> list:
    if item.content is None or len(item.content) <= index:
        return []
    return list(item.content[index].get(("facts", "pos", "neg")[index], []))


def _statistics(item: Item) -> dict:
    """Relation counts and, per sorted pair of relation types, the proteins and drug pairs
    it connects (cached on the item)."""

    def compute() -> dict:
        facts = _facts(item)
        counts = Counter(r for r, _, _ in facts)
        by_protein: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        for r, d, p in facts:
            by_protein[p][r].add(d)
        proteins: Counter = Counter()
        pairs: dict[tuple[str, str], set] = defaultdict(set)
        for rels in by_protein.values():
            names = sorted(rels)
            for a in range(len(names)):
                for b in range(a, len(names)):
                    r1, r2 = names[a], names[b]
                    linked = {frozenset((x, y)) for x in rels[r1] for y in rels[r2] if x != y}
                    if linked:
                        proteins[(r1, r2)] += 1
                        pairs[(r1, r2)] |= linked
        return {
            "counts": counts,
            "proteins": proteins,
            "pairs": {k: len(v) for k, v in pairs.items()},
            "n": len(facts),
        }

    return cached(item, "induction_stats", compute)


def features(item: Item) -> dict[str, float]:
    """Task-level count features (generic text features included)."""
    world = _world()
    task = item.task
    out = text_features(task.question, item.text, task.options)
    stats = _statistics(item)
    facts = _facts(item)
    out["parsed"] = float(item.content is not None)
    out["facts"] = float(stats["n"])
    out["drugs"] = float(len({d for _, d, _ in facts}))
    out["proteins"] = float(len({p for _, _, p in facts}))
    out["positives"] = float(len(_examples(item, 1)))
    out["negatives"] = float(len(_examples(item, 2)))
    out["relation_types_present"] = float(len(stats["counts"]))
    for name in world.relation_names:
        out[f"count_{name}"] = float(stats["counts"][name])
    for category in world.categories:
        out[f"category_{category}"] = float(
            sum(stats["counts"][r] for r in world.relations_of(category))
        )
    return out


def _rules() -> list[tuple[str, str]]:
    from scir.tracks.induction.world import all_rules

    return all_rules(_world())


def _key(rule: tuple[str, str]) -> str:
    from scir.tracks.induction.world import rule_key

    return rule_key(rule)


def candidates(item: Item) -> list[tuple[str, dict[str, float]]]:
    """The 45 candidate pairs with their features."""
    world = _world()
    stats = _statistics(item)
    counts = stats["counts"]
    rules = _rules()
    sums = {r: counts[r[0]] + counts[r[1]] for r in rules}
    cooc = {r: stats["proteins"][r] for r in rules}

    def rank(values: dict, rule) -> float:
        return float(sum(1 for v in values.values() if v > values[rule]))

    out = []
    for rule in rules:
        r1, r2 = rule
        category = world.rule_category(rule)
        out.append(
            (
                _key(rule),
                {
                    "same_category": float(category is not None),
                    f"category={category or 'mixed'}": 1.0,
                    "repeated": float(r1 == r2),
                    "count_min": float(min(counts[r1], counts[r2])),
                    "count_max": float(max(counts[r1], counts[r2])),
                    "count_sum": float(sums[rule]),
                    "count_share": sums[rule] / max(1, 2 * stats["n"]),
                    "both_present": float(counts[r1] > 0 and counts[r2] > 0),
                    "count_rank": rank(sums, rule),
                    "cooc_proteins": float(cooc[rule]),
                    "cooc_pairs": float(stats["pairs"].get(rule, 0)),
                    "cooc_rank": rank(cooc, rule),
                    f"pair={_key(rule)}": 1.0,
                },
            )
        )
    return out


def _same_category(item: Item) -> list[tuple[str, str]]:
    world = _world()
    return [r for r in _rules() if world.rule_category(r) is not None]


def random_present(item: Item, rng: random.Random) -> str:
    """A random same-category pair whose relation types both occur in the facts."""
    counts = _statistics(item)["counts"]
    rules = [r for r in _same_category(item) if counts[r[0]] and counts[r[1]]]
    rules = rules or _same_category(item)
    return _key(rng.choice(rules))


def most_cooccurring(item: Item, rng: random.Random) -> str:
    """The same-category pair linking the most proteins (ties at random)."""
    stats = _statistics(item)
    rules = _same_category(item)
    return pick([_key(r) for r in rules], [stats["proteins"][r] for r in rules], rng)


def most_frequent(item: Item, rng: random.Random) -> str:
    """The same-category pair of the most frequent relation types (ties at random)."""
    counts = _statistics(item)["counts"]
    rules = _same_category(item)
    return pick([_key(r) for r in rules], [counts[r[0]] + counts[r[1]] for r in rules], rng)


def specs() -> list[Spec]:
    """Every induction baseline (the structural family: :mod:`scir.audit.induction_structure`)."""
    from scir.audit import induction_structure

    return (
        standard_specs(features, candidates)
        + induction_structure.specs()
        + [
            Spec(
                "random-present-pair",
                "heuristic",
                "random same-category pair over the relation types present in the facts",
                lambda seed: Heuristic(random_present, seed),
            ),
            Spec(
                "most-cooccurring-pair",
                "heuristic",
                "same-category pair sharing the most proteins in the facts (examples ignored)",
                lambda seed: Heuristic(most_cooccurring, seed),
            ),
            Spec(
                "most-frequent-types",
                "heuristic",
                "same-category pair of the most frequent relation types",
                lambda seed: Heuristic(most_frequent, seed),
            ),
        ]
    )
