"""The deduction track's predicates, typed (:mod:`solvers.records`): the facts handed to
``asp/deduction.lp`` and ``prolog/deduction.pl`` and the atoms read back from the answer set,
declared once here with the argument names and types the two files document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solvers.records import Record

# ---- asp/deduction.lp: input ----------------------------------------------------------------


@dataclass(frozen=True)
class FormulaFact(Record, predicate="formula"):
    """Formula ``number`` (0 the statement, then the premises) of ``kind`` over ``a`` and
    ``b`` (``b`` is 0 for a one-place form)."""

    number: int
    kind: str
    a: str
    b: Any


@dataclass(frozen=True)
class Premise(Record, predicate="premise"):
    number: int


@dataclass(frozen=True)
class Statement(Record, predicate="statement"):
    number: int


@dataclass(frozen=True)
class Mode(Record, predicate="mode"):
    """``affirm`` (the statement is added to the premises) or ``deny`` (its negation)."""

    mode: str


@dataclass(frozen=True)
class Reading(Record, predicate="reading"):
    """``import``: existential import for universal formulas."""

    reading: str


# ---- asp/deduction.lp: output ---------------------------------------------------------------


@dataclass(frozen=True)
class Holds(Record, predicate="holds"):
    """In the countermodel, ``pred`` holds of ``element`` (a constant or a witness term such
    as ``w(3)``)."""

    pred: str
    element: Any


@dataclass(frozen=True)
class Form(Record, predicate="form"):
    """The fragment's ``index``-th form ``kind`` and the sorts of its two arguments (``p``
    predicate, ``c`` constant, ``none``)."""

    index: int
    kind: str
    sort1: str
    sort2: str


@dataclass(frozen=True)
class Negation(Record, predicate="negation"):
    kind: str
    negation: str


@dataclass(frozen=True)
class Universal(Record, predicate="universal"):
    kind: str


@dataclass(frozen=True)
class Negative(Record, predicate="negative"):
    kind: str


# ---- prolog/deduction.pl: input --------------------------------------------------------------


@dataclass(frozen=True)
class FormSorts(Record, predicate="form"):
    """``form/3`` of prolog/deduction.pl: a form and its argument sorts (from :class:`Form`)."""

    kind: str
    sort1: str
    sort2: str


@dataclass(frozen=True)
class NegativeForm(Record, predicate="negative_form"):
    kind: str
