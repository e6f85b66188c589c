"""Building one equation problem: choose terms from the science's library, sample constants
and data, and redraw until the equation is usable.

The terms: ``terms`` distinct terms, at least one textbook and (with two or more terms) at
least one synthetic term, whose unary functions total exactly ``operators``; at most
:data:`MAX_PARAMS` constants (the equation language's ``p0``..``p9``). The combination is drawn
uniformly from all that qualify (sorted, so the draw is deterministic).

The constants: every constant after a term's leading coefficient is drawn uniformly from its
range; the leading coefficient is set so that the term's root mean square on the training
inputs is a random size between 0.5 and 2 -- so no term is negligible by construction -- and
every constant is rounded to :data:`CONSTANT_DIGITS` significant digits.

The data: inputs uniform in the in-domain ranges (train, test_id) or the out-of-domain ranges
(test_ood: ``[high, high + ood_shift * (high - low)]`` for every input), rounded to
``SIG_X`` significant digits; targets computed from the expression text by the project's
evaluator on the rounded inputs, then rounded to ``SIG_Y`` digits; relative Gaussian noise
(std ``noise``, cut at :data:`NOISE_CUT` sigma) only on the train targets, before rounding.

A draw is rejected (and redrawn, at most :data:`MAX_ATTEMPTS` times) when a target is not
finite or larger than :data:`MAX_ABS` on any split, when the train targets are nearly constant
(std / rms < :data:`MIN_SPREAD`), or when one term is dominated: dropping it changes the train
targets by less than :data:`MIN_SHARE` of their rms.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import sympy

from scir.errors import ConfigError, GenerationError
from scir.tracks.equation.formal import EquationFormal, Split
from scir.tracks.equation.numeric import SIG_X, SIG_Y, evaluate, rms, rounded
from scir.tracks.equation.terms import SCIENCES, SYNTHETIC, TEXTBOOK, Science, Term, symbols

MAX_ATTEMPTS = 200
MAX_PARAMS = 10
CONSTANT_DIGITS = 3
MAX_ABS = 1e8
MIN_SPREAD = 0.05
MIN_SHARE = 0.1
NOISE_CUT = 4.0  # the relative noise is a Gaussian cut at 4 sigma
SIZE_RANGE = (0.5, 2.0)  # a term's rms on the train inputs (before rounding)


@dataclass
class Problem:
    """A generated problem: its formal object and how it was made."""

    formal: EquationFormal
    terms: list[dict[str, str]]  # name, kind, expression of each term
    attempts: int
    rejected: dict[str, int] = field(default_factory=dict)


@cache
def combinations(science: str, terms: int, operators: int) -> tuple[tuple[str, ...], ...]:
    """Every qualifying term combination (names, library order), sorted."""
    library = SCIENCES[science].terms
    out = []
    for combo in itertools.combinations(library, terms):
        kinds = {t.kind for t in combo}
        if TEXTBOOK not in kinds or (terms >= 2 and SYNTHETIC not in kinds):
            continue
        if sum(t.operators for t in combo) != operators:
            continue
        if sum(t.constants for t in combo) > MAX_PARAMS:
            continue
        out.append(tuple(t.name for t in combo))
    return tuple(sorted(out))


def check_params(params: dict[str, Any], science: str) -> None:
    """ConfigError when no term combination of ``science`` fits ``terms`` and ``operators``."""
    if not combinations(science, params["terms"], params["operators"]):
        raise ConfigError(
            f"no {params['terms']} terms of the {science} library have "
            f"{params['operators']} operators in total (with a textbook and a "
            f"synthetic term, at most {MAX_PARAMS} constants); change --terms or "
            "--operators",
            field="operators",
        )


def ood_range(low: float, high: float, shift: float) -> tuple[float, float]:
    """The out-of-domain range of an input: beyond ``high`` by ``shift`` of the width."""
    return high, rounded(high + shift * (high - low), SIG_X)


def _rows(rng: random.Random, ranges: list[tuple[float, float]], n: int) -> list[list[float]]:
    return [[rounded(rng.uniform(lo, hi), SIG_X) for lo, hi in ranges] for _ in range(n)]


def _constant(value: float) -> float:
    return rounded(value, CONSTANT_DIGITS)


def _draw(
    science: Science,
    combo: list[Term],
    params: dict[str, Any],
    rng: random.Random,
    rejected: dict[str, int],
) -> Problem | None:
    """One draw of constants and data; None (reason counted) when it is rejected."""
    inputs = science.input_names
    syms = symbols(science.name)
    id_ranges = [(v.low, v.high) for v in science.inputs]
    ood = [ood_range(v.low, v.high, params["ood_shift"]) for v in science.inputs]
    splits_x = {
        "train": _rows(rng, id_ranges, params["samples"]),
        "test_id": _rows(rng, id_ranges, params["test_samples"]),
        "test_ood": _rows(rng, ood, params["test_samples"]),
    }
    pnames: list[sympy.Symbol] = []
    constants: list[float] = []
    skeletons: list[Any] = []  # sympy expressions
    values: list[dict[sympy.Symbol, sympy.Float]] = []
    for term in combo:
        first = len(pnames)
        ps = [sympy.Symbol(f"p{first + k}", real=True) for k in range(term.constants)]
        pnames += ps
        rest = [_constant(rng.uniform(lo, hi)) for lo, hi in term.ranges]
        skeleton = term.skeleton(syms, ps)
        unit = skeleton.subs({ps[0]: 1, **{p: sympy.Float(c) for p, c in zip(ps[1:], rest)}})
        size = rms(evaluate(str(unit), inputs, splits_x["train"]))
        if not math.isfinite(size) or size <= 0:
            rejected["term_undefined"] = rejected.get("term_undefined", 0) + 1
            return None
        lead = _constant(math.exp(rng.uniform(*map(math.log, SIZE_RANGE))) / size)
        if lead <= 0 or not math.isfinite(lead):
            rejected["term_undefined"] = rejected.get("term_undefined", 0) + 1
            return None
        constants += [lead] + rest
        skeletons.append(skeleton)
        values.append({p: sympy.Float(c) for p, c in zip(ps, [lead] + rest)})
    skeleton = sympy.Add(*skeletons)
    subs = {k: v for d in values for k, v in d.items()}
    expression = str(skeleton.subs(subs))
    term_texts = [str(s.subs(v)) for s, v in zip(skeletons, values)]
    ys = {k: evaluate(expression, inputs, x) for k, x in splits_x.items()}
    if not all(np.all(np.isfinite(y)) and np.all(np.abs(y) < MAX_ABS) for y in ys.values()):
        rejected["not_finite"] = rejected.get("not_finite", 0) + 1
        return None
    train = ys["train"]
    if float(np.std(train)) < MIN_SPREAD * rms(train):
        rejected["nearly_constant"] = rejected.get("nearly_constant", 0) + 1
        return None
    for text in term_texts:
        if rms(evaluate(text, inputs, splits_x["train"])) < MIN_SHARE * rms(train):
            rejected["dominated"] = rejected.get("dominated", 0) + 1
            return None
    noisy = [
        y * (1 + params["noise"] * max(-NOISE_CUT, min(NOISE_CUT, rng.gauss(0.0, 1.0))))
        for y in train
    ]
    targets: dict[str, list[float] | np.ndarray] = {
        "train": noisy,
        "test_id": ys["test_id"],
        "test_ood": ys["test_ood"],
    }
    splits = {
        k: Split(
            tuple(tuple(r) for r in splits_x[k]),
            tuple(rounded(float(y), SIG_Y) for y in targets[k]),
        )
        for k in splits_x
    }
    ranges = {
        "id": {v.name: (v.low, v.high) for v in science.inputs},
        "ood": {v.name: r for v, r in zip(science.inputs, ood)},
    }
    formal = EquationFormal(
        science.name,
        tuple(inputs),
        science.output,
        expression,
        str(skeleton),
        tuple(constants),
        splits,
        float(params["noise"]),
        ranges,
    )
    terms = [
        {"name": t.name, "kind": t.kind, "expression": text} for t, text in zip(combo, term_texts)
    ]
    return Problem(formal, terms, 0)


def build(params: dict[str, Any], science_name: str, rng: random.Random, task_id: str) -> Problem:
    """Draw until a usable problem of ``science_name`` comes out (GenerationError after
    :data:`MAX_ATTEMPTS` draws)."""
    check_params(params, science_name)
    science = SCIENCES[science_name]
    combos = combinations(science_name, params["terms"], params["operators"])
    rejected: dict[str, int] = {}
    for attempt in range(1, MAX_ATTEMPTS + 1):
        combo = [science.term(name) for name in rng.choice(combos)]
        problem = _draw(science, combo, params, rng, rejected)
        if problem is not None:
            problem.attempts, problem.rejected = attempt, dict(sorted(rejected.items()))
            return problem
    raise GenerationError(
        f"no usable equation in {MAX_ATTEMPTS} draws ({rejected})", task_id=task_id
    )


__all__ = [
    "MAX_PARAMS",
    "MIN_SHARE",
    "Problem",
    "build",
    "check_params",
    "combinations",
    "ood_range",
]
