"""What the tracks' formalization modules share: pieces of per-task Lark grammars, the check of
a built grammar, the generic grammars' parsers, and the reading of untrusted text (code fences,
errors with line and column). The grammars, the names they allow and the messages that explain
a track's syntax stay with each track.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from scir.errors import FormalizationError

# a Markdown code fence line (```, ```prolog, ...), optionally ended by a carriage return
FENCE = re.compile(r"[ \t]*```[A-Za-z0-9_-]*[ \t\r]*")


# ---- building per-task grammars ------------------------------------------------------------
@lru_cache(maxsize=768)
def checked_grammar(text: str) -> str:
    """``text``, validated by llguidance when it is installed (a bad Lark grammar would make
    constrained decoding fail silently)."""
    from solvers.grammar_check import llguidance_available, validate_lark

    if llguidance_available():
        validate_lark(text)
    return text


# ---- reading untrusted text ----------------------------------------------------------------
@cache
def generic_parser(name: str) -> Any:
    """The LALR parser (with positions) of ``grammars/<name>``, e.g. ``causal.lark``."""
    from lark import Lark

    from solvers import resources

    return Lark(resources.read_text("grammars", name), parser="lalr", propagate_positions=True)


def unfence(lines: list[str], fence: re.Pattern[str] = FENCE) -> list[str]:
    """``lines`` with a Markdown code fence around the text blanked out (the first and the last
    non-blank line, when both match ``fence`` entirely); line numbers stay as they were."""
    marked = [i for i, s in enumerate(lines) if s.strip()]
    lines = list(lines)
    if (
        len(marked) >= 2
        and fence.fullmatch(lines[marked[0]])
        and fence.fullmatch(lines[marked[-1]])
    ):
        lines[marked[0]] = lines[marked[-1]] = ""
    return lines


def token_error(message: str, token: Any) -> FormalizationError:
    """A FormalizationError at a Lark token's line and column (where it has them)."""
    return FormalizationError(
        message, line=getattr(token, "line", None), column=getattr(token, "column", None)
    )


def syntax_error(exc: Exception, detail: str) -> FormalizationError:
    """``syntax error: {detail}`` at the line and column of a Lark parse error (None where
    the error has no positive position)."""
    line, column = getattr(exc, "line", None), getattr(exc, "column", None)
    return FormalizationError(
        f"syntax error: {detail}",
        line=line if isinstance(line, int) and line > 0 else None,
        column=column if isinstance(column, int) and column > 0 else None,
    )


__all__ = ["FENCE", "checked_grammar", "generic_parser", "syntax_error", "token_error", "unfence"]
