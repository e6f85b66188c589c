"""``CausalTrack``: the causal track behind the generic ``Track`` interface."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from scir.errors import TaskFormatError
from scir.outcomes.scoring import Scorer
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
from scir.tracks.causal import exports, templates, validate
from scir.tracks.causal.codec import CausalCodec
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.formalizer import CausalFormalizer
from scir.tracks.causal.generate import build, is_open, params_rng
from scir.tracks.causal.graph import GRAPHS, NEW_PROTEIN
from scir.tracks.causal.options import (
    LETTERS,
    MAX_OPTIONS,
    OPEN,
    candidate_sets,
    letter,
    option_text,
)
from scir.tracks.causal.scoring import (
    CausalScorer,
    is_open_task,
    new_protein,
    open_answer,
    option_sets,
)
from scir.tracks.causal.solve import Solution, dataset, run_ges, run_gies

GENERATOR = "scir.tracks.causal"
VERSION = "1.0"
NO_MATCH = "none"
_ANSWER = re.compile(
    r"(?im)^[\s>*_#-]*(?:final\s+)?answer\s*(?:is)?\s*[*_]*\s*[:=]?"
    r"[\s*_\"'`(\[]*(?:option\s+)?[*_(\[]*(?-i:([A-T]))(?![A-Za-z0-9])"
)
_WORD_AFTER = re.compile(r"[ \t]+[a-z]")  # "Answer: I think ..." / "Answer: a graph ..."


class CausalTrack(Track):
    """Causal discovery: recover the edges of the new protein XYZ from interventional data."""

    name = "causal"
    description = (
        "causal discovery on the Sachs protein network plus a new protein XYZ: "
        "choose XYZ's edges from interventional data"
    )
    n_blocks = 2
    answer_kind = "option"
    scoring = "option"
    # not sr-agent (nor the symbolic-regression baselines): they need equation data
    pipeline_kinds = GENERAL_KINDS
    formal_type = CausalFormal

    # ---- generation -------------------------------------------------------------------
    def parameters(self) -> Sequence[TrackParam]:
        return [
            TrackParam(
                "nodes",
                int,
                "proteins in the connected Sachs subgraph",
                5,
                6,
                minimum=2,
                maximum=11,
            ),
            TrackParam(
                "connections",
                int,
                "directed edges between XYZ and the subgraph",
                1,
                2,
                minimum=1,
                maximum=11,
            ),
            TrackParam(
                "samples", int, "rows (cells) per environment", 16, 16, minimum=2, maximum=10000
            ),
            TrackParam(
                "graph",
                str,
                "Sachs edge list: 19 (the paper's), 20 (curated consensus) or 17 (bnlearn)",
                "19",
                "19",
                choices=GRAPHS,
            ),
            TrackParam(
                "options",
                int,
                "answer options (one correct)",
                10,
                20,
                minimum=2,
                maximum=MAX_OPTIONS,
            ),
            TrackParam(
                "interventions",
                int,
                "interventional environments besides the "
                "observational one (balanced: XYZ plus uniformly drawn proteins; "
                "paper: at least one on XYZ or a neighbour)",
                3,
                3,
                minimum=1,
                maximum=11,
            ),
            construction_param(),
            TrackParam(
                "answer",
                str,
                "options (choose one of --options edge sets) or open "
                "(state the exact set of XYZ's directed edges; --options is ignored)",
                "options",
                "options",
                choices=("options", OPEN),
                affects_difficulty=False,
            ),
        ]

    def tier(self, params: dict[str, Any]) -> str:
        base = f"n{params['nodes']}c{params['connections']}"
        return base + OPEN if is_open(params) else base

    def resolve_params(
        self, difficulty: str, overrides: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """The base's, without ``answer`` when it is ``options`` (the default): option tasks
        record the parameters they recorded before open tasks existed."""
        level, params = super().resolve_params(difficulty, overrides)
        if not is_open(params):
            params.pop("answer", None)
        return level, params

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        if not is_open(params) and "answer" in params:
            params = {k: v for k, v in params.items() if k != "answer"}
        task_id = self.task_id(params, seed, index)
        problem = build(params, params_rng(params, self.tier(params), seed, index), task_id)
        if is_open(params):
            return self._open_task(params, seed, index, task_id, problem)
        graph, envs = problem.graph, problem.environments
        subgraph_nodes = graph.nodes[:-1]
        blocks = [
            templates.block_network(
                subgraph_nodes, graph.known_edges, NEW_PROTEIN, params["connections"], envs
            ),
            templates.block_data(envs, problem.columns),
        ]
        answer = letter(problem.answer_index)
        return Task(
            task_id=task_id,
            domain=self.name,
            difficulty=self.difficulty_of(params),
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            question=templates.question(NEW_PROTEIN),
            options=[option_text(o) for o in problem.options],
            answer=answer,
            answer_pool=[answer],
            chance=1 / len(problem.options),
            chance_constrained=1 / len(problem.options),  # every option is an allowed answer
            formal=problem.formal(),
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata={
                "subgraph_nodes": subgraph_nodes,
                "subgraph_edges": [list(e) for e in graph.known_edges],
                "new_protein": NEW_PROTEIN,
            },
            provenance={
                "generator": GENERATOR,
                "version": VERSION,
                "attempts": problem.attempts,
                "regenerated": problem.attempts - 1,
                "rejected": problem.failures,
                "solver": "solvers.gies",
                "match": problem.solution.match.how,
            },
        )

    def _open_task(
        self, params: dict[str, Any], seed: int, index: int, task_id: str, problem: Any
    ) -> Task:
        """An open task: no options; the answer is the canonical text of XYZ's edge set
        (:func:`option_text`); chance 1 / the number of acyclic sets of as many edges."""
        graph, envs = problem.graph, problem.environments
        subgraph_nodes = graph.nodes[:-1]
        blocks = [
            templates.block_network(
                subgraph_nodes, graph.known_edges, NEW_PROTEIN, params["connections"], envs
            ),
            templates.block_data(envs, problem.columns),
        ]
        answer = option_text(graph.xyz_edges)
        admissible = len(candidate_sets(graph.subgraph, params["connections"]))
        return Task(
            task_id=task_id,
            domain=self.name,
            difficulty=self.difficulty_of(params),
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            question=templates.open_question(NEW_PROTEIN, params["connections"]),
            options=[],
            answer=answer,
            answer_pool=[answer],
            chance=1 / admissible,
            chance_constrained=1 / admissible,
            formal=problem.formal(),
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata={
                "subgraph_nodes": subgraph_nodes,
                "subgraph_edges": [list(e) for e in graph.known_edges],
                "new_protein": NEW_PROTEIN,
                "admissible_answers": admissible,
            },
            provenance={
                "generator": GENERATOR,
                "version": VERSION,
                "attempts": problem.attempts,
                "regenerated": problem.attempts - 1,
                "rejected": problem.failures,
                "solver": "solvers.gies",
                "match": problem.solution.match.how,
            },
        )

    def open_chance(self, task: Task) -> float:
        """1 / the number of answers an open task admits: the sets of as many directed XYZ
        edges as the task states, to distinct known proteins, that keep the graph acyclic."""
        import networkx as nx

        formal = self.formal(task)
        new = new_protein(task)
        sub = nx.DiGraph()
        sub.add_nodes_from(n for n in formal.nodes if n != new)
        sub.add_edges_from(formal.known_edges)
        return 1 / len(candidate_sets(sub, len(formal.xyz_edges or ())))

    # ---- checking and scoring ---------------------------------------------------------
    def scorer(self) -> Scorer:
        """Option letters or stated edge sets by subset match (option tasks), the exact edge
        set with edge metrics (open tasks): :class:`scir.tracks.causal.scoring.CausalScorer`."""
        return CausalScorer()

    def solve_gies(self, task: Task, formal: CausalFormal) -> Solution:
        """GIES on a formal object's environments (targets used, known edges not), mapped to
        the task's options."""
        new = new_protein(task)
        return run_gies(
            dataset(formal, task_id=task.task_id, new_protein=new), option_sets(task), new
        )

    def verify(self, task: Task) -> Check:
        """Re-run GIES on the stored rows: the option it matches must be the stored answer,
        and the stored ``xyz_edges`` must be that option's edges. Open tasks: GIES's set of
        XYZ's directed edges must be the stored answer's, which must be ``xyz_edges``, and
        the chance 1 / the admissible sets, recounted."""
        if is_open_task(task):
            return self._verify_open(task)
        sets = option_sets(task)
        problems = []
        if len(set(sets)) != len(sets):
            problems.append("two options have the same edges")
        sizes = {len(s) for s in sets}
        if len(sizes) != 1:
            problems.append(f"options differ in their number of edges ({sorted(sizes)})")
        for name, value in (
            ("chance", task.chance),
            ("chance_constrained", task.chance_constrained),
        ):
            if value is None:  # Task.__post_init__ fills chance_constrained from chance
                value = task.chance
            if abs(float(value) - 1 / len(sets)) > 1e-9:
                problems.append(f"stored {name} {value} is not 1/{len(sets)} options")
        if task.answer_pool != [task.answer]:
            problems.append(f"answer_pool must be [{task.answer!r}]")
        if task.answer not in LETTERS[: len(sets)]:
            problems.append(
                f"answer {task.answer!r} is not an option letter (A..{letter(len(sets) - 1)})"
            )
        formal = self.formal(task)
        if formal.xyz_edges is None:
            raise TaskFormatError(
                "formal.xyz_edges must be a list of [from, to] pairs",
                task_id=task.task_id,
                field="formal.xyz_edges",
            )
        stored = frozenset(formal.xyz_edges)
        if task.answer in LETTERS[: len(sets)] and sets[LETTERS.index(task.answer)] != stored:
            problems.append(
                f"formal.xyz_edges ({option_text(stored)}) are not the edges of "
                f"option {task.answer} ({task.options[LETTERS.index(task.answer)]})"
            )
        solution = self.solve_gies(task, formal)
        found = solution.letter
        if found != task.answer:
            what = option_text(solution.match.found) or "no directed XYZ edge"
            problems.append(
                f"stored answer {task.answer!r}, GIES finds {what}, which "
                f"{'is option ' + found if found else 'matches no option'}"
            )
        return Check(
            task.task_id,
            not problems,
            task.answer,
            found,
            details={"found": [list(e) for e in solution.match.found], "match": solution.match.how},
            message="; ".join(problems),
        )

    def _verify_open(self, task: Task) -> Check:
        problems = []
        formal = self.formal(task)
        if formal.xyz_edges is None:
            raise TaskFormatError(
                "formal.xyz_edges must be a list of [from, to] pairs",
                task_id=task.task_id,
                field="formal.xyz_edges",
            )
        new = new_protein(task)
        gold = option_text(formal.xyz_edges, new)
        if task.answer != gold:
            problems.append(
                f"stored answer {task.answer!r} is not the canonical text of "
                f"formal.xyz_edges ({gold!r})"
            )
        if task.answer_pool != [task.answer]:
            problems.append(f"answer_pool must be [{task.answer!r}]")
        chance = self.open_chance(task)
        for name in ("chance", "chance_constrained"):
            value = getattr(task, name)
            if abs(float(value) - chance) > 1e-12:
                problems.append(
                    f"stored {name} {value} is not {chance} (1 / the admissible edge sets)"
                )
        solution = run_gies(
            dataset(formal, task_id=task.task_id, new_protein=new),
            [frozenset(formal.xyz_edges)],
            new,
        )
        found = option_text(solution.match.found, new)
        if found != gold:
            problems.append(
                f"stored answer {gold!r}, GIES finds {found or 'no directed XYZ edge'!r}"
            )
        return Check(
            task.task_id,
            not problems,
            task.answer,
            found,
            details={"found": [list(e) for e in solution.match.found], "match": solution.match.how},
            message="; ".join(problems),
        )

    def validate_formal(self, task: Task) -> None:
        """Options, answer letter, pool and the formal object's shapes (``validate.py``)."""
        validate.validate(task)

    def solve_formal(self, task: Task, formal: CausalFormal) -> str:
        """GIES's option letter for a formal object, or ``"none"`` (NO_MATCH) when XYZ's
        directed edges match no option -- a wrong answer, not a solver failure. Malformed
        input raises SolverInputError naming the field. Open tasks: the canonical text of
        GIES's set of XYZ's directed edges (``"none"`` when it has none)."""
        if is_open_task(task):
            new = new_protein(task)
            solution = run_gies(dataset(formal, task_id=task.task_id, new_protein=new), [], new)
            return option_text(solution.match.found, new) or NO_MATCH
        return self.solve_gies(task, formal).letter or NO_MATCH

    def solve_formal_ges(self, task: Task, formal: CausalFormal) -> str:
        """The second solver: GES (causal-learn, BIC) on all rows pooled, intervention targets
        ignored; the option letter or ``"none"``."""
        new = new_protein(task)
        if is_open_task(task):
            solution = run_ges(dataset(formal, task_id=task.task_id, new_protein=new), [], new)
            return option_text(solution.match.found, new) or NO_MATCH
        solution = run_ges(
            dataset(formal, task_id=task.task_id, new_protein=new), option_sets(task), new
        )
        return solution.letter or NO_MATCH

    def parse_answer(self, task: Task, text: str) -> str | None:
        """The option letter (A-T, upper case) of the last ``Answer: X`` line (also
        ``Answer: (C)``, ``**Answer:** option C``); an ``A`` or ``I`` followed by a lower-case
        word is English, not a letter (``Answer: I think ...``). None when there is none.
        Open tasks: the canonical text (:func:`option_text`) of the edge set the text states
        (:func:`parse_open_answer`: after the last ``Answer:``, arrows or "causes"), ``none``
        for a stated empty set, None when no edge set is stated."""
        if is_open_task(task):
            got = open_answer(task, text)
            return None if got is None else (option_text(got, new_protein(task)) or NO_MATCH)
        accepted = [
            m.group(1)
            for m in _ANSWER.finditer(text)
            if not (m.group(1) in "AI" and _WORD_AFTER.match(text, m.end()))
        ]
        return accepted[-1] if accepted else None

    # ---- pipeline hooks ---------------------------------------------------------------
    def formalizer(self) -> Formalizer:
        """The formalization part (:mod:`scir.tracks.causal.formalizer`)."""

        return CausalFormalizer(self)

    def codec(self) -> RenderCodec:
        """The rendering codec (:mod:`scir.tracks.causal.codec`)."""

        return CausalCodec()

    def exporters(self) -> dict[str, Callable[[list[Task], Any], int]]:
        return {"csv": exports.export_csv}

    def data_sources(self) -> list[str]:
        """The Sachs network the subgraphs are sampled from (CC0)."""
        from scir.data.sachs import LICENSE, SOURCE

        return [
            f"The protein network (nodes and known edges) is the Sachs consensus graph: "
            f"{SOURCE}. Licence of the source data: {LICENSE} (public domain dedication). "
            "The measurements in the tasks are simulated from a linear-Gaussian model over "
            "the sampled subgraph, not copied from the Sachs data."
        ]


__all__ = ["CausalTrack", "NO_MATCH"]
