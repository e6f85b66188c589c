"""A learning-from-failures ILP learner (in the style of Popper, Cropper & Morel 2021)
reading Popper-format folders: generate clauses with clingo (``asp/ilp_generate.lp``), test
them with SWI-Prolog (``prolog/ilp_test.pl``), turn failures into bans, by increasing size.

    >>> from solvers.ilp import learn
    >>> result = learn("tests/fixtures/ilp/grandparent", timeout=30)      # doctest: +SKIP
    >>> result.status, result.program
    ('solution', ['grandparent(A,B) :- parent(A,C), parent(C,B).'])

Modes: ``classic`` (cover every positive and no negative, smallest program; non-recursive
programs of up to ``max_clauses`` clauses) and ``partial`` (the one clause covering the most
positives and no negative).
"""

from solvers.ilp.bias import IlpBias, parse_bias, read_bias
from solvers.ilp.learner import IlpResult, IlpSession, learn, learn_problem
from solvers.ilp.problem import IlpProblem, load_problem, read_examples

__all__ = ["IlpBias", "IlpProblem", "IlpResult", "IlpSession", "learn", "learn_problem",
           "load_problem", "parse_bias", "read_bias", "read_examples"]
