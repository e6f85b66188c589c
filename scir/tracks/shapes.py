"""Shape checks shared by the tracks' record validators (``scir/tracks/*/validate.py``):
each raises a TaskFormatError naming the field; the caller's reader adds file, line and task."""

from __future__ import annotations

import math
from typing import Any

from scir.errors import TaskFormatError


def fail(message: str, field: str) -> TaskFormatError:
    """The error for ``field`` (file, line and task are added where the record is read)."""
    return TaskFormatError(message, field=field)


def string(value: Any, field: str, limit: int) -> str:
    """``value`` when it is a string of at most ``limit`` characters."""
    if value is None:
        raise fail("missing (expected a string)", field)
    if not isinstance(value, str):
        raise fail(f"expected a string, got {type(value).__name__}", field)
    if len(value) > limit:
        raise fail(f"longer than {limit} characters", field)
    return value


def bounded_list(value: Any, field: str, limit: int) -> list:
    """``value`` when it is a list of at most ``limit`` items."""
    if value is None:
        raise fail("missing (expected a list)", field)
    if not isinstance(value, list):
        raise fail(f"expected a list, got {type(value).__name__}", field)
    if len(value) > limit:
        raise fail(f"more than {limit} items", field)
    return value


def number(value: Any, field: str) -> float:
    """``value`` when it is a finite number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(f"expected a finite number, got {value!r}", field)
    return value


def number_row(row: Any, field: str, width: int, what: str) -> tuple[float, ...]:
    """``row`` as a tuple when it is a list of ``width`` finite numbers (``what``: one per
    what, for the message)."""
    if not isinstance(row, list) or len(row) != width:
        raise fail(f"expected a row of {width} numbers (one per {what})", field)
    return tuple(number(v, field) for v in row)
