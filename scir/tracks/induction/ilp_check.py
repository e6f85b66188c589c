"""The ILP cross-check of an answer pool, as the paper does with Popper.

Examples go to the learner in both orientations. For each of the 45 candidate pairs, the
learner (``solvers.ilp``, partial mode: the clause covering the most positives and no
negative) runs with only that pair's relations allowed in bodies and each of them required
(:meth:`solvers.ilp.IlpSession.learn_restricted`: one grounding of the generator serves all
45 runs). Under the typed bias ``type(interacts,(drug,drug))``, ``type(r,(drug,protein))``,
two body literals, three variables and no singleton, the admissible clauses of a pair are
exactly its own ``interacts(A,B) :- r1(A,P), r2(B,P)`` and the same with A and B swapped,
which covers the same examples (they come in both orientations).

So the learner finds a clause iff the pair is valid (covers >= 1 positive and no negative).
The pairs it finds must be exactly the valid rules that clingo reports, and the answer pool
exactly the found pairs of the target's category; otherwise the check fails (a bug).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from scir.errors import SolverError, SolverTimeout, VerificationError
from scir.tracks.induction.export import HEAD, MAX_BODY, MAX_CLAUSES, MAX_VARS, both_orientations
from scir.tracks.induction.semantics import InductionProblem, PoolResult
from scir.tracks.induction.world import Rule, World, all_rules, load_world, rule_key


@dataclass
class IlpCheck:
    """The learner's verdict on every candidate pair, compared with the clingo pool."""

    learned: list[Rule]  # pairs for which the learner found a clause
    valid: list[Rule]  # clingo's valid rules
    pool: list[Rule]  # clingo's answer pool
    category: str | None
    learned_pool: list[Rule]  # learned pairs of the target's category
    seconds: float
    per_pair_seconds: dict[Rule, float] = field(default_factory=dict)
    clauses: dict[Rule, str] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        """Learned pairs == valid rules, and learned pairs of the category == the pool."""
        return self.learned == self.valid and self.learned_pool == self.pool

    @property
    def message(self) -> str:
        """Why the check failed ('' when it agrees)."""
        if self.agrees:
            return ""
        parts = []
        only_ilp = [rule_key(r) for r in self.learned if r not in self.valid]
        only_asp = [rule_key(r) for r in self.valid if r not in self.learned]
        if only_ilp:
            parts.append(
                f"the learner finds clauses for {', '.join(only_ilp)}, which clingo "
                "does not call valid"
            )
        if only_asp:
            parts.append(
                f"clingo calls {', '.join(only_asp)} valid, but the learner finds no clause"
            )
        if self.learned_pool != self.pool:
            parts.append(
                f"pool {[rule_key(r) for r in self.pool]} != learned pairs of category "
                f"{self.category}: {[rule_key(r) for r in self.learned_pool]}"
            )
        return "ILP cross-check disagrees: " + "; ".join(parts)

    def summary(self) -> dict[str, Any]:
        """A deterministic summary for provenance (no timings)."""
        return {
            "learner": "solvers.ilp (partial mode)",
            "pairs": len(all_rules()),
            "learned": [rule_key(r) for r in self.learned],
            "agrees": self.agrees,
        }


# seconds per example test: a two-literal clause over ~150 facts is tested in well under a
# millisecond, but the learner's default (0.05 s, wall clock) counts a test delayed by a loaded
# machine as "not covered", which once made the cross-check miss a valid pair
EXAMPLE_TIME_LIMIT = 1.0


def ilp_problem(problem: InductionProblem, world: World | None = None) -> Any:
    """The task as an :class:`solvers.ilp.IlpProblem` (examples in both orientations; every
    relation type available as background knowledge, typed drug/protein; see module doc)."""
    from solvers.ilp import IlpBias, IlpProblem

    world = world or load_world()
    rows: dict[str, list[tuple[str, str]]] = {r: [] for r in world.relation_names}
    for rel, drug, protein in problem.facts:
        rows[rel].append((drug, protein))
    types: dict[str, tuple[str, ...]] = {
        HEAD: ("drug", "drug"),
        **{r: ("drug", "protein") for r in world.relation_names},
    }
    bias = IlpBias(
        head_pred=(HEAD, 2),
        body_preds=tuple((r, 2) for r in world.relation_names),
        types=types,
        max_vars=MAX_VARS,
        max_body=MAX_BODY,
        max_clauses=MAX_CLAUSES,
        mode="partial",
    )
    return IlpProblem(
        bias=bias,
        pos=both_orientations(problem.pos),
        neg=both_orientations(problem.neg),
        bk_facts={r: v for r, v in sorted(rows.items())},
        name="induction",
    )


def pair_run(rule: Rule) -> tuple[list[tuple[str, int]], tuple[str, ...]]:
    """The restriction of one pair's run: its relations allowed, each of them required."""
    relations = tuple(sorted(set(rule)))
    return [(r, 2) for r in relations], relations


def _clause_rule(result: Any) -> Rule | None:
    """The pair of relation types in the body of the learned clause."""
    if not result.clauses:
        return None
    preds = sorted(lit.pred for lit in result.clauses[0].body)
    if len(preds) != 2:
        return None
    return (preds[0], preds[1])


def ilp_cross_check(
    problem: InductionProblem, pools: PoolResult, world: World | None = None, timeout: float = 60.0
) -> IlpCheck:
    """Run the learner on each of the 45 pairs and compare with the clingo pool.

    Raises :class:`SolverError` (a :class:`SolverTimeout` on time-out) when the learner fails;
    a disagreement is reported in the returned check (``agrees`` False).
    """
    from solvers.ilp import IlpSession

    world = world or load_world()
    if not problem.pos:
        raise SolverError("the ILP cross-check needs at least one positive example")
    start = time.monotonic()
    learned: list[Rule] = []
    per_pair: dict[Rule, float] = {}
    clauses: dict[Rule, str] = {}
    rules = all_rules(world)
    with IlpSession(
        ilp_problem(problem, world), timeout=timeout, example_time_limit=EXAMPLE_TIME_LIMIT
    ) as session:
        results = session.learn_restricted(
            [pair_run(rule) for rule in rules],
            timeout=max(timeout - (time.monotonic() - start), 0.001),
        )
    for rule, result in zip(rules, results):
        per_pair[rule] = result.seconds
        if result.status == "timeout":
            raise SolverTimeout(
                f"ILP cross-check of {rule_key(rule)} exceeded the {timeout:g} s budget"
            )
        if result.found:
            found_rule = _clause_rule(result)
            if found_rule != rule:
                raise VerificationError(
                    f"the learner restricted to {rule_key(rule)} returned {result.program}"
                )
            learned.append(rule)
            clauses[rule] = result.program[0]
    category = problem.category
    learned_pool = [
        r for r in learned if category is not None and world.rule_category(r) == category
    ]
    return IlpCheck(
        learned=learned,
        valid=sorted(pools.valid),
        pool=sorted(pools.pool),
        category=category,
        learned_pool=learned_pool,
        seconds=time.monotonic() - start,
        per_pair_seconds=per_pair,
        clauses=clauses,
    )
