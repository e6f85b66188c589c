"""The SR agent's protocols: how a model names a tool -- the text protocol (any model) and
OpenAI tool calls (:data:`TOOLS`, for backends that support them).

The text protocol:

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

Tool calls: the functions ``analyze(code)``, ``evaluate(equation)`` and ``final(equation)``
(:data:`TOOLS`); the first call of a response runs (:func:`action_of_call`, with the same
checks as the text protocol), a response without a call is read by the text protocol.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from scir.errors import FormalizationError
from scir.llm.base import Tool, ToolCall, has_surrogate, was_cut

ACTIONS = ("analyze", "evaluate", "final")
MAX_RESPONSE_CHARS = 200_000  # longer responses are read only this far
MAX_CODE_CHARS = 20_000
MAX_EQUATION_CHARS = 1_000

_OPEN = re.compile(r"^[ \t]*```[ \t]*(analyze|evaluate)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.MULTILINE)
_FINAL = re.compile(
    r"^[ \t>*_]*final(?:[ \t]+(?:answer|equation))?[ \t*_]*:[ \t*_]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
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
        raise FormalizationError(
            f"the {what} has {len(text)} characters; at most {MAX_EQUATION_CHARS} are read"
        )
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
        raise FormalizationError(
            "no action found: write one ```analyze``` block, one "
            "```evaluate``` block or a line 'Final: <equation>'"
        )
    if block is not None and (final is None or block.start() < final.start()):
        kind = block.group(1).lower()
        close = _CLOSE.search(text, block.end())
        if close is None:
            raise FormalizationError(
                f"the ```{kind} block is not closed: end it with a line holding only ```"
            )
        body = text[block.end() : close.start()].strip("\n")
        rest = text[close.end() :]
        note = (
            "only the first action of a response runs; the rest was ignored"
            if _OPEN.search(rest) or _FINAL.search(rest)
            else ""
        )
        return make_action(kind, body, f"```{kind} block", note)
    assert final is not None  # no block, or a final line before it
    return make_action("final", final.group(1), "'Final:' line")


def make_action(kind: str, body: str, what: str, note: str = "") -> Action:
    """An action of ``kind`` with ``body`` checked (``what`` names it in errors)."""
    if _CONTROL.search(body):
        raise FormalizationError(f"the {what} holds control characters")
    if has_surrogate(body):
        raise FormalizationError(
            f"the {what} holds a lone surrogate (U+D800..U+DFFF), which is not text"
        )
    if kind != "analyze":
        return Action(kind, _equation(body, what), note)
    if not body.strip():
        raise FormalizationError(f"the {what} is empty: write Python code")
    if len(body) > MAX_CODE_CHARS:
        raise FormalizationError(
            f"the {what} has {len(body)} characters; at most {MAX_CODE_CHARS} are run"
        )
    return Action("analyze", body, note)


def _schema(argument: str, what: str) -> str:
    return json.dumps(
        {
            "type": "object",
            "properties": {argument: {"type": "string", "description": what}},
            "required": [argument],
            "additionalProperties": False,
        }
    )


ARGUMENTS = {"analyze": "code", "evaluate": "equation", "final": "equation"}
TOOLS = (
    Tool(
        "analyze",
        "Run Python code on the training data (`data`, `columns`, `np`); returns what it prints.",
        _schema("code", "Python code"),
    ),
    Tool(
        "evaluate",
        "Fit an equation skeleton (constants p0..p9) to the training data; "
        "returns MSE, NMSE, MAPE and the fitted constants.",
        _schema("equation", "the skeleton, e.g. p0*x*exp(-p1*t)"),
    ),
    Tool(
        "final",
        "End this iteration with your best equation skeleton.",
        _schema("equation", "the skeleton"),
    ),
)


def action_of_call(call: ToolCall, others: int = 0) -> Action:
    """The action of one tool call (``others``: further calls in the response, not run);
    FormalizationError for an unknown function or malformed arguments."""
    if call.name not in ARGUMENTS:
        raise FormalizationError(
            f"there is no tool {call.name[:60]!r}: call analyze, evaluate or final"
        )
    if len(call.arguments) > MAX_RESPONSE_CHARS or was_cut(call.arguments):
        raise FormalizationError(f"the arguments of {call.name} are too long")
    try:
        args = json.loads(call.arguments)
    except json.JSONDecodeError as exc:
        raise FormalizationError(f"the arguments of {call.name} are not JSON: {exc.msg}") from exc
    except ValueError as exc:  # an integer of more than 4300 digits
        raise FormalizationError(
            f"the arguments of {call.name} are not JSON: {str(exc).split(';')[0]}"
        ) from exc
    except RecursionError as exc:
        raise FormalizationError(
            f"the arguments of {call.name} are nested too deeply; write one object with one string"
        ) from exc
    name = ARGUMENTS[call.name]
    if not isinstance(args, dict) or not isinstance(args.get(name), str):
        raise FormalizationError(f"{call.name} takes one string argument {name!r}")
    note = "only the first tool call of a response runs; the rest were not run" if others else ""
    return make_action(call.name, args[name], f"{name} of {call.name}", note)


def tool_message(kind: str, output: str, *, note: str = "", steps_left: int | None = None) -> str:
    """The user message carrying a tool's result (or a protocol error) back to the model."""
    head = {
        "analyze": "Result of analyze:",
        "evaluate": "Result of evaluate:",
        "final": "Result of evaluating the final equation:",
        "error": "Your response could not be used:",
    }[kind]
    parts = [head, output.rstrip() or "(no output)"]
    if note:
        parts.append(f"Note: {note}")
    if steps_left is not None:
        parts.append(f"Steps left in this iteration: {steps_left}.")
    return "\n".join(parts)
