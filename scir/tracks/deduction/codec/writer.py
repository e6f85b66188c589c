"""Deduction documents: each premise of a block becomes one statement in the genre's wording
(``phrases.statements`` of ``genres/deduction.json``, chosen per statement from the genre's
``wording`` list), statements shuffled within the block.

Cross-document references: some populations get an abbreviation ("Kdr+ cells" for
"Kdr-positive cells", "ETCs" for "endothelial tip cells"), defined in the glossary of ONE
document and used, undefined, in the others -- so reading a document needs another one.

Deeper obfuscation (issue 29), each a named technique taking its register's phrase bank:

* **aliases everywhere** (:func:`choose_aliases`): every population gets an abbreviation or,
  when it has none, a catalogue code (``P14 cells``), all defined in the one glossary and used
  for nearly every mention outside it;
* **split statements** (:func:`split_statement`): a statement spread over two sentences, the
  population introduced in the first and the property (with the quantifier carried by the
  genre: "one fraction, which holds every ...", "none of them") in the second
  (``phrases.split_statements``);
* **distractors** (:func:`distractors`): sentences with the premises' vocabulary and shapes
  that state nothing ("Whether every ... was not examined here"), over pairs of populations
  that no premise relates (``phrases.distractors``).
"""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, fill_slots
from scir.text.genres import Genre, GenreSet
from scir.tracks.deduction.codec.contents import deduction_lexicon
from scir.tracks.deduction.logic import Formula, parse

_VOWEL_LETTERS = "AEFHILMNORSX"  # initials read with a leading vowel sound: "an ETC"


_PROPER = frozenset({"Drosophila", "Arabidopsis", "Xenopus"})
SPLIT_SHARE = 0.45  # statements written over two sentences
ALIAS_USE = (0.6, 0.97)  # alias use in the glossary's document, elsewhere
DISTRACTORS = (1, 2)  # distractor sentences per document (min, max)
CODE = "P{n}"  # catalogue codes of populations without abbreviation


def slot_values(task: Task) -> dict[str, str]:
    """Task slots of the filler: the context's title, as a title and inside a sentence."""
    title = str(task.domain_metadata.get("context_title", "Developmental biology"))
    return {"context_title": title, "context": in_sentence(title)}


def in_sentence(title: str) -> str:
    """A title as written inside a sentence: first letter lowered unless the first word is a
    name (``Drosophila segmentation``, ``C. elegans vulval induction``)."""
    first = title.split(" ", 1)[0]
    if first[1:2] in (".", "") or first[1:] != first[1:].lower() or first in _PROPER:
        return title
    return title[:1].lower() + title[1:]


def alias_of(noun: str, article: str) -> tuple[str, str, str] | None:
    """(singular, plural, article) of a noun's abbreviation, or None when it has none:
    ``X-positive cell`` -> ``X+ cell``; a phrase of 2+ words -> its initials (``ETC``)."""
    m = re.fullmatch(r"(\S+)-positive cell", noun)
    if m:
        return f"{m.group(1)}+ cell", f"{m.group(1)}+ cells", article
    words = [w for w in re.split(r"[\s\-]+", noun) if w]
    if len(words) >= 2 and all(w[0].isalpha() for w in words):
        initials = "".join(w[0].upper() for w in words)
        return initials, initials + "s", "an" if initials[0] in _VOWEL_LETTERS else "a"
    return None


def catalogue_code(pattern: str, taken: set[str], rng: random.Random) -> tuple[str, str, str]:
    """(singular, plural, article) of a fresh catalogue code made from ``pattern`` (a ``{n}``
    slot, e.g. ``P{n}``): ``P14 cell``, ``P14 cells``, ``a``; never one of ``taken``."""
    drawn = (rng.randint(10, 99) for _ in range(200))  # then the first free number
    for n in itertools.chain(drawn, itertools.count(100)):
        code = pattern.format(n=n)
        if code + " cell" not in taken and code + " cells" not in taken:
            taken.update({code + " cell", code + " cells"})
            return code + " cell", code + " cells", "a"
    raise ValueError(f"no free catalogue code of the form {pattern!r}")


def choose_aliases(
    nouns: dict[str, tuple[str, str, str]], code: str, rng: random.Random
) -> dict[str, tuple[str, str, str]]:
    """An alias for every population of ``nouns`` (id -> (singular, plural, article)): its
    abbreviation (:func:`alias_of`) when that is free, else a catalogue code from ``code``."""
    taken = {n for noun, plural, _ in nouns.values() for n in (noun, plural)}
    chosen: dict[str, tuple[str, str, str]] = {}
    for pid in sorted(nouns):
        noun, _, article = nouns[pid]
        alias = alias_of(noun, article)
        if alias is None or alias[0] in taken or alias[1] in taken:
            alias = catalogue_code(code, taken, rng)
        taken.update({alias[0], alias[1]})
        chosen[pid] = alias
    return chosen


def split_statement(
    bank: dict[str, list[dict[str, str]]], kind: str, rng: random.Random
) -> str | None:
    """A two-sentence template of ``kind`` from ``bank`` (``phrases.split_statements`` of the
    register), or None when the bank has none."""
    options = bank.get(kind) or []
    return rng.choice(options)["text"] if options else None


def distractors(
    templates: list[str],
    pairs: list[tuple[str, str]],
    lexicon,
    aliases: dict,
    use_alias: float,
    count: int,
    rng: random.Random,
) -> list[str]:
    """``count`` sentences from ``templates`` (``phrases.distractors``) over population pairs
    drawn from ``pairs`` (ids no premise relates), named as statements are."""

    if not templates or not pairs:
        return []
    return [
        _statement(
            rng.choice(templates),
            Formula("all", rng.choice(pairs)),
            lexicon,
            aliases,
            use_alias,
            rng,
        )
        for _ in range(count)
    ]


def unrelated_pairs(task_nouns: list[str], premises: list[Any]) -> list[tuple[str, str]]:
    """Ordered pairs of distinct populations that no premise mentions together."""
    related = {frozenset(f.predicates) for f in premises}
    return [
        (a, b)
        for a in task_nouns
        for b in task_nouns
        if a != b and frozenset((a, b)) not in related
    ]


def _statement(
    template: str, formula, lexicon, aliases: dict, use_alias: float, rng: random.Random
) -> str:
    values: dict[str, str] = {}

    def noun(role: str, pid: str) -> None:
        sg, pl, art = lexicon.nouns[pid]
        if pid in aliases and rng.random() < use_alias:
            sg, pl, art = aliases[pid]
        values.update({role: sg, f"{role}_pl": pl, f"a{role}": f"{art} {sg}"})

    kind, args = formula.kind, formula.args
    if kind in ("fact", "neg_fact"):
        noun("P", args[0])
        name = lexicon.names[args[1]]
        values.update({"c": name, "C": name[:1].upper() + name[1:]})
    elif kind == "exists":
        noun("P", args[0])
    else:
        noun("S", args[0])
        noun("P", args[1])
    return template.format(**values)


def glossary_text(genre: Genre, lexicon, aliases: dict, rng: random.Random) -> str:
    """The glossary line of ``genre`` defining ``aliases`` (in a shuffled order)."""
    spec = genre.option("glossary")
    entries = [
        spec["entry"].format(alias_pl=a[1], noun_pl=lexicon.nouns[pid][1])
        for pid, a in aliases.items()
    ]
    rng.shuffle(entries)
    return spec["head"] + spec["sep"].join(entries) + "."


def drafts(
    task: Task,
    contents: list[dict[str, Any]],
    genres: list[Genre],
    gset: GenreSet,
    rng: random.Random,
) -> tuple[list[Draft], dict[str, Any]]:
    """One draft per block (before filler), plus what was done (aliases, glossary)."""

    lexicon = deduction_lexicon(task)
    values = slot_values(task)
    glossary_doc = rng.randrange(len(contents))
    aliases = choose_aliases(lexicon.nouns, CODE, rng)
    bank = gset.phrases["statements"]
    split_bank = gset.phrases.get("split_statements") or {}
    all_formulas = [parse(p, task_id=task.task_id) for c in contents for p in c["premises"]]
    pairs = unrelated_pairs(sorted(lexicon.nouns), all_formulas)
    out, splits, added = [], 0, 0
    for i, (content, genre) in enumerate(zip(contents, genres)):
        formulas = [parse(p, task_id=task.task_id) for p in content["premises"]]
        rng.shuffle(formulas)
        wording = genre.option("wording") or {}
        wrapper = rng.choice(genre.items)
        use_alias = ALIAS_USE[0] if i == glossary_doc else ALIAS_USE[1]
        texts = []
        for f in formulas:
            template = (
                split_statement(split_bank, f.kind, rng) if rng.random() < SPLIT_SHARE else None
            )
            if template is None:
                ids = wording.get(f.kind) or [p["id"] for p in bank[f.kind]]
                chosen = rng.choice(ids)
                template = next(p["text"] for p in bank[f.kind] if p["id"] == chosen)
            else:
                splits += 1
            texts.append(_statement(template, f, lexicon, aliases, use_alias, rng))
        extra = distractors(
            gset.phrases.get("distractors") or [],
            pairs,
            lexicon,
            aliases,
            use_alias,
            rng.randint(*DISTRACTORS),
            rng,
        )
        for text in extra:
            texts.insert(rng.randint(0, len(texts)), text)
        added += len(extra)
        items = [
            fill_slots(wrapper, rng, gset.slots, {"text": text, "k": str(k)})
            for k, text in enumerate(texts, start=1)
        ]
        draft = Draft(
            genre=genre,
            header=[fill_slots(rng.choice(genre.headers), rng, gset.slots, values)],
            sections=_sections(items, genre, rng),
            intro=[fill_slots(rng.choice(genre.intro), rng, gset.slots, values)],
        )
        if i == glossary_doc and aliases:
            line = glossary_text(genre, lexicon, aliases, rng)
            (
                draft.preface if genre.option("glossary")["position"] == "start" else draft.appendix
            ).append(line)
        if rng.random() < 0.6:
            draft.closing.append(fill_slots(rng.choice(genre.closing), rng, gset.slots, values))
        out.append(draft)
    return out, {
        "aliases": len(aliases),
        "glossary_document": glossary_doc + 1 if aliases else None,
        "split_statements": splits,
        "distractors": added,
    }


def _sections(items: list[str], genre: Genre, rng: random.Random) -> list[Section]:
    """The items under one or two of the genre's headings."""
    headings = list(genre.headings)
    rng.shuffle(headings)
    parts = 2 if len(items) >= 6 and len(headings) >= 2 else 1
    cut = len(items) // 2 if parts == 2 else len(items)
    runs = [items[:cut], items[cut:]] if parts == 2 else [items]
    return [
        Section(headings[j], run, genre.layout, rng.randrange(2**31)) for j, run in enumerate(runs)
    ]
