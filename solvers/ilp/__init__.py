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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solvers.ilp.bias import IlpBias, parse_bias, read_bias
    from solvers.ilp.learner import IlpResult, IlpSession, learn, learn_problem
    from solvers.ilp.problem import IlpProblem, load_problem, read_examples

# The names are imported on first use (PEP 562): ``python -m solvers.ilp`` imports this
# package before its __main__, which starts SWI-Prolog while clingo and the learner import
# in another thread (see solvers/ilp/__main__.py).
_HOMES = {
    "IlpBias": "bias",
    "parse_bias": "bias",
    "read_bias": "bias",
    "IlpResult": "learner",
    "IlpSession": "learner",
    "learn": "learner",
    "learn_problem": "learner",
    "IlpProblem": "problem",
    "load_problem": "problem",
    "read_examples": "problem",
}

__all__ = [
    "IlpBias",
    "IlpProblem",
    "IlpResult",
    "IlpSession",
    "learn",
    "learn_problem",
    "load_problem",
    "parse_bias",
    "read_bias",
    "read_examples",
]
assert sorted(__all__) == sorted(_HOMES)  # one list of names, checked at import


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'solvers.ilp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"solvers.ilp.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
