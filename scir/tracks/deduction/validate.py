"""Checking a deduction record when its file is read (``DeductionTrack.validate_formal``).

What the track reads is checked here once, so later stages (render, export, solve, verify) meet
only well-formed data: the label, the pool ``[answer]``, ``formal.premises`` and
``formal.goal`` as formulas of the fragment (parsed with :func:`logic.parse`, the one parser),
the proof and distractor trees (:meth:`logic.Node.from_json`), the signature
(``predicates``, ``constants``) and the lexicon in ``domain_metadata``. Sizes are bounded.
Other keys are allowed (generators may add some).
"""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.tracks.shapes import bounded_list as _list, fail as _fail, string
from scir.tasks import Task, shorten
from scir.tracks.deduction.logic import Node, parse

LABELS = ("True", "False", "Unknown")
MAX_PREMISES = 2000          # a Hard task has about 30
MAX_FORMULA_CHARS = 2000     # a premise is under 100 characters
MAX_TREES = 64               # distractor trees (the generator allows 6)
MAX_NAMES = 4000             # predicates, constants, lexicon entries
MAX_NAME_CHARS = 200


def _string(value: Any, field: str, limit: int = MAX_FORMULA_CHARS) -> str:
    return string(value, field, limit)


def _formula(value: Any, field: str, task_id: str) -> None:
    text = _string(value, field)
    try:
        parse(text, task_id=task_id, field=field)
    except TaskFormatError as exc:  # its message quotes the formula: keep it short
        cause = exc.__cause__       # a syntax error's position inside the formula
        raise TaskFormatError(
            exc.message if len(text) <= 80 else
            f"formula {shorten(text)} is not a formula of the deduction fragment", field=field,
            line=getattr(cause, "line", None), column=getattr(cause, "column", None)) from exc


def _tree(value: Any, field: str, task_id: str) -> None:
    if not isinstance(value, dict):
        raise _fail(f"expected a proof node object, got {type(value).__name__}", field)
    stack = [value]
    while stack:  # bound the strings before the (recursive, cached) tree reader sees them
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("conclusion"), str):
                _string(node["conclusion"], field)
            if isinstance(node.get("premises"), list):
                stack.extend(node["premises"])
    Node.from_json(value, task_id=task_id, field=field)


def _signature(formal: dict[str, Any]) -> None:
    predicates = formal.get("predicates")
    if predicates is not None:
        if not isinstance(predicates, dict) or len(predicates) > MAX_NAMES:
            raise _fail(f"expected an object of at most {MAX_NAMES} predicate: arity entries",
                        "formal.predicates")
        for name, arity in predicates.items():
            _string(name, "formal.predicates", MAX_NAME_CHARS)
            if isinstance(arity, bool) or not isinstance(arity, int) or not 0 <= arity <= 8:
                raise _fail(f"arity of {shorten(name)} must be an integer in 0..8",
                            "formal.predicates")
    constants = formal.get("constants")
    if constants is not None:
        for i, name in enumerate(_list(constants, "formal.constants", MAX_NAMES)):
            _string(name, f"formal.constants[{i}]", MAX_NAME_CHARS)


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
        if not (isinstance(entry, dict) and all(isinstance(entry.get(k), str)
                                                for k in ("noun", "plural", "article"))):
            raise _fail(f"predicate {shorten(name)} needs string fields noun, plural and "
                        "article", field)
    individuals = lexicon.get("individuals", {})
    if not (isinstance(individuals, dict) and len(individuals) <= MAX_NAMES
            and all(isinstance(v, str) for v in individuals.values())):
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
    formal = task.formal
    for i, premise in enumerate(_list(formal.get("premises"), "formal.premises",
                                      MAX_PREMISES)):
        _formula(premise, f"formal.premises[{i}]", task.task_id)
    _formula(formal.get("goal"), "formal.goal", task.task_id)
    if "proof" in formal:
        _tree(formal["proof"], "formal.proof", task.task_id)
    for i, tree in enumerate(_list(formal.get("distractors", []), "formal.distractors",
                                   MAX_TREES)):
        _tree(tree, f"formal.distractors[{i}]", task.task_id)
    _signature(formal)
    _lexicon(task.domain_metadata)
