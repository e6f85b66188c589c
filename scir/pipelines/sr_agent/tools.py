"""The SR agent's two tools over a problem's TRAINING data, each result cached in the run
store so that a restarted run repeats no finished tool call:

- T1 ``analyze``: untrusted Python run by :func:`solvers.equation.analyzer.analyze` in a
  sandboxed subprocess (time, memory and output limits) with the training data;
- T2 ``evaluate``: an equation skeleton parsed by :func:`solvers.equation.expression.
  parse_equation`, its constants ``p0..p9`` fitted by BFGS
  (:func:`solvers.equation.evaluator.fit`) and reported (:func:`~solvers.equation.evaluator.
  report`: MSE, NMSE, MAPE, fitted constants).

A cached result is keyed by sha256 of (tool, input text, the problem's data digest, the tool
settings); both tools are deterministic given these, so a cached result equals a fresh one.

A tool call that kills or crashes the process (the model's code may try) must not make the run
impossible to finish, since its model call is cached and every rerun would run it again. So a
start is recorded (``tool_attempts``) before the tool runs and the result is stored only after
it has run; a call found started :data:`MAX_STARTS` times without a result is not run again:
it gets a stored ``crashed`` result whose text tells the model the call did not finish. A
KeyboardInterrupt (the user, not the tool) takes its start back.
"""

from __future__ import annotations

import hashlib
import json
import math
import typing
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from scir.errors import ConfigError, ScirError
from scir.llm.base import valid_text
from scir.llm.cache import CallCache
from scir.llm.store_rows import BadRow, check_fields
from scir.pipelines.sr_agent.settings import AgentSettings

FIT_SEED = 0
MAX_STARTS = 2  # starts of one tool call without a result, then "crashed"
CRASHED = (
    "crashed: this tool call did not finish -- the process running it ended (killed or "
    "crashed) each of the {n} times it was started, so it is not run again; try "
    "something else"
)
PERCENT = 100.0  # eqtools reports MAPE in percent; the agent keeps fractions
OK_FITS = ("ok", "time_limit")  # a fit stopped by its time budget keeps its best so far


@dataclass(frozen=True)
class AgentProblem:
    """What the agent works on: the problem text it is shown, the input and output names, and
    the training rows (``X``: one row per point, columns in ``inputs`` order; ``y``)."""

    task_id: str
    text: str
    inputs: tuple[str, ...]
    output: str
    X: tuple[tuple[float, ...], ...]
    y: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.inputs:
            raise ConfigError("an equation problem needs at least one input", field="inputs")
        if len(self.X) != len(self.y) or not self.y:
            raise ConfigError(
                f"the training data needs as many rows as values (got "
                f"{len(self.X)} and {len(self.y)}), at least one",
                field="splits",
                task_id=self.task_id,
            )
        if any(len(row) != len(self.inputs) for row in self.X):
            raise ConfigError(
                f"every training row needs {len(self.inputs)} values",
                field="splits",
                task_id=self.task_id,
            )

    def digest(self) -> str:
        """sha256 of the names and the training data (part of every tool-cache key)."""
        data = json.dumps(
            [list(self.inputs), self.output, [list(r) for r in self.X], list(self.y)],
            separators=(",", ":"),
        )
        return hashlib.sha256(data.encode()).hexdigest()


@dataclass(frozen=True)
class Evaluation:
    """T2's result: ``ok`` (fitted; ``mape`` a fraction), else ``error`` with the reason in
    ``report``. ``canonical`` is the skeleton's canonical text (the buffer's identity),
    ``expression`` the fitted equation with constants substituted."""

    status: str
    report: str
    canonical: str = ""
    expression: str = ""
    mape: float = math.inf
    mse: float = math.inf

    @property
    def ok(self) -> bool:
        """Whether the equation was fitted with finite scores."""
        return self.status == "ok" and math.isfinite(self.mape) and math.isfinite(self.mse)


class Toolbox:
    """T1 and T2 on one problem, cached in ``store`` (None: no cache) ; counts calls made and
    served from the store."""

    def __init__(
        self, problem: AgentProblem, settings: AgentSettings, store: CallCache | None = None
    ) -> None:
        self.problem = problem
        self.settings = settings
        self.store = store
        self.made = 0
        self.served = 0
        self.crashed = 0
        self._digest = problem.digest()

    def _key(self, tool: str, text: str) -> str:
        s = self.settings
        limits = (
            {
                "seconds": s.analyze_seconds,
                "memory_mb": s.analyze_memory_mb,
                "max_output": s.max_tool_chars,
            }
            if tool == "analyze"
            else {"starts": s.fit_starts, "seed": FIT_SEED, "seconds": s.fit_seconds}
        )
        data = json.dumps(
            {"tool": tool, "input": text, "problem": self._digest, "limits": limits},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(data.encode()).hexdigest()

    def _cached(
        self,
        tool: str,
        text: str,
        run: Callable[[str], dict[str, Any]],
        check: Callable[[dict[str, Any]], None],
        crashed: Callable[[str], dict[str, Any]],
    ) -> dict[str, Any]:
        """The output of ``run(text)``, served from the store when stored (``check`` raises
        BadRow for a stored output of the wrong shape); for a call started
        :data:`MAX_STARTS` times without finishing, the output ``crashed`` makes of the
        message :data:`CRASHED`, stored."""
        store, key = self.store, self._key(tool, text)
        request = {"input": text, "problem": self._digest}
        if store is None:
            output = run(text)
            self.made += 1
            return output
        hit = store.get_tool(key, check)
        if hit is not None:
            self.served += 1
            return hit
        starts = store.tool_attempts(key)
        if starts >= MAX_STARTS:
            output = crashed(CRASHED.format(n=starts))
            store.put_tool(key, tool, {**request, "crashed_after": starts}, output)
            self.crashed += 1
            return output
        store.start_tool(key, tool)
        try:
            output = run(text)
        except KeyboardInterrupt:
            store.retract_tool_start(key)
            raise
        self.made += 1
        store.put_tool(key, tool, request, output)
        return output

    def analyze(self, code: str) -> str:
        """T1: run ``code`` on the training data; the text shown to the model."""
        return self._cached(
            "analyze", code, self._analyze, _check_analysis, lambda why: {"text": why}
        )["text"]

    def evaluate(self, skeleton: str) -> Evaluation:
        """T2: fit ``skeleton`` on the training data."""
        return Evaluation(
            **self._cached(
                "evaluate",
                skeleton,
                self._evaluate,
                _check_evaluation,
                lambda why: asdict(Evaluation("crashed", why)),
            )
        )

    # ---- the tools themselves ---------------------------------------------------------------
    def _analyze(self, code: str) -> dict[str, Any]:
        from solvers.equation.analyzer import analyze

        p, s = self.problem, self.settings
        columns = [*p.inputs, p.output]
        data = [[*row, value] for row, value in zip(p.X, p.y)]
        result = analyze(
            code,
            data,
            columns,
            seconds=s.analyze_seconds,
            memory_mb=s.analyze_memory_mb,
            max_output=s.max_tool_chars,
            isolate=not s.unsafe_unisolated_analyzer,
        )
        return {"text": _cut(valid_text(result.text()), s.max_tool_chars)}

    def _evaluate(self, skeleton: str) -> dict[str, Any]:
        from solvers.equation.evaluator import fit, report
        from solvers.equation.expression import parse_equation

        p = self.problem
        try:
            equation = parse_equation(skeleton, p.inputs)
            result = fit(
                equation,
                _array(p.X),
                _array(p.y),
                p.inputs,
                starts=self.settings.fit_starts,
                seed=FIT_SEED,
                seconds=self.settings.fit_seconds,
            )
        except ScirError as exc:
            return asdict(Evaluation("error", _cut(f"error: {exc}", self.settings.max_tool_chars)))
        mape = _finite(result.mape) / PERCENT
        mse = _finite(result.mse)
        status = "ok" if str(result.status) in OK_FITS and math.isfinite(mape) else "error"
        return asdict(
            Evaluation(
                status,
                _cut(report(result), self.settings.max_tool_chars),
                equation.text,
                str(result.expression),
                mape,
                mse,
            )
        )


def _check_analysis(output: dict[str, Any]) -> None:
    check_fields(output, {"text": str}, ("text",), "output")


def _check_evaluation(output: dict[str, Any]) -> None:
    hints = typing.get_type_hints(Evaluation)
    check_fields(output, hints, ("status", "report"), "output")
    extra = sorted(set(output) - set(hints))
    if extra:
        raise BadRow(f"output has fields an evaluation does not: {extra}")


def _array(values: Sequence[Any]) -> Any:
    import numpy as np

    return np.asarray(values, dtype=float)


def _finite(value: Any) -> float:
    """A float, with None and non-numbers as infinity (stored as JSON: inf is written as
    ``Infinity``, which :mod:`json` reads back)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return math.inf
    return value if not math.isnan(value) else math.inf


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying so."""
    return text if len(text) <= limit else text[:limit] + f"\n... (cut at {limit} characters)"
