"""Checking a causal record when its file is read (``CausalTrack.validate_formal``).

The options are edge lists (:func:`options.parse_option`), at most ``MAX_OPTIONS``; the answer
is the letter of one of them and the pool is ``[answer]``; the formal object loads
(:meth:`formal.CausalFormal.load`, the one place it is validated), with the new protein among
its nodes and ``xyz_edges`` present (a gold object); the proteins in ``domain_metadata`` are
checked by :func:`formalize.task_nodes`. Other keys are allowed.
"""

from __future__ import annotations

from scir.tasks import Task, shorten
from scir.tracks.base import load_formal
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.formalize import task_nodes
from scir.tracks.causal.graph import NEW_PROTEIN
from scir.tracks.causal.options import LETTERS, MAX_OPTIONS, OPEN, parse_option
from scir.tracks.shapes import fail as _fail

MAX_OPTION_CHARS = 2000


def validate(task: Task) -> None:
    """Check a causal record's options, answer, pool and formal object (TaskFormatError
    naming the field). An open task (``params["answer"] == "open"``) has no options and its
    answer is an edge list (:func:`parse_option`)."""
    if task.params.get("answer", "options") == OPEN:
        if task.options:
            raise _fail("an open task has no options", "options")
        if len(task.answer) > MAX_OPTION_CHARS:
            raise _fail(f"longer than {MAX_OPTION_CHARS} characters", "answer")
        parse_option(task.answer)
        if task.answer_pool != [task.answer]:
            raise _fail(f"must be [{task.answer!r}] (the answer alone)", "answer_pool")
        _formal(task)
        return
    if not 1 <= len(task.options) <= MAX_OPTIONS:
        raise _fail(f"expected 1 to {MAX_OPTIONS} options (letters A..T)", "options")
    for i, text in enumerate(task.options):
        if len(text) > MAX_OPTION_CHARS:
            raise _fail(f"option {i} is longer than {MAX_OPTION_CHARS} characters", "options")
        parse_option(text, index=i)
    letters = LETTERS[: len(task.options)]
    if task.answer not in letters:
        raise _fail(
            f"expected an option letter A..{letters[-1]}, got {shorten(task.answer)}", "answer"
        )
    if task.answer_pool != [task.answer]:
        raise _fail(f"must be [{task.answer!r}] (the answer alone)", "answer_pool")
    _formal(task)


def _formal(task: Task) -> None:
    formal = load_formal(CausalFormal, task)  # the formal object: CausalFormal.load
    new = task.domain_metadata.get("new_protein", NEW_PROTEIN)
    if not isinstance(new, str) or not new:
        raise _fail("expected a protein name", "domain_metadata.new_protein")
    if new.casefold() not in {n.casefold() for n in formal.nodes}:
        raise _fail(f"the new protein {new} is not among the nodes", "formal.nodes")
    if formal.xyz_edges is None:
        raise _fail("missing (expected a list)", "formal.xyz_edges")
    task_nodes(task)
