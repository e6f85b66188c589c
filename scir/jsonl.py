"""Reading JSONL task files so that no file can knock the reader over.

Regular files only: a FIFO, a device (``/dev/zero``), a socket or a folder is refused after a
``stat`` and before anything is read; the file is opened with ``O_NONBLOCK`` and checked again
on the open descriptor, so opening never blocks. Lines are read with a bound
(:data:`MAX_LINE_BYTES`), JSON values nest at most :data:`MAX_DEPTH` deep, ``NaN`` /
``Infinity``, integers of over 4300 digits and lone surrogate escapes are refused, and every
OS, decoding, value, recursion and memory error becomes a :class:`TaskFormatError` with the
file and the line. :mod:`scir.tasks` builds and validates the records from these values.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from scir.bounded import open_regular, reject_constant, shown, too_deep
from scir.errors import TaskFormatError

MAX_LINE_BYTES = 16 * 1024 * 1024  # one JSONL line (a generated task is a few kB)
MAX_DEPTH = 64  # JSON nesting of one record (generated tasks: <= 18)


def _open_regular(path: Path) -> IO[bytes]:
    """Open a task file without ever blocking (:func:`scir.bounded.open_regular`)."""
    return open_regular(path, TaskFormatError, "task file")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a string in JSON data holds an unpaired surrogate (``"\\ud800"`` parses to
    one; writing it as UTF-8 later would fail)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _parse_line(raw: bytes, name: str, number: int) -> Any:
    """One line's JSON value; every failure is a TaskFormatError with file and line."""

    def fail(message: str, column: int | None = None) -> TaskFormatError:
        return TaskFormatError(message, file=name, line=number, column=column)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"invalid UTF-8 at byte {exc.start + 1}", exc.start + 1) from exc
    if not text.strip():
        return None
    try:
        data = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise fail(f"invalid JSON: {exc.msg}", exc.colno) from exc
    except RecursionError as exc:
        raise fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from exc
    except ValueError as exc:  # an integer of more than 4300 digits, NaN, Infinity
        raise fail(f"invalid JSON value: {str(exc).split(';')[0]}") from exc
    except MemoryError as exc:
        raise fail("out of memory while parsing the line") from exc
    if isinstance(data, (dict, list)) and too_deep(data, MAX_DEPTH):
        raise fail(f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        raise fail(
            "invalid JSON string: a lone surrogate escape (\\ud800-\\udfff) is not "
            "text and cannot be written as UTF-8"
        )
    return data


def json_lines(path: str | os.PathLike) -> Iterator[tuple[int, Any, str]]:
    """(line number, JSON value, the file as errors name it) for every non-blank line of a
    JSONL file, read within the bounds above; every failure is a TaskFormatError with the
    file and the line."""
    path = Path(path)
    name = shown(path)
    handle = _open_regular(path)
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise TaskFormatError(
                    f"cannot read task file: {exc.strerror or exc}", file=name, line=number + 1
                ) from exc
            except MemoryError as exc:
                raise TaskFormatError(
                    "out of memory while reading", file=name, line=number + 1
                ) from exc
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise TaskFormatError(
                    f"line longer than {MAX_LINE_BYTES} bytes (16 MiB)", file=name, line=number
                )
            data = _parse_line(raw, name, number)
            if data is not None:
                yield number, data, name
