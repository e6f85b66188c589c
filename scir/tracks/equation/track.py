"""``EquationTrack``: equation discovery (symbolic regression) behind the generic ``Track``
interface."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from scir.errors import ScirError, SolverError
from scir.outcomes.scoring import Scorer
from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.tracks.base import (
    AGENT,
    ANSWER,
    REGRESSION,
    SOLVE,
    Check,
    Formalizer,
    RegressionData,
    Track,
    TrackParam,
)
from scir.tracks.equation import templates
from scir.tracks.equation.codec import EquationCodec
from scir.tracks.equation.formal import SCIENCES, SPLITS, EquationFormal
from scir.tracks.equation.formalizer import EquationFormalizer
from scir.tracks.equation.generate import build
from scir.tracks.equation.numeric import evaluate, right_side
from scir.tracks.equation.scoring import EquationScorer
from scir.tracks.equation.validate import validate

GENERATOR = "scir.tracks.equation"
VERSION = "1.0"
ANY = "any"
VERIFY_TAU = 0.001  # the stored expression reproduces noise-free targets
NOISE_FACTOR = 4.5  # train targets with noise: within 4.5 sigma (noise is cut at 4)
_ANSWER = re.compile(r"(?im)^[\s>*_#-]*(?:final\s+)?answer\s*[*_]*\s*[:=]\s*(.+?)\s*$")


class EquationTrack(Track):
    """Equation discovery: find the equation behind a table of measurements (LSR-Synth
    style: textbook terms mixed with synthetic ones, in four sciences)."""

    name = "equation"
    description = (
        "equation discovery (symbolic regression): find the equation that "
        "generated a table of measurements in chemistry, biology, physics or "
        "materials science"
    )
    n_blocks = 2
    answer_kind = "expression"
    scoring = "equation"
    formal_type = EquationFormal
    # ns and symbcot formalize the problem into a formal object the solver then answers;
    # here the formal object *is* the data and the answer is the equation to be found, so
    # there is nothing for a model to formalize: the CoT model proposes the equation directly,
    # the SR agent explores with its tools; the symbolic-regression baselines (no model) fit
    # the train split (``regression_data``)
    pipeline_kinds = (ANSWER, SOLVE, AGENT, REGRESSION)

    # ---- generation -------------------------------------------------------------------
    def parameters(self) -> Sequence[TrackParam]:
        return [
            TrackParam(
                "terms",
                int,
                "terms of the equation (at least one textbook term and, "
                "from two terms on, one synthetic term)",
                2,
                4,
                minimum=1,
                maximum=6,
            ),
            TrackParam(
                "operators",
                int,
                "unary functions (sin, cos, exp, log, sqrt, tanh) in the equation, in total",
                1,
                2,
                minimum=0,
                maximum=8,
            ),
            TrackParam(
                "samples",
                int,
                f"training rows (the text prints the first {templates.SHOWN})",
                24,
                24,
                minimum=4,
                maximum=5000,
            ),
            TrackParam(
                "test_samples",
                int,
                "rows of each test split (in-domain and out-of-domain)",
                50,
                50,
                minimum=4,
                maximum=5000,
            ),
            TrackParam(
                "noise",
                float,
                "std of the relative Gaussian noise on the training "
                "targets (0: none; the test splits are always noise-free)",
                0.0,
                0.0,
                minimum=0.0,
                maximum=0.5,
            ),
            TrackParam(
                "ood_shift",
                float,
                "out-of-domain inputs lie in [high, high + shift * "
                "(high - low)] of each input's in-domain range",
                0.5,
                0.5,
                minimum=0.05,
                maximum=5.0,
            ),
            TrackParam(
                "science",
                str,
                "the science (any: chemistry, biology, physics, materials in turn by task index)",
                ANY,
                ANY,
                choices=(ANY,) + SCIENCES,
                affects_difficulty=False,
            ),
        ]

    def tier(self, params: dict[str, Any]) -> str:
        return f"t{params['terms']}o{params['operators']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        task_id = self.task_id(params, seed, index)
        science = params["science"]
        if science == ANY:
            science = SCIENCES[index % len(SCIENCES)]
        rng = self.rng(seed, index, salt=f"{self.name}:{self.tier(params)}:{science}")
        problem = build(params, science, rng, task_id)
        return self.task_of(
            problem.formal,
            task_id=task_id,
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            difficulty=self.difficulty_of(params),
            metadata={"science": science, "terms": problem.terms},
            provenance={
                "generator": GENERATOR,
                "version": VERSION,
                "attempts": problem.attempts,
                "rejected": problem.rejected,
                "evaluator": "solvers.equation.expression",
            },
        )

    def task_of(
        self,
        formal: EquationFormal,
        *,
        task_id: str,
        tier: str,
        seed: int,
        params: dict[str, Any],
        difficulty: str,
        metadata: dict[str, Any],
        provenance: dict[str, Any],
    ) -> Task:
        """The task of a formal object (generated or imported): blocks, question, answer."""
        blocks = [templates.block_context(formal), templates.block_data(formal)]
        return Task(
            task_id=task_id,
            domain=self.name,
            difficulty=difficulty,
            tier=tier,
            seed=seed,
            params=params,
            question=templates.question(formal),
            options=[],
            # no ground truth (an imported problem): answer "" and an empty pool
            answer=formal.expression,
            answer_pool=[formal.expression] if formal.has_truth else [],
            # an equation is not drawn from a finite set: a blind guess is right with
            # probability 0 (the Task format allows 0 for open answers)
            chance=0.0,
            formal=formal.dump(),
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata=metadata,
            provenance=provenance,
        )

    # ---- checking and scoring ---------------------------------------------------------
    def scorer(self) -> Scorer:
        """``equation``: the answer's parameters fitted on ``train``, Acc_0.01 on ``test_id``,
        with the per-answer metrics of the same fit
        (:class:`scir.tracks.equation.scoring.EquationScorer`)."""
        return EquationScorer()

    def validate_formal(self, task: Task) -> None:
        """Answer, pool, options and the formal object's shapes (``validate.py``)."""
        validate(task)

    def verify(self, task: Task) -> Check:
        """Recompute every split's targets from the stored expression: every point of the
        noise-free splits (train too when ``noise`` is 0) within relative error 0.001 (Acc_0.001
        with share 1, so one tampered row fails); with noise, every train target within 4.5
        sigma of the truth (the noise is cut at 4 sigma); the skeleton with the constants must
        give the expression's values; answer and pool must be the expression. A problem
        without ground truth (imported) has nothing to recompute: it passes with a message
        saying so (its data were checked when the record was read)."""
        from scir.outcomes.regression import acc_tau

        formal = self.formal(task)
        if not formal.has_truth:
            return Check(
                task.task_id,
                True,
                task.answer,
                None,
                details={},
                message="no ground truth: the data alone were checked",
            )
        problems = []
        if task.answer != formal.expression or task.answer_pool != [formal.expression]:
            problems.append(
                f"stored answer {task.answer!r} is not the formal expression {formal.expression!r}"
            )
        details: dict[str, Any] = {}
        try:
            for split in SPLITS:
                data = formal.splits[split]
                predicted = evaluate(formal.expression, formal.inputs, data.X)
                noisy = split == "train" and formal.noise > 0
                tau = NOISE_FACTOR * formal.noise if noisy else VERIFY_TAU
                ok = bool(acc_tau(np.asarray(data.y), predicted, tau, share=1.0))
                details[split] = ok
                if not ok:
                    problems.append(
                        f"the expression does not reproduce the {split} targets (Acc_{tau:g} fails)"
                    )
            if formal.skeleton:
                train = formal.splits["train"].X
                filled = evaluate(formal.skeleton, formal.inputs, train, formal.constants)
                truth = evaluate(formal.expression, formal.inputs, train)
                if not np.allclose(filled, truth, rtol=1e-6, atol=1e-12):
                    problems.append("the skeleton with the constants is not the expression")
        except ScirError as exc:
            problems.append(f"the expression cannot be evaluated: {exc.message}")
        found = formal.expression if not problems else None
        return Check(
            task.task_id,
            not problems,
            task.answer,
            found,
            details=details,
            message="; ".join(problems),
        )

    def regression_data(self, task: Task, split: str = "train") -> RegressionData:
        """A split's rows, targets and input names (for ``--arch pyoperon|gplearn|pysr``)."""
        formal = self.formal(task)
        data = formal.splits[split]
        return RegressionData(
            np.asarray(data.X, dtype=float).reshape(len(data.X), len(formal.inputs)),
            np.asarray(data.y, dtype=float),
            formal.inputs,
        )

    def solve_formal(self, task: Task, formal: EquationFormal) -> str:
        """The oracle: the ground-truth expression (SolverError when none is known)."""
        if not formal.has_truth:
            raise SolverError(
                "this problem has no ground truth (imported without "
                "equation.json or equation.txt): the oracle has no answer"
            )
        return formal.expression

    def parse_answer(self, task: Task, text: str) -> str | None:
        """The expression of the last ``Answer:`` line, without a left-hand side (``y =``,
        ``dA_dt =``, ``f(t, A) =``) or surrounding backticks and a final period."""
        found = _ANSWER.findall(text)
        if not found:
            return None
        return right_side(found[-1]) or None

    def formalizer(self) -> Formalizer:
        """The formalization part: the ``cot`` prompt and the training rows as items
        (:mod:`scir.tracks.equation.formalizer`)."""

        return EquationFormalizer(self)

    def codec(self) -> RenderCodec:
        """The rendering codec (:mod:`scir.tracks.equation.codec`)."""

        return EquationCodec()


__all__ = ["EquationTrack"]
