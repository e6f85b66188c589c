"""Example track ``horn``: propositional Horn-clause entailment (walked through in
``docs/extending.md``).

A task is a random definite Horn program over atoms ``p0 .. p{n-1}`` -- some facts ("p3 is
true") and some rules ("if p1 and p2 are true, then p4 is true") -- plus a query atom. The answer
is ``True`` when the program entails the query and ``False`` when it does not. Every label is
established twice: by forward chaining in Python and by clingo with ``horn.lp`` (shipped beside
this file); the two least models must be identical.

Its rendering codec is ``horn_codec.py`` with the genres ``horn_genres.json``, both beside
this file. Loaded without packaging through the environment variable ``SCIR_TRACKS``::

    SCIR_TRACKS=docs/examples/horn_track.py:HornTrack scir generate horn -n 10 -o h.jsonl

or registered for third-party use through an entry point (see docs/extending.md)::

    [project.entry-points."scir.tracks"]
    horn = "horn_track:HornTrack"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from scir.errors import (ConfigError, FormalizationError, GenerationError, TaskFormatError,
                         VerificationError)
from scir.outputs import contained
from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.tracks import Check, Formalization, Formalizer, Track, TrackParam
from solvers.asp import AspProgram, Atom

HERE = Path(__file__).resolve().parent
GENERATOR = "horn-example 1"
LABELS = ("True", "False")
_ATOM = re.compile(r"[a-z][a-z0-9_]{0,15}\Z")
_MAX_ATTEMPTS = 200


@dataclass(frozen=True)
class HornProgram:
    """A definite Horn program and a query: the track's formal object (``formal_type``:
    ``load`` validates the JSON form, ``dump`` writes it)."""

    facts: tuple[str, ...]
    rules: tuple[tuple[str, tuple[str, ...]], ...]      # (head, body atoms)
    query: str

    def dump(self) -> dict[str, Any]:
        """The JSON form stored in ``Task.formal``."""
        return {"facts": list(self.facts),
                "rules": [{"head": h, "body": list(b)} for h, b in self.rules],
                "query": self.query}

    @classmethod
    def load(cls, formal: Any) -> "HornProgram":
        """Validate a formal object (gold or formalized); raises FormalizationError."""
        try:
            facts = tuple(formal["facts"])
            rules = tuple((r["head"], tuple(r["body"])) for r in formal["rules"])
            query = formal["query"]
        except (KeyError, TypeError) as exc:
            raise FormalizationError(f"a horn formal object needs facts, rules (head, body) "
                                     f"and query: {exc!r}", field="formal") from exc
        atoms = [*facts, query, *(a for h, b in rules for a in (h, *b))]
        bad = [a for a in atoms if not (isinstance(a, str) and _ATOM.match(a))]
        if bad:
            raise FormalizationError(f"not an atom name: {bad[0]!r}", field="formal")
        if any(not body for _, body in rules):
            raise FormalizationError("every rule needs a non-empty body", field="formal")
        return cls(facts, rules, query)


def forward_chain(program: HornProgram) -> dict[str, int]:
    """The least model by forward chaining: atom -> the round in which it was derived
    (facts 0, a rule's head one more than its latest body atom)."""
    depth = {a: 0 for a in program.facts}
    changed = True
    while changed:
        changed = False
        for head, body in program.rules:
            if head not in depth and all(b in depth for b in body):
                depth[head] = 1 + max(depth[b] for b in body)
                changed = True
    return depth


def least_model_clingo(program: HornProgram, time_limit: float = 10.0) -> tuple[set[str], bool]:
    """The least model computed by clingo with ``horn.lp``, and whether the query is in it."""
    asp = AspProgram().load_path(HERE / "horn.lp")
    asp.add_facts("fact", program.facts)
    asp.add_facts("rule", [(i, head) for i, (head, _) in enumerate(program.rules)])
    asp.add_facts("body", [(i, b) for i, (_, body) in enumerate(program.rules) for b in body])
    asp.add_facts("query", [program.query])
    models = asp.models(time_limit=time_limit)
    if len(models) != 1:
        raise VerificationError(f"a definite program has one answer set, clingo found "
                                f"{len(models)}")
    holds = {args[0] for args in models[0].by_name("holds")}
    return holds, Atom("entailed") in models[0].atoms


class HornTrack(Track):
    """Propositional Horn-clause entailment: does the query follow from facts and rules?"""

    name = "horn"
    description = "propositional Horn-clause entailment (the docs/extending.md example)"
    n_blocks = 2
    answer_kind = "label"
    formal_type = HornProgram
    # the track solves with clingo: `scir solve` and `scir eval` check it is installed (and
    # record its version) before any work
    solvers = ("clingo",)

    # ---- generation -------------------------------------------------------------------
    def parameters(self) -> Sequence[TrackParam]:
        return [
            TrackParam("atoms", int, "number of propositional atoms", 8, 12, minimum=3,
                       maximum=60),
            TrackParam("rules", int, "number of rules", 6, 16, minimum=1, maximum=120),
            TrackParam("body", int, "largest number of atoms in a rule body", 2, 3,
                       minimum=1, maximum=8),
            TrackParam("facts", int, "number of facts", 2, 3, minimum=1, maximum=20),
            TrackParam("depth", int, "forward-chaining rounds a True query needs, at least",
                       2, 3, minimum=1, maximum=10),
        ]

    def tier(self, params: dict[str, Any]) -> str:
        return f"a{params['atoms']}r{params['rules']}d{params['depth']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        if params["facts"] >= params["atoms"] or params["body"] >= params["atoms"]:
            raise ConfigError("--facts and --body must be smaller than --atoms", field="facts")
        rng = self.rng(seed, index, salt=self.name)
        want = LABELS[rng.randrange(2)]
        atoms = [f"p{i}" for i in range(params["atoms"])]
        order = {a: i for i, a in enumerate(atoms)}
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            facts = sorted(rng.sample(atoms, params["facts"]), key=order.get)
            rules = []
            for _ in range(params["rules"]):
                head = rng.choice(atoms)
                others = [a for a in atoms if a != head]
                body = sorted(rng.sample(others, rng.randint(1, params["body"])), key=order.get)
                rules.append((head, tuple(body)))
            depth = forward_chain(HornProgram(tuple(facts), tuple(rules), atoms[0]))
            if want == "True":   # an atom derived in round `depth` or later
                pool = [a for a in atoms if depth.get(a, 0) >= params["depth"]]
            else:                # an atom some rule concludes, yet not derivable
                pool = [a for a in atoms if a not in depth and any(h == a for h, _ in rules)]
            if pool:
                break
        else:
            raise GenerationError(f"no {want} task after {_MAX_ATTEMPTS} attempts",
                                  task_id=self.task_id(params, seed, index))
        program = HornProgram(tuple(facts), tuple(rules), rng.choice(pool))
        blocks = self.render_blocks(program)
        return Task(
            task_id=self.task_id(params, seed, index),
            domain=self.name,
            difficulty=self.difficulty_of(params),
            tier=self.tier(params),
            seed=seed,
            params=dict(params),
            question=(f"Can it be concluded from these statements that {program.query} is "
                      f"true? Answer True if it follows, False if it does not."),
            answer=want,
            answer_pool=[want],
            chance=1 / len(LABELS),
            formal=program.dump(),
            blocks=blocks,
            problem_nl="\n\n".join(blocks),
            domain_metadata={"query_depth": depth.get(program.query),
                             "derived": len(depth)},
            provenance={"generator": GENERATOR, "attempts": attempt},
        )

    @staticmethod
    def render_blocks(program: HornProgram) -> list[str]:
        """The clean-NL blocks: the facts, then the rules."""
        facts = " ".join(f"{a} is true." for a in program.facts)
        rules = []
        for head, body in program.rules:
            cond = body[0] if len(body) == 1 else ", ".join(body[:-1]) + " and " + body[-1]
            verb = "is" if len(body) == 1 else "are"
            rules.append(f"If {cond} {verb} true, then {head} is true.")
        return [facts, " ".join(rules)]

    # ---- checking and scoring ---------------------------------------------------------
    def validate_formal(self, task: Task) -> None:
        """Checked once when a file is read: a label, the pool ``[answer]`` and a well-formed
        program (a FormalizationError becomes a TaskFormatError naming file, line, field)."""
        if task.answer not in LABELS:
            raise TaskFormatError(f"expected one of {', '.join(LABELS)}", field="answer")
        if task.answer_pool != [task.answer]:
            raise TaskFormatError("must be [answer]", field="answer_pool")
        self.formal(task)                       # HornProgram.load, cached

    def verify(self, task: Task) -> Check:
        program = self.formal(task)
        python_model = set(forward_chain(program))
        clingo_model, entailed = least_model_clingo(program)
        if python_model != clingo_model or entailed != (program.query in python_model):
            raise VerificationError(
                f"forward chaining and clingo disagree: {sorted(python_model ^ clingo_model)}",
                task_id=task.task_id)
        found = "True" if entailed else "False"
        ok = task.answer == found and task.answer_pool == [found]
        message = "" if ok else (f"stored answer {task.answer!r} (pool {task.answer_pool}), "
                                 f"forward chaining and clingo say {found!r}")
        return Check(task.task_id, ok, task.answer, found,
                     details={"derived": sorted(python_model)}, message=message)

    def solve_formal(self, task: Task, formal: HornProgram) -> str:
        _, entailed = least_model_clingo(formal)
        return "True" if entailed else "False"

    def parse_answer(self, task: Task, text: str) -> str | None:
        answer = super().parse_answer(task, text)
        if answer is None:
            return None
        word = answer.strip(" .*").lower()
        return {"true": "True", "yes": "True", "false": "False", "no": "False"}.get(word)

    # ---- hooks for pipelines ------------------------------------------------------------
    def formalizer(self) -> Formalizer:
        """The formalization part (prompts, grammar, parser, writer): :class:`HornFormalizer`."""
        return HornFormalizer(self)

    def codec(self) -> RenderCodec:
        """The rendering codec, ``horn_codec.py`` beside this file (importable: SCIR_TRACKS
        puts this folder on ``sys.path``; an installed package ships both modules)."""
        from horn_codec import HornCodec

        return HornCodec()

    def exporters(self) -> dict[str, Callable[[list[Task], Path], int]]:
        return {"lp": export_lp}


class HornFormalizer(Formalizer):
    """The horn track's formalization part. Its prompts are the files ``prompts/horn/cot.txt``,
    ``formalize.txt`` and ``symbcot.txt`` beside this file (``$problem``, ``$question``,
    ``$formalization``), filled by the Formalizer's default ``prompt``; the grammar is
    ``horn.lark``."""

    prompt_dir = HERE / "prompts"

    def grammar(self, task: Task) -> str:
        return (HERE / "horn.lark").read_text(encoding="utf-8")

    def parse(self, task: Task, text: str) -> Formalization:
        from lark import Lark
        from lark.exceptions import UnexpectedInput

        parser = Lark(self.grammar(task), parser="lalr")
        try:
            tree = parser.parse(text)
        except UnexpectedInput as exc:
            raise FormalizationError(f"formalization does not parse: {exc}",
                                     line=exc.line, column=exc.column,
                                     task_id=task.task_id) from exc
        facts, rules, query = [], [], None
        for node in tree.children:
            names = [str(token) for token in node.children]
            if node.data == "fact":
                facts.append(names[0])
            elif node.data == "rule":
                rules.append({"head": names[0], "body": names[1:]})
            else:
                query = names[0]
        program = HornProgram.load({"facts": facts, "rules": rules, "query": query})
        return Formalization(program, self.count_items(program))

    def format(self, task: Task, formal: HornProgram | dict[str, Any] | None = None) -> str:
        """A formal object (default: the task's gold one) in the syntax of ``horn.lark``:
        what a perfect formalization writes (the inverse of :meth:`parse`)."""
        if formal is None:
            program = self.track.formal(task)
        else:
            program = formal if isinstance(formal, HornProgram) else HornProgram.load(formal)
        lines = [f"{a}." for a in program.facts]
        lines += [f"{head} :- {', '.join(body)}." for head, body in program.rules]
        return "\n".join(lines + [f"?- {program.query}."]) + "\n"

    def count_items(self, formal: HornProgram) -> int:
        return len(formal.facts) + len(formal.rules)


def export_lp(tasks: list[Task], out: Path) -> int:
    """One clingo fact file ``<task_id>.lp`` per task; run it with
    ``clingo docs/examples/horn.lp OUT/<task_id>.lp``."""
    out.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        program = HornTrack().formal(task)
        atoms = [Atom("fact", (a,)) for a in program.facts]
        for i, (head, body) in enumerate(program.rules):
            atoms.append(Atom("rule", (i, head)))
            atoms.extend(Atom("body", (i, b)) for b in body)
        atoms.append(Atom("query", (program.query,)))
        lines = [f"% horn task {task.task_id}: answer {task.answer}"]
        lines += [f"{atom}." for atom in atoms]
        # a path inside OUT from the (validated) task id, checked once resolved
        contained(out, f"{task.task_id}.lp", task_id=task.task_id).write_text(
            "\n".join(lines) + "\n", encoding="utf-8")
    return len(tasks)
