"""Induction: the structural family -- per candidate rule, where its two relation types meet
on a protein among the drugs of the examples, by role.

A solver sees which drugs occur in some positive example and which in some negative one. A
construction that places its facts differently around the pool's rules than around the other
candidates (the rules' own facts sit on positives; fillers that would cover a negative with
the target are refused) lets co-location statistics answer without checking a single rule
against an example. Only the drugs' roles are read, never which drug pairs with which
(that would be the task's own reasoning). Roles: ``pos`` (drugs of some positive), ``neg``
(drugs of some negative), ``mixed`` (one drug of each), ``any`` (drugs of any example).

Per candidate ``(r1, r2)`` and role: the proteins on which two different drugs of the role
carry ``r1`` and ``r2`` (one each), the proteins on which the role's drugs carry both (one
drug may carry both), the drug pairs of the role the rule links, the facts of ``r1`` and
``r2`` about the role's drugs; each also as its place among the 18 same-category candidates.
Learned rankers over these features (logistic regression, gradient boosting) and the
reviewer's fixed rule (fewest proteins with both relations among negative drugs, then most
among positive drugs) are scored against the constrained chance like every baseline.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from scir.audit.baselines import Heuristic, Spec, cached, pick, ranker
from scir.audit.items import Item

ROLES = ("pos", "neg", "mixed", "any")


def _drug_roles(item: Item) -> dict[str, tuple[set[str], set[str]]]:
    from scir.audit.induction import _examples

    pos = {d for p in _examples(item, 1) for d in p}
    neg = {d for p in _examples(item, 2) for d in p}
    return {
        "pos": (pos, pos),
        "neg": (neg, neg),
        "mixed": (pos, neg),
        "any": (pos | neg, pos | neg),
    }


def colocation(
    facts: Iterable[tuple[str, str, str]],
    left: set[str],
    right: set[str],
    rules: list[tuple[str, str]],
) -> dict[tuple[str, str], dict[str, float]]:
    """Per rule ``(r1, r2)``: ``proteins`` on which a drug of ``left`` carries one relation
    and a different drug of ``right`` the other; ``both`` the proteins on which drugs of
    ``left | right`` carry both relations in two facts (one drug may carry both when they
    differ); ``pairs`` the distinct drug pairs (one of ``left``, one of ``right``) the rule
    links; ``facts`` the facts of ``r1`` plus those of ``r2`` about those drugs (a repeated
    relation counted twice, as a rule of two relations counts two)."""
    by_protein: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    count: dict[str, int] = defaultdict(int)
    drugs = left | right
    for rel, drug, protein in facts:
        if drug in drugs:
            by_protein[protein][rel].add(drug)
            count[rel] += 1
    out = {}
    for r1, r2 in rules:
        proteins = both = 0
        pairs: set[frozenset[str]] = set()
        for rels in by_protein.values():
            a, b = rels.get(r1, set()), rels.get(r2, set())
            if a and b and (r1 != r2 or len(a) > 1):
                both += 1
            linked = {frozenset((x, y)) for x in a & left for y in b & right if x != y}
            linked |= {frozenset((x, y)) for x in b & left for y in a & right if x != y}
            if linked:
                proteins += 1
                pairs |= linked
        out[(r1, r2)] = {
            "proteins": float(proteins),
            "both": float(both),
            "pairs": float(len(pairs)),
            "facts": float(count[r1] + count[r2]),
        }
    return out


def _statistics(item: Item) -> dict[str, dict[tuple[str, str], dict[str, float]]]:
    from scir.audit.induction import _facts, _rules

    def compute():
        facts = _facts(item)
        return {
            role: colocation(facts, left, right, _rules())
            for role, (left, right) in _drug_roles(item).items()
        }

    return cached(item, "induction_colocation", compute)


def candidates(item: Item) -> list[tuple[str, dict[str, float]]]:
    """The 45 candidate pairs with their per-role co-location features."""
    from scir.audit.induction import _key, _rules, _world

    world = _world()
    stats = _statistics(item)
    rules = _rules()
    same = [r for r in rules if world.rule_category(r) is not None]
    out = []
    for rule in rules:
        category = world.rule_category(rule)
        feats: dict[str, float] = {
            "same_category": float(category is not None),
            f"category={category or 'mixed'}": 1.0,
            "repeated": float(rule[0] == rule[1]),
        }
        for role in ROLES:
            for name, value in stats[role][rule].items():
                feats[f"{role}_{name}"] = value
                if category is not None:  # place among the same-category candidates
                    feats[f"{role}_{name}_above"] = float(
                        sum(1 for r in same if stats[role][r][name] > value)
                    )
        out.append((_key(rule), feats))
    return out


def colocation_rule(item: Item, rng: random.Random) -> str:
    """The same-category candidate whose relations meet on the fewest proteins among the
    negative drugs, then on the most among the positive drugs (ties at random)."""
    from scir.audit.induction import _key, _same_category

    stats = _statistics(item)
    rules = _same_category(item)
    return pick(
        [_key(r) for r in rules],
        [(-stats["neg"][r]["both"], stats["pos"][r]["both"]) for r in rules],
        rng,
    )


def specs() -> list[Spec]:
    """The structural induction baselines."""
    return [
        Spec(
            f"coloc-rank-{kind}",
            "structural",
            f"{label} on per-role co-location features (positive / negative example "
            "drugs), best candidate",
            ranker(candidates, kind, "colocation"),
        )
        for kind, label in (("logreg", "logistic regression"), ("boost", "gradient boosting"))
    ] + [
        Spec(
            "coloc-rule",
            "structural",
            "fewest proteins with both relations among negative drugs, then most among "
            "positive drugs",
            lambda seed: Heuristic(colocation_rule, seed),
        )
    ]
