"""``InductionTrack``: generation, verification, solving and export of induction tasks.

Stages live in their own modules: ``world`` (names and relation types), ``generate`` (the
formal object), ``text`` (clean NL), ``semantics`` (pools with clingo, coverage with Prolog),
``ilp_check`` (the learner cross-check), ``check`` (``scir check``: hand-written programs
in the sandbox), ``export`` (Popper folders), ``stats`` (pool statistics), ``formalize``
(grammar and parser of the pipelines), ``prompts`` (their prompts), ``solve`` (the
pipelines' solver: clingo pool + ILP learner).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from scir.errors import VerificationError
from scir.outcomes.scoring import PoolScorer, Scorer
from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.tracks.base import (
    GENERAL_KINDS,
    Check,
    Formalizer,
    Track,
    TrackParam,
    construction_param,
)
from scir.tracks.induction import validate
from scir.tracks.induction.codec import InductionCodec
from scir.tracks.induction.export import export_popper
from scir.tracks.induction.formal import InductionProblem
from scir.tracks.induction.formalizer import InductionFormalizer
from scir.tracks.induction.generate import construct
from scir.tracks.induction.ilp_check import ilp_cross_check
from scir.tracks.induction.semantics import (
    PoolResult,
    asp_pool,
)
from scir.tracks.induction.solve import learn_rule
from scir.tracks.induction.text import question, render_blocks
from scir.tracks.induction.world import World, allowed_answers, display_drug, load_world, rule_key

GENERATOR_VERSION = 1
N_RULES = 45


class InductionTrack(Track):
    """Relational rules over DrugBank-like drug facts, with answer pools."""

    name = "induction"
    description = (
        "relational rules over DrugBank-like drug facts: find the pair of relation "
        "types that explains the known drug interactions"
    )
    n_blocks = 3
    answer_kind = "rule"
    answer_pools = True
    scoring = "pool"
    # not sr-agent (nor the symbolic-regression baselines): they need equation data
    pipeline_kinds = GENERAL_KINDS
    solvers = ("swi-prolog", "clingo")
    formal_type = InductionProblem

    @property
    def world(self) -> World:
        return load_world()

    # ---- generation ---------------------------------------------------------------------
    def parameters(self) -> Sequence[TrackParam]:
        return (
            TrackParam(
                "distractors",
                int,
                "distractor rules, each with its positives and one negative",
                easy=2,
                hard=3,
                minimum=0,
                maximum=10,
            ),
            TrackParam(
                "positives",
                int,
                "positives per rule (target and distractors)",
                easy=2,
                hard=2,
                minimum=1,
                maximum=6,
            ),
            TrackParam(
                "facts",
                int,
                "background facts in total, filler facts included (the "
                "rules' own facts are kept when they are more)",
                easy=100,
                hard=140,
                minimum=0,
                maximum=400,
            ),
            TrackParam(
                "pool_growth",
                float,
                "balanced construction: probability that each "
                "other rule of the target's category is made valid (joins the answer "
                "pool, at most four rules); sets the pool-size statistics (the paper "
                "construction does not use it)",
                easy=0.075,
                hard=0.16,
                minimum=0.0,
                maximum=1.0,
            ),
            construction_param(),
        )

    def tier(self, params: dict[str, Any]) -> str:
        return f"d{params['distractors']}p{params['positives']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        world = self.world
        # balanced: tiers independent (task i of an Easy and a Hard file share no random
        # state); paper: the original stream, kept byte for byte
        salt = (
            "induction"
            if params.get("construction", "balanced") == "paper"
            else f"induction:balanced:{self.tier(params)}"
        )
        built = construct(world, params, self.rng(seed, index, salt))
        problem = built.problem()
        task_id = self.task_id(params, seed, index)
        pools = asp_pool(problem, world=world)
        problems = self._pool_problems(problem, pools, world)
        if problems:
            raise VerificationError(
                "; ".join(problems) + " (the generator's Prolog checks and "
                "asp/induction.lp disagree)",
                task_id=task_id,
            )
        ilp = ilp_cross_check(problem, pools, world)
        if not ilp.agrees:
            raise VerificationError(ilp.message, task_id=task_id)
        blocks = render_blocks(
            world, built.facts, built.pos, built.neg, self.rng(seed, index, "induction-text")
        )
        pool = pools.pool_keys
        formal = InductionProblem(
            tuple(sorted(built.facts)),
            tuple(sorted(built.pos)),
            tuple(sorted(built.neg)),
            built.category,
            built.target,
            tuple(built.distractors),
        ).dump()
        return Task(
            task_id=task_id,
            domain=self.name,
            difficulty="custom",
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            question=question(world),
            answer=rule_key(built.target),
            answer_pool=pool,
            chance=len(pool) / N_RULES,
            chance_constrained=len(pool) / len(allowed_answers(world)),
            formal=formal,
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata={
                "category": built.category,
                "target": rule_key(built.target),
                "distractors": [rule_key(r) for r in built.distractors],
                "relations": problem.relations,
                "n_facts": len(built.facts),
                "n_rule_facts": built.core_facts,
                "n_positives": len(built.pos),
                "n_negatives": len(built.neg),
                "drugs": {d: display_drug(d) for d in built.drugs},
                "proteins": {p: world.protein_name(p) for p in built.proteins},
            },
            provenance={
                "generator": "scir.tracks.induction",
                "generator_version": GENERATOR_VERSION,
                "attempts": built.attempts,
                "rejected_fillers": built.rejected_fillers,
                "pool": "asp/induction.lp",
                "coverage": "prolog/induction.pl",
                "ilp_cross_check": ilp.summary(),
            },
        )

    @staticmethod
    def _pool_problems(problem: InductionProblem, pools: PoolResult, world: World) -> list[str]:
        """What is wrong with a task's pool: the target outside it, or a valid rule of another
        category (an accepted-looking answer outside the pool)."""
        out = []
        if problem.target is not None and problem.target not in pools.pool:
            out.append(
                f"target {rule_key(problem.target)} is not in the answer pool {pools.pool_keys}"
            )
        others = [
            rule_key(r)
            for r in pools.valid
            if pools.categories.get(r) not in (None, problem.category)
        ]
        if others:
            out.append(
                f"rules of another category than {problem.category} are valid: {', '.join(others)}"
            )
        return out

    # ---- checking -------------------------------------------------------------------------
    def verify(self, task: Task) -> Check:
        """Re-establish the pool with clingo and cross-check it with the ILP learner."""
        world = self.world
        problem = self.formal(task)
        pools = asp_pool(problem, world=world)
        found = pools.pool_keys
        problems = self._pool_problems(problem, pools, world)
        if problem.target is None or rule_key(problem.target) != task.answer:
            problems.append(
                f"stored answer {task.answer!r} is not the formal target "
                f"{rule_key(problem.target) if problem.target else None!r}"
            )
        if found != sorted(task.answer_pool):
            problems.append(
                f"stored answer pool {sorted(task.answer_pool)} differs from the "
                f"solvers' pool {found}"
            )
        if abs(task.chance - len(found) / N_RULES) > 1e-9:
            problems.append(
                f"stored chance {task.chance} is not |pool|/45 = {len(found) / N_RULES:.6f}"
            )
        allowed = len(allowed_answers(world))
        # Task.__post_init__ fills a missing chance_constrained from chance
        constrained = task.chance if task.chance_constrained is None else task.chance_constrained
        if abs(constrained - len(found) / allowed) > 1e-9:
            problems.append(
                f"stored chance_constrained {task.chance_constrained} is not "
                f"|pool|/{allowed} = {len(found) / allowed:.6f} (the "
                f"same-category pairs the question allows)"
            )
        ilp = ilp_cross_check(problem, pools, world)
        if not ilp.agrees:
            problems.append(ilp.message)
        return Check(
            task_id=task.task_id,
            ok=not problems,
            expected=task.answer,
            found=",".join(found) if found else None,
            details={
                "pool": found,
                "valid": [rule_key(r) for r in pools.valid],
                "ilp": ilp.summary(),
            },
            message="; ".join(problems),
        )

    def validate_formal(self, task: Task) -> None:
        """Rule keys of answer and pool, and the formal object's shapes (``validate.py``)."""
        validate.validate(task, self.world)

    # ---- solving and scoring --------------------------------------------------------------
    def scorer(self) -> Scorer:
        """``pool``: the answer is one of the task's accepted rules (``answer_pool``)."""
        return PoolScorer()

    def solve_formal(self, task: Task, formal: InductionProblem) -> str:
        """The rule the symbolic side finds from ``formal``'s facts and examples only (never
        its target or category): clingo's valid rules cross-checked by the ILP learner over
        all 45 pairs; among those with a category, the one covering the most positives, ties
        to the alphabetically first (:func:`scir.tracks.induction.solve.learn_rule`)."""
        return learn_rule(formal, self.world, task_id=task.task_id).answer

    def parse_answer(self, task: Task, text: str) -> str | None:
        """Find a pair of relation types in free text and normalise it to ``r1,r2``.

        Looks at ``Answer:`` lines first (last one first), then at every line from the end;
        the first line naming two relation types (or one, written twice) gives the answer.
        """
        names = sorted(self.world.relation_names, key=len, reverse=True)
        pattern = re.compile(
            r"(?<![A-Za-z])("
            + "|".join(re.escape(n).replace("_", r"[_\s-]?") for n in names)
            + r")(?![A-Za-z])",
            re.I,
        )
        canon = {re.sub(r"[_\s-]", "", n): n for n in names}
        answer_lines = re.findall(r"(?im)^\W*(?:final\s+)?answer\W*[:=](.*)$", text)
        lines = list(reversed(answer_lines)) + list(reversed(text.splitlines()))
        for line in lines:
            found = [canon[re.sub(r"[_\s-]", "", m.lower())] for m in pattern.findall(line)]
            if len(found) >= 2:
                return rule_key((found[0], found[1]))
        return None

    # ---- pipeline hooks (solve_formal above: solve.py) ---------------------------------
    def formalizer(self) -> Formalizer:
        """The formalization part (:mod:`scir.tracks.induction.formalizer`)."""

        return InductionFormalizer(self)

    def codec(self) -> RenderCodec:
        """The rendering codec (:mod:`scir.tracks.induction.codec`)."""

        return InductionCodec()

    def exporters(self) -> dict[str, Callable[[list[Task], Any], int]]:
        return {"popper": export_popper}
