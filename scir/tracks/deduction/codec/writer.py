"""Deduction documents: each premise of a block becomes one statement in the genre's wording
(``phrases.statements`` of ``genres/deduction.json``, chosen per statement from the genre's
``wording`` list), statements shuffled within the block.

Cross-document references: some populations get an abbreviation ("Kdr+ cells" for
"Kdr-positive cells", "ETCs" for "endothelial tip cells"), defined in the glossary of ONE
document and used, undefined, in the others -- so reading a document needs another one.
"""

from __future__ import annotations

import random
import re
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, fill_slots
from scir.text.genres import Genre, GenreSet
from scir.tracks.deduction.codec.contents import deduction_lexicon

_VOWEL_LETTERS = "AEFHILMNORSX"        # initials read with a leading vowel sound: "an ETC"


_PROPER = frozenset({"Drosophila", "Arabidopsis", "Xenopus"})


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


def _choose_aliases(task: Task, contents: list[dict[str, Any]], glossary_doc: int,
                    rng: random.Random) -> dict[str, tuple[str, str, str]]:
    """Predicates that get an abbreviation (about half of those that can), with at least one
    of them stated outside the glossary's document when possible."""
    from scir.tracks.deduction.logic import parse

    lexicon = deduction_lexicon(task)
    taken = {n for noun, plural, _ in lexicon.nouns.values() for n in (noun, plural)}
    candidates: dict[str, tuple[str, str, str]] = {}
    for pid in sorted(lexicon.nouns):
        noun, _, article = lexicon.nouns[pid]
        alias = alias_of(noun, article)
        if alias is None or alias[0] in taken or alias[1] in taken:
            continue
        if any(alias[0] == a[0] for a in candidates.values()):
            continue
        candidates[pid] = alias
    chosen = {pid: a for pid, a in candidates.items() if rng.random() < 0.5}
    elsewhere = sorted({p for i, c in enumerate(contents) if i != glossary_doc
                        for f in c["premises"] for p in parse(f).predicates} & set(candidates))
    if elsewhere and not set(chosen) & set(elsewhere):
        pid = rng.choice(elsewhere)
        chosen[pid] = candidates[pid]
    return dict(sorted(chosen.items()))


def _statement(template: str, formula, lexicon, aliases: dict, use_alias: float,
               rng: random.Random) -> str:
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
    entries = [spec["entry"].format(alias_pl=a[1], noun_pl=lexicon.nouns[pid][1])
               for pid, a in aliases.items()]
    rng.shuffle(entries)
    return spec["head"] + spec["sep"].join(entries) + "."


def drafts(task: Task, contents: list[dict[str, Any]], genres: list[Genre], gset: GenreSet,
           rng: random.Random) -> tuple[list[Draft], dict[str, Any]]:
    """One draft per block (before filler), plus what was done (aliases, glossary)."""
    from scir.tracks.deduction.logic import parse

    lexicon = deduction_lexicon(task)
    values = slot_values(task)
    glossary_doc = rng.randrange(len(contents))
    aliases = _choose_aliases(task, contents, glossary_doc, rng)
    bank = gset.phrases["statements"]
    out = []
    for i, (content, genre) in enumerate(zip(contents, genres)):
        formulas = [parse(p, task_id=task.task_id) for p in content["premises"]]
        rng.shuffle(formulas)
        wording = genre.option("wording") or {}
        wrapper = rng.choice(genre.items)
        use_alias = 0.5 if i == glossary_doc else 1.0
        items = []
        for k, f in enumerate(formulas, start=1):
            ids = wording.get(f.kind) or [p["id"] for p in bank[f.kind]]
            chosen = rng.choice(ids)
            template = next(p["text"] for p in bank[f.kind] if p["id"] == chosen)
            text = _statement(template, f, lexicon, aliases, use_alias, rng)
            items.append(fill_slots(wrapper, rng, gset.slots, {"text": text, "k": str(k)}))
        draft = Draft(genre=genre, header=[fill_slots(rng.choice(genre.headers), rng,
                                                      gset.slots, values)],
                      sections=_sections(items, genre, rng),
                      intro=[fill_slots(rng.choice(genre.intro), rng, gset.slots, values)])
        if i == glossary_doc and aliases:
            line = glossary_text(genre, lexicon, aliases, rng)
            (draft.preface if genre.option("glossary")["position"] == "start"
             else draft.appendix).append(line)
        if rng.random() < 0.6:
            draft.closing.append(fill_slots(rng.choice(genre.closing), rng, gset.slots, values))
        out.append(draft)
    return out, {"aliases": len(aliases), "glossary_document": glossary_doc + 1 if aliases
                 else None}


def _sections(items: list[str], genre: Genre, rng: random.Random) -> list[Section]:
    """The items under one or two of the genre's headings."""
    headings = list(genre.headings)
    rng.shuffle(headings)
    parts = 2 if len(items) >= 6 and len(headings) >= 2 else 1
    cut = len(items) // 2 if parts == 2 else len(items)
    runs = [items[:cut], items[cut:]] if parts == 2 else [items]
    return [Section(headings[j], run, genre.layout, rng.randrange(2 ** 31))
            for j, run in enumerate(runs)]
