"""Symbolic engines used by the SciR toolkit: SWI-Prolog, a Prolog sandbox, clingo, Prover9,
an ILP learner and GIES. This package never imports ``scir``."""

__version__ = "0.1.0"
