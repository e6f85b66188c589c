"""The induction track's predicates, typed (:mod:`solvers.records`): the facts handed to
``asp/induction.lp`` and ``prolog/induction.pl`` and the atoms read back from the answer set,
declared once here with the argument names and types the two files document."""

from __future__ import annotations

from dataclasses import dataclass

from solvers.records import Record

# ---- input: the world and the task's data ---------------------------------------------------


@dataclass(frozen=True)
class Relation(Record, predicate="relation"):
    """A relation type of the world and its category (prolog/induction.pl)."""

    name: str
    category: str


@dataclass(frozen=True)
class Rule(Record, predicate="rule"):
    """A candidate rule: drugs sharing a protein through ``r1`` and ``r2``."""

    r1: str
    r2: str


@dataclass(frozen=True)
class RuleCategory(Record, predicate="rule_category"):
    r1: str
    r2: str
    category: str


@dataclass(frozen=True)
class Fact(Record, predicate="fact"):
    """A background fact: ``relation(drug, protein)``."""

    relation: str
    drug: str
    protein: str


@dataclass(frozen=True)
class Example(Record, predicate="example"):
    """A labelled drug pair: ``kind`` is ``pos`` (known to interact) or ``neg``."""

    kind: str
    a: str
    b: str


@dataclass(frozen=True)
class TargetCategory(Record, predicate="target_category"):
    category: str


# ---- output: asp/induction.lp's answer set --------------------------------------------------


@dataclass(frozen=True)
class Valid(Record, predicate="independent_check_valid"):
    """A rule covering at least one positive pair and no negative one."""

    r1: str
    r2: str


@dataclass(frozen=True)
class Pooled(Record, predicate="pool"):
    """A valid rule of the target's category: in the task's answer pool."""

    r1: str
    r2: str


@dataclass(frozen=True)
class Positives(Record, predicate="positives"):
    """A valid rule and the number of positive pairs it covers."""

    r1: str
    r2: str
    count: int
