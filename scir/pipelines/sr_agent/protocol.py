"""The SR agent's text protocol: how a model that has no tool-call API names a tool.

A response holds at most one action, the first of these in the text:

- a fenced block opened by a line ```` ```analyze ```` and closed by a line ```` ``` ````:
  Python code for the data analyzer (T1), which sees the training data;
- a fenced block opened by ```` ```evaluate ```` : one equation skeleton (constants ``p0`` ..
  ``p9``) for the equation evaluator (T2);
- a line ``Final: <equation>`` (also ``Final answer:`` / ``Final equation:``): the agent ends
  the iteration with this skeleton (it is evaluated like an ``evaluate`` block).

Model text is untrusted: the reader never evaluates it, bounds every size, and explains each
refusal (a :class:`~scir.errors.FormalizationError` whose message goes back to the model).
Tool results go back as a user message (:func:`tool_message`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scir.errors import FormalizationError

ACTIONS = ("analyze", "evaluate", "final")
MAX_RESPONSE_CHARS = 200_000       # longer responses are read only this far
MAX_CODE_CHARS = 20_000
MAX_EQUATION_CHARS = 1_000

_OPEN = re.compile(r"^[ \t]*```[ \t]*(analyze|evaluate)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.MULTILINE)
_FINAL = re.compile(r"^[ \t>*_]*final(?:[ \t]+(?:answer|equation))?[ \t*_]*:[ \t*_]*(.*)$",
                    re.IGNORECASE | re.MULTILINE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Action:
    """One tool request read from a response: ``kind`` (analyze, evaluate, final) and its
    text (code or equation), and a note for the model (e.g. "only the first block ran")."""

    kind: str
    text: str
    note: str = ""


def _equation(text: str, what: str) -> str:
    """An equation text on one line, bounded, without control characters or fences."""
    text = " ".join(text.replace("`", " ").split())
    text = text.rstrip(".;, ")
    if not text:
        raise FormalizationError(f"the {what} is empty: write the equation after it")
    if len(text) > MAX_EQUATION_CHARS:
        raise FormalizationError(f"the {what} has {len(text)} characters; at most "
                                 f"{MAX_EQUATION_CHARS} are read")
    return text


def parse_action(text: str) -> Action:
    """The first action in a model response; FormalizationError when there is none or it is
    malformed (unterminated block, empty or oversized content, control characters)."""
    if not isinstance(text, str):
        raise FormalizationError("the response is not text")
    text = text[:MAX_RESPONSE_CHARS]
    block = _OPEN.search(text)
    final = _FINAL.search(text)
    if block is None and final is None:
        raise FormalizationError("no action found: write one ```analyze``` block, one "
                                 "```evaluate``` block or a line 'Final: <equation>'")
    if block is not None and (final is None or block.start() < final.start()):
        kind = block.group(1).lower()
        close = _CLOSE.search(text, block.end())
        if close is None:
            raise FormalizationError(f"the ```{kind} block is not closed: end it with a line "
                                     "holding only ```")
        body = text[block.end():close.start()].strip("\n")
        rest = text[close.end():]
        note = ("only the first action of a response runs; the rest was ignored"
                if _OPEN.search(rest) or _FINAL.search(rest) else "")
        if _CONTROL.search(body):
            raise FormalizationError(f"the ```{kind} block holds control characters")
        if kind == "analyze":
            if not body.strip():
                raise FormalizationError("the ```analyze block is empty: write Python code")
            if len(body) > MAX_CODE_CHARS:
                raise FormalizationError(f"the ```analyze block has {len(body)} characters; "
                                         f"at most {MAX_CODE_CHARS} are run")
            return Action("analyze", body, note)
        return Action("evaluate", _equation(body, "```evaluate block"), note)
    return Action("final", _equation(final.group(1), "'Final:' line"))


def tool_message(kind: str, output: str, *, note: str = "", steps_left: int | None = None
                 ) -> str:
    """The user message carrying a tool's result (or a protocol error) back to the model."""
    head = {"analyze": "Result of analyze:", "evaluate": "Result of evaluate:",
            "final": "Result of evaluating the final equation:",
            "error": "Your response could not be used:"}[kind]
    parts = [head, output.rstrip() or "(no output)"]
    if note:
        parts.append(f"Note: {note}")
    if steps_left is not None:
        parts.append(f"Steps left in this iteration: {steps_left}.")
    return "\n".join(parts)
