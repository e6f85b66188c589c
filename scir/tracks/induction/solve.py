"""The symbolic solver of the oracle and NS pipelines: from background facts and examples to a
rule, as the paper's NS setting does with Popper.

Only ``facts``, ``pos`` and ``neg`` of a formal object are read: the gold ``target``,
``distractors`` and ``category`` are never used, so the gold object (oracle) and a model's
formalization (NS) are solved alike. Steps:

1. Check the examples (the formal object is an :class:`InductionProblem`): a pair listed
   both as interacting and as not interacting, or a drug paired with itself, is a
   :class:`SolverInputError` (the NS pipeline retries it with the message); so is a formal
   object without positives.
2. clingo (``asp/induction.lp``) computes, over the 45 candidate pairs, the valid rules (cover
   at least one positive and no negative) and how many positives each covers.
3. The ILP learner (``solvers.ilp``, partial mode: the clause covering the most positives and
   no negative) runs once per candidate pair under that pair's restricted bias, with the
   examples in both orientations (:func:`scir.tracks.induction.ilp_check.ilp_cross_check`).
   The pairs it learns a clause for must be exactly clingo's valid rules; a disagreement is
   a :class:`SolverError` (a bug, never silently resolved).
4. The answer: among the learned pairs whose two relation types share a category (the
   question asks for such a rule), the one covering the most known interacting pairs;
   ties go to the alphabetically first ``r1,r2``. No such pair: :class:`SolverError`.

Data reaches clingo and Prolog as facts only (``add_facts``), never as program text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scir.errors import SolverError, SolverInputError, VerificationError
from scir.tracks.induction.formal import InductionProblem
from scir.tracks.induction.ilp_check import ilp_cross_check
from scir.tracks.induction.semantics import asp_pool
from scir.tracks.induction.world import Rule, World, load_world, rule_key

ILP_TIMEOUT = 30.0  # seconds for the 45 restricted learning runs of one problem
ASP_TIME_LIMIT = 10.0


@dataclass
class LearnedRule:
    """The solver's answer and how it was found."""

    rule: Rule
    clause: str  # the learned directed clause
    covered_positives: int  # unordered interacting pairs the rule covers
    candidates: list[Rule] = field(default_factory=list)  # learned pairs with a category
    learned: list[Rule] = field(default_factory=list)  # every learned pair

    @property
    def answer(self) -> str:
        """The rule as an answer string ``r1,r2``."""
        return rule_key(self.rule)


def check_examples(problem: InductionProblem, task_id: str | None = None) -> None:
    """SolverInputError when the examples contradict themselves (a pair both interacting and
    not) or pair a drug with itself."""
    for kind, pairs in (("pos", problem.pos), ("neg", problem.neg)):
        same = next((p for p in pairs if p[0] == p[1]), None)
        if same is not None:
            raise SolverInputError(
                f"{kind}(interacts({same[0]}, {same[1]})) pairs a drug with itself",
                task_id=task_id,
                field=kind,
            )
    both = sorted(set(problem.pos) & set(problem.neg))
    if both:
        a, b = both[0]
        raise SolverInputError(
            f"the pair {a}, {b} is listed both as interacting (pos) and as not interacting (neg)",
            task_id=task_id,
            field="neg",
        )


def learn_rule(
    formal: InductionProblem,
    world: World | None = None,
    timeout: float = ILP_TIMEOUT,
    task_id: str | None = None,
) -> LearnedRule:
    """The rule the symbolic side finds for ``formal`` (see the module docstring); only its
    facts and examples are read.

    Raises SolverInputError for contradictory or missing examples, SolverTimeout when the
    learner runs out of ``timeout``, SolverError when no rule with a category is valid or
    when the learner and clingo disagree."""
    world = world or load_world()
    check_examples(formal, task_id)
    problem = InductionProblem(formal.facts, formal.pos, formal.neg)
    if not problem.pos:
        raise SolverInputError(
            "no known interacting pair (pos) to learn a rule from", task_id=task_id, field="pos"
        )
    pools = asp_pool(problem, world=world, time_limit=ASP_TIME_LIMIT)
    try:
        check = ilp_cross_check(problem, pools, world, timeout=timeout)
    except VerificationError as exc:
        raise SolverError(f"the ILP learner misbehaved: {exc.message}", task_id=task_id) from exc
    if not check.agrees:
        raise SolverError(check.message, task_id=task_id)
    candidates = [r for r in check.learned if world.rule_category(r) is not None]
    if not candidates:
        raise SolverError(
            "no rule of a single category covers a known interacting pair "
            "and no known non-interacting pair",
            task_id=task_id,
        )
    best = min(candidates, key=lambda r: (-pools.positives.get(r, 0), rule_key(r)))
    return LearnedRule(
        best, check.clauses[best], pools.positives.get(best, 0), candidates, list(check.learned)
    )


__all__ = ["ILP_TIMEOUT", "LearnedRule", "check_examples", "learn_rule"]
