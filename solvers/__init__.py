"""Symbolic engines used by the SciR toolkit: SWI-Prolog, a Prolog sandbox, clingo, Prover9,
an ILP learner, GIES and the equation tools (language, evaluator, sandboxed data analyzer).
This package never imports ``scir``."""

__version__ = "0.1.0"
