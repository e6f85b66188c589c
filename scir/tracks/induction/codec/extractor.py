"""Reference extractor for induction documents: recovers the background facts, the known
interacting pairs and the known non-interacting pairs from the text alone.

The universe is the track's whole world (every drug and protein name, not only the task's).
Catalogue codes are read first from every document (``Name (CODE)``), so a pair document can
name drugs by codes defined in the facts document. Facts are read in the layout of each
document's genre (sentences, including the two-sentence pronoun splits, records or protein
sections) with the genre's templates; pairs
with the pair sentences of the track or the genre's list lines.
"""

from __future__ import annotations

import re
from typing import Any

from scir.errors import VerificationError
from scir.tasks import Task
from scir.text.genres import Genre, GenreSet
from scir.text.patterns import alternation, compile_template
from scir.tracks.induction.codec.writer import pronoun_split
from scir.tracks.induction.world import load_world

CODE = r"[A-Z]{2,4}-[0-9]{4,6}"
KEYS = ("facts", "pos", "neg")


DRUG_NAME = r"(?<![\w-])[A-Z][a-z]+(?![\w-])"
PROTEIN_NAME = r"(?<![\w-])[A-Z][A-Z0-9]+(?![\w-])"
MENTION = rf"(?:{DRUG_NAME}(?: \({CODE}\))?|(?<![\w-]){CODE}(?![\w-]))"


class _Universe:
    """Names of the world and the codes the documents define. Slots match name-shaped
    tokens (so patterns stay small and cached); a match whose tokens are not names of the
    world, or codes defined in the documents, is not a statement and is skipped."""

    def __init__(self, task: Task) -> None:

        world = load_world()
        self.drugs = {d[:1].upper() + d[1:]: d for d in world.drugs}
        self.proteins = {p.name: p.id for p in world.proteins}
        self.codes: dict[str, str] = {}
        definition = re.compile(rf"(?P<name>{DRUG_NAME}) \((?P<code>{CODE})\)")
        for doc in task.documents:
            for m in definition.finditer(doc.text):
                drug = self.drugs.get(m.group("name"))
                if drug is None:
                    continue
                if self.codes.setdefault(m.group("code"), drug) != drug:
                    raise VerificationError(
                        f"code {m.group('code')} is defined for two drugs", task_id=task.task_id
                    )
        self.mention = MENTION
        self.protein = PROTEIN_NAME

    def drug(self, text: str) -> str | None:
        """The drug id of a mention (``Name``, ``Name (CODE)`` or ``CODE``), or None."""
        name = text.split(" (", 1)[0]
        return self.drugs.get(name) or self.codes.get(name)

    def fact(self, rel: str, drug: str, protein: str) -> list[str] | None:
        """``[rel, drug id, protein id]``, or None when a name is not of the world."""
        d, p = self.drug(drug), self.proteins.get(protein)
        return None if d is None or p is None else [rel, d, p]


def _sentence_facts(text: str, gset: GenreSet, u: _Universe) -> list[tuple[int, list[str]]]:

    out = []
    intros = gset.phrases.get("drug_intros") or []
    for rel, templates in gset.phrases["fact_sentences"].items():
        split = [pronoun_split(i, t) for i in intros for t in templates]
        for t in list(templates) + [x for x in split if x is not None]:
            for m in compile_template(t, {"drug": u.mention, "protein": u.protein}).finditer(text):
                fact = u.fact(rel, m.group("drug"), m.group("protein"))
                if fact is not None:
                    out.append((m.start(), fact))
    return out


def _spans(text: str, header: re.Pattern) -> list[tuple[re.Match, str]]:
    """Each header match with the text up to the next header."""
    matches = list(header.finditer(text))
    ends = [m.start() for m in matches[1:]] + [len(text)]
    return [(m, text[m.end() : end]) for m, end in zip(matches, ends)]


def _record_facts(
    text: str, genre: Genre, gset: GenreSet, u: _Universe
) -> list[tuple[int, list[str]]]:
    spec = genre.option("record")
    cats = gset.phrases["categories"]
    header = compile_template(spec["header"], {"drug": u.mention}, anchored=False)
    header = re.compile(r"^[ \t]*" + header.pattern + r"[ \t]*$", re.M)
    by_label = {label: cat for cat, label in spec["fields"].items()}
    field = re.compile(r"^[ \t]*(?P<field>" + alternation(by_label) + r"): (?P<items>.*)$", re.M)
    item = compile_template(
        spec["item"],
        {"protein": u.protein, "role": alternation(set(spec["roles"].values()))},
        anchored=False,
    )
    relation = {(cats[rel], word): rel for rel, word in spec["roles"].items()}
    out = []
    for head, body in _spans(text, header):
        for f in field.finditer(body):
            cat = by_label[f.group("field")]
            for m in item.finditer(f.group("items")):
                fact = u.fact(
                    relation[(cat, m.group("role"))], head.group("drug"), m.group("protein")
                )
                if fact is not None:
                    out.append((head.start(), fact))
    return out


def _protein_facts(
    text: str, genre: Genre, gset: GenreSet, u: _Universe
) -> list[tuple[int, list[str]]]:
    spec = genre.option("protein")
    by_name = {name: cat for cat, name in spec["categories"].items()}
    header = compile_template(
        spec["header"], {"protein": u.protein, "category": alternation(by_name)}, anchored=False
    )
    header = re.compile(r"^[ \t]*" + header.pattern + r"[ \t]*$", re.M)
    by_label: dict[tuple[str, str], str] = {}
    cats = gset.phrases["categories"]
    for rel, label in spec["roles"].items():
        by_label[(cats[rel], label)] = rel
    line = re.compile(
        r"^[ \t]*(?P<label>" + alternation({lab for _, lab in by_label}) + r"): (?P<drugs>.*)$",
        re.M,
    )
    mention = re.compile(u.mention)
    out = []
    for head, body in _spans(text, header):
        cat = by_name[head.group("category")]
        for m in line.finditer(body):
            rel = by_label.get((cat, m.group("label")))
            if rel is None:
                raise VerificationError(f"{m.group('label')!r} is not a relation of a {cat}")
            for d in mention.finditer(m.group("drugs")):
                fact = u.fact(rel, d.group(0), head.group("protein"))
                if fact is not None:
                    out.append((head.start(), fact))
    return out


def _pairs(text: str, genre: Genre, gset: GenreSet, u: _Universe) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {"pos": [], "neg": []}
    slots = {"a": u.mention, "b": u.mention}
    for polarity in ("pos", "neg"):
        templates = list(gset.phrases["pair_sentences"][polarity])
        patterns = [compile_template(t, slots) for t in templates]
        lines = genre.option("pair_lines")
        if lines:
            line = compile_template(lines[polarity], slots, anchored=False)
            patterns.append(re.compile(r"^" + line.pattern + r"$", re.M))
        for pattern in patterns:
            for m in pattern.finditer(text):
                a, b = u.drug(m.group("a")), u.drug(m.group("b"))
                if a is not None and b is not None:
                    out[polarity].append(sorted([a, b]))
    return out


def extract(task: Task, gset: GenreSet) -> list[dict[str, Any]]:
    """One ``{"facts", "pos", "neg"}`` content per document (a document holding content of
    another block than its own raises VerificationError)."""
    u = _Universe(task)
    out = []
    for number, doc in enumerate(task.documents, start=1):
        genre, ph = gset.genre(doc.genre), gset.for_genre(doc.genre)  # the document's register
        layout = genre.option("facts_layout")
        if layout == "records":
            found = _record_facts(doc.text, genre, ph, u)
        elif layout == "proteins":
            found = _protein_facts(doc.text, genre, gset, u)
        else:
            found = _sentence_facts(doc.text, ph, u)
        content: dict[str, Any] = {"facts": [f for _, f in sorted(found)]}
        content.update(_pairs(doc.text, genre, ph, u))
        own = KEYS[number - 1] if number <= len(KEYS) else None
        stray = [k for k in KEYS if k != own and content[k]]
        if stray:
            raise VerificationError(
                f"document {number} states {', '.join(stray)} of another block",
                task_id=task.task_id,
            )
        out.append(content)
    return out
