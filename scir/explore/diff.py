"""A line diff of a model's formalization against the gold formal text (``difflib``).

Lines are compared after removing trailing white space; blank lines and a Markdown code fence
around the text (:func:`scir.tracks.formal_text.unfence`, as the tracks' readers do) are left
out, since no track's syntax gives them a meaning. The diff is as written: a formalization that
states the gold lines in another order shows them moved. At most :data:`MAX_LINES` lines of
each side are compared (the rest is counted, not shown), which bounds the time a runaway
formalization costs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from scir.tracks.formal_text import unfence

SAME, GOLD_ONLY, MODEL_ONLY = " ", "-", "+"
MAX_LINES = 2000


@dataclass(frozen=True)
class DiffLine:
    """One line of a diff: ``kind`` is :data:`SAME`, :data:`GOLD_ONLY` or :data:`MODEL_ONLY`."""

    kind: str
    text: str


@dataclass(frozen=True)
class FormalDiff:
    """A formalization against the gold text, line by line."""

    lines: tuple[DiffLine, ...]
    gold_lines: int
    model_lines: int
    same: int  # lines in both (in order)
    cut: int = 0  # lines left out beyond MAX_LINES (both sides)

    @property
    def identical(self) -> bool:
        return self.same == self.gold_lines == self.model_lines and not self.cut


def _lines(text: str) -> list[str]:
    return [s.rstrip() for s in unfence(text.splitlines()) if s.strip()]


def formal_diff(gold: str, model: str) -> FormalDiff:
    """The diff of ``model`` (a formalization) against ``gold`` (the gold formal text)."""
    a, b = _lines(gold), _lines(model)
    sizes = len(a), len(b)
    cut = max(0, len(a) - MAX_LINES) + max(0, len(b) - MAX_LINES)
    a, b = a[:MAX_LINES], b[:MAX_LINES]
    out: list[DiffLine] = []
    same = 0
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same += i2 - i1
            out += [DiffLine(SAME, s) for s in a[i1:i2]]
            continue
        out += [DiffLine(GOLD_ONLY, s) for s in a[i1:i2]]
        out += [DiffLine(MODEL_ONLY, s) for s in b[j1:j2]]
    return FormalDiff(tuple(out), sizes[0], sizes[1], same, cut)
