"""Induction documents: the facts block in the layout of its genre (``sentences``: one sentence
per fact, grouped by drug; ``records``: one record per drug with a field per protein class;
``proteins``: one section per protein and class with a line per relation type), the pair blocks
as sentences or list lines.

Cross-document references: every drug of the facts document gets a catalogue code in the
facts genre's format, defined at its first mention (``Velorastat (PB-04512)``); later mentions,
and the mentions in the pair documents, use the code or the name at random -- so the pair
documents name drugs by codes that only the facts document explains.

Deeper obfuscation (issue 29): in the sentences layout, **pronoun splits**
(:func:`pronoun_split`): a drug's first fact is, half of the time, spread over two sentences,
the drug introduced in the first (``phrases.drug_intros``) and its relation stated of "It" in
the second.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, dressed_draft, fill_slots
from scir.text.genres import Genre, GenreSet
from scir.tracks.induction.world import load_world

POLARITY = ("pos", "neg")
SPLIT_SHARE = 0.5  # drug groups whose first fact is a pronoun split


def slot_values(task: Task) -> dict[str, str]:
    """No task-specific filler slots."""
    return {}


def display_drug(drug: str) -> str:
    """A drug id as written: ``velorastat`` -> ``Velorastat``."""
    return drug[:1].upper() + drug[1:]


def make_codes(drugs: list[str], spec: dict[str, Any], rng: random.Random) -> dict[str, str]:
    """Distinct catalogue codes (``PREFIX-00000``) for ``drugs``."""
    prefix, digits = spec["prefix"], int(spec["digits"])
    codes: dict[str, str] = {}
    used: set[str] = set()
    for d in sorted(drugs):
        while True:
            code = f"{prefix}-{rng.randrange(10**digits):0{digits}d}"
            if code not in used:
                break
        used.add(code)
        codes[d] = code
    return codes


class Mentions:
    """How a document names drugs: the first mention in the defining document is
    ``Name (CODE)``, any other mention the name or the code (probability ``p_code``)."""

    def __init__(
        self, codes: dict[str, str], rng: random.Random, defining: bool, p_code: float
    ) -> None:
        self.codes, self.rng, self.defining, self.p_code = codes, rng, defining, p_code
        self.defined: set[str] = set()

    def __call__(self, drug: str) -> str:
        name = display_drug(drug)
        if drug not in self.codes:
            return name
        if self.defining and drug not in self.defined:
            self.defined.add(drug)
            return f"{name} ({self.codes[drug]})"
        return self.codes[drug] if self.rng.random() < self.p_code else name


def _protein_name(pid: str) -> str:

    return load_world().protein_name(pid)


def pronoun_split(intro: str, template: str) -> str | None:
    """``template`` (a fact sentence starting with ``{drug}``) stated of "It" after ``intro``
    (a sentence introducing ``{drug}``); None when the template does not start with the drug."""
    if not template.startswith("{drug} "):
        return None
    return f"{intro} It {template[len('{drug} ') :]}"


def _sentences(
    facts: list[tuple], gset: GenreSet, mention: Callable, rng: random.Random, info: dict[str, Any]
) -> list[list[str]]:
    """One sentence per fact, grouped by drug (random drug and fact order)."""
    by_drug: dict[str, list[tuple]] = {}
    for f in facts:
        by_drug.setdefault(f[1], []).append(f)
    drugs = sorted(by_drug)
    rng.shuffle(drugs)
    groups = []
    for d in drugs:
        group = sorted(by_drug[d])
        rng.shuffle(group)
        sentences = []
        if rng.random() < 0.7:  # irrelevant profile of the drug, first in its group
            sentences.append(
                fill_slots(
                    rng.choice(gset.phrases["drug_profiles"]), rng, gset.slots, {"drug": mention(d)}
                )
            )
        intros = gset.phrases.get("drug_intros") or []
        for k, (rel, drug, prot) in enumerate(group):
            template = rng.choice(gset.phrases["fact_sentences"][rel])
            if k == 0 and intros and rng.random() < SPLIT_SHARE:
                split = [
                    t
                    for t in gset.phrases["fact_sentences"][rel]
                    if pronoun_split("", t) is not None
                ]
                if split:
                    template = pronoun_split(rng.choice(intros), rng.choice(split)) or template
                    info["pronoun_splits"] = info.get("pronoun_splits", 0) + 1
            sentences.append(template.format(drug=mention(drug), protein=_protein_name(prot)))
        groups.append(sentences)
    return groups


def _records(
    facts: list[tuple], gset: GenreSet, genre: Genre, mention: Callable, rng: random.Random
) -> list[str]:
    """One record (multi-line block) per drug."""
    spec = genre.option("record")
    cats = gset.phrases["categories"]
    by_drug: dict[str, list[tuple]] = {}
    for f in facts:
        by_drug.setdefault(f[1], []).append(f)
    drugs = sorted(by_drug)
    rng.shuffle(drugs)
    records = []
    for d in drugs:
        lines = [spec["header"].format(drug=mention(d))]
        fields = sorted({cats[rel] for rel, _, _ in by_drug[d]})
        rng.shuffle(fields)
        body = []
        for cat in fields:
            items = sorted(f for f in by_drug[d] if cats[f[0]] == cat)
            rng.shuffle(items)
            body.append(
                spec["indent"]
                + spec["fields"][cat]
                + ": "
                + spec["sep"].join(
                    spec["item"].format(protein=_protein_name(p), role=spec["roles"][rel])
                    for rel, _, p in items
                )
            )
        for extra in rng.sample(spec["extras"], k=min(3, len(spec["extras"]))):
            body.insert(
                rng.randint(0, len(body)), spec["indent"] + fill_slots(extra, rng, gset.slots)
            )
        records.append("\n".join(lines + body))
    return records


def _proteins(
    facts: list[tuple], gset: GenreSet, genre: Genre, mention: Callable, rng: random.Random
) -> list[str]:
    """One section (multi-line block) per protein and class."""
    spec = genre.option("protein")
    cats = gset.phrases["categories"]
    groups: dict[tuple[str, str], list[tuple]] = {}
    for f in facts:
        groups.setdefault((f[2], cats[f[0]]), []).append(f)
    keys = sorted(groups)
    rng.shuffle(keys)
    sections = []
    for prot, cat in keys:
        lines = [
            spec["header"].format(protein=_protein_name(prot), category=spec["categories"][cat])
        ]
        rels = sorted({rel for rel, _, _ in groups[(prot, cat)]})
        rng.shuffle(rels)
        for rel in rels:
            drugs = sorted(d for r, d, _ in groups[(prot, cat)] if r == rel)
            rng.shuffle(drugs)
            lines.append(
                spec["indent"]
                + spec["roles"][rel]
                + ": "
                + spec["sep"].join(mention(d) for d in drugs)
            )
        if spec.get("extras") and rng.random() < 0.5:
            lines.append(spec["indent"] + fill_slots(rng.choice(spec["extras"]), rng, gset.slots))
        sections.append("\n".join(lines))
    return sections


def _pairs(
    pairs: list[list[str]],
    polarity: str,
    genre: Genre,
    gset: GenreSet,
    mention: Callable,
    rng: random.Random,
) -> tuple[list[str], str]:
    """The pair statements of one polarity and the section layout they need."""
    if not pairs:
        return [rng.choice(gset.phrases["pairs_empty"][polarity])], "paragraphs"
    items = [list(p) for p in sorted(pairs)]
    rng.shuffle(items)
    lines = genre.option("pairs_layout") == "lines"
    out = []
    for a, b in items:
        if rng.random() < 0.5:
            a, b = b, a
        template = (
            genre.option("pair_lines")[polarity]
            if lines
            else rng.choice(gset.phrases["pair_sentences"][polarity])
        )
        out.append(template.format(a=mention(a), b=mention(b)))
    return out, "lines" if lines else "paragraphs"


def drafts(
    task: Task,
    contents: list[dict[str, Any]],
    genres: list[Genre],
    gset: GenreSet,
    rng: random.Random,
) -> tuple[list[Draft], dict[str, Any]]:
    """Drafts of the facts document and the two pair documents."""
    facts = [tuple(f) for f in contents[0]["facts"]]
    info: dict[str, Any] = {}
    codes = make_codes(sorted({f[1] for f in facts}), genres[0].option("code"), rng)
    out = []
    layout = genres[0].option("facts_layout")
    mention = Mentions(codes, rng, defining=True, p_code=0.4)
    if layout == "sentences":
        groups = _sentences(facts, gset, mention, rng, info)
        cut = len(groups) // 2 if len(groups) >= 6 else len(groups)
        runs = [sum(groups[:cut], []), sum(groups[cut:], [])]
        sections = [run for run in runs if run]
        section_layout = "paragraphs"
    else:
        blocks = (_records if layout == "records" else _proteins)(
            facts, gset, genres[0], mention, rng
        )
        cut = len(blocks) // 2 if len(blocks) >= 6 else len(blocks)
        sections = [run for run in (blocks[:cut], blocks[cut:]) if run]
        section_layout = "blocks"
    headings = rng.sample(list(genres[0].headings), k=min(2, len(genres[0].headings)))
    out.append(
        dressed_draft(
            genres[0],
            gset,
            [
                Section(headings[j % len(headings)], run, section_layout, rng.randrange(2**31))
                for j, run in enumerate(sections)
            ],
            rng,
        )
    )
    for polarity, content, genre in zip(POLARITY, contents[1:], genres[1:]):
        mention = Mentions(codes, rng, defining=False, p_code=0.5)
        items, section_layout = _pairs(content[polarity], polarity, genre, gset, mention, rng)
        heading = rng.choice(gset.phrases["pair_headings"][polarity])
        out.append(
            dressed_draft(
                genre, gset, [Section(heading, items, section_layout, rng.randrange(2**31))], rng
            )
        )
    return out, {"codes": len(codes), "facts_layout": layout, **info}
