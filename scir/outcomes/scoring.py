"""Scoring: whether an answer is accepted, by the :class:`Scorer` a track owns
(``Track.scorer()``).

A scorer names its rule (:attr:`Scorer.rule`, what exports record; :meth:`Scorer.rule_of`
for a track whose tasks are scored in more than one way), gives a verdict
(:meth:`Scorer.score`) and an :class:`Assessment` (:meth:`Scorer.assess`: the verdict with
the rule's per-answer metrics, or None). Three generic scorers cover rules that need nothing
but the task record:

- :class:`LabelScorer` (``label``): the answer is the task's label (``task.answer``),
  exactly;
- :class:`PoolScorer` (``pool``): the answer is one of the accepted answers
  (``task.answer_pool``);
- :class:`OptionScorer` (``option``): the answer is an option letter in the pool, or an
  answer that states a set of items mapped to an option by :func:`match_subset` -- the option
  with the same set, else the only option whose set is strictly contained in it -- whose
  letter is in the pool. The scorer is given the item functions (the items of each option,
  the items an answer states, how two items compare); it knows nothing of what the items are.

A rule that needs more than the record (a fit on the task's data, say) is a scorer of the
track that owns it; nothing here names a track or a formal object's layout.

:func:`match_subset` is also the rule a solver's found set is mapped to an option by (the
causal solvers use it), so an answer and a solver's graph are matched the same way.
"""

from __future__ import annotations

import string
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from scir.tasks import Task

_Item = TypeVar("_Item", bound=Hashable)  # the items of a set matched by match_subset

LABEL, POOL, OPTION = "label", "pool", "option"
RULES = (LABEL, POOL, OPTION)  # the rules of the generic scorers (a track's ``scoring``)
EXACT, SUBSET = "exact", "subset"
LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Assessment:
    """A verdict and the answer's per-answer metrics (JSON-ready), None for a rule without
    them (stored in ``PipelineResult.metrics``)."""

    correct: bool
    metrics: dict[str, Any] | None = None


@dataclass(frozen=True)
class SubsetMatch:
    """Which option a set matched (``index`` None: none) and how (``exact``, ``subset``)."""

    index: int | None
    how: str | None


def match_subset(
    found: Iterable[_Item],
    options: Sequence[Iterable[_Item]],
    fold: Callable[[_Item], Hashable] = lambda item: item,
) -> SubsetMatch:
    """Map a set to an option: the first option with the same set (items compared through
    ``fold``), else the only option whose set is strictly contained in it, else none."""
    f = frozenset(fold(x) for x in found)
    sets = [frozenset(fold(x) for x in o) for o in options]
    for i, s in enumerate(sets):
        if s == f:
            return SubsetMatch(i, EXACT)
    inside = [i for i, s in enumerate(sets) if s < f]
    if len(inside) == 1:
        return SubsetMatch(inside[0], SUBSET)
    return SubsetMatch(None, None)


def option_letter(index: int) -> str:
    """The letter of option ``index`` (0 -> ``A``)."""
    return LETTERS[index]


class Scorer(ABC):
    """How a track's answers are scored: a verdict per answer, with the rule's metrics.

    A subclass sets :attr:`rule` and writes :meth:`score`; one with per-answer metrics
    writes :meth:`assess` too (and lists the metrics every assessment carries in
    :attr:`metrics`), so that verdict and metrics come from one computation.
    """

    rule: str = ""  # the rule's name, as exports record it (a release row's ``scoring``)
    # the names of the metrics every assessment carries (empty: none, or not for every task)
    metrics: tuple[str, ...] = ()

    def rule_of(self, task: Task) -> str:
        """The name of the rule ``task`` is scored by (default: :attr:`rule`)."""
        return self.rule

    @abstractmethod
    def score(self, task: Task, answer: str | None) -> bool:
        """Whether ``answer`` is accepted for ``task`` (None, no answer: never)."""

    def assess(self, task: Task, answer: str | None) -> Assessment:
        """The verdict on ``answer`` with the rule's per-answer metrics (default: none)."""
        return Assessment(bool(self.score(task, answer)))


class LabelScorer(Scorer):
    """``label``: the answer is the task's label, exactly."""

    rule = LABEL

    def score(self, task: Task, answer: str | None) -> bool:
        return answer is not None and answer == task.answer


class PoolScorer(Scorer):
    """``pool``: the answer is one of the accepted answers."""

    rule = POOL

    def score(self, task: Task, answer: str | None) -> bool:
        return answer is not None and answer in task.answer_pool


def _no_options(task: Task) -> None:
    return None


def _no_items(task: Task, answer: str) -> None:
    return None


def _same(item: Any) -> Any:
    return item


OptionItems = Callable[["Task"], Sequence[Iterable[Any]] | None]
AnswerItems = Callable[["Task", str], Iterable[Any] | None]


class OptionScorer(Scorer):
    """``option``: an option letter in the pool; else the set an answer states
    (``answer_items(task, answer)``, None: it states none) matched to the options' sets
    (``option_items(task)``, None: answers are only letters) by :func:`match_subset`, items
    compared through ``fold``. The defaults accept letters only."""

    rule = OPTION

    def __init__(
        self,
        option_items: OptionItems = _no_options,
        answer_items: AnswerItems = _no_items,
        fold: Callable[[Any], Hashable] = _same,
    ) -> None:
        self.option_items = option_items
        self.answer_items = answer_items
        self.fold = fold

    def score(self, task: Task, answer: str | None) -> bool:
        if answer is None:
            return False
        letters = LETTERS[: len(task.options)]
        if answer in letters:
            return answer in task.answer_pool
        items = self.answer_items(task, answer)
        options = self.option_items(task)
        if items is None or options is None:
            return False
        match = match_subset(items, options, fold=self.fold)
        return match.index is not None and option_letter(match.index) in task.answer_pool


__all__ = [
    "EXACT",
    "LABEL",
    "LETTERS",
    "OPTION",
    "POOL",
    "RULES",
    "SUBSET",
    "Assessment",
    "LabelScorer",
    "OptionScorer",
    "PoolScorer",
    "Scorer",
    "SubsetMatch",
    "match_subset",
    "option_letter",
]
