"""Templates as anchored regular expressions: the reference extractors read rendered documents
with the very templates the template renderer filled (``genres/<track>.json``).

A template such as ``"Without exception, {S_pl} are {P_pl}."`` becomes a pattern whose literal
parts are escaped and whose slots are named groups matching only the names of the task's
universe (noun phrases, drugs, proteins), so a match can neither run over a sentence boundary
nor swallow filler.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import lru_cache

# A statement starts at the start of a line or after the end of a sentence, a label or a
# list marker ("- ", "] ", ": ", ...).
BOUNDARY = r"(?:^|(?<=[-.:;!?*)\]\u2014\u2022] ))"
NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_NAME_EDGE_BEFORE = r"(?<![\w+\-])"
_NAME_EDGE_AFTER = r"(?![\w+\-])"


def alternation(phrases: Iterable[str]) -> str:
    """A regex matching exactly one of ``phrases`` as a whole name (longest first, so a
    phrase containing another wins; never inside a longer word)."""
    items = sorted(set(phrases), key=lambda p: (-len(p), p))
    if not items:
        return r"(?!)"
    return (
        _NAME_EDGE_BEFORE + "(?:" + "|".join(re.escape(p) for p in items) + ")" + _NAME_EDGE_AFTER
    )


def compile_template(
    template: str, slots: dict[str, str], *, anchored: bool = True, flags: int = re.M
) -> re.Pattern[str]:
    """The pattern of a format template: each ``{name}`` becomes the group ``name`` matching
    ``slots[name]`` (a repeated slot becomes ``name__2``, ...); the rest is literal.
    Compiled patterns are cached."""
    return _compiled(template, tuple(sorted(slots.items())), anchored, flags)


@lru_cache(maxsize=4096)
def _compiled(
    template: str, slot_items: tuple[tuple[str, str], ...], anchored: bool, flags: int
) -> re.Pattern[str]:
    slots = dict(slot_items)
    parts = [BOUNDARY] if anchored else []
    seen: dict[str, int] = {}
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is None:
            continue
        if name not in slots:
            raise KeyError(f"template {template!r}: no pattern for slot {name!r}")
        seen[name] = seen.get(name, 0) + 1
        group = name if seen[name] == 1 else f"{name}__{seen[name]}"
        parts.append(f"(?P<{group}>{slots[name]})")
    if anchored:
        parts.append(r"(?!\S)")  # and it ends at the end of a sentence or line
    return re.compile("".join(parts), flags)


def find_all(templates: Iterable[str], slots: dict[str, str], text: str) -> list[re.Match[str]]:
    """Every match in ``text`` of any of ``templates`` (compiled as by
    :func:`compile_template`), in text order."""
    found: list[re.Match[str]] = []
    for t in templates:
        found += list(compile_template(t, slots).finditer(text))
    return sorted(found, key=lambda m: m.start())


def label_regex(template: str) -> str:
    """A regex (no groups) for labels made from a template with ``{L}`` (a capital letter)
    and ``{n}`` (a number), e.g. ``"Arm {L}"`` or ``"Condition C{n}"``."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name == "L":
            parts.append("[A-Z]")
        elif name == "n":
            parts.append("[0-9]+")
        elif name is not None:
            raise KeyError(f"label template {template!r}: unknown slot {name!r}")
    return "".join(parts)


def number_word(n: int) -> str:
    """``n`` as an English word (zero to twelve), else digits."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def number_regex() -> str:
    """A regex (no groups) for a count written by :func:`number_word`."""
    return "(?:" + "|".join(NUMBER_WORDS) + "|[0-9]+)"


def read_number(text: str) -> int:
    """The count written by :func:`number_word`."""
    return NUMBER_WORDS.index(text) if text in NUMBER_WORDS else int(text)


def listing(items: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def listing_regex(item: str) -> str:
    """A regex (no groups) for a :func:`listing` of items matching ``item``."""
    return f"(?:{item})(?:(?:, | and )(?:{item}))*"
