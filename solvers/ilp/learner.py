"""The learner's public face: :func:`learn` (a Popper-format folder), :func:`learn_problem`
(an in-memory :class:`IlpProblem`) and :class:`IlpSession` (one problem's background
knowledge and examples loaded once, then learned under many biases -- e.g. the induction
track's 45 restricted cross-checks of one task)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solvers.errors import ConfigError, SolverTimeout
from solvers.ilp.bias import MODES, IlpBias
from solvers.ilp.clauses import Clause, canonical, show
from solvers.ilp.problem import IlpProblem, load_problem
from solvers.ilp.search import SearchState, search
from solvers.ilp.tester import Tester

STATUSES = ("solution", "no_solution", "timeout")


@dataclass
class IlpResult:
    """The outcome of one learning run.

    ``status``: ``solution`` (classic: a program covering every positive and no negative, of
    minimal size; partial: a clause covering the most positives, at least one, and no
    negative), ``no_solution`` (the bias admits none) or ``timeout`` (``program`` is then the
    best found so far, possibly empty). ``tp, fn, tn, fp`` score ``program`` on the examples.
    """

    status: str
    program: list[str]
    tp: int
    fn: int
    tn: int
    fp: int
    seconds: float
    candidates_tested: int
    mode: str
    clauses: list[Clause] = field(default_factory=list, repr=False)

    @property
    def found(self) -> bool:
        """Whether a solution was found."""
        return self.status == "solution"


class IlpSession:
    """A problem's background knowledge and examples in a fresh temporary Prolog module,
    reusable for many :meth:`learn` calls (each with its own bias). Use as a context manager.
    """

    def __init__(self, problem: IlpProblem, engine: Any = None,
                 example_time_limit: float = 0.05, timeout: float = 60.0) -> None:
        self.problem = problem
        deadline = time.monotonic() + timeout
        self._tester = Tester(problem, deadline, engine=engine,
                              example_time_limit=example_time_limit)

    def __enter__(self) -> "IlpSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the session's Prolog module."""
        self._tester.close()

    def learn(self, bias: IlpBias | None = None, mode: str | None = None,
              timeout: float = 60.0, max_renamings: int = 24) -> IlpResult:
        """Learn under ``bias`` (default: the problem's) in ``mode`` (default: the bias's)."""
        start = time.monotonic()
        bias = bias or self.problem.bias
        if mode is not None:
            if mode not in MODES:
                raise ConfigError(f"unknown ILP mode {mode!r}; expected one of {MODES}")
            bias = bias.restricted(bias.body_preds, mode=mode)
        if bias.head_pred != self.problem.bias.head_pred:
            raise ConfigError(f"bias head {bias.head_pred} differs from the session's examples "
                              f"({self.problem.bias.head_pred})")
        state = SearchState()
        try:
            search(bias, self._tester, start + timeout, state, max_renamings=max_renamings)
            status = "solution" if state.program else "no_solution"
        except SolverTimeout:
            status = "timeout"
        return _result(status, state, bias, self._tester, time.monotonic() - start)


def _result(status: str, state: SearchState, bias: IlpBias, tester: Tester,
            seconds: float) -> IlpResult:
    # Every clause of a program is a good clause: it covers no negative, and the positives
    # it covers were all collected when it was tested.
    tp = len(state.covered)
    return IlpResult(status=status, program=[show(canonical(c), bias.directions) for c in state.program],
                     tp=tp, fn=tester.n_pos - tp, tn=tester.n_neg, fp=0, seconds=seconds,
                     candidates_tested=state.tested, mode=bias.mode, clauses=list(state.program))


def learn_problem(problem: IlpProblem, mode: str | None = None, timeout: float = 60.0,
                  engine: Any = None, example_time_limit: float = 0.05) -> IlpResult:
    """Learn a program for an in-memory problem (a fresh temporary module for it)."""
    start = time.monotonic()
    try:
        session = IlpSession(problem, engine=engine, example_time_limit=example_time_limit,
                             timeout=timeout)
    except SolverTimeout:
        return IlpResult("timeout", [], 0, len(problem.pos), len(problem.neg), 0,
                         time.monotonic() - start, 0, mode or problem.bias.mode)
    with session:
        result = session.learn(mode=mode, timeout=max(timeout - (time.monotonic() - start), 0.0))
    result.seconds = time.monotonic() - start
    return result


def learn(folder: Path | str, mode: str | None = None, timeout: float = 60.0,
          engine: Any = None, example_time_limit: float = 0.05) -> IlpResult:
    """Learn from a Popper-format folder (``bk.pl``, ``exs.pl``, ``bias.pl``).

    ``mode`` (``classic`` / ``partial``) overrides the bias file's ``mode(...)``. Malformed
    input raises :class:`SolverInputError` naming the file and line."""
    start = time.monotonic()
    problem = load_problem(folder, engine=engine)
    result = learn_problem(problem, mode=mode,
                           timeout=max(timeout - (time.monotonic() - start), 0.0),
                           engine=engine, example_time_limit=example_time_limit)
    result.seconds = time.monotonic() - start
    return result
