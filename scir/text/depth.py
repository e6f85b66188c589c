"""Measured obfuscation depth: how much of a task's premises a *generic extractor* recovers from
a text, and how the premises are spread over sentences and documents.

The generic extractor knows only the clean-NL templates and the vocabulary, no genre: each
premise (a deduction premise, a causal edge or data row, an induction fact) comes from its
track's codec (:meth:`~scir.text.codec.RenderCodec.depth_items`) as a :class:`DepthItem`: the
names it mentions and the patterns of every clean-NL sentence that states it. The text is
split into sentences (lines, then sentence ends) and a premise counts as recovered when one
sentence *ends with* one of its clean-NL statements (a prefix such as a list marker, a label or
a time stamp is allowed; a statement embedded in a longer sentence, "Whether every ... was not
examined", is not). On the clean text this recovers every premise by construction.

The other measures: the share of premises whose names all occur literally in one clause (a
sentence or a part of it between semicolons) that names nothing else of the vocabulary, in
clean-NL order (a data row: its values in any order, other names allowed) -- an upper bound
for any clause-by-clause matcher with a dictionary; the
sentence skeletons (a sentence naming the vocabulary, with its names and every name-like token
-- a number, an abbreviation, a code, a label -- replaced by ``X``): how many distinct ones and how many of the commonest cover 90% of such sentences;
and the share of premises one of whose names (or anchors, e.g. the condition a data row
belongs to) does not occur in the premise's own document, so that reading it needs a link to
another document.

Measuring a task (its codec's items over its NL, Obf or control text) and the per-(track,
tier) tables over task files are :mod:`scir.rendering.depth`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_CLAUSE_END = re.compile(r"(?<=;)\s+")
_IDENTIFIER = re.compile(
    r"(?<![\w+\-.])(?=[\w+\-.]*(?:[0-9]|\+|(?<=\w)[A-Z]))"
    r"[\w+\-.]*\w\+?"
)
_DIGITS = re.compile(r"[0-9]+(?:\.[0-9]+)?")
COVER = 0.9  # skeleton coverage reported: the commonest covering 90%


@dataclass(frozen=True)
class DepthItem:
    """One premise as the generic extractor sees it.

    ``kind``: what it is (``premise``, ``edge``, ``row``, ``fact``); ``block``: the index of
    the block (and document) stating it; ``terms``: the names it mentions, in clean-NL order,
    each a tuple of spellings (singular, plural); ``forms``: regexes of the clean-NL
    statements of it (one per template); ``anchors``: spellings of what else its own document
    must name for it to be read there (e.g. a data row's condition), empty if nothing;
    ``ordered``: whether its names must occur in clean-NL order to count as stated in one
    clause, and name no other word of the vocabulary there (False for a data row, whose
    columns any table may order and whose narrated cells name the proteins).
    """

    kind: str
    block: int
    terms: tuple[tuple[str, ...], ...]
    forms: tuple[str, ...]
    anchors: tuple[str, ...] = ()
    ordered: bool = True


@dataclass
class Depth:
    """The depth measures of a set of texts, per item kind (counts, turned into shares by
    :meth:`share`)."""

    items: Counter[str] = field(default_factory=Counter)
    recovered: Counter[str] = field(default_factory=Counter)
    literal: Counter[str] = field(default_factory=Counter)
    cross_document: Counter[str] = field(default_factory=Counter)
    skeletons: Counter[str] = field(default_factory=Counter)

    def add(self, other: Depth) -> None:
        """Add another text's counts."""
        for name in ("items", "recovered", "literal", "cross_document", "skeletons"):
            getattr(self, name).update(getattr(other, name))

    def share(self, counter: str, kind: str) -> float | None:
        """``counter``'s share of the items of ``kind`` (None without items)."""
        n = self.items[kind]
        return getattr(self, counter)[kind] / n if n else None

    def skeleton_cover(self, cover: float = COVER) -> int:
        """How many of the commonest skeletons cover ``cover`` of the sentences."""
        total, run = sum(self.skeletons.values()), 0
        for k, (_, n) in enumerate(self.skeletons.most_common(), start=1):
            run += n
            if run >= cover * total:
                return k
        return 0


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: its lines, each split after a sentence end."""
    return [s.strip() for line in text.splitlines() for s in _SENTENCE_END.split(line) if s.strip()]


def _term_regex(spellings: Sequence[str]) -> str:
    items = sorted(set(spellings), key=lambda p: (-len(p), p))
    return r"(?<![\w+\-])(?:" + "|".join(re.escape(p) for p in items) + r")(?![\w+\-])"


@lru_cache(maxsize=65536)
def _term_pattern(spellings: tuple[str, ...]) -> re.Pattern[str]:
    """The compiled :func:`_term_regex` (case-insensitive), cached across texts."""
    return re.compile(_term_regex(spellings), re.I)


@lru_cache(maxsize=65536)
def _form_pattern(form: str) -> re.Pattern[str]:
    """A clean-NL statement pattern as it must end a sentence, cached across texts."""
    return re.compile(r"(?:^|(?<=\W))" + form + r"$", re.I)


class _Index:
    """Which of some lower-cased texts contain a spelling (memoised per spelling): the texts
    that can match a term, so that only they are searched with regular expressions."""

    def __init__(self, lowered: Sequence[str]) -> None:
        self.lowered = lowered
        self.seen: dict[str, set[int]] = {}

    def holding(self, spelling: str) -> set[int]:
        key = spelling.lower()
        if key not in self.seen:
            self.seen[key] = {i for i, low in enumerate(self.lowered) if key in low}
        return self.seen[key]

    def candidates(self, terms: Sequence[Sequence[str]]) -> list[int]:
        """The texts (indices, in order) in which every term has a spelling."""
        found: set[int] | None = None
        for spellings in terms:
            hit = set().union(*(self.holding(p) for p in spellings))
            found = hit if found is None else found & hit
            if not found:
                return []
        return sorted(found or ())


def _stated(item: DepthItem, clause: str, names: set[str]) -> bool:
    """Whether ``clause`` (naming ``names`` of the vocabulary, lower case) names the item's
    terms literally (in order, and nothing else, for an ordered item)."""
    if not item.ordered:
        return all(_term_pattern(tuple(t)).search(clause) for t in item.terms)
    if not names <= {s.lower() for t in item.terms for s in t}:
        return False
    return _in_order(item.terms, clause)


def _in_order(terms: Sequence[Sequence[str]], sentence: str) -> bool:
    at = 0
    for spellings in terms:
        m = _term_pattern(tuple(spellings)).search(sentence, at)
        if m is None:
            return False
        at = m.end()
    return True


def skeleton(sentence: str, vocabulary: re.Pattern[str]) -> str:
    """``sentence`` with every vocabulary name and every name-like token (with a digit, a
    capital after the first letter or a ``+``: a number, an abbreviation, a code, a label)
    replaced by ``X``, in lower case."""
    return _DIGITS.sub("N", _IDENTIFIER.sub("X", vocabulary.sub("X", sentence))).lower()


def measure(
    items: Iterable[DepthItem],
    text: str,
    documents: Sequence[str] = (),
    vocabulary: Iterable[str] = (),
) -> Depth:
    """The depth of ``text`` (documents ``documents``; none for a clean text, which needs no
    link) for ``items``; skeletons over sentences naming a word of ``vocabulary``."""
    units = sentences(text)
    vocab = sorted({n for n in vocabulary if n}, key=lambda p: (-len(p), p))
    pattern = re.compile(_term_regex(vocab), re.I) if vocab else None
    clauses = [
        (c, {m.group(0).lower() for m in pattern.finditer(c)} if pattern else set())
        for s in units
        for c in _CLAUSE_END.split(s)
    ]
    # a statement or clause naming an item names each of its terms in one of its spellings:
    # only those are searched with the item's patterns
    unit_index = _Index([u.lower() for u in units])
    clause_index = _Index([c.lower() for c, _ in clauses])
    depth = Depth()
    for item in items:
        depth.items[item.kind] += 1
        forms = [_form_pattern(f) for f in item.forms]
        if any(f.search(units[i]) for i in unit_index.candidates(item.terms) for f in forms):
            depth.recovered[item.kind] += 1
        if any(_stated(item, *clauses[i]) for i in clause_index.candidates(item.terms)):
            depth.literal[item.kind] += 1
        if documents:
            own = documents[item.block] if item.block < len(documents) else ""
            needed = [*item.terms, *((a,) for a in item.anchors)]
            if any(not _term_pattern(tuple(t)).search(own) for t in needed):
                depth.cross_document[item.kind] += 1
    if pattern is not None:
        depth.skeletons.update(skeleton(s, pattern) for s in units if pattern.search(s))
    return depth


def format_depth(groups: dict[tuple[str, str], Depth], presentation: str = "obf") -> str:
    """The depth table as Markdown: one row per (track, tier, item kind)."""
    lines = [
        f"| domain | tier | premises | count | generic extractor ({presentation}) | "
        "one sentence, literal names | cross-document | skeletons | "
        f"commonest covering {COVER:.0%} |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    for (track, tier), d in groups.items():
        for kind in sorted(d.items):
            lines.append(
                f"| {track} | {tier} | {kind} | {d.items[kind]} | "
                f"{pct(d.share('recovered', kind))} | {pct(d.share('literal', kind))} "
                f"| {pct(d.share('cross_document', kind))} | {len(d.skeletons)} | "
                f"{d.skeleton_cover()} |"
            )
    return "\n".join(lines)


def depth_json(groups: dict[tuple[str, str], Depth]) -> list[dict[str, object]]:
    """The depth table as JSON-ready rows (shares rounded to 4 digits)."""
    rows: list[dict[str, object]] = []
    for (track, tier), d in groups.items():
        for kind in sorted(d.items):
            rows.append(
                {
                    "domain": track,
                    "tier": tier,
                    "premises": kind,
                    "count": d.items[kind],
                    **{
                        name: None
                        if d.share(name, kind) is None
                        else round(float(d.share(name, kind) or 0.0), 4)
                        for name in ("recovered", "literal", "cross_document")
                    },
                    "skeletons": len(d.skeletons),
                    "skeleton_cover": d.skeleton_cover(),
                }
            )
    return rows
