"""The deduction vocabulary files and the clean-NL templates."""

from __future__ import annotations

import random
import re

import pytest

from scir.errors import ConfigError
from scir.tracks.deduction import generator
from scir.tracks.deduction.logic import Formula
from scir.tracks.deduction.templates import Lexicon, blocks, question, sentence
from scir.tracks.deduction.vocabulary import (
    FreshNames, article_of, contexts, get_context, plural_of,
)

CONTEXTS = contexts()


def test_twenty_contexts_large_enough_for_hard_with_margin():
    assert len(CONTEXTS) == 20
    preds, inds = generator.requirements(5, 2)
    assert (preds, inds) == (20, 20)
    for context in CONTEXTS:
        assert context.capacity >= preds + 8, context.name       # >= 40% margin
        assert len(context.individuals) >= inds + 10, context.name


@pytest.mark.parametrize("context", CONTEXTS, ids=lambda c: c.name)
def test_context_entries(context):
    nouns = [p.noun.lower() for p in context.predicates]
    assert len(set(nouns)) == len(nouns)
    assert len({p.plural.lower() for p in context.predicates}) == len(nouns)
    for p in context.predicates:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", p.id)
        assert p.article in ("a", "an") and p.noun == p.noun.strip()
        assert re.fullmatch(r"[\w.' -]+", p.noun) and p.plural != p.noun
    for i in context.individuals:
        assert re.fullmatch(r"[a-t][a-z0-9_]*", i.id)   # Prover9: u-z would be a variable
        assert i.name.lower().replace(" ", "_") == i.id


@pytest.mark.parametrize("context", CONTEXTS, ids=lambda c: c.name)
def test_related_names_share_an_exclusive_group(context):
    """A noun phrase that ends with another one (``migratory X`` / ``X``) is one group."""
    group = {pid: g for g in context.groups for pid in g}
    for a, b in ((a, b) for a in context.predicates for b in context.predicates if a != b):
        if re.search(r"(^|[\s-])" + re.escape(b.noun.lower()) + r"\Z", a.noun.lower()):
            assert b.id in group.get(a.id, ()), (context.name, a.noun, b.noun)


def test_fresh_names_respect_groups_and_never_repeat():
    context = get_context("germ_cells")
    fresh = FreshNames(context, random.Random(5))
    drawn = [fresh.predicate() for _ in range(context.capacity)]
    assert len(set(drawn)) == len(drawn)
    for group in context.groups:
        assert len(set(group) & set(drawn)) == 1
    individuals = [fresh.individual() for _ in range(len(context.individuals))]
    assert sorted(individuals) == sorted(i.id for i in context.individuals)


def test_unknown_context():
    with pytest.raises(ConfigError, match="unknown deduction context 'cardiology'"):
        get_context("cardiology")


def test_too_many_distractors_for_any_context():
    with pytest.raises(ConfigError, match="depth 9 and width 4 may need 52 predicates"):
        generator.eligible_contexts(9, 4)


def test_inflection_rules():
    assert plural_of("Sox10-positive cell") == "Sox10-positive cells"
    assert plural_of("boundary cap cell") == "boundary cap cells"
    assert article_of("ectomesenchymal cell") == "an"
    assert article_of("Sox10-positive cell") == "a"
    nkx = get_context("neural_tube").predicate("nkx22_positive")
    assert nkx.with_article == "an Nkx2.2-positive cell"
    oogonium = get_context("germ_cells").predicate("oogonium")
    assert oogonium.plural == "oogonia"


LEXICON = Lexicon(nouns={"ncc": ("neural crest cell", "neural crest cells", "a"),
                         "sox10": ("Sox10-positive cell", "Sox10-positive cells", "a"),
                         "emt": ("EMT-competent cell", "EMT-competent cells", "an")},
                  names={"cell_a7": "cell A7"})


@pytest.mark.parametrize("formula, text", [
    (Formula("all", ("ncc", "sox10")), "Every neural crest cell is a Sox10-positive cell."),
    (Formula("no", ("ncc", "emt")), "No neural crest cell is an EMT-competent cell."),
    (Formula("some", ("sox10", "ncc")), "Some Sox10-positive cells are neural crest cells."),
    (Formula("some_not", ("ncc", "sox10")),
     "Some neural crest cells are not Sox10-positive cells."),
    (Formula("fact", ("emt", "cell_a7")), "Cell A7 is an EMT-competent cell."),
    (Formula("neg_fact", ("sox10", "cell_a7")), "Cell A7 is not a Sox10-positive cell."),
    (Formula("exists", ("ncc",)), "There is at least one neural crest cell."),
])
def test_sentences(formula, text):
    assert sentence(formula, LEXICON) == text


def test_blocks_and_question():
    premises = [Formula("all", ("ncc", "sox10")), Formula("exists", ("ncc",)),
                Formula("fact", ("emt", "cell_a7"))]
    assert blocks(premises, LEXICON) == [
        "Every neural crest cell is a Sox10-positive cell. There is at least one neural crest "
        "cell.", "Cell A7 is an EMT-competent cell."]
    assert blocks(premises[:1], LEXICON) == ["Every neural crest cell is a Sox10-positive "
                                             "cell.", ""]
    assert question(Formula("some", ("ncc", "sox10")), LEXICON) == (
        "Based on the statements above, is the following statement True, False, or Unknown? "
        "Some neural crest cells are Sox10-positive cells.")
