"""Deduction: count features and hand heuristics.

Read from the premises recovered from the text (see :class:`~scir.audit.items.Item`) and from
the statement in the question: premises by form, negative premises, distinct predicates,
predicates mentioned once or twice, constants; the statement's polarity and form, how often
its terms occur among the premises, and whether its polarity matches "some premise is
negative". Heuristics: the issue's premise-count threshold with the polarity rule, the same
rule on the number of once-mentioned terms, and the polarity rule alone.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from scir.audit.baselines import Baseline, Spec, cached, standard_specs
from scir.audit.items import Item
from scir.audit.text import NEGATION, text_features


def statement(question: str) -> str:
    """The statement asked about: the question's text after its last question mark."""
    head, mark, tail = question.rpartition("?")
    return tail.strip() if mark else question


def _statement_terms(item: Item, text: str) -> list[str]:
    """Predicate ids whose noun or plural (from the task's lexicon) occurs in ``text``,
    longest names first so that "X cell" does not also count "cell"."""
    lexicon = item.task.domain_metadata.get("lexicon") or {}
    names = []
    for pid, p in (lexicon.get("predicates") or {}).items():
        for key in ("plural", "noun"):
            if isinstance(p, dict) and isinstance(p.get(key), str):
                names.append((p[key], pid))
    found, rest = [], text
    for name, pid in sorted(names, key=lambda x: -len(x[0])):
        pattern = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", re.I)
        if pattern.search(rest):
            found.append(pid)
            rest = pattern.sub(" ", rest)
    return sorted(set(found))


def _premises(item: Item) -> list[Any] | None:
    from scir.errors import ScirError
    from scir.tracks.deduction.logic import parse

    if item.content is None:
        return None
    try:
        return [parse(p) for block in item.content for p in block.get("premises", [])]
    except ScirError:
        return None


def features(item: Item) -> dict[str, float]:
    """The count features of a deduction item (generic text features included)."""
    task = item.task
    out = text_features(task.question, item.text, task.options)
    stmt = statement(task.question)
    negative_stmt = bool(NEGATION.search(stmt))
    first = (stmt.split() or [""])[0].lower()
    out["stmt_negative"] = float(negative_stmt)
    out["stmt_chars"] = float(len(stmt))
    out[f"stmt_first={first if first in ('every', 'no', 'some', 'there') else 'name'}"] = 1.0
    premises = _premises(item)
    out["parsed"] = float(premises is not None)
    if premises is None:
        return out
    from scir.tracks.deduction.logic import negative_kinds

    negative_forms = negative_kinds()  # asp/deduction.lp's negative/1
    kinds = Counter(f.kind for f in premises)
    preds = Counter(p for f in premises for p in f.predicates)
    consts = Counter(c for f in premises for c in f.constants)
    terms = _statement_terms(item, stmt)
    negative = sum(kinds[k] for k in negative_forms)
    out.update(
        {
            "premises": float(len(premises)),
            "negative_premises": float(negative),
            "any_negative_premise": float(negative > 0),
            "polarity_match": float(negative_stmt == (negative > 0)),
            "distinct_predicates": float(len(preds)),
            "predicates_once": float(sum(1 for c in preds.values() if c == 1)),
            "predicates_twice": float(sum(1 for c in preds.values() if c == 2)),
            "predicates_3plus": float(sum(1 for c in preds.values() if c >= 3)),
            "max_predicate_mentions": float(max(preds.values(), default=0)),
            "constants": float(len(consts)),
            "stmt_terms_found": float(len(terms)),
            "stmt_term_mentions_min": float(min((preds[t] for t in terms), default=0)),
            "stmt_term_mentions_max": float(max((preds[t] for t in terms), default=0)),
            "stmt_terms_once": float(sum(1 for t in terms if preds[t] == 1)),
            "stmt_terms_absent": float(sum(1 for t in terms if preds[t] == 0)),
            "stmt_terms_in_negative": float(
                sum(
                    1
                    for f in premises
                    if f.kind in negative_forms
                    for t in terms
                    if t in f.predicates
                )
            ),
        }
    )
    from scir.tracks.deduction.logic import kinds as forms

    for kind in forms():  # the forms, from asp/deduction.lp
        out[f"premises_{kind}"] = float(kinds[kind])
    return out


class PolarityThreshold(Baseline):
    """ "``feature`` on one side of a threshold -> Unknown, else True iff the statement's
    polarity matches whether some premise is negative" (threshold, side and orientation
    fitted on the training fold); ``feature=None`` never answers Unknown."""

    def __init__(self, feature: str | None) -> None:
        self.feature = feature

    def _row(self, item: Item) -> tuple[float, bool]:
        f = cached(item, "features", lambda: features(item))
        value = f.get(self.feature, 0.0) if self.feature else 0.0
        return value, bool(f.get("polarity_match", 0.0))

    @staticmethod
    def _rule(value: float, match: bool, rule: tuple) -> str:
        threshold, side, flip = rule
        if side == "le" and value <= threshold or side == "ge" and value >= threshold:
            return "Unknown"
        return "True" if match != flip else "False"

    def fit(self, items: list[Item]) -> None:
        rows = [self._row(i) for i in items]
        values = sorted({v for v, _ in rows}) if self.feature else []
        candidates = [(float("-inf"), "le", flip) for flip in (False, True)]
        candidates += [
            (t, side, flip) for t in values for side in ("le", "ge") for flip in (False, True)
        ]

        def hits(rule: tuple) -> int:
            return sum(self._rule(v, m, rule) == i.answer for (v, m), i in zip(rows, items))

        self.rule = max(candidates, key=hits)  # first best in the fixed order

    def predict(self, items: list[Item]) -> list[str]:
        return [self._rule(*self._row(i), self.rule) for i in items]


def specs() -> list[Spec]:
    """Every deduction baseline (the structural family: :mod:`deduction_structure`)."""
    from scir.audit import deduction_structure

    return (
        standard_specs(features, None)
        + deduction_structure.specs()
        + [
            Spec(
                "premise-threshold",
                "heuristic",
                "premises <= T (or >= T) -> Unknown, else True iff statement polarity matches "
                "'some premise is negative' (T fitted)",
                lambda seed: PolarityThreshold("premises"),
            ),
            Spec(
                "once-threshold",
                "heuristic",
                "the same rule on the number of predicates mentioned once (T fitted)",
                lambda seed: PolarityThreshold("predicates_once"),
            ),
            Spec(
                "polarity",
                "heuristic",
                "True iff statement polarity matches 'some premise is negative' (orientation "
                "fitted), never Unknown",
                lambda seed: PolarityThreshold(None),
            ),
        ]
    )
