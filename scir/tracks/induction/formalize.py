"""Formalizations of induction tasks: the per-task grammar of constrained decoding, the parser
that turns a model's text into a formal object, and the gold formal object in the same syntax
(the prompts are in :mod:`scir.tracks.induction.prompts`, the solver in
:mod:`scir.tracks.induction.solve`).

A formalization is ground Prolog facts in the format of Popper's ``bk.pl`` / ``exs.pl``
(``grammars/prolog_facts.lark``), one per line::

    substrate_of(velorastat, kx3a1).
    inhibits_enzyme(nabucorvir, kx3a1).
    pos(interacts(velorastat, nabucorvir)).
    neg(interacts(velorastat, brioloxim)).

Facts only: the grammar has no rules, directives or quoted atoms, so no text of a model is
ever run as Prolog (no sandbox needed). The text is parsed with Lark, every predicate is
checked against the task's declared predicates (its relation types /2, ``pos/1`` and
``neg/1`` around ``interacts/2``) and every name against the task's drugs and proteins; only
the resulting lists of validated names reach clingo and the ILP learner, as facts
(:mod:`scir.tracks.induction.solve`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scir.errors import FormalizationError, TaskFormatError
from scir.tasks import Task
from scir.tracks.base import Formalization, load_formal
from scir.tracks.formal_text import (
    checked_grammar,
    generic_parser,
    syntax_error,
    token_error,
    unfence,
)
from scir.tracks.induction.formal import InductionProblem, pair
from scir.tracks.induction.world import IDENT, load_world
from solvers.grammar import Grammar, Ref, Rep, literals, rule, seq

HEAD = "interacts"
EXAMPLE_KINDS = ("pos", "neg")
FACT_MARGIN_MIN = 3  # fact lines the grammar allows beyond the gold count: at least
FACT_MARGIN_SHARE = 0.1  # this many, or this share of the gold count (rounded up)
EXAMPLE_MARGIN = 2  # positive / negative lines beyond the gold counts
MAX_TEXT_CHARS = 200_000  # parser limits (the per-task grammar is far tighter)
MAX_CLAUSES = 5_000
MAX_NAME_CHARS = 64
_RESERVED = frozenset({HEAD, *EXAMPLE_KINDS})
_FACTS_ONLY = "write facts only, one 'name(arg, arg).' per line"


# ---- the task's signature and the grammar's bounds -----------------------------------------
@dataclass(frozen=True)
class Signature:
    """The task's declared names: relation types (predicates /2), drugs and proteins."""

    relations: tuple[str, ...]
    drugs: tuple[str, ...]
    proteins: tuple[str, ...]


def task_signature(task: Task) -> Signature:
    """The task's relation types, drugs and proteins, sorted: ``domain_metadata``
    (``relations``, ``drugs``, ``proteins``), or, when absent, the names of the gold formal
    object. TaskFormatError when a name cannot be used (not a lowercase identifier, too long,
    reserved, unknown relation type, a name both a drug and a protein)."""
    meta, formal = task.domain_metadata or {}, load_formal(InductionProblem, task)
    facts, pairs = formal.facts, formal.pos + formal.neg
    relations = meta.get("relations") or [f[0] for f in facts]
    drugs = meta.get("drugs") or [f[1] for f in facts] + [d for p in pairs for d in p]
    proteins = meta.get("proteins") or [f[2] for f in facts]
    out = {}
    for field, names in (("relations", relations), ("drugs", drugs), ("proteins", proteins)):
        if not isinstance(names, (list, tuple, dict)):
            raise TaskFormatError(
                f"{field} must be a list of names",
                task_id=task.task_id,
                field=f"domain_metadata.{field}",
            )
        for name in names:
            if (
                not isinstance(name, str)
                or not IDENT.match(name)
                or name in _RESERVED
                or len(name) > MAX_NAME_CHARS
            ):
                raise TaskFormatError(
                    f"name {name!r} cannot be formalized (expected a "
                    f"lowercase identifier of at most {MAX_NAME_CHARS} "
                    f"characters, not {', '.join(sorted(_RESERVED))})",
                    task_id=task.task_id,
                    field=f"domain_metadata.{field}",
                )
        out[field] = tuple(sorted(set(names)))
    unknown = sorted(set(out["relations"]) - set(load_world().relation_names))
    if unknown:
        raise TaskFormatError(
            f"unknown relation type {unknown[0]!r}",
            task_id=task.task_id,
            field="domain_metadata.relations",
        )
    clash = sorted(
        (set(out["drugs"]) & set(out["proteins"]))
        | (set(out["relations"]) & (set(out["drugs"]) | set(out["proteins"])))
    )
    if clash:
        raise TaskFormatError(
            f"name {clash[0]!r} is used for two kinds of things",
            task_id=task.task_id,
            field="domain_metadata",
        )
    if not out["drugs"]:
        raise TaskFormatError(
            "the task has no drugs", task_id=task.task_id, field="domain_metadata.drugs"
        )
    return Signature(out["relations"], out["drugs"], out["proteins"])


@dataclass(frozen=True)
class GrammarBounds:
    """What the per-task grammar allows: the signature and the line counts."""

    signature: Signature
    max_facts: int
    max_pos: int  # at least 1 (the learner needs a positive)
    max_neg: int


def fact_margin(gold: int) -> int:
    """Fact lines allowed beyond ``gold``: max(FACT_MARGIN_MIN, ceil(FACT_MARGIN_SHARE*gold))."""
    return max(FACT_MARGIN_MIN, math.ceil(FACT_MARGIN_SHARE * gold))


def grammar_bounds(task: Task) -> GrammarBounds:
    """Bounds sized from the task's gold formal object (its facts + :func:`fact_margin`, its
    positives and negatives + EXAMPLE_MARGIN each); without gold lists, from the task's
    parameters (``facts``; ``(distractors + 1) * positives``; ``distractors``)."""
    sig = task_signature(task)
    formal, params = load_formal(InductionProblem, task), task.params or {}

    def count(key: str, default: int) -> int:
        return len(getattr(formal, key)) or default

    k, m = int(params.get("distractors", 2)), int(params.get("positives", 2))
    facts = count("facts", int(params.get("facts", 100)))
    pos, neg = count("pos", (k + 1) * m), count("neg", k)
    max_facts = facts + fact_margin(facts) if sig.relations and sig.proteins else 0
    return GrammarBounds(sig, max_facts, max(1, pos + EXAMPLE_MARGIN), neg + EXAMPLE_MARGIN)


# ---- the per-task grammar ------------------------------------------------------------------
def task_grammar(b: GrammarBounds) -> Grammar:
    """The grammar object of ``b``: 0..max_facts fact lines, 1..max_pos ``pos`` lines, 0..max_neg
    ``neg`` lines, in this order, one clause per line in canonical spacing. Its Lark text is
    the decoding constraint; its parser reads a decoded formalization back
    (:func:`parse_formalization`)."""
    sig = b.signature
    parts: list = []
    if b.max_facts:
        parts.append(Rep(Ref("fact"), 0, b.max_facts))
    parts.append(Rep(Ref("pos"), 1, b.max_pos))
    if b.max_neg:
        parts.append(Rep(Ref("neg"), 0, b.max_neg))
    rules = [
        rule("start", seq(*parts)),
        rule("pos", seq("pos(interacts(", Ref("drug"), ", ", Ref("drug"), ")).\n")),
    ]
    if b.max_neg:
        rules.append(rule("neg", seq("neg(interacts(", Ref("drug"), ", ", Ref("drug"), ")).\n")))
    if b.max_facts:
        rules += [
            rule("fact", seq(Ref("relation"), "(", Ref("drug"), ", ", Ref("protein"), ").\n")),
            rule("relation", literals(sig.relations)),
            rule("protein", literals(sig.proteins)),
        ]
    rules.append(rule("drug", literals(sig.drugs)))
    comment = (
        "Per-task grammar of an induction formalization, built by "
        "scir.tracks.induction.formalize\nfrom grammars/prolog_facts.lark: at most "
        f"{b.max_facts} facts over {len(sig.relations)} relation types, 1..{b.max_pos} pos "
        f"and 0..{b.max_neg} neg lines; canonical spacing."
    )
    return Grammar(tuple(rules), comment=comment)


def build_grammar(b: GrammarBounds) -> str:
    """The Lark text of :func:`task_grammar` (the decoding constraint)."""
    return task_grammar(b).to_lark()


def max_output_chars(b: GrammarBounds) -> int:
    """The length of the longest text the grammar of ``b`` accepts (ASCII: also its bytes,
    hence an upper bound on the tokens of any byte-level tokenizer, before EOS)."""
    sig = b.signature
    drug = max(len(d) for d in sig.drugs)
    fact = (
        (
            max(len(r) for r in sig.relations)
            + drug
            + max(len(p) for p in sig.proteins)
            + len("(, ).\n")
        )
        if b.max_facts
        else 0
    )
    example = len("pos(interacts(, )).\n") + 2 * drug
    return b.max_facts * fact + (b.max_pos + b.max_neg) * example


def formalization_grammar(task: Task) -> str:
    """The task's bounded grammar, checked by llguidance when it is installed."""
    return checked_grammar(build_grammar(grammar_bounds(task)))


def max_formalization_chars(task: Task) -> int:
    """The longest formalization the task's grammar accepts (size ``max_tokens`` from it)."""
    return max_output_chars(grammar_bounds(task))


# ---- the gold formal object as text ----------------------------------------------------------
def format_formal(task: Task, formal: InductionProblem | None = None) -> str:
    """A formal object (default: the task's gold one) in the grammar's canonical syntax."""
    f = load_formal(InductionProblem, task) if formal is None else formal
    lines = [f"{rel}({drug}, {protein})." for rel, drug, protein in f.facts]
    for kind in EXAMPLE_KINDS:
        lines += [f"{kind}({HEAD}({a}, {b}))." for a, b in getattr(f, kind)]
    return "\n".join(lines) + "\n"


# ---- parsing ---------------------------------------------------------------------------------
def _syntax_error(exc: Exception) -> FormalizationError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        what = (
            "unexpected end of text"
            if exc.token.type == "$END"
            else f"unexpected {str(exc.token)[:40]!r}"
        )
        expected = sorted(exc.expected)
        hint = f" (expected {', '.join(expected[:6])}{', ...' if len(expected) > 6 else ''})"
        return syntax_error(exc, f"{what}{hint}; {_FACTS_ONLY}")
    if isinstance(exc, UnexpectedCharacters):
        return syntax_error(exc, f"unexpected character {exc.char!r}; {_FACTS_ONLY}")
    return syntax_error(exc, str(exc))


class Reader:
    """Checks the clauses of one parse tree against a task's signature."""

    def __init__(self, sig: Signature) -> None:
        self.sig = sig
        self.relations = set(sig.relations)
        self.drugs = set(sig.drugs)
        self.proteins = set(sig.proteins)
        self.world_relations = set(load_world().relation_names)

    fail = staticmethod(token_error)

    def word(self, token: Any) -> str:
        """A name token in canonical (lower) case, length-checked."""
        text = str(token)
        if len(text) > MAX_NAME_CHARS:
            raise self.fail(
                f"a name of {len(text)} characters is too long (at most {MAX_NAME_CHARS})", token
            )
        return text.lower()

    def entity(self, token: Any, kind: str) -> str:
        name = self.word(token)
        if name in (self.drugs if kind == "drug" else self.proteins):
            return name
        other = "protein" if kind == "drug" else "drug"
        if name in (self.proteins if kind == "drug" else self.drugs):
            raise self.fail(f"{str(token)!r} is a {other}, not a {kind}", token)
        raise self.fail(f"unknown {kind} {str(token)!r} (not a {kind} of this problem)", token)

    def predicates(self) -> str:
        return ", ".join([f"{r}/2" for r in self.sig.relations] + ["pos/1", "neg/1"])

    def clause(self, tree: Any) -> tuple[str, tuple[str, ...]]:
        """(``fact`` | ``pos`` | ``neg``, names) of one clause; FormalizationError if the
        clause does not fit the signature."""
        head, *args = tree.children
        name = self.word(head)
        if name in EXAMPLE_KINDS:
            return name, self.example(head, name, args)
        if name in self.relations:
            if len(args) != 2:
                raise self.fail(f"{name} takes 2 arguments (drug, protein), not {len(args)}", head)
            for arg in args:
                if arg.data != "name":
                    raise self.fail(
                        f"the arguments of {name} are names, not terms", arg.children[0]
                    )
            drug, protein = (a.children[0] for a in args)
            return "fact", (name, self.entity(drug, "drug"), self.entity(protein, "protein"))
        if name == HEAD:
            raise self.fail(f"write examples as pos({HEAD}(A, B)). or neg({HEAD}(A, B)).", head)
        if name in self.world_relations:
            raise self.fail(
                f"relation type {name!r} does not occur in this problem; its "
                f"relation types are {', '.join(self.sig.relations)}",
                head,
            )
        raise self.fail(
            f"unknown predicate {str(head)[:40]!r}/{len(args)}; this problem's "
            f"predicates are {self.predicates()}",
            head,
        )

    def example(self, head: Any, kind: str, args: list) -> tuple[str, str]:
        if len(args) != 1:
            raise self.fail(f"{kind} takes 1 argument, a term {HEAD}(A, B), not {len(args)}", head)
        (arg,) = args
        if arg.data != "compound":
            raise self.fail(f"{kind} takes a term {HEAD}(A, B), not a name", arg.children[0])
        inner, *names = arg.children
        if self.word(inner) != HEAD:
            raise self.fail(f"examples are {HEAD}(A, B) terms, not {str(inner)[:40]!r}", inner)
        if len(names) != 2:
            raise self.fail(f"{HEAD} takes 2 arguments (two drugs), not {len(names)}", inner)
        a, b = (self.entity(t, "drug") for t in names)
        return pair(a, b)


def _parse_decoded(task: Task, text: str) -> Formalization | None:
    """The formal object of ``text`` read by the task's own grammar object (the one whose Lark
    text constrained the decoder: :func:`task_grammar`; its line counts checked on the tree),
    or None when the text is not in that grammar's language: the generic parser of
    :func:`parse_formalization` then reads it (any layout) or explains the error."""
    from lark.exceptions import LarkError

    bounds = grammar_bounds(task)
    try:
        tree = task_grammar(bounds).unbounded().parse(text, keep_all_tokens=True)
    except LarkError:  # not in the language (or, a bug, no LALR tables): the other reader
        return None
    found: dict[str, dict[tuple[str, ...], None]] = {"fact": {}, "pos": {}, "neg": {}}
    counts = dict.fromkeys(found, 0)
    for clause in tree.children:
        if isinstance(clause, str):
            continue
        names = [str(n.children[0]) for n in clause.children if not isinstance(n, str)]
        counts[clause.data] += 1
        found[clause.data][tuple(names) if clause.data == "fact" else pair(*names)] = None
    if any(
        counts[k] > m
        for k, m in (("fact", bounds.max_facts), ("pos", bounds.max_pos), ("neg", bounds.max_neg))
    ):
        return None
    formal = InductionProblem.formalization(found["fact"], found["pos"], found["neg"])
    return Formalization(formal, sum(len(v) for v in found.values()))


def parse_formalization(task: Task, text: str) -> Formalization:
    """Parse a formalization of ``task`` into its formal object (``facts``: ``[relation,
    drug, protein]``, ``pos`` / ``neg``: sorted drug pairs; each kept once, in order of
    appearance); items = facts + positives + negatives. A text in the language of the task's
    grammar (what constrained decoding writes) is read from that grammar's parse tree; any
    other text by the generic grammar below, with the same result where both apply. Names are read case-insensitively;
    clauses may come in any order, with free spacing, ``%`` comments and a Markdown code fence.
    Raises FormalizationError with line and column on syntax errors (rules, directives,
    quoted atoms, numbers, ...), undeclared predicates or wrong arities, unknown drugs or
    proteins or one in the other's place, over-long names, no positive example, and texts
    beyond the size limits. Contradictory examples are the solver's concern
    (SolverInputError there), not a parse error: the grammar cannot rule them out."""

    if not isinstance(text, str):
        raise FormalizationError(f"a formalization is text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise FormalizationError(
            f"formalization too long ({len(text)} characters; at most {MAX_TEXT_CHARS})"
        )
    reader = Reader(task_signature(task))
    text = "\n".join(unfence(text.split("\n")))
    decoded = _parse_decoded(task, text)
    return decoded if decoded is not None else parse_generic(reader, text)


def parse_generic(reader: Reader, text: str) -> Formalization:
    """The generic reader of :func:`parse_formalization` (``grammars/prolog_facts.lark``, any
    layout; FormalizationError with line and column); on the texts of the task's grammar it
    gives what that grammar's parse tree gives (tests/test_grammar.py)."""
    from lark.exceptions import UnexpectedInput

    try:
        tree = generic_parser("prolog_facts.lark").parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc) from exc
    found: dict[str, dict[tuple[str, ...], None]] = {"fact": {}, "pos": {}, "neg": {}}
    for index, clause in enumerate(tree.children):
        if index == MAX_CLAUSES:
            raise FormalizationError(
                f"more than {MAX_CLAUSES} clauses", line=clause.meta.line, column=clause.meta.column
            )
        kind, item = reader.clause(clause)
        found[kind][item] = None
    if not found["pos"]:
        lines = text.rstrip().split("\n")
        raise FormalizationError(
            f"no positive example: write one line pos({HEAD}(A, B)). "
            "for each pair of drugs known to interact",
            line=len(lines),
            column=1,
        )
    formal = InductionProblem.formalization(found["fact"], found["pos"], found["neg"])
    return Formalization(formal, sum(len(v) for v in found.values()))


__all__ = [
    "GrammarBounds",
    "Reader",
    "Signature",
    "build_grammar",
    "fact_margin",
    "format_formal",
    "formalization_grammar",
    "grammar_bounds",
    "max_formalization_chars",
    "task_grammar",
    "max_output_chars",
    "parse_formalization",
    "parse_generic",
    "task_signature",
]
