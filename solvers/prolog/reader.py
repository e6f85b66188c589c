"""A strict reader for Prolog clause text, in Python, without running Prolog.

Used on untrusted text (a hand-written program checked by ``scir check``) by
:mod:`solvers.sandbox`: the program is read here, checked, and sent to the worker as terms,
so the checked terms are exactly the terms that run. The tokens come from
:mod:`solvers.prolog.lexer`; this module is the operator-precedence parser. The syntax is
standard Prolog with SWI-Prolog's default operator table, fixed (``op/3`` is not honoured).
Not supported, rejected as syntax errors: double-quoted and back-quoted strings,
``Radix'digits``, the bar ``|`` as an infix operator, dicts.

Values: atoms -> ``str``; numbers -> ``int``/``float``; ``[]`` and proper lists -> ``list``;
``[H|T]`` -> ``Term("[|]", (H, T))``; compounds -> ``Term``; variables -> ``Var`` (each ``_``
gets a fresh name unused in its clause).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solvers.errors import SolverInputError
from solvers.prolog.lexer import Lexer, Token
from solvers.prolog.lexer import syntax_error as _error
from solvers.prolog.terms import Term, Var, term_depth

INFIX: dict[str, tuple[int, str]] = {
    ":-": (1200, "xfx"),
    "-->": (1200, "xfx"),
    ";": (1100, "xfy"),
    "->": (1050, "xfy"),
    "*->": (1050, "xfy"),
    ",": (1000, "xfy"),
    ":=": (990, "xfx"),
    **{
        op: (700, "xfx")
        for op in (
            "=",
            "\\=",
            "==",
            "\\==",
            "@<",
            "@>",
            "@=<",
            "@>=",
            "=..",
            "is",
            "=:=",
            "=\\=",
            "<",
            ">",
            "=<",
            ">=",
            ">:<",
            ":<",
            "as",
        )
    },
    ":": (600, "xfy"),
    **{op: (500, "yfx") for op in ("+", "-", "/\\", "\\/", "xor")},
    **{
        op: (400, "yfx")
        for op in ("*", "/", "//", "rem", "mod", "div", "<<", ">>", "divmod", "rdiv")
    },
    "**": (200, "xfx"),
    "^": (200, "xfy"),
}
PREFIX: dict[str, tuple[int, str]] = {
    ":-": (1200, "fx"),
    "?-": (1200, "fx"),
    "\\+": (900, "fy"),
    "-": (200, "fy"),
    "+": (200, "fy"),
    "\\": (200, "fy"),
    **{
        op: (1150, "fx")
        for op in (
            "dynamic",
            "discontiguous",
            "initialization",
            "meta_predicate",
            "module_transparent",
            "multifile",
            "public",
            "thread_local",
            "table",
        )
    },
}
TERMINATORS = {")", ",", "|", "]", "}"}


@dataclass(frozen=True)
class ReadClause:
    """A clause (any term ended by a full stop), where it starts, and its tokens (so that a
    check can point at the token it objects to)."""

    term: Any
    line: int
    column: int
    tokens: tuple[Token, ...] = field(default=(), compare=False, repr=False)

    def position_of(self, name: str, after: str | None = None) -> tuple[int, int]:
        """Line and column of the first name token ``name`` (after the first ``after``
        token, when given); the clause's start when there is none."""
        seen = after is None
        for tok in self.tokens:
            if not seen:
                seen = tok.kind == "name" and tok.value == after
                continue
            if tok.kind in ("name", "qname") and tok.value == name:
                return tok.line, tok.column
        return self.line, self.column


class _Parser:
    def __init__(self, tokens: list[Token], max_depth: int) -> None:
        self.toks = tokens
        self.i = 0
        self.max_depth = max_depth
        self.depth = 0
        names = {t.value for t in tokens if t.kind == "var"}
        self.anon = (f"_{n}" for n in range(10**9) if f"_{n}" not in names)

    def peek(self, k: int = 0) -> Token:
        return self.toks[self.i + k]

    def next(self) -> Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def fail(self, message: str, tok: Token | None = None) -> SolverInputError:
        tok = tok or self.peek()
        return _error(message, tok.line, tok.column)

    def expect(self, value: str) -> None:
        tok = self.next()
        if tok.kind != "punct" or tok.value != value:
            raise self.fail(f"expected {value!r}", tok)

    def clause(self) -> Any:
        term, _ = self.parse(1200)
        if self.peek().kind != "end":
            raise self.fail("operator expected (or missing full stop)")
        return term

    def _infix(self) -> tuple[str, int, str] | None:
        tok = self.peek()
        if tok.kind == "punct" and tok.value == ",":
            return ",", 1000, "xfy"
        if tok.kind in ("name", "qname") and tok.value in INFIX:
            prio, typ = INFIX[tok.value]
            return tok.value, prio, typ
        return None

    def parse(self, max_prec: int) -> tuple[Any, int]:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"term nested deeper than {self.max_depth} levels")
        left, prec = self.primary(max_prec)
        result = self.infix_loop(left, prec, max_prec)
        self.depth -= 1
        return result

    def infix_loop(self, left: Any, left_prec: int, max_prec: int) -> tuple[Any, int]:
        while True:
            op = self._infix()
            if op is None:
                return left, left_prec
            name, prio, typ = op
            left_max = prio if typ == "yfx" else prio - 1
            if prio > max_prec or left_prec > left_max:
                return left, left_prec
            self.next()
            if typ != "xfy":
                right, _ = self.parse(prio - 1)
                left, left_prec = Term(name, (left, right)), prio
                continue
            # right-associative chain, built iteratively (long conjunctions stay shallow)
            operands, ops = [left], [name]
            while True:
                right, rprec = self.parse(prio - 1)
                nxt = self._infix()
                if nxt is not None and nxt[1] == prio and nxt[2] == "xfy":
                    operands.append(right)
                    ops.append(nxt[0])
                    self.next()
                    continue
                if nxt is not None and nxt[1] == prio:
                    right, rprec = self.infix_loop(right, rprec, prio)
                operands.append(right)
                break
            acc = operands[-1]
            for op_name, operand in zip(reversed(ops), reversed(operands[:-1])):
                acc = Term(op_name, (operand, acc))
            left, left_prec = acc, prio

    def arglist(self, close: str) -> list[Any]:
        args = [self.parse(999)[0]]
        while self.peek().kind == "punct" and self.peek().value == ",":
            self.next()
            args.append(self.parse(999)[0])
        if close:
            self.expect(close)
        return args

    def primary(self, max_prec: int) -> tuple[Any, int]:
        tok = self.next()
        if tok.kind == "num":
            return tok.value, 0
        if tok.kind == "var":
            return Var(next(self.anon) if tok.value == "_" else tok.value), 0
        if tok.kind == "end":
            raise self.fail("unexpected end of clause", tok)
        if tok.kind == "punct":
            return self.bracketed(tok)
        name = tok.value
        nxt = self.peek()
        if nxt.kind == "punct" and nxt.value == "(" and not nxt.layout_before:
            self.next()
            return Term(name, tuple(self.arglist(")"))), 0
        if name == "-" and tok.kind == "name" and nxt.kind == "num" and not nxt.layout_before:
            self.next()
            return -nxt.value, 0
        if name in PREFIX and not self._ends_operand(nxt):
            prio, typ = PREFIX[name]
            if prio > max_prec:
                if max_prec != 999:  # like SWI: lenient in arguments, not elsewhere
                    raise self.fail("operator priority clash", tok)
                prio = 999
            arg, _ = self.parse(prio if typ == "fy" else prio - 1)
            return Term(name, (arg,)), prio
        return name, 0

    def _ends_operand(self, tok: Token) -> bool:
        if tok.kind == "end" or (tok.kind == "punct" and tok.value in TERMINATORS):
            return True
        return tok.kind == "name" and tok.value in INFIX and tok.value not in PREFIX

    def bracketed(self, tok: Token) -> tuple[Any, int]:
        if tok.value == "(":
            term, _ = self.parse(1200)
            self.expect(")")
            return term, 0
        if tok.value == "{":
            if self.peek().kind == "punct" and self.peek().value == "}":
                self.next()
                return "{}", 0
            term, _ = self.parse(1200)
            self.expect("}")
            return Term("{}", (term,)), 0
        if tok.value == "[":
            if self.peek().kind == "punct" and self.peek().value == "]":
                self.next()
                return [], 0
            items = self.arglist("")
            tail: Any = None
            if self.peek().kind == "punct" and self.peek().value == "|":
                self.next()
                tail, _ = self.parse(999)
            self.expect("]")
            if tail is None:
                return items, 0
            if isinstance(tail, list):  # [a|[b]] is the proper list [a, b]
                return items + tail, 0
            for item in reversed(items):
                tail = Term("[|]", (item, tail))
            return tail, 0
        raise self.fail(f"unexpected {tok.value!r}", tok)


def read_program(
    text: str,
    *,
    max_chars: int = 2_000_000,
    max_depth: int = 200,
    max_atom_chars: int = 65_536,
    max_term_depth: int = 10_000,
) -> list[ReadClause]:
    """Read every clause of ``text``; raises ``SolverInputError`` with line and column.

    Limits: ``max_chars`` of text, ``max_depth`` levels of nested brackets and prefix
    operators, ``max_term_depth`` levels of the clause term itself (operator chains and partial
    lists are read iteratively, so only this counts them: SWI-Prolog's compiler recurses on
    the C stack and an embedded engine crashes near 100,000), atoms and variable names of at
    most ``max_atom_chars``; text that UTF-8 cannot encode (a lone surrogate, raw or as an
    escape) is refused."""
    if len(text) > max_chars:
        raise SolverInputError(f"program too long: {len(text)} characters (limit {max_chars})")
    lexer = Lexer(text, max_atom_chars)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _error(
                f"character U+{ord(text[exc.start]):04X} cannot be encoded (a lone surrogate)",
                *lexer.where(exc.start),
            ) from None
    tokens = lexer.tokens()
    clauses: list[ReadClause] = []
    start = 0
    for i, tok in enumerate(tokens):
        if tok.kind != "end":
            continue
        chunk = tokens[start : i + 1]
        if len(chunk) == 1:
            raise _error("full stop without a clause", tok.line, tok.column)
        parser = _Parser(chunk, max_depth)
        term = parser.clause()
        if term_depth(term, max_term_depth) > max_term_depth:
            raise _error(
                f"clause nested deeper than {max_term_depth} levels (operator chains "
                f"and partial lists included)",
                chunk[0].line,
                chunk[0].column,
            )
        clauses.append(ReadClause(term, chunk[0].line, chunk[0].column, tuple(chunk)))
        start = i + 1
    if start < len(tokens):
        last = tokens[-1]
        raise _error("missing full stop at the end of the last clause", last.line, last.column)
    return clauses
