"""The outcome of one task under one pipeline: the :class:`Status` every pipeline records.

``ok`` is a correct answer and ``wrong`` an answer that is not accepted; the others are the
ways of getting no answer: ``parse_error`` (a formalization that does not parse under the
track's grammar), ``solver_error`` (the solver rejected the formalization or failed),
``timeout`` (the solver's time limit), ``backend_error`` (the model could not be reached; such
results are retried on the next run) and ``no_answer`` (a response without an answer line).

Results stored before this enum existed used ``ok`` for every answered task and
``parse_error`` for a CoT response without an answer; :func:`normalise` reads them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """One task's outcome; the value is what the run store holds."""

    OK = "ok"
    WRONG = "wrong"
    PARSE_ERROR = "parse_error"
    SOLVER_ERROR = "solver_error"
    TIMEOUT = "timeout"
    BACKEND_ERROR = "backend_error"
    NO_ANSWER = "no_answer"

    @property
    def answered(self) -> bool:
        """Whether the pipeline produced an answer (right or wrong)."""
        return self in (Status.OK, Status.WRONG)

    @classmethod
    def of_answer(cls, correct: bool) -> Status:
        """``ok`` for an accepted answer, ``wrong`` otherwise."""
        return cls.OK if correct else cls.WRONG


STATUS_VALUES: tuple[str, ...] = tuple(s.value for s in Status)
# the failures a report breaks down (every status but ok)
FAILURES: tuple[str, ...] = tuple(s.value for s in Status if s is not Status.OK)
NO_ANSWER_MESSAGE = "no answer found in the response"


def normalise(result: dict[str, Any]) -> dict[str, Any]:
    """A stored result dict with its status in the current vocabulary (a copy when changed):
    an answered but rejected ``ok`` becomes ``wrong``, a CoT/SymbCoT ``parse_error`` for a
    response without an answer becomes ``no_answer``. Raises ValueError on an unknown status."""
    status = result.get("status")
    new = status
    if status == "ok" and not result.get("correct"):
        new = Status.WRONG.value
    elif (
        status == "parse_error"
        and result.get("arch") in ("cot", "symbcot")
        and result.get("error") == NO_ANSWER_MESSAGE
    ):
        new = Status.NO_ANSWER.value
    if new not in STATUS_VALUES:
        raise ValueError(f"unknown result status {status!r}")
    return result if new == status else {**result, "status": new}
