"""Induction semantics in code: answer pools with clingo (``asp/induction.lp``) and rule
coverage, validity and categories with SWI-Prolog (``prolog/induction.pl``, the one definition
of them). The typed formal object, :class:`InductionProblem`, is in ``formal.py``.

Data crosses to both solvers as facts (``relation/2``, ``fact/3``, ``example/3``), never as
program text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scir.errors import SolverError
from scir.tracks.induction import predicates as preds
from scir.tracks.induction.formal import Fact, InductionProblem, Pair, pair, problem_from_formal  # noqa: F401  (re-exported: the typed formal object)
from scir.tracks.induction.world import (
    Rule,
    World,
    _relation_rows,
    all_rules,
    load_world,
    rule_key,
    rule_table,
)

# ---- answer pools with clingo ---------------------------------------------------------------


@dataclass
class PoolResult:
    """Which of the 45 candidate rules are valid, their categories and the answer pool."""

    valid: list[Rule]
    pool: list[Rule]
    categories: dict[Rule, str] = field(default_factory=dict)
    positives: dict[Rule, int] = field(default_factory=dict)

    @property
    def pool_keys(self) -> list[str]:
        """The pool as sorted answer strings ``r1,r2``."""
        return sorted(rule_key(r) for r in self.pool)


def rule_categories(world: World) -> dict[Rule, str]:
    """Rule -> its category, for the candidate rules that have one (:func:`rule_table`)."""
    return rule_table(world)[1]


def _example_rows(problem: InductionProblem) -> list[preds.Example]:
    return [preds.Example("pos", a, b) for a, b in problem.pos] + [
        preds.Example("neg", a, b) for a, b in problem.neg
    ]


def asp_pool(
    problem: InductionProblem,
    category: str | None = None,
    world: World | None = None,
    time_limit: float = 10.0,
) -> PoolResult:
    """The answer pool enumerated by ``asp/induction.lp`` (one clingo call): its validity is
    the independent check of ``prolog/induction.pl``'s (``independent_check_valid/2``;
    compared with :func:`brute_force_pool` by the tests); the candidate rules and their
    categories come from Prolog (:attr:`World.rules`, :meth:`World.rule_category`), as facts.

    ``category`` defaults to ``problem.category``; without one, ``pool`` is empty and only the
    valid rules are reported.
    """
    from solvers.asp import AspProgram

    world = world or load_world()
    category = category or problem.category
    prog = AspProgram().load("induction")
    prog.add_records(preds.Rule(a, b) for a, b in all_rules(world))
    categories = {r: c for r in all_rules(world) if (c := world.rule_category(r)) is not None}
    prog.add_records(preds.RuleCategory(a, b, c) for (a, b), c in categories.items())
    prog.add_records(preds.Fact(*f) for f in problem.facts)
    prog.add_records(_example_rows(problem))
    if category is not None:
        prog.add_records([preds.TargetCategory(category)])
    models = prog.models(limit=1, time_limit=time_limit)
    if len(models) != 1:
        raise SolverError(f"asp/induction.lp has {len(models)} answer sets, expected exactly 1")
    model = models[0]
    return PoolResult(
        valid=sorted((v.r1, v.r2) for v in model.records(preds.Valid)),
        pool=[(p.r1, p.r2) for p in model.records(preds.Pooled)],
        categories=categories,
        positives={(p.r1, p.r2): p.count for p in model.records(preds.Positives)},
    )


# ---- coverage with SWI-Prolog -----------------------------------------------------------------


@lru_cache(maxsize=1)
def engine():
    """The process's Prolog engine (created on first use)."""
    from solvers.prolog import Engine

    return Engine()


@contextmanager
def prolog_module(problem: InductionProblem, world: World | None = None) -> Iterator[Any]:
    """A fresh Prolog module holding ``prolog/induction.pl`` and the problem's data."""
    world = world or load_world()
    with engine().module() as m:
        m.consult("induction")
        m.add_records(_relation_rows(world), preds.Relation)
        if problem.facts:
            m.add_records(preds.Fact(*f) for f in problem.facts)
        examples = _example_rows(problem)
        if examples:
            m.add_records(examples)
        yield m


@dataclass
class Coverage:
    """What one rule covers among a problem's examples (Prolog's ``covered/5``)."""

    rule: Rule
    positives: list[Pair]
    negatives: list[Pair]
    valid: bool  # Prolog's valid/2: covers >= 1 positive and no negative


def coverage(module: Any, rule: Rule, time_limit: float = 10.0) -> Coverage:
    """The examples ``rule`` covers and whether it is valid (``covered/5`` and ``valid/2``),
    asked of a module made by :func:`prolog_module`."""
    r1, r2 = sorted(rule)
    rows = module.query("covered(R1, R2, Kind, A, B)", {"R1": r1, "R2": r2}, time_limit=time_limit)
    found: dict[str, set[Pair]] = {"pos": set(), "neg": set()}
    for row in rows:
        found[row["Kind"]].add(pair(row["A"], row["B"]))
    valid = (
        module.query_once("valid(R1, R2)", {"R1": r1, "R2": r2}, time_limit=time_limit) is not None
    )
    return Coverage((r1, r2), sorted(found["pos"]), sorted(found["neg"]), valid)


def brute_force_pool(
    problem: InductionProblem, category: str | None = None, world: World | None = None
) -> PoolResult:
    """The answer pool by asking Prolog's coverage about each of the 45 rules in turn."""
    world = world or load_world()
    category = category or problem.category
    valid, pool, categories, positives = [], [], {}, {}
    with prolog_module(problem, world) as m:
        for rule in all_rules(world):
            cat = world.rule_category(rule)
            if cat is not None:
                categories[rule] = cat
            cov = coverage(m, rule)
            if cov.valid:
                valid.append(rule)
                positives[rule] = len(cov.positives)
                if cat is not None and cat == category:
                    pool.append(rule)
    return PoolResult(valid, pool, categories, positives)
