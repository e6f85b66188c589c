"""Clean natural language for deduction tasks: one deterministic sentence per formula.

The plain wording (the paper construction's, one sentence per form):

    all(S, P)       Every neural crest cell is a Sox10-positive cell.
    no(S, P)        No neural crest cell is a Sox10-positive cell.
    some(S, P)      Some neural crest cells are Sox10-positive cells.
    some_not(S, P)  Some neural crest cells are not Sox10-positive cells.
    fact(P, c)      Cell A7 is a Sox10-positive cell.
    neg_fact(P, c)  Cell A7 is not a Sox10-positive cell.
    exists(P)       There is at least one neural crest cell.

The varied wording (balanced construction, :data:`VARIED`): several meaning-preserving
sentences per form; which one states a formula is a stable hash of the formula and the task's
``Lexicon.wording`` seed, so it is a function of the formula (the text can be re-derived from
the premises) and blind to the label.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from scir.tracks.deduction.logic import Formula
from scir.tracks.deduction.vocabulary import Context

QUESTION = (
    "Based on the statements above, is the following statement True, False, or Unknown? {statement}"
)
# the balanced construction states the reading (its labels do not depend on it, but a reader
# should not have to guess): no existential import
QUESTION_WITH_CONVENTION = (
    "Read universal statements ('every ...', 'no ...', 'if a cell is "
    "...') as not implying that such cells exist. " + QUESTION
)

# several wordings per form; slots: {S} {P} singular, {S_pl} {P_pl} plural, {aS} {aP} with
# article, {c} a cell's name, {C} capitalised
VARIED: dict[str, tuple[str, ...]] = {
    "all": (
        "Every {S} is {aP}, without exception.",
        "If a cell is {aS}, then that same cell is also {aP}, with no exception.",
        "Any cell that is identified as {aS} is, in every case, also {aP}.",
        "Without exception, each cell that is {aS} is {aP} as well.",
    ),
    "no": (
        "No {S} is {aP}; the two never occur together in one cell.",
        "If a cell is {aS}, then that same cell is not {aP}, with no exception.",
        "Being {aS} rules out being {aP}: no single cell is both at once.",
        "Without exception, no cell that is {aS} is also {aP}.",
    ),
    "some": (
        "At least one cell is both {aS} and {aP} at the same time.",
        "There is at least one {S} that is also {aP}, that is, one cell that is both.",
        "Some {S_pl} are also {P_pl}: at least one cell is both of these.",
        "Among the {S_pl}, at least one cell is also {aP}.",
    ),
    "some_not": (
        "At least one cell is {aS} but is not {aP} at the same time.",
        "There is at least one {S} that is not {aP}, that is, one cell with the first "
        "property but not the second.",
        "Some {S_pl} are not {P_pl}: at least one {S} is not {aP}.",
        "Among the {S_pl}, at least one cell is not {aP}.",
    ),
    "fact": (
        "Of the individual cells considered here, {c} is {aP}.",
        "{C}, one of the individual cells considered here, is {aP}.",
        "Among the cells described, {c} is {aP}.",
    ),
    "neg_fact": (
        "Of the individual cells considered here, {c} is not {aP}.",
        "{C}, one of the individual cells considered here, is not {aP}.",
        "Among the cells described, {c} is not {aP}.",
    ),
    "exists": (
        "There is at least one {P}; such cells do exist in this setting.",
        "At least one cell is {aP}: cells of this kind are present.",
        "Cells of this kind exist: at least one cell is {aP}.",
    ),
}


@dataclass(frozen=True)
class Lexicon:
    """The words of one task: predicate id -> (noun, plural, article); constant id -> name;
    ``wording``: None for the plain sentences, else the seed choosing among :data:`VARIED`."""

    nouns: dict[str, tuple[str, str, str]]
    names: dict[str, str]
    wording: int | None = None

    @classmethod
    def of(
        cls,
        context: Context,
        predicates: list[str],
        constants: list[str],
        wording: int | None = None,
    ) -> Lexicon:
        """The lexicon of the given ids of ``context``."""
        nouns = {}
        for pid in predicates:
            p = context.predicate(pid)
            nouns[pid] = (p.noun, p.plural, p.article)
        return cls(nouns, {cid: context.individual(cid).name for cid in constants}, wording)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lexicon:
        """The inverse of :meth:`to_json`."""
        nouns = {k: (v["noun"], v["plural"], v["article"]) for k, v in data["predicates"].items()}
        wording = data.get("wording")
        return cls(
            nouns, dict(data.get("individuals") or {}), None if wording is None else int(wording)
        )

    def to_json(self) -> dict[str, Any]:
        """``{"predicates": {id: {noun, plural, article}}, "individuals": {id: name}}``, plus
        ``"wording": seed`` for the varied sentences."""
        out: dict[str, Any] = {
            "predicates": {
                k: {"noun": n, "plural": pl, "article": a}
                for k, (n, pl, a) in sorted(self.nouns.items())
            },
            "individuals": dict(sorted(self.names.items())),
        }
        if self.wording is not None:
            out["wording"] = self.wording
        return out


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(formula: Formula, lexicon: Lexicon) -> str:
    """The English sentence stating ``formula``."""
    kind, args = formula.kind, formula.args

    def sg(pid: str) -> str:
        return lexicon.nouns[pid][0]

    def pl(pid: str) -> str:
        return lexicon.nouns[pid][1]

    def a(pid: str) -> str:
        noun, _, article = lexicon.nouns[pid]
        return f"{article} {noun}"

    if lexicon.wording is not None:
        return _varied(formula, lexicon, sg, pl, a)
    if kind == "all":
        return f"Every {sg(args[0])} is {a(args[1])}."
    if kind == "no":
        return f"No {sg(args[0])} is {a(args[1])}."
    if kind == "some":
        return f"Some {pl(args[0])} are {pl(args[1])}."
    if kind == "some_not":
        return f"Some {pl(args[0])} are not {pl(args[1])}."
    if kind == "fact":
        return f"{_capitalised(lexicon.names[args[1]])} is {a(args[0])}."
    if kind == "neg_fact":
        return f"{_capitalised(lexicon.names[args[1]])} is not {a(args[0])}."
    if kind == "exists":
        return f"There is at least one {sg(args[0])}."
    raise ValueError(f"no template for {kind}")


def _varied(formula: Formula, lexicon: Lexicon, sg, pl, a) -> str:
    bank = VARIED[formula.kind]
    key = f"{lexicon.wording}:{formula.to_prover9()}".encode()
    template = bank[zlib.crc32(key) % len(bank)]
    args = formula.args
    if formula.constants:  # a singular form (ASP's form/4 sorts)
        name = lexicon.names[args[1]]
        values = {"P": sg(args[0]), "aP": a(args[0]), "c": name, "C": _capitalised(name)}
    elif formula.kind == "exists":
        values = {"P": sg(args[0]), "aP": a(args[0])}
    else:
        values = {
            "S": sg(args[0]),
            "P": sg(args[1]),
            "S_pl": pl(args[0]),
            "P_pl": pl(args[1]),
            "aS": a(args[0]),
            "aP": a(args[1]),
        }
    return _capitalised(template.format(**values))


def blocks(premises: list[Formula], lexicon: Lexicon, n_blocks: int = 2) -> list[str]:
    """The premises as ``n_blocks`` paragraphs of consecutive sentences (first ones longer)."""
    sentences = [sentence(f, lexicon) for f in premises]
    out = []
    start = 0
    for i in range(n_blocks):
        size = -(-(len(sentences) - start) // (n_blocks - i))
        out.append(" ".join(sentences[start : start + size]))
        start += size
    return out


def step(conclusion: Formula, rule: str, premises: list[Formula], lexicon: Lexicon) -> str:
    """One derivation in English: ``From "...", "...": "..." (barbara).``"""
    quoted = ", ".join(f'"{sentence(p, lexicon)}"' for p in premises)
    return f'From {quoted}: "{sentence(conclusion, lexicon)}" ({rule}).'


def question(statement: Formula, lexicon: Lexicon, convention: bool = False) -> str:
    """The question put to the solver (``convention``: stating the no-import reading)."""
    text = QUESTION_WITH_CONVENTION if convention else QUESTION
    return text.format(statement=sentence(statement, lexicon))
