"""The equation track's scorer (:class:`EquationScorer`, rule ``equation``) and the
per-answer metrics of an equation (:func:`answer_metrics`).

The rule: the answer is an equation over the formal object's ``inputs``; its free parameters
``p0``..``p9`` (if any) are fitted on the ``train`` split by the project's evaluator
(:func:`solvers.equation.evaluator.fit`, its default strategy: linear parameters solved
exactly, BFGS multi-start over the others, seeded with :data:`EQUATION_SEED`), and it is
accepted when Acc_0.01 (:data:`EQUATION_TAU`) holds on the in-domain test split ``test_id``
(:func:`scir.outcomes.regression.acc_tau`). Text outside the equation language, or an
equation that cannot be fitted, is wrong (never an error).

Per answer (:func:`answer_metrics`, :data:`scir.outcomes.regression.METRICS`, stored by the
pipelines in ``PipelineResult.metrics``): ``acc_0.1``, ``acc_0.01``, ``acc_0.001`` (Acc_tau
on ``test_id``), ``nmse_id``, ``nmse_ood`` (NMSE on ``test_id`` / ``test_ood``; None when
not finite) and ``symbolic`` (equivalence with the ground truth; attempted only when Acc_0.1
holds on ``test_id``: an answer off by 10% on a twentieth of the noise-free in-domain points
after its fit is not the law, and a proof costs seconds). :meth:`EquationScorer.assess`
computes them from the same single fit as the verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from scir.errors import ScirError
from scir.outcomes.regression import (
    METRICS,
    TAUS,
    acc_name,
    acc_tau,
    nmse,
    symbolic_equivalent,
)
from scir.outcomes.scoring import Assessment, Scorer
from scir.tracks.base import load_formal
from scir.tracks.equation.formal import EquationFormal
from solvers.equation.evaluator import fit
from solvers.equation.expression import parse_equation

if TYPE_CHECKING:
    from scir.tasks import Task

EQUATION = "equation"  # the rule's name, as exports record it
EQUATION_TAU = 0.01  # the rule's Acc_tau on the in-domain test split
EQUATION_SEED = 0  # the fit's seed: the same answer always gets the same verdict
SYMBOLIC_SECONDS = 10.0  # sympy's time for one equivalence proof of an answer

Predictor = Callable[[Any], Any]


def fitted(formal: Any, answer: str, fit_strategy: str | None = None) -> Predictor | None:
    """The answer's predictor ``X -> y`` with its free parameters fitted once on ``train``
    (:data:`EQUATION_SEED`; ``fit_strategy``: the evaluator's ``strategy``, None for its
    default); None for text outside the equation language or an equation that cannot be
    fitted."""
    train = formal.splits["train"]
    try:
        equation = parse_equation(answer, list(formal.inputs))
        params: Sequence[float] = ()
        if equation.n_params:
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


def _finite_nmse(y_true, y_pred) -> float | None:
    value = float(nmse(y_true, y_pred))
    return value if math.isfinite(value) else None


def answer_metrics(formal: Any, answer: str | None, predict: Predictor | None) -> dict[str, Any]:
    """The metrics of one answer (:data:`~scir.outcomes.regression.METRICS`; the module
    docstring) on a formal object with ``inputs``, ``expression`` (the truth) and ``splits``
    ``train``, ``test_id``, ``test_ood``; ``predict`` maps rows to predictions with the
    answer's fitted parameters (None: no answer, text outside the language, or no fit: every
    Acc_tau and ``symbolic`` false, both NMSE None). ``symbolic`` is None -- not applicable --
    when the formal object has no ground truth (an empty ``expression``: an imported problem
    without one)."""
    out: dict[str, Any] = {name: False for name in METRICS}
    out["nmse_id"] = out["nmse_ood"] = None
    if not getattr(formal, "expression", ""):
        out["symbolic"] = None  # no ground truth: not applicable, never "false"
    if predict is None or answer is None:
        return out
    for split, key in (("test_id", "nmse_id"), ("test_ood", "nmse_ood")):
        data = formal.splits[split]
        try:
            predicted = predict(data.X)
            out[key] = _finite_nmse(data.y, predicted)
            if split == "test_id":
                for tau in TAUS:
                    out[acc_name(tau)] = acc_tau(data.y, predicted, tau)
        except ScirError:
            continue
    if out[acc_name(max(TAUS))] and out["symbolic"] is not None:
        try:
            out["symbolic"] = symbolic_equivalent(
                answer,
                formal.expression,
                list(formal.inputs),
                X=np.asarray(formal.splits["train"].X),
                seconds=SYMBOLIC_SECONDS,
            )
        except ScirError:
            out["symbolic"] = False
    return out


class EquationScorer(Scorer):
    """``equation``: fit the answer's free parameters on ``train``, then Acc_0.01 on
    ``test_id`` (the module docstring). ``fit_strategy``: the evaluator's ``strategy`` for
    :meth:`score` (None: its default; ``benchmarks/equation_fit.py`` compares them)."""

    rule = EQUATION
    metrics = METRICS

    def __init__(self, fit_strategy: str | None = None) -> None:
        self.fit_strategy = fit_strategy

    def score(self, task: Task, answer: str | None) -> bool:
        if answer is None:
            return False
        formal = load_formal(EquationFormal, task)
        predict = fitted(formal, answer, self.fit_strategy)
        if predict is None:
            return False
        test = formal.splits["test_id"]
        try:
            return acc_tau(test.y, predict(test.X), EQUATION_TAU)
        except ScirError:
            return False

    def assess(self, task: Task, answer: str | None) -> Assessment:
        """The verdict with its metrics (:func:`answer_metrics`), from one fit of the
        answer's parameters on ``train``: the verdict is
        the metrics' Acc_0.01 on ``test_id``."""
        formal = load_formal(EquationFormal, task)
        predict = None if answer is None else fitted(formal, answer, self.fit_strategy)
        metrics = answer_metrics(formal, answer, predict)
        return Assessment(bool(metrics[acc_name(EQUATION_TAU)]), metrics)


__all__ = [
    "EQUATION",
    "EQUATION_SEED",
    "EQUATION_TAU",
    "SYMBOLIC_SECONDS",
    "EquationScorer",
    "answer_metrics",
    "fitted",
]
