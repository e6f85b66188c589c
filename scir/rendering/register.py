"""The register check of the control presentation (``ctl``): how many *science words* a
rendered text holds.

A track's **science lexicon** is every word of its scientific genre file (``genres.json``:
phrase banks, slot banks, filler, the genres' headers, intros, headings, item wrappers,
closings and options) that occurs nowhere in its control genre file (``ctl.json``), the
descriptions and style notes of both files left out (they are never rendered). A word is a
run of at least three letters, lower case after the first (abbreviations and codes such as
``FSCs`` or ``CYP3A4`` are names), counted in lower case; ``{slot}`` fields are not words.

The science words of a task's text are its words in the lexicon that are not words of the
task's clean-NL text (nor their plurals or singulars) (the task's own names and facts -- a drug's enzyme, a cell population --
must stay in every presentation). A ``ctl`` text written only from the control register has
none; an ``obf`` text has many.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from scir.rendering.codecs import codec_for, codec_of
from scir.tasks import Task

# a word: three or more letters, all lower case after the first; abbreviations, codes and
# labels ("FSCs", "Foxj1", "CYP3A4") are names, not words
_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][a-z]{2,}(?![A-Za-z0-9])")
_SLOT = re.compile(r"\{[^{}]*\}")
_NOT_RENDERED = frozenset({"description", "style", "fidelity", "track", "base", "kind", "id"})


def words(text: str) -> list[str]:
    """The words of ``text`` (runs of 3+ letters, lower case after the first, returned in
    lower case; ``{slot}`` fields dropped)."""
    return [w.lower() for w in _WORD.findall(_SLOT.sub(" ", text))]


def _strings(data: Any) -> Iterable[str]:
    """Every rendered string of a genre file's JSON (keys, unrendered fields and genre names
    skipped)."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, list):
        for item in data:
            yield from _strings(item)
    elif isinstance(data, dict):
        for key, value in data.items():
            if key not in _NOT_RENDERED and not (key == "name" and "title" in data):
                yield from _strings(value)


def _file_words(file: Any) -> set[str]:
    data = json.loads(file.read_text(encoding="utf-8"))
    return {w for s in _strings(data) for w in words(s)}


@lru_cache(maxsize=16)
def science_lexicon(track: str) -> frozenset[str]:
    """The science lexicon of ``track``: words of its scientific genre file that its control
    genre file never uses (empty for a track without a control file)."""
    codec = codec_for(track)
    control = codec.control_file()
    if control is None:
        return frozenset()
    return frozenset(_file_words(codec.genre_file()) - _file_words(control))


def science_words(task: Task, presentation: str = "ctl") -> Counter[str]:
    """The science words of ``task``'s ``ctl`` or ``obf`` text, with their counts (words of
    the clean-NL text excepted)."""
    text = task.problem_control if presentation == "ctl" else task.problem_obfuscated
    lexicon = science_lexicon(codec_of(task).track)
    own = set(words(task.problem_nl or "\n\n".join(task.blocks)))
    return Counter(w for w in words(text) if w in lexicon and not _inflected(w, own))


def _inflected(word: str, own: set[str]) -> bool:
    """Whether ``word`` is a word of ``own`` or its plural or singular ("substrates")."""
    return word in own or word + "s" in own or (word.endswith("s") and word[:-1] in own)
