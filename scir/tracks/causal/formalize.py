"""Formalizations of causal tasks: the per-task grammar of constrained decoding, the parser
that turns a model's text into a formal object, the gold formal object in the same syntax, and
the prompts (cot / formalize / symbcot).

The syntax is ``grammars/causal.lark``: a ``columns:`` line, known edges ``Raf -> Mek``, then
per environment a header ``environment: KIND`` (``observational``, ``inhibition of T`` or
``activation of T``) and one line of numbers per cell. Text is untrusted: it is parsed with
Lark, every name is resolved against the task's proteins and every number checked, and only
the resulting lists of names and floats reach GIES (which validates them once more).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from scir.errors import FormalizationError, TaskFormatError
from scir.tasks import Task
from scir.tracks.base import Formalization, load_formal
from scir.tracks.causal.formal import CausalEnvironment, CausalFormal
from scir.tracks.causal.grammar import (
    PERMUTATION_MAX,  # noqa: F401  (re-exported)
    read_decoded,
    task_grammar,
)
from scir.tracks.causal.graph import NEW_PROTEIN
from scir.tracks.causal.options import letter
from scir.tracks.causal.scm import ACTIVATION, DECIMALS, INHIBITION, OBSERVATIONAL, environment_name
from scir.tracks.formal_text import (
    checked_grammar,
    generic_parser,
    syntax_error,
    token_error,
    unfence,
)

MAX_ABS = 1e6  # |value| above this is not a concentration
MAX_ENVIRONMENTS = 64  # parser limits (the per-task grammar is far tighter)
MAX_ROWS = 10_000  # per environment (the generator's --samples maximum)
MAX_TEXT_CHARS = 2_000_000
EDGE_MARGIN = 2  # known-edge lines the grammar allows beyond the gold count
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_KEYWORDS = frozenset({"columns", "environment", "observational", "inhibition", "activation", "of"})
_KIND_OF = {"observational": OBSERVATIONAL, "inhibition": INHIBITION, "activation": ACTIVATION}
_FENCE = re.compile(r"[ \t]*```[A-Za-z0-9_-]*[ \t]*")  # a code fence line (no \r)


# ---- the task's proteins and the grammar's bounds ------------------------------------------
def task_nodes(task: Task) -> tuple[list[str], str]:
    """(proteins, new protein): the subgraph proteins then the new protein, from
    ``domain_metadata`` (or the formal object's ``nodes``); TaskFormatError if malformed."""
    meta = task.domain_metadata or {}
    new = meta.get("new_protein", NEW_PROTEIN)
    if isinstance(meta.get("subgraph_nodes"), list):
        nodes = list(meta["subgraph_nodes"]) + [new]
    else:
        nodes = list(load_formal(CausalFormal, task).nodes)
    if not isinstance(new, str) or new not in nodes:
        raise TaskFormatError(
            "the new protein is not among the task's proteins",
            task_id=task.task_id,
            field="domain_metadata.new_protein",
        )
    for name in nodes:
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in _KEYWORDS:
            raise TaskFormatError(
                f"protein name {name!r} cannot be formalized (expected "
                f"{_NAME.pattern}, not a keyword)",
                task_id=task.task_id,
                field="domain_metadata.subgraph_nodes",
            )
    if len({n.casefold() for n in nodes}) != len(nodes):
        raise TaskFormatError(
            "a protein is listed twice",
            task_id=task.task_id,
            field="domain_metadata.subgraph_nodes",
        )
    return [n for n in nodes if n != new] + [new], new


@dataclass(frozen=True)
class GrammarBounds:
    """What the per-task grammar allows: the proteins (new protein last) and the bounds."""

    nodes: tuple[str, ...]
    new_protein: str
    column_order: tuple[str, ...]  # the printed order: the columns line beyond PERMUTATION_MAX
    max_edges: int  # known-edge lines
    max_environments: int
    max_rows: int  # rows per environment (at least 2)
    max_targets: int  # intervention targets per environment
    int_digits: int  # integer digits of a number (the decimals are DECIMALS)

    @property
    def width(self) -> int:
        """Numbers per row: one per protein."""
        return len(self.nodes)


def grammar_bounds(task: Task) -> GrammarBounds:
    """Bounds sized from the task: the gold object's counts (edges + EDGE_MARGIN, its
    environments, rows and targets, the integer digits of its largest value); without a gold
    object, the task's parameters (and 3 integer digits)."""
    nodes, new = task_nodes(task)
    formal, params = load_formal(CausalFormal, task), task.params or {}
    sub = len(nodes) - 1
    envs = formal.environments
    values = [abs(v) for e in envs for r in e.rows for v in r]
    edges = len(formal.known_edges)
    if envs:
        n_envs = len(envs)
        rows = max(len(e.rows) for e in envs)
        targets = max(len(e.targets) for e in envs)
    else:
        n_envs = int(params.get("interventions", 3)) + 1
        rows = int(params.get("samples", 16))
        targets = 1
    digits = len(str(int(max(values)))) if values else 3
    printed = formal.columns
    order = (
        tuple(printed)
        if printed is not None and sorted(map(str, printed)) == sorted(nodes)
        else tuple(nodes)
    )
    return GrammarBounds(
        tuple(nodes),
        new,
        order,
        min(edges + EDGE_MARGIN, sub * (sub - 1)),
        max(1, min(n_envs, MAX_ENVIRONMENTS)),
        max(2, min(rows, MAX_ROWS)),
        max(1, min(targets, len(nodes))),
        max(1, min(digits, 6)),
    )


# ---- the per-task grammar (scir.tracks.causal.grammar) ---------------------------------------
def build_grammar(b: GrammarBounds) -> str:
    """The Lark text of :func:`scir.tracks.causal.grammar.task_grammar` (the decoding
    constraint): canonical spacing, one line per item, each line ending in a newline; the
    columns a permutation of the proteins, known edges between two distinct proteins other
    than the new one, ``b.width`` numbers per row."""

    return task_grammar(b).to_lark()


def max_output_chars(b: GrammarBounds) -> int:
    """The length of the longest text the grammar of ``b`` accepts (ASCII: also its bytes,
    hence an upper bound on the tokens of any byte-level tokenizer, before EOS)."""
    longest = max(len(n) for n in b.nodes)
    subs = sorted((len(n) for n in b.nodes if n != b.new_protein), reverse=True)
    columns = len("columns: ") + sum(len(n) for n in b.nodes) + 2 * (b.width - 1) + 1
    edges = b.max_edges * (sum(subs[:2]) + len(" -> ") + 1) if len(subs) > 1 else 0
    targets = b.max_targets * longest + 2 * (b.max_targets - 1)
    kind = max(
        len("observational"), len("inhibition of ") + targets, len("activation of ") + targets
    )
    header = len("environment: ") + kind + 1
    row = b.width * (b.int_digits + 1 + DECIMALS) + (b.width - 1) + 1
    return columns + edges + b.max_environments * (header + b.max_rows * row)


def formalization_grammar(task: Task) -> str:
    """The task's bounded grammar, checked by llguidance when it is installed."""
    return checked_grammar(build_grammar(grammar_bounds(task)))


def max_formalization_chars(task: Task) -> int:
    """The longest formalization the task's grammar accepts (size ``max_tokens`` from it)."""
    return max_output_chars(grammar_bounds(task))


# ---- the gold formal object as text ----------------------------------------------------------
def format_formal(task: Task, formal: CausalFormal | None = None) -> str:
    """A formal object (default: the task's gold one) in the grammar's canonical syntax."""
    f = load_formal(CausalFormal, task) if formal is None else formal
    lines = ["columns: " + ", ".join(f.column_order)]
    lines += [f"{a} -> {b}" for a, b in f.known_edges]
    for env in f.environments:
        kind = env.kind or (OBSERVATIONAL if not env.targets else INHIBITION)
        what = kind if kind == OBSERVATIONAL else f"{kind} of {', '.join(env.targets)}"
        lines.append(f"environment: {what}")
        lines += [" ".join(f"{v:.{DECIMALS}f}" for v in row) for row in env.rows]
    return "\n".join(lines) + "\n"


# ---- parsing ---------------------------------------------------------------------------------
def _describe(terminal: str) -> str:
    """A terminal of the generic grammar as the model should read it."""
    words = {
        "_NL": "a line break",
        "NAME": "a protein name",
        "NUMBER": "a number",
        "$END": "the end of the text",
    }
    if terminal in words:
        return words[terminal]
    terminals = generic_parser("causal.lark").terminals
    pattern = next((t.pattern for t in terminals if t.name == terminal), None)
    return repr(pattern.value) if pattern is not None and pattern.type == "str" else terminal


def _syntax_error(exc: Exception) -> FormalizationError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        expected = sorted(_describe(name) for name in (exc.accepts or exc.expected))
        what = (
            f"unexpected {str(exc.token)[:40]!r} (expected {' or '.join(expected[:6])}"
            f"{' ...' if len(expected) > 6 else ''})"
        )
    elif isinstance(exc, UnexpectedCharacters):
        what = f"unexpected character {exc.char!r}"
    else:
        what = "unexpected end of text"
    return syntax_error(exc, what)


class _Reader:
    """Resolves the tokens of one parse tree against a task's proteins."""

    def __init__(self, nodes: list[str]) -> None:
        self.known = {n.casefold(): n for n in nodes}

    fail = staticmethod(token_error)

    def name(self, token: Any, what: str) -> str:
        found = self.known.get(str(token).casefold())
        if found is None:
            raise self.fail(
                f"unknown protein {str(token)!r} in {what} (known: "
                f"{', '.join(self.known.values())})",
                token,
            )
        return found

    def number(self, token: Any) -> float:
        value = float(str(token))
        if not math.isfinite(value):
            raise self.fail(f"{str(token)!r} is not a finite number", token)
        if abs(value) > MAX_ABS:
            raise self.fail(f"{str(token)!r} is out of range (|value| <= {MAX_ABS:g})", token)
        return value


def parse_formalization(task: Task, text: str) -> Formalization:
    """Parse a formalization of ``task`` into its formal object (``nodes``, ``columns``,
    ``known_edges``, ``environments``); items = data rows + known edges. Raises
    FormalizationError with line and column on syntax errors, unknown or repeated column
    names, self-loops or edges at the new protein, rows of the wrong width, non-finite or
    out-of-range numbers and environments with fewer than 2 rows. A repeated edge or target
    is kept once; environments are named after kind and targets (``inhibit_Akt``). A text in
    the language of the task's grammar (what constrained decoding writes) is read from that
    grammar's parse tree (:mod:`scir.tracks.causal.grammar`); any other text by the generic
    grammar, with the same result where both apply."""

    if not isinstance(text, str):
        raise FormalizationError(f"a formalization is text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise FormalizationError(f"formalization too long ({len(text)} characters)")
    nodes, new = task_nodes(task)
    body = "\n".join(unfence(text.split("\n"), _FENCE))
    decoded = read_decoded(grammar_bounds(task), nodes, body)
    if decoded is not None:
        return formalization(
            decoded["nodes"], decoded["columns"], decoded["known_edges"], decoded["environments"]
        )
    return parse_generic(task, body)


def parse_generic(task: Task, body: str) -> Formalization:
    """The generic reader of :func:`parse_formalization` (``grammars/causal.lark``, any
    layout; FormalizationError with line and column); on the texts of the task's grammar it
    gives what that grammar's parse tree gives (tests/test_grammar.py)."""
    from lark.exceptions import UnexpectedInput

    nodes, new = task_nodes(task)
    try:
        tree = generic_parser("causal.lark").parse(body if body.endswith("\n") else body + "\n")
    except UnexpectedInput as exc:
        raise _syntax_error(exc) from exc
    reader = _Reader(nodes)
    columns_tree, *rest = tree.children
    columns = _columns(reader, columns_tree, nodes)
    edges: list[list[str]] = []
    environments: list[dict[str, Any]] = []
    for item in rest:
        if item.data == "edge":
            edge = _edge(reader, item, new)
            if edge not in edges:
                edges.append(edge)
        elif len(environments) == MAX_ENVIRONMENTS:
            raise FormalizationError(
                f"more than {MAX_ENVIRONMENTS} environments",
                line=item.meta.line,
                column=item.meta.column,
            )
        else:
            environments.append(_environment(reader, item, len(columns), environments))
    return formalization(nodes, columns, edges, environments)


def formalization(
    nodes: list[str], columns: list[str], edges: list[list[str]], environments: list[dict[str, Any]]
) -> Formalization:
    """The typed formal object of a parsed formalization (both readers build it here); items
    = rows + edges."""
    formal = CausalFormal(
        tuple(nodes),
        tuple(
            CausalEnvironment(
                e["name"], tuple(e["targets"]), tuple(tuple(r) for r in e["rows"]), e["kind"]
            )
            for e in environments
        ),
        tuple((a, b) for a, b in edges),
        None,
        tuple(columns),
    )
    return Formalization(formal, sum(len(e["rows"]) for e in environments) + len(edges))


def _columns(reader: _Reader, tree: Any, nodes: list[str]) -> list[str]:
    columns: list[str] = []
    for token in tree.children:
        name = reader.name(token, "columns")
        if name in columns:
            raise reader.fail(f"column {name} is listed twice", token)
        columns.append(name)
    missing = [n for n in nodes if n not in columns]
    if missing:
        raise FormalizationError(
            f"columns must name every protein once; missing {', '.join(missing)}",
            line=tree.meta.line,
            column=tree.meta.column,
        )
    return columns


def _edge(reader: _Reader, tree: Any, new: str) -> list[str]:
    a_tok, b_tok = tree.children
    a, b = reader.name(a_tok, "a known edge"), reader.name(b_tok, "a known edge")
    if new in (a, b):
        raise reader.fail(
            f"the edges of {new} are unknown: list only known edges among the other proteins", a_tok
        )
    if a == b:
        raise reader.fail(f"edge {a} -> {b} is a self-loop", a_tok)
    return [a, b]


def _environment(
    reader: _Reader, tree: Any, width: int, seen: list[dict[str, Any]]
) -> dict[str, Any]:
    header, *rows = tree.children
    (kind_tree,) = header.children
    kind = _KIND_OF[kind_tree.data]
    targets: list[str] = []
    for token in kind_tree.children:
        target = reader.name(token, "the targets of an environment")
        if target not in targets:
            targets.append(target)
    where = {"line": header.meta.line, "column": header.meta.column}
    if len(rows) < 2:
        raise FormalizationError(
            f"an environment has {len(rows)} row; at least 2 are needed", **where
        )
    if len(rows) > MAX_ROWS:
        raise FormalizationError(f"an environment has more than {MAX_ROWS} rows", **where)
    table = []
    for row in rows:
        if len(row.children) != width:
            raise FormalizationError(
                f"a row has {len(row.children)} numbers; expected {width} (one per column)",
                line=row.meta.line,
                column=row.meta.column,
            )
        table.append([reader.number(t) for t in row.children])
    name = environment_name(kind, targets, [e["name"] for e in seen])
    return {"name": name, "kind": kind, "targets": targets, "rows": table}


# ---- prompts ---------------------------------------------------------------------------------
def options_text(task: Task) -> str:
    """The lettered options, one per line (``A. XYZ -> Raf``)."""
    return "\n".join(f"{letter(i)}. {text}" for i, text in enumerate(task.options))


__all__ = [
    "GrammarBounds",
    "build_grammar",
    "environment_name",
    "format_formal",
    "formalization_grammar",
    "grammar_bounds",
    "max_formalization_chars",
    "max_output_chars",
    "options_text",
    "parse_formalization",
    "parse_generic",
    "task_nodes",
]
