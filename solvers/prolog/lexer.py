"""The tokenizer of the strict Prolog reader (:mod:`solvers.prolog.reader`): layout and
comments, names, variables, numbers (with radix and character codes), quoted atoms with their
escapes, punctuation and the full stop; every token with its line and column. Rejected with a
``SolverInputError`` at the position: double- and back-quoted strings, unknown escapes, lone
surrogates, atoms and numbers beyond their limits, unterminated quotes and comments.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, NamedTuple

from solvers.errors import SolverInputError

ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "e": "\x1b",
    "s": " ",
}
MAX_NUMBER_CHARS = 4000  # below Python's int-conversion limit (4300 digits)


class Token(NamedTuple):
    """One token: ``kind`` is name, qname (quoted atom), var, num, punct or end."""

    kind: str
    value: Any
    line: int
    column: int
    layout_before: bool


def syntax_error(message: str, line: int, column: int) -> SolverInputError:
    """``syntax error: {message}`` at a position."""
    return SolverInputError(f"syntax error: {message}", line=line, column=column)


_error = syntax_error
_LAYOUT = re.compile(r"(?:\s+|%[^\n]*|/\*.*?\*/)+", re.S)
_WORD = re.compile(r"[^\W\d]\w*")
_NUMBER = re.compile(
    r"0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+"
    r"|\d+(?:_\d+)*(?P<frac>\.\d+)?(?P<exp>[eE][+-]?\d+)?"
)
_SYMBOLS = re.compile(r"[#$&*+\-./:<=>?@^~\\]+")
_QUOTED_RUN = re.compile(r"[^'\\]+")
_OCTAL = re.compile(r"[0-7]+")
_HEX = re.compile(r"[0-9a-fA-F]+")


class Lexer:
    """Splits a text into tokens (:meth:`tokens`); :meth:`where` turns an offset into a line
    and column."""

    def __init__(self, text: str, max_atom: int) -> None:
        self.text = text
        self.max_atom = max_atom
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def where(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def tokens(self) -> list[Token]:
        text, pos = self.text, 0
        out: list[Token] = []
        while True:
            layout = _LAYOUT.match(text, pos)
            had_layout = pos == 0 or layout is not None
            if layout is not None:
                pos = layout.end()
            if pos >= len(text):
                return out
            if text.startswith("/*", pos):
                raise _error("unterminated block comment", *self.where(pos))
            kind, value, end = self._token(pos)
            line, col = self.where(pos)
            out.append(Token(kind, value, line, col, had_layout))
            pos = end

    def _token(self, pos: int) -> tuple[str, Any, int]:
        text = self.text
        ch = text[pos]
        if ch == "_" or ch.isalpha():
            m = _WORD.match(text, pos)
            assert m is not None  # a letter or underscore starts a word
            word = m.group()
            if len(word) > self.max_atom:
                raise _error(
                    f"name of {len(word)} characters (limit {self.max_atom})", *self.where(pos)
                )
            kind = "var" if ch == "_" or ch.isupper() or ch.istitle() else "name"
            return kind, word, m.end()
        if ch.isdigit():
            return self._number(pos)
        if ch == "'":
            return self._quoted(pos)
        if ch in '"`':
            raise _error(
                "double- and back-quoted strings are not supported; use 'quoted atoms'",
                *self.where(pos),
            )
        if ch in "()[]{},|":
            return "punct", ch, pos + 1
        if ch in "!;":
            return "name", ch, pos + 1
        m = _SYMBOLS.match(text, pos)
        if m is not None:
            word = m.group()
            if len(word) > self.max_atom:
                raise _error(
                    f"symbol atom of {len(word)} characters (limit {self.max_atom})",
                    *self.where(pos),
                )
            nxt = text[m.end() : m.end() + 1]
            if word == "." and (nxt == "" or nxt.isspace() or nxt == "%"):
                return "end", ".", m.end()
            return "name", word, m.end()
        raise _error(f"unexpected character {ch!r}", *self.where(pos))

    def _number(self, pos: int) -> tuple[str, Any, int]:
        text = self.text
        if text.startswith("0'", pos):
            ch = text[pos + 2 : pos + 3]
            if ch == "\\":
                value, end = self._escape(pos + 2, pos)
                return "num", ord(value), end
            if text.startswith("''", pos + 2):
                return "num", ord("'"), pos + 4
            if not ch:
                raise _error("end of text in character code", *self.where(pos))
            return "num", ord(ch), pos + 3
        m = _NUMBER.match(text, pos)
        if m is None:  # a digit outside 0-9, such as a superscript
            raise _error(f"unexpected character {text[pos]!r}", *self.where(pos))
        if m.end() - pos > MAX_NUMBER_CHARS:
            raise _error(
                f"number of {m.end() - pos} characters (limit {MAX_NUMBER_CHARS})", *self.where(pos)
            )
        word = m.group().replace("_", "")
        if word[:2] in ("0x", "0o", "0b"):
            return "num", int(word[2:], {"x": 16, "o": 8, "b": 2}[word[1]]), m.end()
        if m.group("frac") is None and m.group("exp") is None:
            return "num", int(word), m.end()
        for special, number in (("Inf", float("inf")), ("NaN", float("nan"))):
            if text.startswith(special, m.end()):
                return "num", number, m.end() + 3
        return "num", float(word), m.end()

    def _escape(self, pos: int, start: int) -> tuple[str, int]:
        """At a backslash inside quotes: the escaped character and the position after it."""
        text = self.text
        ch = text[pos + 1 : pos + 2]
        if ch in ESCAPES:
            return ESCAPES[ch], pos + 2
        if ch == "x" or (ch and ch in "01234567"):
            digits_at = pos + 2 if ch == "x" else pos + 1
            m = (_HEX if ch == "x" else _OCTAL).match(text, digits_at)
            if m is None or text[m.end() : m.end() + 1] != "\\":
                raise _error(
                    "malformed numeric escape (expected \\x<hex>\\ or \\<octal>\\)",
                    *self.where(start),
                )
            code = int(m.group(), 16 if ch == "x" else 8)
            if code > 0x10FFFF:
                raise _error("character code out of range in escape", *self.where(start))
            if 0xD800 <= code <= 0xDFFF:
                raise _error(
                    f"escape \\x{code:X}\\ is a lone surrogate, not a character", *self.where(start)
                )
            return chr(code), m.end() + 1
        raise _error(f"undefined escape sequence \\{ch}", *self.where(start))

    def _quoted(self, start: int) -> tuple[str, Any, int]:
        text, out, pos = self.text, [], start + 1
        while True:
            m = _QUOTED_RUN.match(text, pos)
            if m is not None:
                out.append(m.group())
                pos = m.end()
            if pos >= len(text):
                raise _error("unterminated quoted atom", *self.where(start))
            if text[pos] == "'":
                if text.startswith("''", pos):
                    out.append("'")
                    pos += 2
                    continue
                name = "".join(out)
                if len(name) > self.max_atom:
                    raise _error(
                        f"quoted atom of {len(name)} characters (limit {self.max_atom})",
                        *self.where(start),
                    )
                return "qname", name, pos + 1
            if text.startswith("\\\n", pos):  # backslash-newline: continuation
                pos += 2
                continue
            value, pos = self._escape(pos, start)
            out.append(value)
