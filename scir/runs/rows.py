"""The rows of a run store's results, plan, invocations and trajectories, read back with the
checks of :mod:`scir.llm.store_rows` (a damaged row is a BadRow, which the store turns into one
StoreError naming the store, the table and the row)."""

from __future__ import annotations

import typing
from functools import lru_cache
from typing import Any

from scir.llm.store_rows import BadRow, check_fields, count, load_object, number
from scir.outcomes.status import normalise
from scir.pipelines.result import PipelineResult

RESULT_KEY = ("task_id", "arch", "presentation", "model", "constrained", "seed")


@lru_cache(maxsize=1)
def _result_hints() -> dict[str, Any]:
    return typing.get_type_hints(PipelineResult)


def read_result(text: Any) -> dict[str, Any]:
    """A stored pipeline result: an object with its key fields, status and verdict, every
    field of :class:`~scir.pipelines.result.PipelineResult` of its type; the fields added
    since schema 1 filled in and the status in the current vocabulary."""
    data = load_object(text, "result")
    check_fields(data, _result_hints(), RESULT_KEY[:4] + ("status", "correct"), "result")
    data.setdefault("constrained", True)
    data.setdefault("seed", 0)
    try:
        return normalise(data)
    except ValueError as exc:
        raise BadRow(f"result: {exc}") from exc


def read_plan(cell: Any, planned: Any) -> tuple[dict[str, Any], int]:
    """A planned cell and its task count."""
    return load_object(cell, "cell"), count(planned, "planned")


def read_invocation(started_at: Any, config: Any) -> dict[str, Any]:
    """A recorded invocation (its settings and start time)."""
    return {"started_at": number(started_at, "started_at"), **load_object(config, "config")}


def read_provenance(text: Any) -> dict[str, Any] | None:
    """What produced an invocation (an object), or None when it was not recorded."""
    return None if text is None else load_object(text, "provenance")


_TRAJECTORY_HINTS = {
    "task_id": str,
    "arch": str,
    "presentation": str,
    "model": str,
    "seed": int,
    "index": int,
    "goal": float,
    "messages": list,
    "steps": list,
    "end": str,
    "best_mape": float | None,
    "best_equation": str | None,
    "reward": float,
}


def read_trajectory(text: Any) -> dict[str, Any]:
    """A stored iteration of an agent (no NaN or Infinity: it is exported as strict JSON)."""
    data = load_object(text, "record", finite=True)
    check_fields(data, _TRAJECTORY_HINTS, ("index", "goal", "messages", "steps"), "record")
    if not data["goal"] > 0:
        raise BadRow(f"record field 'goal' is {data['goal']!r}, not a positive number")
    return data
