"""Construction of one induction task's formal object.

One target rule and ``k`` distractor rules (each within one category), ``m`` positives per
rule, one negative per distractor that it covers and the target does not, then filler facts
up to ``facts`` in total by the construction of ``params["construction"]``
(``balanced_fillers.py``: every same-category candidate with the same co-locations among the
positives' and the negatives' drugs; ``fillers.py``: ``paper``, over the rules' own types). Every fact added
after the rules' own facts is first checked by Prolog (``admissible/6`` in
``prolog/induction.pl``): it must not make the target cover a negative, nor make a rule of
another category than the target's valid (such a rule would be a correct answer outside the
answer pool).

Randomness comes from one ``random.Random`` and only ever picks from sorted sequences.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scir.errors import GenerationError
from scir.tracks.induction import balanced_fillers, fillers
from scir.tracks.induction.semantics import Fact, InductionProblem, Pair, pair
from scir.tracks.induction.world import Rule, World, category_rules

MAX_ATTEMPTS = 50
# Construction knobs (documented in docs/tracks/induction.md).
P_REUSE_DRUG = 0.25  # an example reuses a drug of an earlier example
P_REUSE_PROTEIN = 0.35  # an example reuses a protein of an earlier example (same category)


@dataclass
class Construction:
    """The formal content of one task plus how it was made."""

    target: Rule
    category: str
    distractors: list[Rule]
    facts: list[Fact]  # rules' own facts first, then fillers
    core_facts: int
    pos: list[Pair]
    pos_rules: list[Rule]  # the rule each positive was made for
    neg: list[Pair]
    neg_rules: list[Rule]  # the distractor each negative was made for
    drugs: list[str]  # every drug mentioned, sorted
    proteins: list[str]  # every protein mentioned, sorted
    attempts: int = 1
    rejected_fillers: int = 0

    def problem(self) -> InductionProblem:
        """The construction as an :class:`InductionProblem`."""
        return InductionProblem(
            tuple(self.facts),
            tuple(self.pos),
            tuple(self.neg),
            self.category,
            self.target,
            tuple(self.distractors),
        )


@dataclass
class _Pools:
    """Entity streams for one attempt: drugs and proteins not yet used, in random order."""

    world: World
    rng: random.Random
    drugs: list[str] = field(default_factory=list)
    proteins: dict[str, list[str]] = field(default_factory=dict)
    used_proteins: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.drugs = sorted(self.world.drugs)
        self.rng.shuffle(self.drugs)
        for cat in self.world.categories:
            ids = sorted(p.id for p in self.world.proteins_with_role(cat))
            self.rng.shuffle(ids)
            self.proteins[cat] = ids
            self.used_proteins[cat] = []

    def new_drug(self) -> str:
        """A drug not used yet (GenerationError when the world has none left)."""
        if not self.drugs:
            raise GenerationError(
                "the induction world has run out of drug names; lower "
                "--facts, --positives or --distractors",
                field="facts",
            )
        return self.drugs.pop()

    def new_protein(self, category: str) -> str:
        """A protein of ``category`` not used yet; once the world has none left, a used one."""
        used = set().union(*self.used_proteins.values())
        while self.proteins[category]:
            pid = self.proteins[category].pop()
            if pid not in used:
                for cat in self.world.protein(pid).roles:
                    self.used_proteins[cat].append(pid)
                return pid
        if self.used_proteins[category]:
            return self.rng.choice(sorted(self.used_proteins[category]))
        raise GenerationError(f"the induction world has no {category} protein")


def pick_rules(world: World, rng: random.Random, k: int) -> tuple[str, Rule, list[Rule]]:
    """The target's category, the target and ``k`` distinct distractors (one category each)."""
    category = rng.choice(list(world.categories))
    target = rng.choice(category_rules(category, world))
    distractors: list[Rule] = []
    available = sum(len(category_rules(c, world)) for c in world.categories) - 1
    if k > available:
        raise GenerationError(
            f"at most {available} distractors are possible, asked for {k}", field="distractors"
        )
    while len(distractors) < k:
        cat = rng.choice(list(world.categories))
        rule = rng.choice(category_rules(cat, world))
        if rule != target and rule not in distractors:
            distractors.append(rule)
    return category, target, distractors


def construct(world: World, params: dict[str, Any], rng: random.Random) -> Construction:
    """Build a well-posed task (retrying up to ``MAX_ATTEMPTS`` times) with the filler
    strategy of ``params["construction"]`` (``balanced`` when absent)."""
    k, m, total = params["distractors"], params["positives"], params["facts"]
    construction = params.get("construction", "balanced")
    rejected_total = 0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        built = _attempt(world, rng, k, m, total, construction, params.get("pool_growth", 0.0))
        if isinstance(built, Construction):
            built.attempts = attempt
            built.rejected_fillers += rejected_total
            return built
        rejected_total += built
    raise GenerationError(
        f"no well-posed induction task after {MAX_ATTEMPTS} attempts "
        f"(distractors {k}, positives {m}, facts {total}, construction "
        f"{construction})"
    )


@dataclass
class Core:
    """The rules' own part of an attempt: examples and the facts that make them covered."""

    category: str
    target: Rule
    distractors: list[Rule]
    facts: dict[Fact, None]  # insertion-ordered set; fillers are appended
    example_drugs: list[str]  # in order of first use
    pos: list[Pair]
    pos_rules: list[Rule]
    neg: list[Pair]
    neg_rules: list[Rule]

    @property
    def rules(self) -> list[Rule]:
        """The target, then the distractors."""
        return [self.target] + self.distractors


def _core(
    world: World, rng: random.Random, k: int, m: int, balanced: bool = False
) -> tuple[Core, _Pools]:
    """Pick the rules and make ``m`` positives per rule and one negative per distractor;
    returns the core and the attempt's entity streams.

    ``balanced``: every example gets a protein of its own, and an example reuses only drugs
    of earlier examples of its own kind (positive or negative), so that each example is one
    co-location of its rule among the drugs of its role and no drug has both roles (the
    balanced fillers give every other candidate the same co-locations)."""
    category, target, distractors = pick_rules(world, rng, k)
    pools = _Pools(world, rng)
    core = Core(category, target, distractors, {}, [], [], [], [], [])
    seen_pairs: set[Pair] = set()
    role_drugs: list[str] = []  # balanced: the drugs of the current kind of example

    def example(rule: Rule) -> Pair:
        cat = world.rule_category(rule)
        assert cat is not None
        while True:
            reuse = role_drugs if balanced else core.example_drugs
            drugs = [_drug(pools, rng, reuse) for _ in range(2)]
            if drugs[0] != drugs[1] and pair(*drugs) not in seen_pairs:
                break
        used = pools.used_proteins[cat]
        if used and rng.random() < (0.0 if balanced else P_REUSE_PROTEIN):
            protein = rng.choice(sorted(used))
        else:
            protein = pools.new_protein(cat)
        rng.shuffle(drugs)
        core.facts[(rule[0], drugs[0], protein)] = None
        core.facts[(rule[1], drugs[1], protein)] = None
        for d in drugs:
            if d not in core.example_drugs:
                core.example_drugs.append(d)
            if d not in role_drugs:
                role_drugs.append(d)
        p = pair(*drugs)
        seen_pairs.add(p)
        return p

    for rule in core.rules:
        for _ in range(m):
            core.pos.append(example(rule))
            core.pos_rules.append(rule)
    role_drugs = []  # negatives: new drugs, or drugs of earlier negatives
    for rule in distractors:
        core.neg.append(example(rule))
        core.neg_rules.append(rule)
    return core, pools


def _attempt(
    world: World,
    rng: random.Random,
    k: int,
    m: int,
    total: int,
    construction: str,
    pool_growth: float,
) -> Construction | int:
    """One construction attempt: a Construction, or the number of fillers it rejected."""
    core, pools = _core(world, rng, k, m, balanced=construction != "paper")
    n_core = len(core.facts)
    n_fill = max(0, total - n_core)
    if construction == "paper":
        outcome = fillers.fill_paper(world, rng, pools, core, n_fill)
    else:
        outcome = balanced_fillers.fill_balanced(world, rng, pools, core, n_fill, pool_growth)
    if not outcome.ok:
        return outcome.rejected
    all_facts = list(core.facts)
    drugs = sorted({f[1] for f in all_facts} | {d for p in core.pos + core.neg for d in p})
    proteins = sorted({f[2] for f in all_facts})
    return Construction(
        core.target,
        core.category,
        core.distractors,
        all_facts,
        n_core,
        core.pos,
        core.pos_rules,
        core.neg,
        core.neg_rules,
        drugs,
        proteins,
        rejected_fillers=outcome.rejected,
    )


def _drug(pools: _Pools, rng: random.Random, example_drugs: list[str]) -> str:
    if example_drugs and rng.random() < P_REUSE_DRUG:
        return rng.choice(example_drugs)
    return pools.new_drug()
