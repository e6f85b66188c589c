"""Filler facts of an induction task, after the rules' own facts: the two constructions.

``paper`` (the SciR paper's): fillers use only the relation types of the task's own rules,
about filler drugs (and, with probability ``P_FILLER_EXAMPLE_DRUG``, example drugs). The
facts' vocabulary then narrows the answer.

``balanced`` (the default): fillers are spread over all nine relation types so that no
relation-type statistic singles out the task's rules:

- **Quotas by role.** The rules' own facts are all about example drugs. For each role --
  ``pos`` (drugs of some positive) and ``neg`` (drugs of some negative; a drug may have both)
  -- every relation type gets the same number of facts about drugs of that role,
  ``M + U{0..EXAMPLE_QUOTA_SPREAD}`` where ``M`` is the largest count any type has among the
  rules' own facts about that role, so a type's count over positive (or negative) drugs does
  not depend on whether it belongs to a rule. The rest of the ``facts`` budget is facts about
  filler drugs, spread over the nine types by a uniform multinomial draw.
- **Motifs.** Fillers come in pairs like the rules' own facts: two facts ``r1(A, P)``,
  ``r2(B, P)`` on one shared protein ``P`` with two different drugs. With probability
  ``P_EXAMPLE_PAIR`` a motif of a role is a same-category pair on the two drugs of one
  example of that role (a negative: the rule now covers a negative, as a distractor does; a
  positive: the motif would grow the pool, so ``pool_growth`` decides); otherwise, and for
  filler drugs, a random pair of quota types (same-category or mixed; a mixed pair needs a
  protein with both roles) on two drugs that are not a positive.
- **Admissibility.** Every fact is checked by Prolog first (``admissible/6``: the target
  never covers a negative and no rule of another category becomes valid). A fact that would
  make another rule of the target's category valid (``pool_gain/6``: a bigger answer pool)
  is never kept when the pool would exceed ``MAX_POOL`` (4, the paper's largest) and
  otherwise kept with probability ``pool_growth`` (a track parameter, Easy 0.1, Hard 0.28),
  the knob that sets the pool statistics. A rejected fact is redrawn (its quota stays open).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, NamedTuple

from scir.tracks.induction.semantics import Fact, InductionProblem, prolog_module
from scir.tracks.induction.world import World

if TYPE_CHECKING:
    from scir.tracks.induction.generate import Core, _Pools

QUERY_TIME_LIMIT = 10.0        # seconds per Prolog check
# paper construction
P_FILLER_EXAMPLE_DRUG = 0.2    # a filler fact is about a drug of the examples
FILLER_TRIES_PER_FACT = 40
# balanced construction
EXAMPLE_QUOTA_SPREAD = 1       # per-type, per-role quota of example-drug facts: M + U{0..spread}
FACTS_PER_FILLER_DRUG = 3      # filler drugs: about one per this many filler-drug facts
PROTEINS_PER_CATEGORY = 6      # proteins of each category the fillers draw from (at least)
P_EXAMPLE_PAIR = 1.0           # a pos/neg motif sits on the two drugs of one example
TRIES_PER_FACT = 30
MAX_POOL = 4                   # a filler never makes the pool larger (the paper's maximum)


class FillOutcome(NamedTuple):
    """Whether the fillers could be placed, and how many candidate facts were rejected."""

    ok: bool
    rejected: int


def _problem(core: "Core") -> InductionProblem:
    return InductionProblem(tuple(core.facts), tuple(core.pos), tuple(core.neg), core.category,
                            core.target)


def _target_args(core: "Core") -> dict[str, str]:
    return {"T1": core.target[0], "T2": core.target[1], "TC": core.category}


def _ill_posed(mod, core: "Core") -> bool:
    return mod.query_once("ill_posed(T1, T2, TC)", _target_args(core),
                          time_limit=QUERY_TIME_LIMIT) is not None


def _admissible(mod, core: "Core", fact: Fact) -> bool:
    return mod.query_once("admissible(Rel, Drug, Protein, T1, T2, TC)",
                          {"Rel": fact[0], "Drug": fact[1], "Protein": fact[2],
                           **_target_args(core)}, time_limit=QUERY_TIME_LIMIT) is not None


def fill_paper(world: World, rng: random.Random, pools: "_Pools", core: "Core",
               n_fill: int) -> FillOutcome:
    """The paper's fillers: ``n_fill`` facts over the rules' own relation types."""
    facts = core.facts
    relations = sorted({r for rule in core.rules for r in rule})
    filler_drugs = [pools.new_drug() for _ in range(max(3, n_fill // 3))] if n_fill else []
    for cat in sorted({world.category_of(r) for r in relations}):
        for _ in range(2 + n_fill // (5 * len(relations))):
            pools.new_protein(cat)
    rejected = 0
    goal = len(facts) + n_fill
    with prolog_module(_problem(core), world) as mod:
        if _ill_posed(mod, core):
            return FillOutcome(False, 0)
        tries = 0
        while len(facts) < goal:
            tries += 1
            if tries > FILLER_TRIES_PER_FACT * max(1, n_fill):
                return FillOutcome(False, rejected)
            rel = rng.choice(relations)
            cat = world.category_of(rel)
            if core.example_drugs and rng.random() < P_FILLER_EXAMPLE_DRUG:
                drug = rng.choice(core.example_drugs)
            else:
                drug = rng.choice(filler_drugs)
            protein = rng.choice(sorted(pools.used_proteins[cat]))
            fact = (rel, drug, protein)
            if fact in facts:
                continue
            if not _admissible(mod, core, fact):
                rejected += 1
                continue
            mod.add_facts("fact", [fact])
            facts[fact] = None
    return FillOutcome(True, rejected)


def _roles(core: "Core") -> dict[str, list[str]]:
    """The example drugs by role: ``pos`` in some positive, ``neg`` in some negative (a drug
    may have both roles)."""
    return {"pos": sorted({d for p in core.pos for d in p}),
            "neg": sorted({d for p in core.neg for d in p})}


def _roles_of(roles: dict[str, list[str]]) -> dict[str, list[str]]:
    """Drug -> its roles."""
    out: dict[str, list[str]] = {}
    for role, drugs in roles.items():
        for d in drugs:
            out.setdefault(d, []).append(role)
    return out


def _quotas(world: World, rng: random.Random, core: "Core", n_fill: int,
            roles: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """Per role (``pos``, ``neg``: example drugs, see :func:`_roles`; ``filler``: other
    drugs) and relation type, the filler facts still to place."""
    names = sorted(world.relation_names)
    role_of = _roles_of(roles)
    quotas: dict[str, dict[str, int]] = {}
    for role in ("pos", "neg"):
        have = {r: 0 for r in names}
        for rel, drug, _ in core.facts:
            have[rel] += role in role_of.get(drug, ())
        top = max(have.values()) if roles[role] else 0
        quotas[role] = {r: (top + rng.randint(0, EXAMPLE_QUOTA_SPREAD) - have[r]
                            if roles[role] else 0) for r in names}
    while _left(quotas["pos"]) + _left(quotas["neg"]) > n_fill:   # a small --facts budget
        role = "pos" if rng.random() < _left(quotas["pos"]) / (
            _left(quotas["pos"]) + _left(quotas["neg"])) else "neg"
        r = _pick(rng, quotas[role])
        assert r is not None
        quotas[role][r] -= 1
    quotas["filler"] = {r: 0 for r in names}
    for _ in range(n_fill - _left(quotas["pos"]) - _left(quotas["neg"])):
        quotas["filler"][rng.choice(names)] += 1
    return quotas


def _left(quota: dict[str, int]) -> int:
    return sum(v for v in quota.values() if v > 0)


def _pick(rng: random.Random, quota: dict[str, int], allowed=None) -> str | None:
    """A relation type drawn with weight = its remaining quota (None when none is left)."""
    names = [r for r in sorted(quota) if quota[r] > 0 and (allowed is None or r in allowed)]
    if not names:
        return None
    return rng.choices(names, weights=[quota[r] for r in names])[0]


def fill_balanced(world: World, rng: random.Random, pools: "_Pools", core: "Core",
                  n_fill: int, pool_growth: float) -> FillOutcome:
    """The balanced fillers (module docstring): quotas over all nine types, in motifs; a
    filler that grows the answer pool is kept with probability ``pool_growth``."""
    facts = core.facts
    goal = len(facts) + n_fill
    roles = _roles(core)
    quotas = _quotas(world, rng, core, n_fill, roles)
    roles["filler"] = []
    role_of = _roles_of(roles)
    for cat in world.categories:
        for _ in range(PROTEINS_PER_CATEGORY):
            if len(pools.used_proteins[cat]) >= PROTEINS_PER_CATEGORY:
                break
            pools.new_protein(cat)
    positives = set(core.pos)
    rejected = 0
    with prolog_module(_problem(core), world) as mod:
        if _ill_posed(mod, core):
            return FillOutcome(False, 0)

        def place(rel: str, drug: str, protein: str) -> bool:
            nonlocal rejected
            fact = (rel, drug, protein)
            if fact in facts:
                return False
            if not _admissible(mod, core, fact):
                rejected += 1
                return False
            gain = mod.query_once("pool_gain(Rel, Drug, Protein, TC, Gain, Size)",
                                  {"Rel": rel, "Drug": drug, "Protein": protein,
                                   "TC": core.category}, time_limit=QUERY_TIME_LIMIT)
            if gain is not None and gain["Gain"] > 0:
                if gain["Size"] + gain["Gain"] > MAX_POOL or rng.random() >= pool_growth:
                    rejected += 1
                    return False
            mod.add_facts("fact", [fact])
            facts[fact] = None
            for role in role_of[drug]:
                quotas[role][rel] -= 1
            return True

        for role in ("neg", "pos", "filler"):
            if role == "filler":
                # a fact about a drug of a positive and a negative counts for both roles, so
                # the example phases may place fewer facts than their quotas: top up
                for _ in range(goal - len(facts) - _left(quotas["filler"])):
                    quotas["filler"][rng.choice(sorted(world.relation_names))] += 1
                n = _left(quotas["filler"])
                roles["filler"] = ([pools.new_drug()
                                    for _ in range(max(3, n // FACTS_PER_FILLER_DRUG))]
                                   if n else [])
                role_of.update((d, ["filler"]) for d in roles["filler"])
            quota, drugs_of_role = quotas[role], roles[role]
            # the examples a motif of this role may sit on: negatives for ``neg``, positives
            # for ``pos`` (such a motif grows the pool, so pool_growth decides)
            examples = {"neg": sorted(core.neg), "pos": sorted(core.pos)}.get(role, [])
            neg_pairs = [p for p in examples if set(p) & set(drugs_of_role)]
            budget = TRIES_PER_FACT * max(1, _left(quota))
            while _left(quota) > 0:
                budget -= 1
                if budget < 0:
                    return FillOutcome(False, rejected)
                r1 = _pick(rng, quota)
                assert r1 is not None
                c1 = world.category_of(r1)
                on_pair = bool(neg_pairs) and rng.random() < P_EXAMPLE_PAIR
                partners = {r for r in world.relation_names
                            if any(c1 in world.protein(p).roles
                                   for p in pools.used_proteins[world.category_of(r)])}
                if on_pair:          # a same-category pair on one example's two drugs
                    partners &= set(world.relations_of(c1))
                    a, b = rng.choice(neg_pairs)
                    drugs = [a, b] if a in drugs_of_role else [b, a]
                elif len(drugs_of_role) >= 2:   # two drugs of the role, not a positive pair
                    for _ in range(5):
                        drugs = rng.sample(drugs_of_role, 2)
                        if tuple(sorted(drugs)) not in positives:
                            break
                else:
                    drugs = [drugs_of_role[0]]
                quota[r1] -= 1
                r2 = _pick(rng, quotas[role_of[drugs[1]][-1]], partners) if len(drugs) > 1 \
                    else None
                quota[r1] += 1
                c2 = world.category_of(r2) if r2 else c1
                shared = sorted(p for p in pools.used_proteins[c1]
                                if c2 in world.protein(p).roles)
                protein = rng.choice(shared)
                place(r1, drugs[0], protein)
                if r2 is not None:
                    place(r2, drugs[1], protein)
    return FillOutcome(True, rejected)
