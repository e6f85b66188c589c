"""Equation discovery tools (symbolic regression in the style of SR-Scientist / LLM-SR):
the equation language (:mod:`solvers.equation.expression`), the equation evaluator that fits
an equation's constants (:mod:`solvers.equation.evaluator`, tool T2) and the sandboxed data
analyzer (:mod:`solvers.equation.analyzer`, tool T1). Nothing here imports ``scir``.

    >>> from solvers.equation import parse_equation
    >>> parse_equation("p0*x**2 + np.sin(params[1]*x)", ["x"]).text
    'p0*x**2 + sin(p1*x)'
"""

from solvers.equation.analyzer import AnalysisResult, AnalysisStatus, analyze
from solvers.equation.evaluator import FitResult, FitStatus, fit, report
from solvers.equation.expression import FUNCTIONS, Equation, parse_equation

__all__ = [
    "FUNCTIONS",
    "AnalysisResult",
    "AnalysisStatus",
    "Equation",
    "FitResult",
    "FitStatus",
    "analyze",
    "fit",
    "parse_equation",
    "report",
]
