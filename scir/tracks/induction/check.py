"""``scir check`` for induction: any Prolog program defining ``interacts/2``, run in the sandbox
(:mod:`solvers.sandbox`) over one task's background facts.

The program may have several clauses, helper predicates and any body made of the task's nine
relation types (``substrate_of/2``, ...), its own predicates and the built-ins of
``prolog/sandbox_whitelist.pl``; it may not define the relation types (the task's facts do)
nor redefine a built-in. It is read and whitelist-checked before anything runs, and runs in a
worker process under time, inference and memory limits, so hostile text (an infinite loop,
``shell/1``, ``assertz/1``, a directive, a memory bomb) ends in a clear error.

The verdict uses the track's reading of a rule: the program covers the unordered example
{A, B} when ``interacts(A, B)`` or ``interacts(B, A)`` holds (as ``covers/4`` of
``prolog/induction.pl`` reads a pair of relation types; this second reading, in :data:`GOAL`,
is kept on purpose -- the program is not a pair of relation types -- and
``tests/test_check.py`` compares the two on all 45 candidate rules), and it is valid when it
covers at least one known interacting pair and no known non-interacting pair. Beside the verdict: the
answer-pool members (and the other candidate rules) whose coverage on this task is the same
as the program's, computed with ``prolog/induction.pl`` on the host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scir.errors import (
    SandboxCrash,
    SandboxViolation,
    SolverError,
    SolverInputError,
    SolverResourceLimit,
    SolverTimeout,
)
from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.checking import CheckContext, HandCheck, listing
from scir.tracks.induction.export import HEAD as HEAD_NAME
from scir.tracks.induction.semantics import InductionProblem, Pair, coverage, pair, prolog_module
from scir.tracks.induction.world import all_rules, load_world, rule_key

HEAD = (HEAD_NAME, 2)
_TEMP_MODULE = re.compile(r"\bscir_sandbox_\d+:")  # the worker's temporary module, in messages
SHOWN = 6  # candidate rules named in the text report (JSON: all)
# The trusted goal run in the sandbox's module after the checked program is loaded: the task's
# facts are asserted from the binding Facts (terms, never text), then each example
# Kind-A-B of Examples is tried in both orientations.
GOAL = (
    "forall(member(_F, Facts), assertz(_F)), member(Kind-A-B, Examples), "
    "once((interacts(A, B) ; interacts(B, A)))"
)


@dataclass
class ProgramCoverage:
    """What a program covers among a task's examples."""

    positives: list[Pair]
    negatives: list[Pair]
    seconds: float
    inferences: int | None

    @property
    def valid(self) -> bool:
        """At least one positive and no negative covered: ``valid/2`` of
        ``prolog/induction.pl`` applied to a program's coverage (valid/2 takes a pair of
        relation types, not a program); tests/test_check.py checks the two agree on all 45
        candidate rules."""
        return bool(self.positives) and not self.negatives


def declared_predicates(program: str, relations: tuple[str, ...]) -> dict[str, int]:
    """The predicates the program may use: the relation types /2 and the predicates it defines
    (``interacts/2`` among them). Raises ``SandboxViolation`` (with line and column) when it
    defines a relation type or a built-in, or does not define ``interacts/2``, and
    ``SolverInputError`` on a syntax error."""
    from solvers.sandbox_policy import defined_predicates, whitelist

    defined = defined_predicates(program)
    wl = whitelist()
    arities: dict[str, int] = {}
    for (name, arity), (line, column) in defined.items():
        if name in relations:
            raise SandboxViolation(
                f"the program defines {name}/{arity}, but {name} is a "
                "relation type of the task, defined by its background facts",
                line=line,
                column=column,
            )
        if (name, arity) in wl.builtins or (name, arity) in wl.meta:
            raise SandboxViolation(
                f"the program redefines the built-in {name}/{arity}", line=line, column=column
            )
        if name in arities:  # the sandbox declares one arity per name
            raise SandboxViolation(
                f"{name} is defined with {arities[name]} and with {arity} "
                "arguments; give the two predicates different names",
                line=line,
                column=column,
            )
        arities[name] = arity
    if HEAD not in defined:
        lines = program.rstrip().splitlines() or [""]
        raise SandboxViolation(
            "the program defines no interacts/2 (e.g. 'interacts(A, B) :- "
            "binds(A, P), binds(B, P).')",
            line=len(lines),
            column=1,
        )
    declared = {name: 2 for name in relations}
    declared.update(arities)
    return declared


def program_coverage(
    problem: InductionProblem, program: str, context: CheckContext, relations: tuple[str, ...]
) -> ProgramCoverage:
    """Run ``program`` in the context's sandbox over the problem's facts and examples."""
    from solvers.prolog import Term

    declared = declared_predicates(program, relations)
    facts = [Term(rel, (drug, protein)) for rel, drug, protein in problem.facts]
    examples = [
        Term("-", (Term("-", (kind, a)), b))
        for kind, pairs in (("pos", problem.pos), ("neg", problem.neg))
        for a, b in pairs
    ]
    try:
        result = context.sandbox().run(
            program,
            declared,
            GOAL,
            {"Facts": facts, "Examples": examples},
            max_solutions=len(examples),
        )
    except (SolverTimeout, SolverResourceLimit, SandboxCrash) as exc:
        # Prolog's report runs over several lines (stack sizes, frames): keep the first
        first = exc.message.strip().splitlines()[0] if exc.message.strip() else "stopped"
        raise type(exc)(
            f"{first} (the sandbox stopped the program)", line=exc.line, column=exc.column
        ) from exc
    except (SandboxViolation, SolverInputError):
        raise
    except SolverError as exc:  # an error the program raised while it ran
        message = _TEMP_MODULE.sub("", exc.message.strip().splitlines()[0])
        raise SolverError(
            f"the program raised an error: {message}", line=exc.line, column=exc.column
        ) from exc
    found: dict[str, set[Pair]] = {"pos": set(), "neg": set()}
    for row in result.answers:
        found[row["Kind"]].add(pair(row["A"], row["B"]))
    return ProgramCoverage(
        sorted(found["pos"]), sorted(found["neg"]), result.seconds, result.inferences
    )


def _pairs(pairs: list[Pair]) -> str:
    return listing([f"{a}+{b}" for a, b in pairs])


def _rules(keys: list[str], empty: str = "none") -> str:
    return "; ".join(keys) if keys else empty  # a rule key r1,r2 has a comma itself


def check(task: Task, text: str, context: CheckContext) -> HandCheck:
    """Check a Prolog program defining ``interacts/2`` against an induction task."""
    world = load_world()
    problem: InductionProblem = get_track(task.domain).formal(task)  # typed, cached
    cov = program_coverage(problem, text, context, world.relation_names)
    same: list[str] = []
    with prolog_module(problem, world) as module:
        for rule in all_rules(world):
            rc = coverage(module, rule)
            if (rc.positives, rc.negatives) == (cov.positives, cov.negatives):
                same.append(rule_key(rule))
    pool = sorted(task.answer_pool)
    agrees = [key for key in pool if key in same]
    if cov.valid:
        validity = "yes (covers at least one interacting pair and no non-interacting pair)"
    elif cov.negatives:
        validity = "no (wrongly covers a non-interacting pair)"
    else:
        validity = "no (covers no interacting pair)"
    lines = [
        (
            "positives",
            f"covers {len(cov.positives)} of {len(problem.pos)}: {_pairs(cov.positives)}",
        ),
        (
            "negatives",
            f"covers {len(cov.negatives)} of {len(problem.neg)}: {_pairs(cov.negatives)}",
        ),
        ("valid", validity),
        (
            "pool",
            f"agrees on this task with {_rules(agrees, 'no pool member')} "
            f"(answer pool: {_rules(pool)})",
        ),
        (
            "same as",
            f"candidate rules with the same coverage: {_rules(same[:SHOWN])}"
            + (f" and {len(same) - SHOWN} more" if len(same) > SHOWN else ""),
        ),
        ("sandbox", f"{cov.seconds * 1000:.1f} ms, {cov.inferences} inferences"),
    ]
    summary = ("valid" if cov.valid else "not valid") + (
        f"; agrees with the pool member {agrees[0]}"
        if len(agrees) == 1
        else f"; agrees with the pool members {_rules(agrees)}"
        if agrees
        else ""
    )
    data: dict[str, Any] = {
        "covered_positives": [list(p) for p in cov.positives],
        "covered_negatives": [list(p) for p in cov.negatives],
        "n_positives": len(problem.pos),
        "n_negatives": len(problem.neg),
        "valid": cov.valid,
        "agrees_with_pool": agrees,
        "answer_pool": pool,
        "same_coverage_as": same,
        "seconds": cov.seconds,
        "inferences": cov.inferences,
    }
    return HandCheck(task.task_id, task.domain, cov.valid, summary, lines, data)
