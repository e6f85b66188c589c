"""``DeductionTrack``: the deduction track behind the generic ``Track`` interface."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from scir.errors import ConfigError, ScirError
from scir.outcomes.scoring import LabelScorer, Scorer
from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.tracks.base import (
    GENERAL_KINDS,
    Check,
    Formalizer,
    Track,
    TrackParam,
    construction_param,
    load_formal,
)
from scir.tracks.deduction import (
    balanced,
    checks,
    exports,
    generator,
    templates,
    validate,
)
from scir.tracks.deduction.codec import DeductionCodec
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.deduction.formalizer import DeductionFormalizer
from scir.tracks.deduction.logic import Formula, Node

GENERATOR = "scir.tracks.deduction"
VERSION = "1.0"  # the paper construction (unchanged output)
BALANCED_VERSION = "4.0"
# the paper construction keeps its own presets (today's tasks, byte for byte); the
# parameters' easy/hard values are the balanced construction's
PAPER_PRESETS = {"easy": {"depth": 4, "width": 1}, "hard": {"depth": 5, "width": 2}}
WORKERS_ENV = "SCIR_WORKERS"
POOL_MIN_TASKS = 12  # below this a process pool costs more than it saves
_FINAL_LABEL = re.compile(r"\b(true|false|unknown|uncertain)[\s.!*_`\"')\]]*\Z", re.I)
_ANSWER_LINE = re.compile(
    r"(?im)^[\s>*_#-]*(?:final\s+)?answer\s*(?:is)?\s*[*_]*\s*[:=]?"
    r"[\s*_\"'`(\[]*(true|false|unknown|uncertain)\b"
)
_CANONICAL = {"true": "True", "false": "False", "unknown": "Unknown", "uncertain": "Unknown"}


class DeductionTrack(Track):
    """Deduction: is a statement True, False or Unknown given syllogistic premises?"""

    name = "deduction"
    description = (
        "proof trees of syllogisms over developmental-biology vocabulary; labels True/False/Unknown"
    )
    n_blocks = 2
    answer_kind = "label"
    scoring = "label"
    # not sr-agent (nor the symbolic-regression baselines): they need equation data
    pipeline_kinds = GENERAL_KINDS
    solvers = ("prover9", "clingo", "swi-prolog")
    formal_type = DeductionFormal
    prover9_seconds = 10  # Prover9's max_seconds per run in solve_formal

    def __init__(self, workers: int | None = None) -> None:
        self._workers = workers

    # ---- generation -------------------------------------------------------------------
    def parameters(self) -> Sequence[TrackParam]:
        return [
            TrackParam(
                "depth",
                int,
                "expansions of every tree (each replaces a premise by "
                "the premises of a syllogism concluding it; a tree has about 2.2 + "
                "depth premises); paper presets 4 / 5",
                4,
                6,
                minimum=0,
                maximum=12,
            ),
            TrackParam(
                "width",
                int,
                "distractor trees (balanced: odd, half of all trees "
                "conclude the negation, each broken by one converse premise; paper: "
                "same conclusion, one premise missing); paper presets 1 / 2",
                1,
                1,
                minimum=0,
                maximum=6,
            ),
            construction_param(),
        ]

    def resolve_params(
        self, difficulty: str, overrides: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """As :meth:`Track.resolve_params`, with the paper construction's own presets
        (:data:`PAPER_PRESETS`) for ``--construction paper``."""
        level, params = super().resolve_params(difficulty, overrides)
        if params["construction"] == "paper":
            preset = PAPER_PRESETS[difficulty]
            for key, value in preset.items():
                if (overrides or {}).get(key) is None:
                    params[key] = value
            level = difficulty if all(params[k] == v for k, v in preset.items()) else "custom"
        return level, params

    def difficulty_of(self, params: dict[str, Any]) -> str:
        """``easy``/``hard`` when depth and width equal the preset of the construction
        (parameters without ``construction`` are the paper's: files written before it)."""
        if construction_of(params) != "paper":
            return super().difficulty_of(params)
        for level, preset in PAPER_PRESETS.items():
            if all(params.get(k) == v for k, v in preset.items()):
                return level
        return "custom"

    def tier(self, params: dict[str, Any]) -> str:
        return f"e{params['depth']}d{params['width']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        task_id = self.task_id(params, seed, index)
        target = generator.target_label(seed, index)
        paper = construction_of(params) == "paper"
        if paper:
            rng = self.rng(seed, index, f"{GENERATOR}:{self.tier(params)}")  # tiers independent
            problem = generator.generate(
                params["depth"], params["width"], rng, target, task_id=task_id
            )
            wording = None
        else:
            rng = self.rng(seed, index, f"{GENERATOR}:balanced:{self.tier(params)}")
            problem = balanced.generate(
                params["depth"], params["width"], rng, target, task_id=task_id
            )
            wording = rng.randrange(2**31)
        lexicon = templates.Lexicon.of(
            problem.context, problem.predicates, problem.constants, wording
        )
        blocks = templates.blocks(problem.premises, lexicon, self.n_blocks)
        formal = DeductionFormal(
            premises=tuple(p.to_prover9() for p in problem.premises),
            goal=problem.statement.to_prover9(),
            proof=problem.proof,
            distractors=tuple(problem.distractors),
            premise_sources=tuple(problem.sources),
            predicates=tuple((p, 1) for p in problem.predicates),
            constants=tuple(problem.constants),
            decoys=tuple(problem.decoys) if problem.decoys else None,
        ).dump()
        return Task(
            task_id=task_id,
            domain=self.name,
            difficulty=self.difficulty_of(params),
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            question=templates.question(problem.statement, lexicon, convention=not paper),
            answer=problem.label,
            answer_pool=[problem.label],
            chance=1 / 3,
            formal=formal,
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata={
                "context": problem.context.name,
                "context_title": problem.context.title,
                "lexicon": lexicon.to_json(),
            },
            provenance={
                "generator": GENERATOR,
                "version": VERSION if paper else BALANCED_VERSION,
                "retries": problem.retries,
            },
        )

    def workers(self, n: int) -> int:
        """Processes used to generate ``n`` tasks: ``workers=`` or ``$SCIR_WORKERS``, else
        up to 2 (the order and bytes of the output do not depend on it)."""
        wanted: Any = self._workers if self._workers is not None else os.environ.get(WORKERS_ENV)
        if wanted is None:
            wanted = min(2, os.cpu_count() or 1)
        try:
            count = int(wanted)
        except ValueError as exc:
            raise ConfigError(
                f"{WORKERS_ENV} must be an integer, got {wanted!r}", field="workers"
            ) from exc
        if count < 1:
            raise ConfigError(f"workers must be >= 1, got {count}", field="workers")
        return 1 if n < POOL_MIN_TASKS else count

    def generate(
        self, n: int, seed: int, difficulty: str = "easy", overrides: dict[str, Any] | None = None
    ) -> Iterator[Task]:
        """Generate ``n`` tasks, in a process pool when there are enough of them."""
        if n < 0:
            raise ConfigError("the number of tasks must be >= 0", field="n")
        level, params = self.resolve_params(difficulty, overrides)
        generator.eligible_contexts(params["depth"], params["width"])
        if params["construction"] == "balanced":
            balanced.check_width(params["width"])
        workers = self.workers(n)
        if workers == 1:
            for index in range(n):
                task = self.generate_one(dict(params), seed, index)
                task.difficulty = level
                yield task
            return
        pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"))
        try:
            results = pool.map(
                _generate_in_worker, repeat(params), repeat(seed), range(n), chunksize=4
            )
            for outcome in results:
                if isinstance(outcome, tuple):
                    error_type, message = outcome
                    raise error_type(message)
                outcome.difficulty = level
                yield outcome
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    # ---- checking and scoring ---------------------------------------------------------
    def scorer(self) -> Scorer:
        """``label``: the answer is the task's label (True, False, Unknown), exactly."""
        return LabelScorer()

    def verify(self, task: Task) -> Check:
        """Re-establish the label with ASP and Prover9 and check the proof trees in Prolog."""
        premises, statement = self.formal(task).formulas
        verdict = checks.double_check(premises, statement, task_id=task.task_id)
        found = verdict.label
        problems = []
        if found is None:
            problems.append("the premises are unsatisfiable")
        elif found != task.answer:
            problems.append(f"stored answer {task.answer!r}, the solvers establish {found!r}")
        if task.answer_pool != [task.answer]:
            problems.append(f"answer_pool must be [{task.answer!r}]")
        details = {"asp": verdict.asp.label, "prover9": verdict.prover9, "premises": len(premises)}
        if found is not None:
            problems += _tree_problems(task, premises, statement, found)
        if found is not None and construction_of(task.params) == "balanced":
            problems += _balanced_problems(task, premises, statement, found, details)
        return Check(
            task.task_id,
            not problems,
            task.answer,
            found,
            details=details,
            message="; ".join(problems),
        )

    def explain(self, task: Task) -> list[str]:
        """The stored proof in English, one derivation per line in reading order (the steps
        come from ``tree_steps/2`` of ``prolog/deduction.pl``); a deleted premise is marked."""
        proof = self.formal(task).trees[0]
        lexicon = templates.Lexicon.from_json(task.domain_metadata["lexicon"])
        lines = [templates.step(c, rule, ps, lexicon) for c, rule, ps in checks.proof_steps(proof)]
        for leaf in proof.leaves():
            if leaf.replaced_by is not None:
                instead = templates.sentence(leaf.replaced_by, lexicon)
                lines.append(
                    f'Not stated: "{templates.sentence(leaf.formula, lexicon)}" '
                    f'(stated instead: "{instead}")'
                )
            elif leaf.missing:
                lines.append(f'Not stated: "{templates.sentence(leaf.formula, lexicon)}"')
        return lines

    def validate_formal(self, task: Task) -> None:
        """Label, pool, formulas, trees and lexicon of a record (``validate.py``)."""
        validate.validate(task)

    def solve_formal(self, task: Task, formal: DeductionFormal) -> str:
        """Prover9's label for ``formal.premises`` and ``formal.goal``
        (:func:`checks.prover9_entails`, ``prover9_seconds`` per run).

        Every formula is parsed before Prover9 runs (SolverInputError); a limit raises
        SolverTimeout / SolverResourceLimit, inconsistent premises (Prover9 proves the goal
        and its negation) SolverError."""
        return checks.prover9_entails(list(formal.premises), formal.goal, self.prover9_seconds)

    def parse_answer(self, task: Task, text: str) -> str | None:
        """True/False/Unknown from free text: the last ``Answer: X`` line (any case, with
        markdown), else a label that ends the text; None when neither is found."""
        lines = _ANSWER_LINE.findall(text)
        if lines:
            return _CANONICAL[lines[-1].lower()]
        final = _FINAL_LABEL.search(text)
        return _CANONICAL[final.group(1).lower()] if final else None

    # ---- pipeline hooks ---------------------------------------------------------------
    def formalizer(self) -> Formalizer:
        """The formalization part (:mod:`scir.tracks.deduction.formalizer`)."""

        return DeductionFormalizer(self)

    def codec(self) -> RenderCodec:
        """The rendering codec (:mod:`scir.tracks.deduction.codec`)."""

        return DeductionCodec()

    def exporters(self) -> dict[str, Callable[[list[Task], Path], int]]:
        return {"prover9": exports.export_prover9}


def _generate_in_worker(params: dict[str, Any], seed: int, index: int) -> Task | tuple:
    """Pool entry point: the task, or (error type, message with its location)."""
    try:
        return DeductionTrack(workers=1).generate_one(dict(params), seed, index)
    except ScirError as exc:
        return (type(exc), str(exc))


def construction_of(params: dict[str, Any]) -> str:
    """The construction recorded in ``params`` (``paper`` when absent: files written before
    the parameter existed)."""
    return str(params.get("construction", "paper"))


def _trees(task: Task) -> tuple[Node, list[Node]]:
    proof, *distractors = load_formal(DeductionFormal, task).trees
    return proof, distractors


def _decoys(task: Task) -> list[Node]:
    """The balanced construction's decoys, one per tree (none in files written before)."""
    return list(load_formal(DeductionFormal, task).decoys or ())


def _tree_problems(
    task: Task, premises: list[Formula], statement: Formula, label: str
) -> list[str]:
    """What is wrong with the stored proof and distractor trees, given the established label:
    each tree checked by ``check_trees/3``, their shape for the label by ``shape_error/8``
    (both in ``prolog/deduction.pl``), and every premise a leaf of some tree.

    Paper: a distractor concludes the proof's conclusion with one leaf missing. Balanced:
    half of all trees conclude the negation; every tree has a decoy attached to one of its
    inner terms, a copy of one of its subtrees (before 4.0: of the other polarity); one
    converse per tree: every distractor's, and an
    Unknown task's proof's, replaces a leaf of the tree, a True/False task's proof's one of
    its decoy (files written before decoys: one or two converses per distractor)."""
    proof, distractors = _trees(task)
    decoys = _decoys(task)
    results = checks.check_trees([proof, *distractors, *decoys], premises)
    problems = []
    names = ["proof"] + [f"distractor {i + 1}" for i in range(len(distractors))]
    names += [f"decoy {i + 1}" for i in range(len(decoys))]
    for name, result in zip(names, results):
        if not result.ok:
            problems.append(f"{name}: {result.error}")
    problems += checks.shape_problems(
        construction_of(task.params), label, statement, [proof, *distractors], premises, decoys
    )
    stated = [leaf.stated for tree in [proof, *distractors, *decoys] for leaf in tree.leaves()]
    leaves = {f for f in stated if f is not None}
    unused = [p.to_prover9() for p in premises if p not in leaves]
    if unused:
        problems.append(f"premises in no tree: {'; '.join(unused)}")
    return problems


def _balanced_problems(
    task: Task, premises: list[Formula], statement: Formula, label: str, details: dict[str, Any]
) -> list[str]:
    """Minimality and existential-import agreement (balanced construction): every premise
    of a True/False task's proof is necessary, the other premises decide nothing, and the
    label is the same with existential import."""
    problems = []
    proof, _ = _trees(task)
    if label in ("True", "False"):
        used = [leaf.formula for leaf in proof.leaves() if not leaf.missing]
        redundant = checks.redundant_premises(premises, statement, used)
        if redundant:
            problems.append(
                "proof: premises not needed for the label: "
                + "; ".join(p.to_prover9() for p in redundant)
            )
        rest = [p for p in premises if p not in set(used)]
        if checks.asp_label(rest, statement).label != "Unknown":
            problems.append("the premises outside the proof decide the statement")
        details["minimal"] = not redundant
    agrees = checks.import_agrees(premises, statement, label)
    details["import_agrees"] = agrees
    if not agrees:
        problems.append("the label changes under existential import")
    # the double check of the import reading: Prover9 beside ASP
    details["import_prover9"] = checks.prover9_import_label(premises, statement)
    if agrees and details["import_prover9"] != label:
        problems.append(
            f"under existential import ASP says {label}, Prover9 {details['import_prover9']}"
        )
    return problems
