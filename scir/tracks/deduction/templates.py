"""Clean natural language for deduction tasks: one deterministic sentence per formula.

    all(S, P)       Every neural crest cell is a Sox10-positive cell.
    no(S, P)        No neural crest cell is a Sox10-positive cell.
    some(S, P)      Some neural crest cells are Sox10-positive cells.
    some_not(S, P)  Some neural crest cells are not Sox10-positive cells.
    fact(P, c)      Cell A7 is a Sox10-positive cell.
    neg_fact(P, c)  Cell A7 is not a Sox10-positive cell.
    exists(P)       There is at least one neural crest cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scir.tracks.deduction.logic import Formula
from scir.tracks.deduction.vocabulary import Context

QUESTION = ("Based on the statements above, is the following statement True, False, or "
            "Unknown? {statement}")


@dataclass(frozen=True)
class Lexicon:
    """The words of one task: predicate id -> (noun, plural, article); constant id -> name."""

    nouns: dict[str, tuple[str, str, str]]
    names: dict[str, str]

    @classmethod
    def of(cls, context: Context, predicates: list[str], constants: list[str]) -> "Lexicon":
        """The lexicon of the given ids of ``context``."""
        nouns = {}
        for pid in predicates:
            p = context.predicate(pid)
            nouns[pid] = (p.noun, p.plural, p.article)
        return cls(nouns, {cid: context.individual(cid).name for cid in constants})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Lexicon":
        """The inverse of :meth:`to_json`."""
        nouns = {k: (v["noun"], v["plural"], v["article"])
                 for k, v in data["predicates"].items()}
        return cls(nouns, dict(data["individuals"]))

    def to_json(self) -> dict[str, Any]:
        """``{"predicates": {id: {noun, plural, article}}, "individuals": {id: name}}``."""
        return {"predicates": {k: {"noun": n, "plural": pl, "article": a}
                               for k, (n, pl, a) in sorted(self.nouns.items())},
                "individuals": dict(sorted(self.names.items()))}


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


def blocks(premises: list[Formula], lexicon: Lexicon, n_blocks: int = 2) -> list[str]:
    """The premises as ``n_blocks`` paragraphs of consecutive sentences (first ones longer)."""
    sentences = [sentence(f, lexicon) for f in premises]
    out = []
    start = 0
    for i in range(n_blocks):
        size = -(-(len(sentences) - start) // (n_blocks - i))
        out.append(" ".join(sentences[start:start + size]))
        start += size
    return out


def step(conclusion: Formula, rule: str, premises: list[Formula], lexicon: Lexicon) -> str:
    """One derivation in English: ``From "...", "...": "..." (barbara).``"""
    quoted = ", ".join(f'"{sentence(p, lexicon)}"' for p in premises)
    return f'From {quoted}: "{sentence(conclusion, lexicon)}" ({rule}).'


def question(statement: Formula, lexicon: Lexicon) -> str:
    """The question put to the solver."""
    return QUESTION.format(statement=sentence(statement, lexicon))
