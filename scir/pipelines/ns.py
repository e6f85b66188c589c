"""NS: the model formalizes the problem under the track's grammar, the track's symbolic solver
answers. At most ``max_retries`` retries, only when the formalization does not parse
(FormalizationError) or the solver rejects it as input (SolverInputError); the retry shows the
model its previous text and the error message, never the answer.

Formalizations are untrusted text, and no track runs them as code: each reaches a solver only
through the track's formalizer's ``parse`` (its grammar, the task's signature, size limits),
which turns it into data -- deduction: formulas re-printed in canonical Prover9 syntax;
induction: ground facts only (the grammar has no rules, so there is no model-written Prolog to
sandbox: the rule is learned by the track's own solver); causal: edges and numbers -- and
``solve_formal``, which passes that data as terms and facts under time limits. Hand-written
Prolog, which is code, runs only in the sandbox (``scir check``, :mod:`solvers.sandbox`).
Every typed solver failure is recorded in the result; none stops the run.

With a backup (``PipelineSettings.backup == "cot"``, Logic-LM's backup answers), a task whose
every attempt ends without an answer from the solver (parse error, solver error, timeout) is
also asked the CoT question (:func:`scir.pipelines.cot.ask`, the very request a ``cot`` run
sends, so the run store serves it to both); its answer is recorded in the ``backup_*`` fields
next to the unchanged ns outcome, so that a report can count NS with and without backup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scir.errors import FormalizationError, SolverError, SolverInputError, SolverTimeout
from scir.llm.base import Backend
from scir.outcomes.status import Status
from scir.pipelines import cot
from scir.pipelines.result import (
    SOLVER_LOCK,
    Calls,
    PipelineResult,
    PipelineSettings,
    extraction_of,
    formalization_tokens,
    formalizer_hook,
    hook,
    set_answer,
    start,
)
from scir.tasks import Task
from scir.tracks.base import Track

FEEDBACK = (
    "Your formalization could not be used: {error}\n"
    "Write the complete corrected formalization, in the same format, and nothing else."
)
MAX_ERROR_CHARS = 600


@dataclass
class SolverOutcome:
    """What the solver step gave: an answer, or a classified failure."""

    answer: str | None
    status: str  # a Status value: ok (the solver answered), parse_error, solver_error, timeout
    solver_status: str  # answered, input_error, timeout, error
    log: str = ""
    error: SolverError | None = None


def classify(exc: SolverError) -> SolverOutcome:
    """The outcome of a typed solver failure: timeouts, input errors, other failures."""
    if isinstance(exc, SolverTimeout):
        return SolverOutcome(None, Status.TIMEOUT.value, "timeout", _message(exc), exc)
    if isinstance(exc, SolverInputError):
        return SolverOutcome(None, Status.SOLVER_ERROR.value, "input_error", _message(exc), exc)
    return SolverOutcome(
        None, Status.SOLVER_ERROR.value, "error", f"{type(exc).__name__}: {_message(exc)}", exc
    )


def solve(track: Track, task: Task, formal: Any) -> SolverOutcome:
    """Run ``track.solve_formal`` on a formal object (of ``track.formal_type``), classifying
    typed solver failures."""
    try:
        with SOLVER_LOCK:
            answer = hook(track, "solve_formal", task, formal)
    except SolverError as exc:
        return classify(exc)
    return SolverOutcome(str(answer), Status.OK.value, "answered")


def _message(exc: BaseException) -> str:
    """The error text shown to the model and logged: message plus line/column, no task id."""
    text = getattr(exc, "message", None) or str(exc)
    line, column = getattr(exc, "line", None), getattr(exc, "column", None)
    if line is not None:
        text = f"line {line}{f', column {column}' if column is not None else ''}: {text}"
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + " ..."


@dataclass
class FormalizationStep:
    """One formalization read and solved: the solver outcome, the parsed items (None when it
    did not parse) and the error behind a failure."""

    outcome: SolverOutcome
    items: int | None
    error: Exception | None
    formal: Any = None  # the parsed formal object (None when it did not parse)

    @property
    def retryable(self) -> bool:
        """Whether a retry may fix it: only parse errors and solver-input errors."""
        return isinstance(self.error, (FormalizationError, SolverInputError))

    def retry(self, attempt: int, max_retries: int) -> bool:
        """Whether attempt ``attempt`` (0 first) is followed by another: it failed in a way a
        retry may fix, and ``max_retries`` are not used up. Timeouts and solver crashes are
        never retried."""
        return self.outcome.status != Status.OK and self.retryable and attempt < max_retries

    @property
    def feedback(self) -> str:
        """The retry message shown to the model: the error, never the answer."""
        return FEEDBACK.format(error=_message(self.error)) if self.error else ""


def formalization_step(track: Track, task: Task, text: str) -> FormalizationStep:
    """Parse a model's formalization ``text`` (``Formalizer.parse``) and solve it
    (:func:`solve`), classifying every typed failure."""
    try:
        with SOLVER_LOCK:
            parsed = formalizer_hook(track, "parse", task, text)
    except FormalizationError as exc:
        return FormalizationStep(
            SolverOutcome(None, Status.PARSE_ERROR.value, "parse_error", _message(exc)), None, exc
        )
    except SolverError as exc:  # e.g. a whitelist check while parsing
        return FormalizationStep(classify(exc), None, exc)
    outcome = solve(track, task, parsed.formal)
    return FormalizationStep(outcome, parsed.items, outcome.error, parsed.formal)


def record(track: Track, task: Task, result: PipelineResult, outcome: SolverOutcome) -> None:
    """Record a solver outcome in ``result``: its statuses and log, and for an answer the
    answer and its verdict (:func:`set_answer`)."""
    result.status, result.solver_status = outcome.status, outcome.solver_status
    result.solver_log = outcome.log
    result.executable = outcome.status == Status.OK
    if outcome.status == Status.OK:
        assert outcome.answer is not None  # an "ok" outcome always carries its answer (solve)
        set_answer(track, task, result, outcome.answer)
        result.error = ""
    else:
        result.error = outcome.log


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings) -> PipelineResult:
    """Formalize (with retries on parse and solver-input errors), solve, score."""
    begun = start(track, task, backend, settings, "ns", "formalize")
    calls, result = begun.calls, begun.result
    messages = [("user", begun.prompt)]
    for attempt in range(settings.max_retries + 1):
        response = calls.ask(
            messages,
            begun.constraint,
            formalization_tokens(track, task),
            formalization=True,
            attempt=attempt,
        )
        result.formalization = response.text
        result.retries = attempt
        step = formalization_step(track, task, response.text)
        result.items = step.items
        result.extraction = None if step.formal is None else extraction_of(track, task, step.formal)
        record(track, task, result, step.outcome)
        if not step.retry(attempt, settings.max_retries):
            break
        messages = messages + [("assistant", response.text), ("user", step.feedback)]
    if settings.backup is not None and not Status(result.status).answered:
        backup(track, task, begun.text, settings, calls, result)
    return calls.fill(result)


def backup(
    track: Track,
    task: Task,
    text: str,
    settings: PipelineSettings,
    calls: Calls,
    result: PipelineResult,
) -> None:
    """Ask the backup architecture (``settings.backup``: ``cot``) and record its answer in
    the result's ``backup_*`` fields (the ns outcome stays as it is)."""
    got = cot.ask(track, task, text, settings, calls)
    result.backup_used = True
    result.backup_status, result.backup_answer = got.status, got.answer
    result.backup_correct, result.backup_response = got.correct, got.response
