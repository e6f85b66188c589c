"""The equation track's sciences and term libraries, in the style of LSR-Synth.

Each science has its inputs (with a description, a unit and an in-domain range), its output
and a library of terms. A term is a template over the inputs whose ``{0}``, ``{1}``, ...
are its constants; ``{0}`` is always the leading coefficient (scaled by the generator so
that every term matters, :mod:`.generate`), the others are drawn from the term's ranges.
``textbook`` terms are the standard laws of the field (first-order decay, logistic growth,
Hooke's law, ...); ``synthetic`` terms are the unusual ones LSR-Synth adds so that a
memorised law does not suffice. A term's *operators* are its unary functions (sin, cos,
exp, log, sqrt, tanh): the ``--operators`` parameter fixes their total in an equation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import sympy

FUNCTIONS = ("sin", "cos", "exp", "log", "sqrt", "tanh")
_FUNCTION = re.compile(r"\b(?:" + "|".join(FUNCTIONS) + r")\(")


@dataclass(frozen=True)
class Variable:
    """One input of a science: its name (a column of the data), meaning, unit and range."""

    name: str
    description: str
    unit: str
    low: float
    high: float


@dataclass(frozen=True)
class Term:
    """One term of a library: ``template`` over the inputs with constants ``{0}``, ``{1}``..
    (``ranges``: the range of every constant after the leading coefficient ``{0}``)."""

    name: str
    kind: str  # "textbook" or "synthetic"
    template: str
    ranges: tuple[tuple[float, float], ...] = ()

    @property
    def constants(self) -> int:
        """How many constants the term has (``{0}`` plus one per range)."""
        return 1 + len(self.ranges)

    @property
    def operators(self) -> int:
        """Its unary functions (sin, cos, exp, log, sqrt, tanh)."""
        return len(_FUNCTION.findall(self.template))

    def skeleton(self, symbols: dict[str, sympy.Symbol], params: list[sympy.Symbol]) -> sympy.Expr:
        """The term with parameter symbols in place of its constants."""
        names = [str(p) for p in params]
        local = dict(symbols)
        local.update(zip(names, params))
        return sympy.sympify(self.template.format(*names), locals=local)


@dataclass(frozen=True)
class Science:
    """One science: inputs, output and term library."""

    name: str
    output: str
    output_description: str
    output_unit: str
    context: str  # one sentence on the system studied
    inputs: tuple[Variable, ...]
    terms: tuple[Term, ...]

    @property
    def input_names(self) -> list[str]:
        return [v.name for v in self.inputs]

    def variable(self, name: str) -> Variable | None:
        """The input called ``name`` (None if there is none)."""
        return next((v for v in self.inputs if v.name == name), None)

    def term(self, name: str) -> Term:
        return next(t for t in self.terms if t.name == name)


def _t(name: str, kind: str, template: str, *ranges: tuple[float, float]) -> Term:
    return Term(name, kind, template, tuple(ranges))


TEXTBOOK, SYNTHETIC = "textbook", "synthetic"

SCIENCES: dict[str, Science] = {
    s.name: s
    for s in (
        Science(
            "chemistry",
            "dA_dt",
            "rate of change of the reactant concentration",
            "mol/(L*s)",
            "the concentration A of a reactant in a stirred batch reactor is followed over time",
            (
                Variable("t", "time since the start of the reaction", "s", 0.0, 10.0),
                Variable("A", "concentration of the reactant", "mol/L", 0.1, 2.0),
            ),
            (
                _t("first_order", TEXTBOOK, "-{0}*A"),
                _t("second_order", TEXTBOOK, "-{0}*A**2"),
                _t("saturating", TEXTBOOK, "-{0}*A/(1 + {1}*A)", (0.5, 3.0)),
                _t("half_order", TEXTBOOK, "-{0}*sqrt(A)"),
                _t("decaying_feed", TEXTBOOK, "{0}*exp(-{1}*t)", (0.1, 0.5)),
                _t("oscillating_square", SYNTHETIC, "{0}*A**2*sin(t)"),
                _t("modulated_decay", SYNTHETIC, "-{0}*A*cos({1}*t)", (0.3, 1.5)),
                _t("cubic", SYNTHETIC, "-{0}*A**3"),
                _t("log_feed", SYNTHETIC, "{0}*log(1 + A)*t"),
                _t("sqrt_oscillation", SYNTHETIC, "{0}*sqrt(A)*cos(t)"),
                _t("time_ramp", SYNTHETIC, "-{0}*A*t"),
                _t("saturating_time", SYNTHETIC, "{0}*A*tanh({1}*t)", (0.2, 1.0)),
            ),
        ),
        Science(
            "biology",
            "dP_dt",
            "growth rate of the population",
            "individuals/day",
            "the size P of a population is followed over time",
            (
                Variable("t", "time since the first count", "days", 0.0, 20.0),
                Variable("P", "population size", "individuals", 1.0, 30.0),
            ),
            (
                _t("exponential", TEXTBOOK, "{0}*P"),
                _t("logistic", TEXTBOOK, "{0}*P*(1 - {1}*P)", (0.01, 0.03)),
                _t("mortality", TEXTBOOK, "-{0}*P**2"),
                _t("holling_two", TEXTBOOK, "-{0}*P/(1 + {1}*P)", (0.05, 0.5)),
                _t("holling_three", TEXTBOOK, "-{0}*P**2/(1 + {1}*P**2)", (0.002, 0.02)),
                _t("fading_growth", SYNTHETIC, "{0}*P*exp(-{1}*t)", (0.05, 0.3)),
                _t("seasonal", SYNTHETIC, "{0}*P*sin({1}*t)", (0.2, 1.0)),
                _t("sqrt_recruitment", SYNTHETIC, "{0}*sqrt(P)"),
                _t("log_crowding", SYNTHETIC, "-{0}*P*log(P)"),
                _t("cubic_loss", SYNTHETIC, "-{0}*P**3"),
                _t("time_drift", SYNTHETIC, "{0}*t*P"),
                _t("seasonal_immigration", SYNTHETIC, "{0}*cos({1}*t)", (0.2, 1.0)),
            ),
        ),
        Science(
            "physics",
            "dv_dt",
            "acceleration of the oscillator",
            "m/s^2",
            "a driven, damped oscillator is observed: its position x and velocity v over time",
            (
                Variable("t", "time", "s", 0.0, 10.0),
                Variable("x", "displacement from equilibrium", "m", -2.0, 2.0),
                Variable("v", "velocity", "m/s", -2.0, 2.0),
            ),
            (
                _t("spring", TEXTBOOK, "-{0}*x"),
                _t("damping", TEXTBOOK, "-{0}*v"),
                _t("driving", TEXTBOOK, "{0}*sin({1}*t)", (0.5, 2.0)),
                _t("pendulum", TEXTBOOK, "-{0}*sin(x)"),
                _t("duffing", TEXTBOOK, "-{0}*x**3"),
                _t("cubic_drag", SYNTHETIC, "-{0}*v**3"),
                _t("van_der_pol", SYNTHETIC, "{0}*x**2*v"),
                _t("fading_spring", SYNTHETIC, "-{0}*x*exp(-{1}*t)", (0.1, 0.5)),
                _t("position_drag", SYNTHETIC, "-{0}*v*cos(x)"),
                _t("parametric", SYNTHETIC, "{0}*x*cos({1}*t)", (0.5, 2.0)),
                _t("soft_friction", SYNTHETIC, "-{0}*tanh({1}*v)", (1.0, 3.0)),
                _t("cross", SYNTHETIC, "{0}*x*v**2"),
            ),
        ),
        Science(
            "materials",
            "stress",
            "stress in the specimen",
            "MPa",
            "a metal specimen is loaded in tension at several temperatures",
            (
                Variable("strain", "engineering strain", "dimensionless", 0.001, 0.1),
                Variable("T", "temperature", "K", 273.0, 373.0),
            ),
            (
                _t("hooke", TEXTBOOK, "{0}*strain"),
                _t("thermal_softening", TEXTBOOK, "-{0}*strain*T"),
                _t("hollomon", TEXTBOOK, "{0}*strain**{1}", (0.1, 0.5)),
                _t("thermal_stress", TEXTBOOK, "-{0}*T"),
                _t("arrhenius", TEXTBOOK, "{0}*strain*exp(-{1}*T)", (0.005, 0.02)),
                _t("log_temperature", SYNTHETIC, "{0}*strain*T*log(T)"),
                _t("quadratic", SYNTHETIC, "-{0}*strain**2"),
                _t("sqrt_strain", SYNTHETIC, "{0}*sqrt(strain)*T"),
                _t("saturation", SYNTHETIC, "{0}*tanh({1}*strain)", (10.0, 40.0)),
                _t("cubic", SYNTHETIC, "{0}*strain**3"),
                _t("wavy", SYNTHETIC, "{0}*strain*sin({1}*T)", (0.02, 0.1)),
                _t("temperature_square", SYNTHETIC, "-{0}*strain*T**2"),
            ),
        ),
    )
}

SCIENCE_NAMES = tuple(SCIENCES)


@cache
def symbols(science: str) -> dict[str, sympy.Symbol]:
    """The sympy symbols of a science's inputs (real)."""
    return {v.name: sympy.Symbol(v.name, real=True) for v in SCIENCES[science].inputs}


__all__ = [
    "FUNCTIONS",
    "SCIENCES",
    "SCIENCE_NAMES",
    "SYNTHETIC",
    "Science",
    "TEXTBOOK",
    "Term",
    "Variable",
    "symbols",
]
