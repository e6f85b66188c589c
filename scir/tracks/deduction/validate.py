"""Checking a deduction record when its file is read (``DeductionTrack.validate_formal``).

What the track reads is checked here once, so later stages (render, export, solve, verify) meet
only well-formed data: the label, the pool ``[answer]``, the formal object (by
:meth:`formal.DeductionFormal.load`, the one place it is validated) and the lexicon in
``domain_metadata``. Sizes are bounded. Other keys are allowed (generators may add some).
"""

from __future__ import annotations

from typing import Any

from scir.tasks import Task, shorten
from scir.tracks.base import load_formal
from scir.tracks.deduction.formal import MAX_NAMES, DeductionFormal
from scir.tracks.shapes import fail as _fail

LABELS = ("True", "False", "Unknown")


def _lexicon(metadata: dict[str, Any]) -> None:
    lexicon = metadata.get("lexicon")
    if lexicon is None:
        return
    field = "domain_metadata.lexicon"
    if not isinstance(lexicon, dict) or not isinstance(lexicon.get("predicates"), dict):
        raise _fail("expected an object with a predicates object", field)
    if len(lexicon["predicates"]) > MAX_NAMES:
        raise _fail(f"more than {MAX_NAMES} predicates", field)
    for name, entry in lexicon["predicates"].items():
        if not (
            isinstance(entry, dict)
            and all(isinstance(entry.get(k), str) for k in ("noun", "plural", "article"))
        ):
            raise _fail(
                f"predicate {shorten(name)} needs string fields noun, plural and article", field
            )
    individuals = lexicon.get("individuals", {})
    if not (
        isinstance(individuals, dict)
        and len(individuals) <= MAX_NAMES
        and all(isinstance(v, str) for v in individuals.values())
    ):
        raise _fail("individuals must be an object of names (strings)", field)


def validate(task: Task) -> None:
    """Check a deduction record's answer, pool, options, formal object and lexicon
    (TaskFormatError naming the field)."""
    if task.answer not in LABELS:
        raise _fail(f"expected one of {', '.join(LABELS)}, got {shorten(task.answer)}", "answer")
    if task.answer_pool != [task.answer]:
        raise _fail(f"must be [{task.answer!r}] (the answer alone)", "answer_pool")
    if task.options:
        raise _fail("deduction tasks have no options", "options")
    load_formal(DeductionFormal, task)  # the formal object: DeductionFormal.load
    _lexicon(task.domain_metadata)
