"""The learner's public face: :func:`learn` (a Popper-format folder), :func:`learn_problem`
(an in-memory :class:`IlpProblem`) and :class:`IlpSession` (one problem's background
knowledge and examples loaded once, then learned under many biases -- e.g. the induction
track's 45 restricted cross-checks of one task)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solvers.errors import ConfigError, SolverError, SolverTimeout
from solvers.ilp.bias import MODES, IlpBias, read_bias
from solvers.ilp.clauses import Clause, canonical, show, sort_key
from solvers.ilp.constraints import variant_nogoods
from solvers.ilp.problem import IlpProblem, check_folder, default_engine, load_examples
from solvers.ilp.search import SearchState, search
from solvers.ilp.tester import RECURSIVE_TIME_LIMIT, Tester

if TYPE_CHECKING:
    from concurrent.futures import Future

    from solvers.ilp.generate import Generator

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
    noisy: bool = False
    rechecked: bool = False  # the counts come from scoring the whole program again

    @property
    def size(self) -> int:
        """Number of literals of the program (heads included), Popper's program size."""
        return sum(c.size for c in self.clauses)

    @property
    def found(self) -> bool:
        """Whether a solution was found."""
        return self.status == "solution"


class IlpSession:
    """A problem's background knowledge and examples in a fresh temporary Prolog module,
    reusable for many :meth:`learn` calls (each with its own bias). Use as a context manager.
    """

    def __init__(
        self,
        problem: IlpProblem,
        engine: Any = None,
        example_time_limit: float = 0.05,
        timeout: float = 60.0,
        recursive_time_limit: float = RECURSIVE_TIME_LIMIT,
    ) -> None:
        self.problem = problem
        deadline = time.monotonic() + timeout
        self._tester = Tester(
            problem,
            deadline,
            engine=engine,
            example_time_limit=example_time_limit,
            recursive_time_limit=recursive_time_limit,
        )

    def __enter__(self) -> IlpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the session's Prolog module."""
        self._tester.close()

    def learn(
        self,
        bias: IlpBias | None = None,
        mode: str | None = None,
        timeout: float = 60.0,
        noisy: bool = False,
        generator: Generator | None = None,
    ) -> IlpResult:
        """Learn under ``bias`` (default: the problem's) in ``mode`` (default: the bias's);
        ``noisy``: the program of least FN + FP + size (Popper's --noisy). ``generator``: a
        fresh :class:`~solvers.ilp.generate.Generator` of that bias, grounded by the caller
        (who closes it)."""
        start = time.monotonic()
        bias = self._bias(bias, mode)
        state = SearchState()
        try:
            search(bias, self._tester, start + timeout, state, noisy=noisy, generator=generator)
            status = "solution" if state.program else "no_solution"
        except SolverTimeout:
            status = "timeout"
        return _result(
            status,
            state,
            bias,
            self._tester,
            start + timeout + 1.0,
            time.monotonic() - start,
            noisy,
        )

    def learn_restricted(
        self, runs: list[tuple[list[tuple[str, int]], tuple[str, ...]]], timeout: float = 60.0
    ) -> list[IlpResult]:
        """Partial-mode runs of the problem's bias, each allowing only some body predicates
        and requiring some (the induction track's 45 restricted cross-checks), within
        ``timeout`` s in all. The bias's whole clause space is enumerated once (one
        grounding, no pruning: exhaustive) and tested in one batch; each run's answer is the
        best clause within its restriction, as a separate partial-mode run finds it."""
        from solvers.ilp.generate import Generator

        base = self.problem.bias
        if base.mode != "partial" or base.multi_clause:
            raise ConfigError("restricted runs need a one-clause partial-mode bias")
        start = time.monotonic()
        deadline = start + timeout
        gen = Generator(base)
        clauses: list[Clause] = []
        try:
            self._tester.declare(base.body_preds, deadline)
            for size in gen.sizes():
                for program, model in gen.programs(size, deadline):
                    clause = program[0][1]
                    gen.ban_now(variant_nogoods(gen, program), model)
                    clauses.append(clause)
            outcomes = self._tester.test_many(clauses, base.directions, deadline)
        except SolverTimeout:
            seconds = time.monotonic() - start
            return [
                IlpResult(
                    "timeout",
                    [],
                    0,
                    self._tester.n_pos,
                    self._tester.n_neg,
                    0,
                    seconds,
                    0,
                    "partial",
                )
                for _ in runs
            ]
        finally:
            gen.close()
        seconds = (time.monotonic() - start) / max(len(runs), 1)
        results = []
        for body_preds, required in runs:
            allowed = {p for p, _ in body_preds}
            best = None
            for clause, outcome in zip(clauses, outcomes):
                preds = {lit.pred for lit in clause.body}
                if not preds <= allowed or not set(required) <= preds:
                    continue
                if outcome.neg is not None or not outcome.pos:
                    continue
                rank = (-len(outcome.pos), sort_key(clause))
                if best is None or rank < best[0]:
                    best = (rank, clause, outcome)
            state = SearchState()
            if best is not None:
                state.program, state.covered = [best[1]], best[2].pos
            bias = base.restricted(body_preds, required_preds=tuple(required))
            results.append(
                _result(
                    "solution" if best else "no_solution",
                    state,
                    bias,
                    self._tester,
                    None,
                    seconds,
                    False,
                )
            )
        return results

    def _bias(self, bias: IlpBias | None, mode: str | None) -> IlpBias:
        bias = _with_mode(bias or self.problem.bias, mode)
        if bias.head_pred != self.problem.bias.head_pred:
            raise ConfigError(
                f"bias head {bias.head_pred} differs from the session's examples "
                f"({self.problem.bias.head_pred})"
            )
        return bias


def _with_mode(bias: IlpBias, mode: str | None) -> IlpBias:
    """``bias`` in ``mode`` (None: its own)."""
    if mode is None:
        return bias
    if mode not in MODES:
        raise ConfigError(f"unknown ILP mode {mode!r}; expected one of {MODES}")
    return bias.restricted(bias.body_preds, mode=mode)


def _result(
    status: str,
    state: SearchState,
    bias: IlpBias,
    tester: Tester,
    recheck_deadline: float | None,
    seconds: float,
    noisy: bool,
) -> IlpResult:
    """The result; with ``recheck_deadline``, the program is scored again by the tester (a
    second, whole-program test) and a disagreement with the search is a SolverError."""
    tp, fp = len(state.covered), len(state.neg_covered)
    rechecked = False
    if recheck_deadline is not None and state.program:
        try:
            pos, neg = tester.score(state.program, bias.directions, recheck_deadline)
        except SolverTimeout:
            # no time left to score it again: the search's own counts, status timeout
            status = "timeout"
        else:
            exact = status == "solution" and not noisy and bias.mode == "classic"
            if (exact and (len(pos) != tester.n_pos or neg)) or (
                noisy and (len(pos), len(neg)) != (tp, fp)
            ):
                raise SolverError(
                    f"the learned program does not score as the search found "
                    f"(TP {len(pos)} vs {tp}, FP {len(neg)} vs {fp})"
                )
            tp, fp, rechecked = len(pos), len(neg), True
    return IlpResult(
        status=status,
        program=[show(canonical(c), bias.directions) for c in state.program],
        tp=tp,
        fn=tester.n_pos - tp,
        tn=tester.n_neg - fp,
        fp=fp,
        seconds=seconds,
        candidates_tested=state.tested,
        mode=bias.mode,
        clauses=list(state.program),
        noisy=noisy,
        rechecked=rechecked,
    )


def learn_problem(
    problem: IlpProblem,
    mode: str | None = None,
    timeout: float = 60.0,
    engine: Any = None,
    example_time_limit: float = 0.05,
    noisy: bool = False,
    recursive_time_limit: float = RECURSIVE_TIME_LIMIT,
    grounding: Future[Generator] | None = None,
) -> IlpResult:
    """Learn a program for an in-memory problem (a fresh temporary module for it).
    ``grounding``: the generator of the problem's bias in ``mode``, being grounded by the
    caller (else it is grounded here, while Prolog loads the background knowledge)."""
    from concurrent.futures import ThreadPoolExecutor

    from solvers.ilp.generate import Generator

    start = time.monotonic()
    bias = _with_mode(problem.bias, mode)
    # clingo grounds the generator while Prolog loads the background knowledge and examples
    with ThreadPoolExecutor(1, thread_name_prefix="ilp-generator") as pool:
        if grounding is None:
            grounding = pool.submit(Generator, bias)
        try:
            session = IlpSession(
                problem,
                engine=engine,
                example_time_limit=example_time_limit,
                timeout=timeout,
                recursive_time_limit=recursive_time_limit,
            )
        except BaseException as exc:
            if grounding.exception() is None:
                grounding.result().close()
            if isinstance(exc, SolverTimeout):
                return IlpResult(
                    "timeout",
                    [],
                    0,
                    problem.n_pos,
                    problem.n_neg,
                    0,
                    time.monotonic() - start,
                    0,
                    bias.mode,
                )
            raise
        try:
            generator = grounding.result()
        except BaseException:
            session.close()
            raise
    try:
        with session:
            result = session.learn(
                bias=bias,
                timeout=max(timeout - (time.monotonic() - start), 0.0),
                noisy=noisy,
                generator=generator,
            )
    finally:
        generator.close()
    result.seconds = time.monotonic() - start
    return result


def learn(
    folder: Path | str,
    mode: str | None = None,
    timeout: float = 60.0,
    engine: Any = None,
    example_time_limit: float = 0.05,
    noisy: bool = False,
    recursive_time_limit: float = RECURSIVE_TIME_LIMIT,
) -> IlpResult:
    """Learn from a Popper-format folder (``bk.pl``, ``exs.pl``, ``bias.pl``).

    ``mode`` (``classic`` / ``partial``) overrides the bias file's ``mode(...)``. Malformed
    input raises :class:`SolverInputError` naming the file and line."""
    from concurrent.futures import ThreadPoolExecutor

    from solvers.ilp.generate import Generator

    start = time.monotonic()
    folder = check_folder(folder)
    # one thread reads the bias, then grounds the generator, while this one starts
    # SWI-Prolog (when not started yet) and loads the examples: clingo and Prolog both
    # release the GIL in their C code (some 40 ms less before a search)
    with ThreadPoolExecutor(1, thread_name_prefix="ilp-bias") as pool:
        reading = pool.submit(read_bias, folder / "bias.pl")
        grounding = pool.submit(lambda: Generator(_with_mode(reading.result(), mode)))
        try:
            engine = engine or default_engine()
            problem = load_examples(folder, reading.result(), engine)
        except BaseException:
            if grounding.exception() is None:
                grounding.result().close()
            raise
        result = learn_problem(
            problem,
            mode=mode,
            timeout=max(timeout - (time.monotonic() - start), 0.0),
            engine=engine,
            example_time_limit=example_time_limit,
            noisy=noisy,
            recursive_time_limit=recursive_time_limit,
            grounding=grounding,
        )
    result.seconds = time.monotonic() - start
    return result
