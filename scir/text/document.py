"""One rendered document as a draft -- header, intro, sections of items, appendix, closing --
and the filler that is interleaved between its items until a task's documents reach their
target length.

A :class:`Draft` is assembled into text deterministically. Items are what must be recoverable
(statements, records, tables); everything else is genre dressing or filler. Filler is inserted
only into the gaps between items, never inside one, so it can neither split nor change a
statement.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scir.text.genres import Genre, GenreSet

SECTION_LAYOUTS = ("paragraphs", "lines", "blocks")


def fill_slots(
    template: str,
    rng: random.Random,
    banks: Mapping[str, Sequence[str]],
    values: dict[str, str] | None = None,
) -> str:
    """Fill every ``{slot}`` of ``template``: fixed ``values`` first, then word ``banks``, then
    the generic numeric slots (each occurrence drawn independently)."""
    values = values or {}
    out = []
    for literal, name, spec, _ in string.Formatter().parse(template):
        out.append(literal)
        if name is None:
            continue
        if name in values:
            out.append(format(values[name], spec or ""))
        elif name in banks:
            out.append(rng.choice(list(banks[name])))
        else:
            out.append(_generic(name, rng))
    return "".join(out)


def _generic(name: str, rng: random.Random) -> str:
    if name == "int1":
        return str(rng.randint(2, 9))
    if name == "int2":
        return str(rng.randint(10, 99))
    if name == "int3":
        return str(rng.randint(100, 999))
    if name in ("int4", "id"):
        return str(rng.randint(1000, 9999))
    if name == "dec1":
        return f"{rng.randint(5, 99) / 10:.1f}"
    if name == "pct":
        return str(rng.randint(52, 99))
    if name == "date":
        return f"{rng.randint(2019, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if name == "time":
        return f"{rng.randint(7, 19):02d}:{rng.choice((0, 10, 15, 20, 30, 40, 45, 50)):02d}"
    if name == "letter":
        return rng.choice("ABCDEFGH")
    if name == "k":
        return str(rng.randint(1, 99))
    raise KeyError(f"unknown slot {name!r}")


class FillerPool:
    """Filler sentences of one document: the templates in a shuffled cycle (no template is
    used twice before all were used). A template's slots are filled once per document, so a
    document never contradicts itself (a template used again repeats its sentence)."""

    def __init__(
        self,
        templates: Sequence[str],
        rng: random.Random,
        banks: Mapping[str, Sequence[str]],
        values: dict[str, str] | None = None,
    ) -> None:
        self._templates = sorted(set(templates))
        self._rng = rng
        self._banks = banks
        self._values = values or {}
        self._queue: list[str] = []
        self._filled: dict[str, str] = {}

    def next(self) -> str:
        """The next filler sentence."""
        if not self._queue:
            self._queue = list(self._templates)
            self._rng.shuffle(self._queue)
        template = self._queue.pop()
        if template not in self._filled:
            self._filled[template] = fill_slots(template, self._rng, self._banks, self._values)
        return self._filled[template]


@dataclass
class Section:
    """A run of items under an optional heading.

    ``layout``: ``paragraphs`` (items are sentences of running prose), ``lines`` (one item per
    line) or ``blocks`` (items are multi-line blocks such as records or tables).
    """

    heading: str | None
    items: list[str]
    layout: str = "paragraphs"
    seed: int = 0  # paragraph breaks of the paragraphs layout
    fillers: dict[int, list[str]] = field(default_factory=dict)  # gap -> filler sentences
    open_start: bool = True  # may filler go before the first item?

    def __post_init__(self) -> None:
        if self.layout not in SECTION_LAYOUTS:
            raise ValueError(f"unknown section layout {self.layout!r}")

    def text(self, genre: Genre) -> str:
        """The section as text: heading line, then the items with their fillers."""
        body: list[str] = []
        if self.layout == "paragraphs":
            sentences = []
            for gap in range(len(self.items) + 1):
                sentences += self.fillers.get(gap, [])
                if gap < len(self.items):
                    sentences.append(self.items[gap])
            body = [" ".join(p) for p in _paragraphs(sentences, self.seed)]
            joined = "\n\n".join(body)
        elif self.layout == "lines":
            lines = []
            for gap in range(len(self.items) + 1):
                if self.fillers.get(gap):
                    lines.append(genre.note.format(text=" ".join(self.fillers[gap])))
                if gap < len(self.items):
                    lines.append(self.items[gap])
            joined = "\n".join(lines)
        else:
            parts = []
            for gap in range(len(self.items) + 1):
                fillers = self.fillers.get(gap)
                if fillers and genre.layout == "lines":
                    parts.append(genre.note.format(text=" ".join(fillers)))
                elif fillers:
                    parts.append(" ".join(fillers))
                if gap < len(self.items):
                    parts.append(self.items[gap])
            joined = "\n\n".join(parts)
        return f"{self.heading}\n{joined}" if self.heading else joined


def _paragraphs(sentences: list[str], seed: int) -> list[list[str]]:
    """Sentences grouped into paragraphs of 3-6 (sizes drawn from ``seed``)."""
    rng = random.Random(seed)
    out, start = [], 0
    while start < len(sentences):
        size = rng.randint(3, 6)
        out.append(sentences[start : start + size])
        start += size
    return out


@dataclass
class Draft:
    """A document before assembly. ``intro`` and ``closing`` are optional dressing (dropped
    first when a document is too long); ``preface`` and ``appendix`` are required paragraphs
    (e.g. a glossary or an arm list that other documents refer to)."""

    genre: Genre
    header: list[str]
    sections: list[Section]
    intro: list[str] = field(default_factory=list)
    preface: list[str] = field(default_factory=list)
    appendix: list[str] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The assembled document."""
        parts = ["\n".join(self.header)] + self.intro + self.preface
        parts += [s.text(self.genre) for s in self.sections]
        parts += self.appendix + self.closing
        return "\n\n".join(p for p in parts if p)

    def gaps(self) -> list[tuple[int, int]]:
        """Every place a filler may go: (section, gap) pairs."""
        return [
            (i, g)
            for i, s in enumerate(self.sections)
            for g in range(0 if s.open_start else 1, len(s.items) + 1)
        ]

    def add_filler(self, rng: random.Random, sentence: str) -> None:
        """Insert one filler sentence into a gap: the emptiest of three drawn at random that
        does not hold the same sentence yet (so filler spreads out instead of piling up)."""
        gaps = self.gaps()
        if not gaps:
            self.appendix.append(sentence)
            return
        drawn = [rng.choice(gaps) for _ in range(3)]
        fresh = [
            g for g in drawn if sentence not in self.sections[g[0]].fillers.get(g[1], [])
        ] or drawn
        section, gap = min(fresh, key=lambda sg: len(self.sections[sg[0]].fillers.get(sg[1], [])))
        self.sections[section].fillers.setdefault(gap, []).append(sentence)

    def filler_count(self) -> int:
        """How many filler sentences were inserted."""
        return sum(len(v) for s in self.sections for v in s.fillers.values())


def table_parts(
    label: str, columns: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, chunk: int
) -> list[str]:
    """A ``csv`` or ``markdown`` table of text cells in parts of ``chunk`` rows, each part
    with the header (so prose can come between the parts); a first column numbers the rows
    from 1, headed ``label`` (lower case in csv)."""
    if fmt == "csv":
        head = [label.lower() + "," + ",".join(columns)]
        body = [f"{k}," + ",".join(r) for k, r in enumerate(rows, start=1)]
    elif fmt == "markdown":
        head = [
            f"| {label} | " + " | ".join(columns) + " |",
            "|---:|" + "|".join("---:" for _ in columns) + "|",
        ]
        body = [f"| {k} | " + " | ".join(r) + " |" for k, r in enumerate(rows, start=1)]
    else:
        raise ValueError(f"unknown table format {fmt!r}")
    return ["\n".join(head + body[i : i + chunk]) for i in range(0, len(body), chunk)]


def dressed_draft(
    genre: Genre, gset: GenreSet, sections: list[Section], rng: random.Random
) -> Draft:
    """A draft of ``sections`` in the genre's dressing, drawn from ``rng``: a header, an intro
    and, six times in ten, a closing."""
    draft = Draft(
        genre=genre,
        header=[fill_slots(rng.choice(genre.headers), rng, gset.slots)],
        sections=sections,
        intro=[fill_slots(rng.choice(genre.intro), rng, gset.slots)],
    )
    if rng.random() < 0.6:
        draft.closing.append(fill_slots(rng.choice(genre.closing), rng, gset.slots))
    return draft


def fill_to_length(
    drafts: list[Draft],
    pools: list[FillerPool],
    weights: Sequence[float],
    target: int,
    rng: random.Random,
    limit: int = 5000,
) -> int:
    """Interleave filler into the drafts until their total length reaches ``target``.

    Each filler goes to a document drawn with ``weights`` (its clean block's length), into a
    random gap between its items. Returns the number of fillers added.
    """
    lengths = [len(d.text()) for d in drafts]
    added = 0
    while sum(lengths) + 2 * (len(drafts) - 1) < target and added < limit:
        i = rng.choices(range(len(drafts)), weights=weights)[0]
        drafts[i].add_filler(rng, pools[i].next())
        lengths[i] = len(drafts[i].text())
        added += 1
    return added


def trim_to_length(drafts: list[Draft], maximum: int) -> None:
    """Drop optional dressing (closings, then intros) while the documents exceed ``maximum``."""
    for attr in ("closing", "intro"):
        for d in drafts:
            if sum(len(x.text()) for x in drafts) + 2 * (len(drafts) - 1) <= maximum:
                return
            setattr(d, attr, [])
