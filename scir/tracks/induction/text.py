"""Clean natural language for induction tasks: three blocks (background facts, known
interacting pairs, known non-interacting pairs) and the question.

Every sentence comes from a template of ``world/relations.json``; the text is deterministic
given the random generator passed in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from scir.tracks.induction.semantics import Fact, Pair
from scir.tracks.induction.world import World, display_drug


def fact_sentence(world: World, fact: Fact) -> str:
    """One background fact as a sentence: "Velorastat inhibits the enzyme KX3A1."."""
    rel, drug, protein = fact
    return world.relation(rel).sentence.format(
        drug=display_drug(drug), protein=world.protein_name(protein)
    )


def facts_block(world: World, facts: Sequence[Fact], rng: random.Random) -> str:
    """Block 1: the background facts, grouped by drug (drugs in random order)."""
    by_drug: dict[str, list[Fact]] = {}
    for f in facts:
        by_drug.setdefault(f[1], []).append(f)
    drugs = sorted(by_drug)
    rng.shuffle(drugs)
    order = {name: i for i, name in enumerate(world.relation_names)}
    lines = ["Pharmacological profiles of the compounds studied:"]
    for drug in drugs:
        for f in sorted(by_drug[drug], key=lambda f: (order[f[0]], f[2])):
            lines.append(fact_sentence(world, f))
    return "\n".join(lines)


def pairs_block(pairs: Sequence[Pair], rng: random.Random, interacting: bool) -> str:
    """Block 2 (``interacting``) or 3: the example pairs, one sentence each, random order."""
    items = sorted(pairs)
    rng.shuffle(items)
    if interacting:
        head = "Drug pairs known to interact:"
        verb = "are known to interact"
        empty = "No pair of these compounds is known to interact."
    else:
        head = "Drug pairs known not to interact:"
        verb = "are known not to interact"
        empty = "No pair of these compounds is known not to interact."
    if not items:
        return f"{head}\n{empty}"
    lines = [head]
    for a, b in items:
        if rng.random() < 0.5:
            a, b = b, a
        lines.append(f"{display_drug(a)} and {display_drug(b)} {verb}.")
    return "\n".join(lines)


def render_blocks(
    world: World,
    facts: Sequence[Fact],
    pos: Sequence[Pair],
    neg: Sequence[Pair],
    rng: random.Random,
) -> list[str]:
    """The three clean-NL blocks of a task."""
    return [
        facts_block(world, facts, rng),
        pairs_block(pos, rng, True),
        pairs_block(neg, rng, False),
    ]


def question(world: World) -> str:
    """The question (the same for every task): which pair of relation types explains the
    interactions, with the relation types, their categories and the answer format."""
    lines = [
        "Two drugs A and B are proposed to interact when they share a protein P to which one "
        "of them stands in relation r1 and the other in relation r2, that is, by a rule "
        "interacts(A, B) :- r1(A, P), r2(B, P), where either drug may take either role. "
        "The relation types are:",
    ]
    for cat in world.categories:
        names = [r for r in world.relations if r.category == cat]
        lines.append(f"- {cat} relations: " + "; ".join(f"{r.name} ({r.gloss})" for r in names))
    lines.append(
        "Both relation types of the rule must belong to the same category; they may be the same "
        "relation type. Which pair of relation types explains the known interactions, that is, "
        "gives a rule that holds for at least one known interacting pair and for none of the "
        "known non-interacting pairs? Give the two relation types in alphabetical order, "
        "separated by a comma, on a last line of the form 'Answer: r1,r2'."
    )
    return "\n".join(lines)
