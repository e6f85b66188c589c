"""Formalizations of deduction tasks: the per-task grammar of constrained decoding, the parser
that turns a model's text into a formal object, the gold formal object in the same syntax, and
the prompts (cot / formalize / symbcot).

A formalization is one line per premise and a final line with the statement asked about, each
formula in Prover9 syntax and ended by a period::

    premise: all x (neuron(x) -> excitable(x)).
    premise: neuron(cell_k1).
    goal: excitable(cell_k1).

The grammar is ``grammars/fol.lark`` instantiated by :func:`solvers.fol.instantiate_grammar`
with the task's signature (its predicates and individuals only) in its bounded form (canonical
spacing, bounded nesting and chain length) for one formula, with the line structure above
around it: at most the gold premise count plus :data:`PREMISE_MARGIN` premise lines.

Text is untrusted: it is parsed line by line (an anchored pattern for ``premise:``/``goal:``,
each formula with :func:`solvers.fol.parse_formula`, i.e. Lark), every name is checked against
the task's signature, and only the canonical reprinting of the parsed formulas reaches Prover9
(through :mod:`solvers.prover9`, which parses them once more). Prover9 commands smuggled into
the text (``end_of_list.``, ``set(auto).``, ``formulas(sos).``) are syntax errors, reserved
words or unknown predicates there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from scir.errors import FormalizationError, SolverInputError, TaskFormatError
from scir.tasks import Task
from scir.tracks.base import Formalization, load_formal
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.formal_text import checked_grammar, unfence
from solvers.grammar import Grammar, Ref, rep, rule, seq

PREMISE_MARGIN = 3  # premise lines the grammar allows beyond the gold count
DEPTH_MARGIN = 1  # nesting levels beyond the gold formulas' (e.g. -(exists x ..))
OPERAND_MARGIN = 0  # &/| operands beyond the gold formulas' longest chain
FRAGMENT_BOUNDS = (2, 2)  # (depth, operands) every form of the fragment fits in
MAX_TEXT_CHARS = 200_000  # parser limits (the per-task grammar is far tighter)
MAX_FORMULA_CHARS = 1_000
MAX_PREMISES = 500
_STATEMENT = re.compile(r"[ \t]*(?P<kind>premise|goal)[ \t]*:[ \t]*(?P<formula>.*?)[ \t\r]*", re.I)
_BAD_CHARACTER = re.compile(r"[^\t\n\r\x20-\x7e]")


# ---- the task's signature and the grammar's bounds -----------------------------------------
def task_signature(task: Task) -> tuple[dict[str, int], list[str]]:
    """(predicates with arities, constants), sorted: ``formal.predicates`` and
    ``formal.constants``, or, when absent, the names of the gold formulas. TaskFormatError when
    a name cannot be used in Prover9."""
    from solvers.fol import check_signature, signature

    formal = _gold(task)
    try:
        if formal.predicates is None or formal.constants is None:
            predicates, constants = signature(_gold_formulas(task))
        else:
            predicates, constants = dict(formal.predicates), list(formal.constants)
        checked, names = check_signature(predicates, constants)
    except SolverInputError as exc:
        raise TaskFormatError(
            f"the task's signature cannot be formalized: {exc.message}",
            task_id=task.task_id,
            field=f"formal.{exc.field or 'predicates'}",
        ) from exc
    return dict(checked), names


def _gold(task: Task) -> DeductionFormal:
    """The task's gold formal object (TaskFormatError when malformed)."""
    return load_formal(DeductionFormal, task)


def _gold_formulas(task: Task) -> list:
    """The gold premises and goal, parsed (TaskFormatError when missing or malformed)."""
    from solvers.fol import parse_formula

    formal = _gold(task)
    premises, goal = formal.premises, formal.goal
    if not premises:
        raise TaskFormatError(
            "deduction tasks need formal.premises (a non-empty list of strings) and formal.goal",
            task_id=task.task_id,
            field="formal",
        )
    parsed = []
    for field, text in [*((f"premises[{i}]", p) for i, p in enumerate(premises)), ("goal", goal)]:
        try:
            parsed.append(parse_formula(text))
        except SolverInputError as exc:
            raise TaskFormatError(
                f"gold formula does not parse: {exc.message}",
                task_id=task.task_id,
                field=f"formal.{field}",
            ) from exc
    return parsed


@dataclass(frozen=True)
class GrammarBounds:
    """What the per-task grammar allows: the signature and the bounds."""

    predicates: tuple[tuple[str, int], ...]
    constants: tuple[str, ...]
    max_premises: int  # premise lines (one goal line follows)
    max_depth: int  # nesting of a formula (solvers.fol.grammar_bounds)
    max_operands: int  # longest &/| chain


def grammar_bounds(task: Task) -> GrammarBounds:
    """Bounds sized from the task's gold formal object: premises + PREMISE_MARGIN lines, the
    gold formulas' depth + DEPTH_MARGIN and chain length + OPERAND_MARGIN, where depth and
    chain length are at least FRAGMENT_BOUNDS (so that every form of the fragment can be
    written, also those the task happens not to use)."""
    from solvers.fol import grammar_bounds as formula_bounds

    predicates, constants = task_signature(task)
    gold = _gold_formulas(task)
    depth, operands = formula_bounds(gold)
    return GrammarBounds(
        tuple(predicates.items()),
        tuple(constants),
        len(gold) - 1 + PREMISE_MARGIN,
        max(depth, FRAGMENT_BOUNDS[0]) + DEPTH_MARGIN,
        max(operands, FRAGMENT_BOUNDS[1]) + OPERAND_MARGIN,
    )


# ---- the per-task grammar ------------------------------------------------------------------
def task_grammar(bounds: GrammarBounds) -> Grammar:
    """The grammar object of ``bounds``: 1..max_premises lines ``premise: F.`` then one line
    ``goal: F.``, each formula from the bounded FOL grammar over the signature. Its Lark text is
    the decoding constraint; its parser reads a decoded formalization back
    (:func:`parse_formalization`)."""
    from solvers.fol import formula_grammar

    formula = formula_grammar(
        dict(bounds.predicates),
        list(bounds.constants),
        1,
        max_depth=bounds.max_depth,
        max_operands=bounds.max_operands,
    )
    n = bounds.max_premises
    comment = (
        f"Per-task grammar of a deduction formalization, built by "
        f"scir.tracks.deduction.formalize\nfrom grammars/fol.lark: 1..{n} premise lines "
        f"and one goal line; formulas over {len(bounds.predicates)} predicates and "
        f"{len(bounds.constants)} constants,\nnesting depth <= {bounds.max_depth}, &/| "
        f"chains <= {bounds.max_operands} operands, canonical spacing."
    )
    return formula.replace(
        rule("start", seq(rep(Ref("premise_line"), 1, n), Ref("goal_line"))),
        rule("premise_line", seq("premise: ", Ref("stmt"))),
        rule("goal_line", seq("goal: ", Ref("stmt"))),
        comment=comment,
    )


def build_grammar(bounds: GrammarBounds) -> str:
    """The Lark text of :func:`task_grammar` (the decoding constraint)."""
    return task_grammar(bounds).to_lark()


def formalization_grammar(task: Task) -> str:
    """The task's bounded grammar, checked by llguidance when it is installed."""
    return checked_grammar(build_grammar(grammar_bounds(task)))


# ---- the gold formal object as text --------------------------------------------------------
def format_formal(task: Task, formal: DeductionFormal | None = None) -> str:
    """A formal object (default: the task's gold one) in the grammar's canonical syntax."""
    from solvers.fol import parse_formula, to_prover9

    f = _gold(task) if formal is None else formal
    lines = [f"premise: {to_prover9(parse_formula(p))}." for p in f.premises]
    lines.append(f"goal: {to_prover9(parse_formula(f.goal))}.")
    return "\n".join(lines) + "\n"


# ---- parsing -------------------------------------------------------------------------------
class _Position(TypedDict):
    line: int
    column: int


def _position(text: str, index: int) -> _Position:
    line = text.count("\n", 0, index) + 1
    return {"line": line, "column": index - (text.rfind("\n", 0, index) + 1) + 1}


class Checker:
    """Parses one formula of a formalization and checks its names against the signature."""

    def __init__(self, predicates: dict[str, int], constants: list[str]) -> None:
        self.predicates = predicates
        self.constants = set(constants)
        self.known_predicates = ", ".join(predicates)
        self.known_constants = ", ".join(constants) or "none"

    def formula(self, text: str, line: int, column: int) -> Any:
        """The parsed formula on ``line`` starting at ``column`` (FormalizationError)."""
        from solvers.fol import parse_formula

        if len(text) > MAX_FORMULA_CHARS:
            raise FormalizationError(
                f"formula too long ({len(text)} characters; at most {MAX_FORMULA_CHARS})",
                line=line,
                column=column,
            )
        try:
            formula = parse_formula(text)
        except SolverInputError as exc:
            offset = (exc.column or 1) - 1 if (exc.line or 1) == 1 else 0
            raise FormalizationError(exc.message, line=line, column=column + offset) from exc
        try:
            self.names(formula, text, line, column)
        except RecursionError as exc:
            raise FormalizationError("formula nested too deeply", line=line, column=column) from exc
        return formula

    def names(self, formula: Any, text: str, line: int, column: int) -> None:
        """FormalizationError at the first name the task's signature does not have."""
        from solvers.fol import Atom, Const, Eq, walk

        def fail(message: str, name: str) -> FormalizationError:
            found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)
            return FormalizationError(
                message, line=line, column=column + (found.start() if found else 0)
            )

        for node in walk(formula):
            if isinstance(node, Atom):
                arity = self.predicates.get(node.pred)
                if arity is None:
                    raise fail(
                        f"unknown predicate {node.pred!r}; this problem's predicates "
                        f"are {self.known_predicates}",
                        node.pred,
                    )
                if arity != len(node.args):
                    raise fail(
                        f"predicate {node.pred} takes {arity} argument"
                        f"{'' if arity == 1 else 's'}, not {len(node.args)}",
                        node.pred,
                    )
                terms = node.args
            elif isinstance(node, Eq):
                terms = (node.left, node.right)
            else:
                continue
            for term in terms:
                if isinstance(term, Const) and term.name not in self.constants:
                    raise fail(
                        f"unknown individual {term.name!r}; this problem's individuals "
                        f"are {self.known_constants} (variables start with u-z)",
                        term.name,
                    )


def _parse_decoded(task: Task, text: str) -> Formalization | None:
    """The formal object of ``text`` read by the task's own grammar object (the one whose Lark
    text constrained the decoder: :func:`task_grammar`), from its parse tree (its repetition
    counts -- premise lines, chain lengths -- checked on the tree); None when the text is not
    in that grammar's language (or a formula is over the length limit), which the
    line-by-line reader of :func:`parse_formalization` then explains with a position."""
    from lark.exceptions import LarkError

    from solvers.fol import to_prover9
    from solvers.fol_grammar import formula_of_tree

    try:
        bounds = grammar_bounds(task)
    except TaskFormatError:
        return None
    try:  # the counts are checked below: building the LALR tables is then ~3x faster
        tree = task_grammar(bounds).unbounded().parse(text, keep_all_tokens=True, lexer="basic")
    except LarkError:  # not in the language (or, a bug, no LALR tables): the other reader
        return None
    lines = [c for c in tree.children if getattr(c, "data", None) in ("premise_line", "goal_line")]
    chains = (
        t for t in tree.iter_subtrees() if t.data.startswith(("conjunction_", "disjunction_"))
    )
    if len(lines) - 1 > bounds.max_premises or any(
        sum(1 for c in t.children if not isinstance(c, str)) > bounds.max_operands for t in chains
    ):
        return None
    formulas = []
    for line in lines:
        stmt = next(c for c in line.children if getattr(c, "data", None) == "stmt")
        if stmt.meta.end_pos - stmt.meta.start_pos > MAX_FORMULA_CHARS + 2:
            return None
        formulas.append(to_prover9(formula_of_tree(stmt)))
    *premises, goal = formulas
    return Formalization(DeductionFormal(tuple(premises), goal), len(premises))


def parse_formalization(task: Task, text: str) -> Formalization:
    """Parse a formalization of ``task`` into its formal object (``premises``, ``goal``: the
    canonical Prover9 strings); items = premises. A text in the language of the task's
    grammar (what constrained decoding writes) is read from that grammar's parse tree; any
    other text line by line, with the same result where both apply. Blank lines and a Markdown code fence around
    the text are ignored; the formulas need not be in canonical spacing. Raises
    FormalizationError with line and column on non-ASCII or control characters, a line that
    is neither ``premise: F.`` nor ``goal: F.``, a formula that does not parse (or uses a
    reserved word), a predicate or individual the task does not have, a wrong arity, no
    premise, no goal or a second goal, and on texts beyond the size limits."""
    if not isinstance(text, str):
        raise FormalizationError(f"a formalization is text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise FormalizationError(
            f"formalization too long ({len(text)} characters; at most {MAX_TEXT_CHARS})"
        )
    bad = _BAD_CHARACTER.search(text)
    if bad:
        raise FormalizationError(
            f"character {bad.group()!r} is not allowed (plain ASCII only)",
            **_position(text, bad.start()),
        )
    checker = Checker(*task_signature(task))
    lines = unfence(text.split("\n"))
    decoded = _parse_decoded(task, "\n".join(lines))
    return decoded if decoded is not None else parse_lines(checker, lines)


def parse_lines(checker: Checker, lines: list[str]) -> Formalization:
    """The line-by-line reader of :func:`parse_formalization` (any layout; FormalizationError
    with line and column); on the texts of the task's grammar it gives what its parse tree
    gives (tests/test_grammar.py)."""
    from solvers.fol import to_prover9

    premises: list[Any] = []
    goal, goal_line = None, 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        match = _STATEMENT.fullmatch(line)
        if match is None:
            raise FormalizationError(
                "expected a line 'premise: FORMULA.' or 'goal: FORMULA.'",
                line=number,
                column=len(line) - len(line.lstrip()) + 1,
            )
        formula = checker.formula(match.group("formula"), number, match.start("formula") + 1)
        if match.group("kind").lower() == "goal":
            if goal is not None:
                raise FormalizationError(
                    f"a second goal line (the goal is on line {goal_line})", line=number, column=1
                )
            goal, goal_line = formula, number
        elif len(premises) == MAX_PREMISES:
            raise FormalizationError(f"more than {MAX_PREMISES} premises", line=number, column=1)
        else:
            premises.append(formula)
    last: _Position = {"line": len(lines), "column": 1}
    if goal is None:
        raise FormalizationError(
            "no goal line: end with 'goal: FORMULA.' stating the statement asked about", **last
        )
    if not premises:
        raise FormalizationError(
            "no premise line: write one 'premise: FORMULA.' per statement of the problem", **last
        )
    try:
        formal = DeductionFormal(tuple(to_prover9(p) for p in premises), to_prover9(goal))
    except RecursionError as exc:
        raise FormalizationError("a formula is nested too deeply") from exc
    return Formalization(formal, len(premises))


# ---- prompts -------------------------------------------------------------------------------
def signature_text(task: Task) -> str:
    """The task's predicates and individuals, one per line, with their words when the task
    has a lexicon (``sox10_positive(x): x is a Sox10-positive cell``, ``cell_n1: cell N1``)."""
    predicates, constants = task_signature(task)
    lexicon = (task.domain_metadata or {}).get("lexicon")
    lexicon = lexicon if isinstance(lexicon, dict) else {}
    nouns, names = lexicon.get("predicates"), lexicon.get("individuals")
    nouns = nouns if isinstance(nouns, dict) else {}
    names = names if isinstance(names, dict) else {}
    lines = []
    for name, arity in predicates.items():
        entry = nouns.get(name)
        noun = entry.get("noun") if isinstance(entry, dict) else None
        if arity == 1 and isinstance(entry, dict) and isinstance(noun, str):
            article = entry.get("article") if isinstance(entry.get("article"), str) else "a"
            lines.append(f"{name}(x): x is {article} {noun}")
        else:
            args = ", ".join(f"x{i + 1}" for i in range(arity))
            lines.append(f"{name}({args})" if arity else name)
    for name in constants:
        word = names.get(name)
        lines.append(f"{name}: {word}" if isinstance(word, str) else name)
    return "\n".join(lines)


__all__ = [
    "Checker",
    "GrammarBounds",
    "build_grammar",
    "format_formal",
    "formalization_grammar",
    "grammar_bounds",
    "parse_formalization",
    "parse_lines",
    "signature_text",
    "task_grammar",
    "task_signature",
]
