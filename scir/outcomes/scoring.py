"""Scoring: whether an answer is accepted, by the rule a track names (``Track.scoring``).

Four rules cover the built-in tracks:

- ``label`` (deduction): the answer is the task's label (``task.answer``), exactly;
- ``pool`` (induction): the answer is one of the accepted answers (``task.answer_pool``);
- ``option`` (causal): the answer is an option letter in the pool, or an answer that states a
  set (the track's ``answer_items``, e.g. XYZ's edges) mapped to an option by
  :func:`match_subset` -- the option with the same set, else the only option whose set is
  strictly contained in it -- whose letter is in the pool;
- ``equation`` (equation discovery): the answer is an equation over the formal object's
  ``inputs``; its free parameters ``p0``..``p9`` (if any) are fitted on the ``train`` split
  by the project's evaluator (:func:`solvers.equation.evaluator.fit`, its default strategy:
  linear parameters solved exactly, BFGS multi-start over the others, seeded), and it is
  accepted when Acc_0.01 holds on the in-domain test split ``test_id``
  (:func:`scir.outcomes.regression.acc_tau`). Text outside the equation language, or an
  equation that cannot be fitted, is wrong (never an error). A track that names this rule
  has a formal object with ``inputs`` and ``splits`` (``train``, ``test_id``: ``X``, ``y``).

:func:`match_subset` is also the rule the causal solvers use to map a found graph to an
option (``scir.tracks.causal.options.match_options``), so an answer and a solver's graph are
matched the same way. A generic layer asks :func:`score`; nothing here names a track.

:func:`assess` gives the verdict together with the rule's per-answer metrics: for
``equation`` the metrics of :func:`scir.outcomes.regression.answer_metrics` (Acc_tau on
``test_id`` for every tau, NMSE on ``test_id`` and ``test_ood``, symbolic equivalence),
computed from the same single fit as the verdict. The pipelines call it once per answer
(``scir.pipelines.result.verdict``) and store the metrics in the result.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from scir.errors import ScirError

if TYPE_CHECKING:
    from scir.tasks import Task
    from scir.tracks.base import Track

_Item = TypeVar("_Item", bound=Hashable)  # the items of a set matched by match_subset

LABEL, POOL, OPTION, EQUATION = "label", "pool", "option", "equation"
RULES = (LABEL, POOL, OPTION, EQUATION)
EQUATION_TAU = 0.01  # the equation rule's Acc_tau on the in-domain test split
EQUATION_SEED = 0  # the fit's seed: the same answer always gets the same verdict
# the rules whose verdicts come with per-answer metrics (stored in PipelineResult.metrics)
METRIC_RULES = (EQUATION,)
EXACT, SUBSET = "exact", "subset"
LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Assessment:
    """A verdict and, for a rule of :data:`METRIC_RULES`, the answer's metrics (JSON-ready;
    None for the other rules)."""

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


def score_label(task: Task, answer: str | None) -> bool:
    """``label``: the answer is the task's label."""
    return answer is not None and answer == task.answer


def score_pool(task: Task, answer: str | None) -> bool:
    """``pool``: the answer is one of the accepted answers."""
    return answer is not None and answer in task.answer_pool


def score_option(track: Track, task: Task, answer: str | None) -> bool:
    """``option``: an option letter in the pool; else the answer's set (``track.answer_items``)
    matched to the task's option sets (``track.option_items``) by :func:`match_subset`."""
    if answer is None:
        return False
    letters = LETTERS[: len(task.options)]
    if answer in letters:
        return answer in task.answer_pool
    items = track.answer_items(task, answer)
    options = track.option_items(task)
    if items is None or options is None:
        return False
    match = match_subset(items, options, fold=track.fold_item)
    return match.index is not None and option_letter(match.index) in task.answer_pool


def _fitted(
    formal: Any, answer: str, fit_strategy: str | None = None
) -> Callable[[Any], Any] | None:
    """The answer's predictor ``X -> y`` with its free parameters fitted once on ``train``
    (:data:`EQUATION_SEED`; ``fit_strategy``: the evaluator's ``strategy``, None for its
    default); None for text outside the equation language or an equation that cannot be
    fitted."""
    from solvers.equation.expression import parse_equation

    train = formal.splits["train"]
    try:
        equation = parse_equation(answer, list(formal.inputs))
        params: Sequence[float] = ()
        if equation.n_params:
            from solvers.equation.evaluator import fit

            if fit_strategy is None:
                params = fit(
                    equation, train.X, train.y, list(formal.inputs), seed=EQUATION_SEED
                ).params
            else:
                params = fit(
                    equation,
                    train.X,
                    train.y,
                    list(formal.inputs),
                    seed=EQUATION_SEED,
                    strategy=fit_strategy,
                ).params
    except ScirError:
        return None
    return lambda X: equation.evaluate(X, params)


def score_equation(
    track: Track, task: Task, answer: str | None, *, fit_strategy: str | None = None
) -> bool:
    """``equation``: fit the answer's free parameters on ``train``, then Acc_0.01 on
    ``test_id`` (see the module docstring). ``fit_strategy``: the evaluator's ``strategy``
    (None: its default; ``benchmarks/equation_fit.py`` compares them)."""
    from scir.outcomes.regression import acc_tau  # numpy and sympy: loaded when needed

    if answer is None:
        return False
    formal = track.formal(task)
    predict = _fitted(formal, answer, fit_strategy)
    if predict is None:
        return False
    test = formal.splits["test_id"]
    try:
        return acc_tau(test.y, predict(test.X), EQUATION_TAU)
    except ScirError:
        return False


def assess_equation(track: Track, task: Task, answer: str | None) -> Assessment:
    """The ``equation`` rule's verdict with its metrics (:func:`scir.outcomes.regression.
    answer_metrics`), from one fit of the answer's parameters on ``train``: the verdict is
    the metrics' Acc_0.01 on ``test_id``."""
    from scir.outcomes.regression import acc_name, answer_metrics  # (sympy: lazily)

    formal = track.formal(task)
    predict = None if answer is None else _fitted(formal, answer)
    metrics = answer_metrics(formal, answer, predict)
    return Assessment(bool(metrics[acc_name(EQUATION_TAU)]), metrics)


def assess(track: Track, task: Task, answer: str | None) -> Assessment:
    """The verdict on ``answer`` (``track.score``) and, for a rule with per-answer metrics
    (:data:`METRIC_RULES`: ``equation``), the metrics from the same fit."""
    if track.scoring == EQUATION:
        return assess_equation(track, task, answer)
    return Assessment(bool(track.score(task, answer)), track.answer_metrics(task, answer))


def score(track: Track, task: Task, answer: str | None) -> bool:
    """Whether ``answer`` is accepted for ``task`` under the rule ``track.scoring`` names
    (ValueError for a rule that is not one of :data:`RULES`)."""
    rule = track.scoring
    if rule == LABEL:
        return score_label(task, answer)
    if rule == POOL:
        return score_pool(task, answer)
    if rule == OPTION:
        return score_option(track, task, answer)
    if rule == EQUATION:
        return score_equation(track, task, answer)
    raise ValueError(
        f"track {track.name!r} names the unknown scoring rule {rule!r} (one of {', '.join(RULES)})"
    )
