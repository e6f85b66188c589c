"""The values of run-store rows, written and read back with checks: the machinery, and the rows
of the call cache (calls, tool results; those of results, plans, invocations and trajectories
are :mod:`scir.runs.rows`).

Written: every JSON column goes through :func:`to_json` and every text column through
:func:`valid_text`, so a lone surrogate (``"\\ud800"``, not text: SQLite cannot take it) is
stored as U+FFFD instead of failing the write, and data nested too deeply for :mod:`json` is a
StoreError instead of a RecursionError.

Read: a store is a file anyone can edit, so each reader here checks that a row holds what the
toolkit writes (JSON that parses, an object where an object is written, the key fields, the
types of the known fields) and raises :class:`BadRow` with the reason; the store turns it into
one StoreError naming the store, the table and the row (:func:`damaged`). What is readable is
read: a ``\\ud800`` escape in stored JSON reads as U+FFFD (as the store decodes invalid UTF-8
in a text column), so no reader meets text it cannot print or write.
"""

from __future__ import annotations

import json
import math
import re
import types
import typing
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from scir.errors import StoreError
from scir.llm.base import LLMResponse, ToolCall, valid_text

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class BadRow(Exception):
    """Why a stored row is not what the toolkit writes (becomes a StoreError)."""


def damaged(path: Path, table: str, rowid: Any, why: str) -> StoreError:
    """The one-line error for a damaged row."""
    return StoreError(f"table {table}, row {rowid} is damaged: {why}", file=str(path))


def to_json(value: Any) -> str:
    """JSON text for a column (UTF-8 as is, keys sorted; lone surrogates as U+FFFD)."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except RecursionError as exc:
        raise StoreError("cannot store a value nested too deeply") from exc
    return valid_text(text)


def kind(value: Any) -> str:
    """How a stored value is named in an error: ``NULL``, ``a str``, ``an int``, ..."""
    if value is None:
        return "NULL"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: Any, what: str, *, finite: bool = False) -> Any:
    """The JSON value of a column (``finite``: NaN and Infinity refused); BadRow otherwise."""
    if not isinstance(text, str):
        raise BadRow(f"{what} is {kind(text)}, not JSON text")
    try:
        value = json.loads(text, parse_constant=_no_constant if finite else None)
        if _SURROGATE_ESCAPE.search(text):  # never written by the toolkit: U+FFFD
            value = json.loads(valid_text(json.dumps(value, ensure_ascii=False)))
        return value
    except json.JSONDecodeError as exc:
        raise BadRow(f"{what} is not JSON ({exc.msg} at character {exc.pos})") from exc
    except ValueError as exc:  # a huge integer, NaN with ``finite``
        raise BadRow(f"{what} is not JSON ({str(exc).split(';')[0]})") from exc
    except RecursionError as exc:
        raise BadRow(f"{what} is JSON nested too deeply") from exc


def load_object(text: Any, what: str, *, finite: bool = False) -> dict[str, Any]:
    """A column holding a JSON object."""
    value = load_json(text, what, finite=finite)
    if not isinstance(value, dict):
        raise BadRow(f"{what} is {kind(value)} in JSON, not an object")
    return value


# ---- field types ---------------------------------------------------------------------------
Check = Callable[[Any], bool]


@cache
def _check(hint: Any) -> Check:
    """Whether a JSON value fits a type hint of the toolkit's records (str, int, float, bool,
    Any, lists, dicts and unions with None), as a predicate made once per hint."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return lambda value: True
    if origin in (typing.Union, types.UnionType):
        options = tuple(_check(h) for h in typing.get_args(hint))
        return lambda value: any(fits(value) for fits in options)
    if hint is type(None):
        return lambda value: value is None
    if hint is bool:
        return lambda value: isinstance(value, bool) or (type(value) is int and value in (0, 1))
    if hint is int:
        return lambda value: type(value) is int
    if hint is float:
        return lambda value: type(value) in (int, float)
    if hint is str:
        return lambda value: isinstance(value, str)
    if origin is list or hint is list:
        args = typing.get_args(hint)
        item = _check(args[0]) if args else None
        return lambda value: (
            isinstance(value, list) and (item is None or all(item(v) for v in value))
        )
    if origin is dict or hint is dict:
        return lambda value: isinstance(value, dict)
    return lambda value: True  # a hint this checker does not know: not checked


def check_fields(
    data: dict[str, Any], hints: dict[str, Any], required: tuple[str, ...], what: str
) -> None:
    """BadRow when a required field is missing or a known field has the wrong type."""
    for name in required:
        if name not in data:
            raise BadRow(f"{what} has no {name!r}")
    for name, value in data.items():
        hint = hints.get(name)
        if hint is not None and not _check(hint)(value):
            raise BadRow(f"{what} field {name!r} is {kind(value)}, not {_shown(hint)}")


def _shown(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def read_tool_calls(text: Any) -> tuple[ToolCall, ...]:
    """A response's stored tool calls (NULL: none)."""
    if text is None or text == "":
        return ()
    value = load_json(text, "tool_calls")
    if not isinstance(value, list):
        raise BadRow(f"tool_calls is {kind(value)} in JSON, not a list")
    try:
        return tuple(ToolCall.from_dict(item) for item in value)
    except ValueError as exc:
        raise BadRow(f"tool_calls: {exc}") from exc


def count(value: Any, what: str) -> int:
    """A count column (an int >= 0); BadRow otherwise."""
    if type(value) is not int or value < 0:
        raise BadRow(f"{what} is {kind(value)}, not a count")
    return value


def number(value: Any, what: str) -> float:
    """A finite number column; BadRow otherwise."""
    if type(value) not in (int, float) or not math.isfinite(value):
        raise BadRow(f"{what} is {kind(value)}, not a finite number")
    return float(value)


def read_call(
    backend: Any,
    model: Any,
    text: Any,
    prompt_tokens: Any,
    completion_tokens: Any,
    latency: Any,
    cost: Any,
    finish: Any,
    tool_calls: Any,
) -> LLMResponse:
    """A stored call's response (``cached`` set)."""
    for name, value in (("backend", backend), ("model", model), ("text", text)):
        if not isinstance(value, str):
            raise BadRow(f"{name} is {kind(value)}, not text")
    if finish is not None and not isinstance(finish, str):
        raise BadRow(f"finish_reason is {kind(finish)}, not text")
    return LLMResponse(
        text=text,
        prompt_tokens=count(prompt_tokens, "prompt_tokens"),
        completion_tokens=count(completion_tokens, "completion_tokens"),
        latency_s=number(latency, "latency_s"),
        cost_usd=number(cost, "cost_usd"),
        raw_finish_reason=finish,
        backend=backend,
        model=model,
        cached=True,
        tool_calls=read_tool_calls(tool_calls),
    )


def read_tool_output(text: Any) -> dict[str, Any]:
    """A stored tool output (an object; the tool checks its fields)."""
    return load_object(text, "output")


def read_attempts(value: Any) -> int:
    """How many times a tool call was started."""
    return count(value, "attempts")
