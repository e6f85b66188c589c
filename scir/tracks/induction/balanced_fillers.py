"""The balanced construction's filler facts: every candidate rule meets the same way among the
examples' drugs, whether it is in the answer pool or not.

What a solver sees without doing the task's reasoning is where relation types meet on a protein
among the drugs of the positive examples and among those of the negative ones (never which
drug pairs with which: that is the task). The rules' own facts put each of the task's rules on
its positives (and each distractor on its negative), and a filler that would make the target
cover a negative, or a decoy cover a positive, must be refused; a construction that simply
refuses and redraws leaves the pool's rules with more co-locations among the positives' drugs
and fewer among the negatives' than the other candidates. Here every candidate gets the same
co-locations, and only the drug pair a co-location sits on is chosen to keep the task as it
is:

1. **The core** (``generate._core`` with ``balanced``): every example on a protein of its
   own, drugs reused only within one kind of example, so each example is one co-location of
   its rule among the drugs of its role and no drug has both roles.
2. **Pool growth.** Each other rule of the target's category joins the pool with probability
   ``pool_growth`` (at most ``MAX_POOL`` rules), by a co-location on a positive pair. This is
   the knob that sets the pool statistics; it is decided per rule before the quotas, so pool
   membership does not depend on them.
3. **Co-location quotas.** For each role (``pos``: drugs of the positives, ``neg``: drugs of
   the negatives), each of the 18 same-category candidates is brought to the same number of
   co-locations -- the most any has after steps 1-2: the positives per rule and one -- each a
   protein of its own on which two different drugs of the role carry the rule's relations,
   one each. Every relation type then has the same number of facts about the drugs of each
   role (four per co-location). The drug pair is chosen by what the rule may cover: a rule
   outside the pool sits first on a negative (so it covers one, as a distractor does), then
   on a positive (it covers one positive too, so every rule outside the pool covers two
   examples, as the target covers its two positives), then on pairs that form no example; a
   rule of the pool sits on positives up to the target's count, on pairs that form no example
   among the negatives' drugs.
4. **Filler drugs** take what is left of the ``facts`` budget: pairs of facts about fresh
   drugs on proteins of the task, the relation types drawn uniformly. The quotas need 36 facts per
   co-location of every candidate in each role -- 108 with two positives per rule and some
   negative, more than Easy's 100, which then has no filler drug; they are placed in full
   whenever there is a filler budget at all (none when ``facts`` leaves no room beside the
   rules' own facts). Without negatives (``--distractors 0``) a rule outside the pool
   cannot cover an example, so it sits on pairs that form none.

Every fact is checked by Prolog before it is kept (``keeps_pool/6``: the task stays
well-posed and the pool unchanged; growth facts: ``admissible/6`` and ``pool_gain/6``).
Co-location counts, relation counts by role and co-occurrence on shared proteins are then the
same for every same-category candidate by construction, and every one of them covers some
example.
"""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import combinations
from typing import TYPE_CHECKING

from scir.tracks.induction import predicates as preds
from scir.tracks.induction.fillers import FillOutcome, _ill_posed, _problem
from scir.tracks.induction.semantics import Fact, prolog_module
from scir.tracks.induction.world import Rule, World, category_rules

if TYPE_CHECKING:
    from scir.tracks.induction.fillers import FillOutcome
    from scir.tracks.induction.generate import Core, _Pools

QUERY_TIME_LIMIT = 10.0
MAX_POOL = 4  # the paper's largest pool
FACTS_PER_FILLER_DRUG = 3  # filler drugs: about one per this many filler-drug facts
PAIR_TRIES = 20  # drug pairs tried for one co-location


def _roles(core: Core) -> dict[str, list[str]]:
    return {
        "pos": sorted({d for p in core.pos for d in p}),
        "neg": sorted({d for p in core.neg for d in p}),
    }


def colocations(facts, drugs: set[str], rules: list[Rule]) -> dict[Rule, int]:
    """Per rule: the proteins on which two different drugs of ``drugs`` carry its two
    relations (one each)."""
    by_protein: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for rel, drug, protein in facts:
        if drug in drugs:
            by_protein[protein][rel].add(drug)
    out = {}
    for r1, r2 in rules:
        out[(r1, r2)] = sum(
            1
            for rels in by_protein.values()
            if any(a != b for a in rels.get(r1, ()) for b in rels.get(r2, ()))
        )
    return out


class _Placer:
    """Facts added one by one, each checked by Prolog; a structure is undone when one of its
    facts is refused."""

    def __init__(self, mod, core: Core) -> None:
        self.mod, self.core, self.rejected = mod, core, 0
        self.args = {"T1": core.target[0], "T2": core.target[1], "TC": core.category}

    def _check(self, fact: Fact, goal: str) -> bool:
        return (
            self.mod.query_once(
                goal,
                {"Rel": fact[0], "Drug": fact[1], "Protein": fact[2], **self.args},
                time_limit=QUERY_TIME_LIMIT,
            )
            is not None
        )

    def _add(self, fact: Fact) -> None:
        self.mod.add_records([preds.Fact(*fact)])
        self.core.facts[fact] = None

    def _undo(self, facts: list[Fact]) -> None:
        for f in facts:
            self.mod.query_once(
                "retract(fact(Rel, Drug, Protein))",
                {"Rel": f[0], "Drug": f[1], "Protein": f[2]},
                time_limit=QUERY_TIME_LIMIT,
            )
            del self.core.facts[f]

    def place(self, facts: list[Fact]) -> bool:
        """Add ``facts`` if each keeps the task well-posed and the pool unchanged."""
        done: list[Fact] = []
        for fact in facts:
            if fact in self.core.facts or not self._check(
                fact, "keeps_pool(Rel, Drug, Protein, T1, T2, TC)"
            ):
                self._undo(done)
                self.rejected += 1
                return False
            self._add(fact)
            done.append(fact)
        return True

    def grow(self, facts: list[Fact]) -> bool:
        """Add ``facts`` (admissible ones) if together they make some rule of the target's
        category valid."""
        done: list[Fact] = []
        gained = False
        for fact in facts:
            if fact in self.core.facts or not self._check(
                fact, "admissible(Rel, Drug, Protein, T1, T2, TC)"
            ):
                self._undo(done)
                self.rejected += 1
                return False
            gain = self.mod.query_once(
                "pool_gain(Rel, Drug, Protein, TC, Gain, Size)",
                {"Rel": fact[0], "Drug": fact[1], "Protein": fact[2], "TC": self.core.category},
                time_limit=QUERY_TIME_LIMIT,
            )
            gained = gained or bool(gain and gain["Gain"] > 0)
            self._add(fact)
            done.append(fact)
        if not gained:
            self._undo(done)
            self.rejected += 1
        return gained

    def pool(self) -> set[Rule]:
        row = self.mod.query_once(
            "pool_rules(TC, Rules)", {"TC": self.core.category}, time_limit=QUERY_TIME_LIMIT
        )
        return {_rule(_pair_args(r)) for r in row["Rules"]} if row else set()


def _rule(args: tuple) -> Rule:
    """A rule read back from Prolog: its two relation names, as strings."""
    a, b = args
    return (str(a), str(b))


def _pair_args(term) -> tuple:
    """``R1-R2`` as read back from Prolog (a Term with two args, or a 2-list)."""
    args = getattr(term, "args", term)
    return tuple(args)


def _new_protein(world: World, rng: random.Random, pools: _Pools, core: Core, category: str) -> str:
    """A protein of ``category`` for one co-location: one that carries no fact yet, of that
    category alone when there is one (proteins of several categories are kept for the
    scarcer ones); else one that carries facts of other categories only (its co-locations
    there are of rules mixing categories, never answers)."""
    carried: dict[str, set[str]] = defaultdict(set)
    for rel, _, protein in core.facts:
        carried[protein].add(world.category_of(rel))
    ids = sorted(p.id for p in world.proteins_with_role(category))
    for candidates in (
        [p for p in ids if p not in carried and world.protein(p).roles == (category,)],
        [p for p in ids if p not in carried],
        [p for p in ids if category not in carried[p]],
    ):
        if candidates:
            protein = candidates[rng.randrange(len(candidates))]
            for role in world.protein(protein).roles:
                if protein not in pools.used_proteins[role]:
                    pools.used_proteins[role].append(protein)
            return protein
    return pools.new_protein(category)


def fill_balanced(
    world: World, rng: random.Random, pools: _Pools, core: Core, n_fill: int, pool_growth: float
) -> FillOutcome:
    """The balanced fillers (module docstring); ``n_fill`` is the ``facts`` budget left
    after the rules' own facts (the quotas of step 3 are placed even beyond it)."""

    if n_fill <= 0:  # the rules' own facts only, as asked
        return FillOutcome(True, 0)
    goal = len(core.facts) + n_fill
    roles = _roles(core)
    same = [r for c in world.categories for r in category_rules(c, world)]
    positives, negatives = sorted(set(core.pos)), sorted(set(core.neg))
    examples = set(positives) | set(negatives)
    free = {role: [p for p in combinations(roles[role], 2) if p not in examples] for role in roles}
    with prolog_module(_problem(core), world) as mod:
        if _ill_posed(mod, core):
            return FillOutcome(False, 0)
        placer = _Placer(mod, core)

        def colocate(rule: Rule, pairs: list, avoid: set) -> bool:
            """One co-location of ``rule`` on a pair of ``pairs`` (not in ``avoid``) and a
            protein of its own."""
            options = [p for p in pairs if p not in avoid] or list(pairs)
            for _ in range(PAIR_TRIES):
                if not options:
                    return False
                a, b = rng.sample(list(options[rng.randrange(len(options))]), 2)
                category = world.rule_category(rule)
                # colocate only places same-category rules (``same``), never a mixed pair
                assert category is not None
                protein = _new_protein(world, rng, pools, core, category)
                if placer.place([(rule[0], a, protein), (rule[1], b, protein)]):
                    covered[rule].add(tuple(sorted((a, b))))
                    return True
            return False

        covered: dict[Rule, set] = defaultdict(set)
        for kind, pairs in (("pos", positives), ("neg", negatives)):
            for rule, p in zip(core.pos_rules if kind == "pos" else core.neg_rules, pairs):
                covered[rule].add(p)

        # 2. pool growth, decided per rule of the target's category
        pool = placer.pool()
        for rule in category_rules(core.category, world):
            if rule in pool or len(pool) >= MAX_POOL or rng.random() >= pool_growth:
                continue
            for _ in range(PAIR_TRIES):
                a, b = rng.sample(list(positives[rng.randrange(len(positives))]), 2)
                protein = _new_protein(world, rng, pools, core, core.category)
                if placer.grow([(rule[0], a, protein), (rule[1], b, protein)]):
                    covered[rule].add(tuple(sorted((a, b))))
                    break
            pool = placer.pool()

        # 3. co-location quotas, negatives' drugs first (a rule outside the pool covers a
        # negative before it may cover a positive)
        quota = {
            role: max(colocations(core.facts, set(roles[role]), same).values())
            if len(roles[role]) >= 2
            else 0
            for role in roles
        }
        target_count = sum(1 for r in core.pos_rules if r == core.target)
        for role in ("neg", "pos"):
            have = colocations(core.facts, set(roles[role]), same)
            for rule in same:
                for _ in range(quota[role] - have[rule]):
                    mine = covered[rule]
                    if rule in pool:
                        on_positives = role == "pos" and len(mine & set(positives)) < target_count
                        pairs = positives if on_positives else free[role]
                    elif role == "neg":
                        pairs = negatives if not mine & set(negatives) else free["neg"]
                    elif mine & set(negatives) and not mine & set(positives):
                        pairs = positives  # it covers a negative: it stays invalid
                    else:
                        pairs = free["pos"]
                    if not colocate(rule, pairs, mine):
                        return FillOutcome(False, placer.rejected)

        # 4. filler drugs
        if (
            goal > len(core.facts)
            and _filler_drugs(world, rng, pools, placer, goal - len(core.facts)) is None
        ):
            return FillOutcome(False, placer.rejected)
    return FillOutcome(True, placer.rejected)


def _filler_drugs(
    world: World, rng: random.Random, pools: _Pools, placer: _Placer, n: int
) -> list[str] | None:
    """``n`` facts about fresh drugs, in pairs on proteins already in the task (two filler
    drugs, uniform relation types of a category of the protein): a filler drug meets the
    examples' drugs only in pairs that are no example. The drugs, or None when a fact
    cannot be placed."""
    drugs = [pools.new_drug() for _ in range(max(3, n // FACTS_PER_FILLER_DRUG))]
    proteins = sorted({f[2] for f in placer.core.facts})
    placed = 0
    while placed < n:
        protein = proteins[rng.randrange(len(proteins))]
        rels = [r for c in world.protein(protein).roles for r in world.relations_of(c)]
        a, b = rng.sample(drugs, 2)
        facts = [(rng.choice(rels), a, protein)]
        if placed + 1 < n:
            facts.append((rng.choice(rels), b, protein))
        for _ in range(PAIR_TRIES):
            if placer.place(facts):
                break
            facts = [(rng.choice(rels), f[1], f[2]) for f in facts]
        else:
            return None
        placed += len(facts)
    return drugs
