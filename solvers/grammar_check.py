"""Check Lark grammars with llguidance, the engine that runs them in constrained decoding.

Outlines gives Lark grammars to llguidance; a grammar llguidance rejects makes generation fail
silently (empty output), so every grammar meant for decoding is checked here first.
llguidance is optional: :func:`llguidance_available` says whether it is installed.
"""

from __future__ import annotations

import importlib.util
import re

from solvers.errors import ConfigError, SolverInputError


def llguidance_available() -> bool:
    """True when the ``llguidance`` package can be imported."""
    return importlib.util.find_spec("llguidance") is not None


def validate_lark(text: str) -> None:
    """Raise SolverInputError (with llguidance's message and position) if llguidance rejects
    the Lark grammar ``text``; ConfigError if llguidance is not installed."""
    if not llguidance_available():
        raise ConfigError("llguidance is not installed (pip install llguidance)")
    from llguidance import LLMatcher, grammar_from

    try:
        is_error, messages = LLMatcher.validate_grammar_with_warnings(grammar_from("lark", text))
    except (ValueError, TypeError, RuntimeError) as exc:
        raise SolverInputError(f"llguidance cannot read the grammar: {exc}") from exc
    if is_error:
        message = messages[0] if messages else "invalid grammar"
        line, column = _position(message)
        raise SolverInputError(
            f"llguidance rejects the grammar: {message.strip()}", line=line, column=column
        )


def _position(message: str) -> tuple[int | None, int | None]:
    """llguidance reports positions as ``at LINE(COLUMN): ...``."""
    match = re.match(r"\s*at (\d+)\((\d+)\):", message)
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)
