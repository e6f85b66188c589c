"""Filler facts of an induction task, after the rules' own facts: the paper construction, and
the checks both constructions share.

``paper`` (the SciR paper's): fillers use only the relation types of the task's own rules,
about filler drugs (and, with probability ``P_FILLER_EXAMPLE_DRUG``, example drugs). The
facts' vocabulary then narrows the answer. The default ``balanced`` construction is in
:mod:`scir.tracks.induction.balanced_fillers`.

Every fact is checked by Prolog first (``admissible/6``: the target never covers a negative
and no rule of another category becomes valid); a rejected fact is redrawn.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, NamedTuple

from scir.tracks.induction import predicates as preds
from scir.tracks.induction.semantics import Fact, InductionProblem, prolog_module
from scir.tracks.induction.world import World

if TYPE_CHECKING:
    from scir.tracks.induction.generate import Core, _Pools

QUERY_TIME_LIMIT = 10.0  # seconds per Prolog check
# paper construction
P_FILLER_EXAMPLE_DRUG = 0.2  # a filler fact is about a drug of the examples
FILLER_TRIES_PER_FACT = 40


class FillOutcome(NamedTuple):
    """Whether the fillers could be placed, and how many candidate facts were rejected."""

    ok: bool
    rejected: int


def _problem(core: Core) -> InductionProblem:
    return InductionProblem(
        tuple(core.facts), tuple(core.pos), tuple(core.neg), core.category, core.target
    )


def _target_args(core: Core) -> dict[str, str]:
    return {"T1": core.target[0], "T2": core.target[1], "TC": core.category}


def _ill_posed(mod, core: Core) -> bool:
    return (
        mod.query_once("ill_posed(T1, T2, TC)", _target_args(core), time_limit=QUERY_TIME_LIMIT)
        is not None
    )


def _admissible(mod, core: Core, fact: Fact) -> bool:
    return (
        mod.query_once(
            "admissible(Rel, Drug, Protein, T1, T2, TC)",
            {"Rel": fact[0], "Drug": fact[1], "Protein": fact[2], **_target_args(core)},
            time_limit=QUERY_TIME_LIMIT,
        )
        is not None
    )


def fill_paper(
    world: World, rng: random.Random, pools: _Pools, core: Core, n_fill: int
) -> FillOutcome:
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
            mod.add_records([preds.Fact(*fact)])
            facts[fact] = None
    return FillOutcome(True, rejected)
