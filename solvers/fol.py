"""First-order formulas in Prover9 syntax: the parser, and the public face of the FOL tools.

The syntax is ``grammars/fol.lark`` (read through :mod:`solvers.resources`), parsed with Lark's
LALR parser into the AST of :mod:`solvers.fol_ast`; per-task grammars come from
:mod:`solvers.fol_grammar`. Everything is importable from here.

    >>> f = parse_formula("all x (man(x) -> mortal(x)).")
    >>> to_prover9(f)
    'all x (man(x) -> mortal(x))'
    >>> signature([f, parse_formula("man(socrates)")])
    ({'man': 1, 'mortal': 1}, ['socrates'])
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from solvers import resources
from solvers.errors import SolverInputError
from solvers.fol_ast import (
    BINARY,
    And,
    Atom,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Term,
    Var,
    format_formulas,
    free_variables,
    is_literal,
    signature,
    to_prover9,
    universal_closure,
    walk,
)
from solvers.fol_grammar import (
    RESERVED,
    check_signature,
    formula_grammar,
    grammar_bounds,
    instantiate_grammar,
)

__all__ = [
    "Const",
    "Var",
    "Term",
    "Atom",
    "Eq",
    "Not",
    "And",
    "Or",
    "Implies",
    "Iff",
    "Forall",
    "Exists",
    "Formula",
    "parse_formula",
    "parse_formulas",
    "to_prover9",
    "format_formulas",
    "signature",
    "free_variables",
    "universal_closure",
    "grammar_bounds",
    "instantiate_grammar",
    "formula_grammar",
    "check_signature",
    "is_literal",
    "walk",
    "BINARY",
]

_TRAILING_DOT = re.compile(r"\.\s*\Z")
_KEYWORDS = ("ALL", "EXISTS")
_TERMINAL_NAMES = {
    "NAME": "a name starting with a-t",
    "VARIABLE": "a variable (a name starting with u-z)",
    "ALL": "'all'",
    "EXISTS": "'exists'",
    "$END": "end of input",
}


def _fold_right(cls: type, items: list) -> Formula:
    result = items[-1]
    for item in reversed(items[:-1]):
        result = cls(item, result)
    return result


def _name_error(message: str, token: Token) -> SolverInputError:
    return SolverInputError(message, line=token.line, column=token.column)


class _ToAst(Transformer):
    """Lark parse tree of ``fol.lark`` -> :data:`Formula` AST."""

    def start(self, children: list) -> list:
        return list(children)

    def implies(self, children: list) -> Formula:
        return Implies(children[0], children[1])

    def iff(self, children: list) -> Formula:
        return Iff(children[0], children[1])

    def disjunction(self, children: list) -> Formula:
        return _fold_right(Or, children)

    def conjunction(self, children: list) -> Formula:
        return _fold_right(And, children)

    def negation(self, children: list) -> Formula:
        return Not(children[0])

    def forall(self, children: list) -> Formula:  # children: ALL token, variable, body
        return Forall(children[1].name, children[2])

    def exists(self, children: list) -> Formula:
        return Exists(children[1].name, children[2])

    def equality(self, children: list) -> Formula:
        return Eq(children[0], children[1])

    def inequality(self, children: list) -> Formula:
        return Not(Eq(children[0], children[1]))

    def atom(self, children: list) -> Formula:
        token = children[0]
        if token in RESERVED:
            raise _name_error(f"{token!s} is a reserved word, not a predicate", token)
        return Atom(str(token), tuple(children[1:]))

    def predicate(self, children: list) -> Token:
        return children[0]

    def proposition(self, children: list) -> Token:
        return children[0]

    def constant(self, children: list) -> Const:
        token = children[0]
        if token in RESERVED:
            raise _name_error(f"{token!s} is a reserved word, not a constant", token)
        return Const(str(token))

    def variable(self, children: list) -> Var:
        return Var(str(children[0]))


def _keywords_first(terminal) -> None:
    if terminal.name in _KEYWORDS:  # `all ` must lex as ALL, not as NAME `all`
        terminal.priority = 2


@cache
def _parser() -> Lark:
    return Lark(
        resources.read_text("grammars", "fol.lark"),
        parser="lalr",
        lexer="contextual",
        start=["start", "formula"],
        edit_terminals=_keywords_first,
    )


def _describe_expected(parser: Lark, names: Iterable[str]) -> str:
    described = set()
    for name in names:
        if name in _TERMINAL_NAMES:
            described.add(_TERMINAL_NAMES[name])
            continue
        pattern = parser.get_terminal(name).pattern
        described.add(repr(pattern.value) if pattern.type == "str" else name.lower())
    return ", ".join(sorted(described))


def _syntax_error(text: str, exc: UnexpectedInput) -> SolverInputError:
    parser = _parser()
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedEOF) or (isinstance(token, Token) and token.type == "$END"):
        line = text.count("\n") + 1
        column = len(text) - (text.rfind("\n") + 1) + 1
        found = "end of input"
    elif isinstance(exc, UnexpectedCharacters):
        line, column = exc.line, exc.column
        assert exc.pos_in_stream is not None  # lark sets it for every unexpected character
        found = repr(text[exc.pos_in_stream])
    else:
        line, column = exc.line, exc.column
        found = repr(str(token).strip())
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()
    message = f"unexpected {found}"
    if expected:
        message += f"; expected {_describe_expected(parser, expected)}"
    return SolverInputError(message, line=line, column=column)


def _parse(text: str, start: str):
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from exc
    try:
        return _ToAst().transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, SolverInputError):
            raise exc.orig_exc from exc
        raise SolverInputError(f"cannot build formula: {exc.orig_exc}") from exc
    except RecursionError as exc:
        raise SolverInputError("formula nested too deeply") from exc


def parse_formula(text: str) -> Formula:
    """Parse one formula (the final ``.`` is optional); raise SolverInputError with line/column."""
    match = _TRAILING_DOT.search(text)
    return _parse(text[: match.start()] if match else text, "formula")


def parse_formulas(text: str) -> list[Formula]:
    """Parse a sequence of ``.``-terminated formulas; raise SolverInputError with line/column."""
    return _parse(text, "start")
