"""solvers.prolog.reader, the strict Python reader used on untrusted Prolog, checked
against SWI-Prolog's own reader: for every text both accept, the terms must be equal."""

from __future__ import annotations

from typing import Any

import pytest

from solvers.errors import SolverInputError
from solvers.prolog import Engine, Term, Var
from solvers.prolog.reader import read_program

SAME_AS_SWI = [
    "a :- b, c ; d -> e ; f",
    "p(X, Y) :- \\+ q(X), r(Y, _), _Z = X, s(_, _Z)",
    "X is 1 - 2 - 3 + 4 * 5 / 6 mod 7 // 2",
    "X = 2 ^ 3 ^ 4",
    "X = - 1",
    "X = -1",
    "X = - a",
    "X = -(1)",
    "X = -(-(1))",
    "X = a - -1",
    "X = 1 - -1.5",
    "X = - - a",
    "X = f(:- a), Y = [- a, \\+ b]",
    "X = \\ 1",
    "X = f(- 1, -x, -(-1))",
    "f(-, +, \\+, !, [], {}, '[]', 'hello world', 'it''s', 'a\\nb', '\\x41\\', '\\101\\')",
    "L = [a, b | T]",
    "L = [a | [b | []]]",
    "L = [[1, 2], [], [c | _]]",
    "C = {a, b}",
    "X = 'ünï code'",
    "X = λx",
    "X = [0'a, 0'\\n, 0''', 0' ]",
    "X = [0x1F, 0o17, 0b101, 1_000_000, 1.5e3, 2.0E-2, 1.0e10, 12345678901234567890123]",
    "X = a:b:c",
    "X = (a :- b)",
    "X = f((a, b))",
    "X = [(a :- b), (c, d)]",
    "p :- a, (b ; c), \\+ (d, e), (f -> g ; h), (i *-> j)",
    "X = - (1)",
    "X = f(a)-g(b)",
    "X = 'hello'(world)",
    "X == Y, X =.. [f, a], X @< Y, X =\\= Y, X \\== Y, X >= 1, X =< 2",
    "X = a /* comment */ + b % line comment\n",
    "X = (:- a)",
    "X = dynamic(a)",
    "X = (dynamic a, b)",
    "X = 1 + 2 * 3 - 4 ** 2",
    "X = f(x, Y, _, _)",
    "X = 1.0Inf",
    "X = 'a\\\nb'",
    "X = f(;, '|', ',')",
    "X = [a|b]",
    "X = \"\"",
]

BOTH_REJECT = [
    "X = \\+a",
    "X = (a",
    "X = [a, b",
    "X = f(a,)",
    "X = 'unterminated",
    "X = f(a) g",
    "X = a b",
    "X = 2 ** 3 ** 4",
    "X = f (a)",
]


@pytest.fixture(scope="module")
def m():
    with Engine().module() as module:
        yield module


def canonical(value: Any, names: dict[str, str] | None = None) -> Any:
    """Tuples become lists and variables are renamed _G1, _G2, ... by first occurrence
    (the order SWI numbers them in); anonymous variables stay distinct."""
    names = {} if names is None else names
    if isinstance(value, Var):
        names.setdefault(value.name, f"_G{len(names) + 1}")
        return Var(names[value.name])
    if isinstance(value, (list, tuple)):
        return [canonical(v, names) for v in value]
    if isinstance(value, Term):
        return (value.name, canonical(list(value.args), names))
    return value


@pytest.mark.parametrize("text", SAME_AS_SWI)
def test_reader_agrees_with_swi(m, text):
    if '"' in text:
        with pytest.raises(SolverInputError, match="quoted strings are not supported"):
            read_program(text + " .")
        return
    (clause,) = read_program(text + " .")
    swi = m.query_once("term_string(T, S)", {"S": text})["T"]
    assert canonical(clause.term) == canonical(swi)


@pytest.mark.parametrize("text", BOTH_REJECT)
def test_reader_rejects_what_swi_rejects(m, text):
    with pytest.raises(SolverInputError, match="[Ss]yntax error"):
        read_program(text + " .")
    with pytest.raises(SolverInputError, match="[Ss]yntax error"):
        m.query("term_string(T, S)", {"S": text})


def test_positions_and_clauses():
    text = "p(a).\n% comment\n  q(X) :-\n     r(X).\n/* block\n comment */ s."
    clauses = read_program(text)
    assert [(c.line, c.column) for c in clauses] == [(1, 1), (3, 3), (6, 13)]
    with pytest.raises(SolverInputError) as info:
        read_program("p(a).\nq(b) :- r(\n  c d).")
    assert (info.value.line, info.value.column) == (3, 5)


def test_limits():
    with pytest.raises(SolverInputError, match="nested deeper than 200"):
        read_program("p(" + "f(" * 300 + "a" + ")" * 301 + ".")
    with pytest.raises(SolverInputError, match="program too long"):
        read_program("p." * 10, max_chars=5)
    long_body = "p :- " + ", ".join(["true"] * 5000) + "."
    (clause,) = read_program(long_body)                 # long conjunctions read iteratively
    assert clause.term.args[1].name == ","


@pytest.mark.parametrize("text, message", [
    ("p :- \"s\".", "quoted strings are not supported"),
    ("p :- `s`.", "quoted strings are not supported"),
    ("p('\\q').", "undefined escape sequence"),
    ("p(a) /* never closed", "unterminated block comment"),
    ("p(a)", "missing full stop"),
    (". p.", "full stop without a clause"),
    ("p(a) :- b ; .", "unexpected end of clause"),
    ("p(\x01).", "unexpected character"),
])
def test_syntax_errors(text, message):
    with pytest.raises(SolverInputError, match=message):
        read_program(text)
