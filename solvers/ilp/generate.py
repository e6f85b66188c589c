"""The generate stage: a persistent multi-shot clingo Control over ``asp/ilp_generate.lp``
that yields candidate clauses of a requested size and takes bans as ground data.

Bias facts enter through clingo's backend as symbols; a ban enters by grounding the part
``spec_ban(Id)`` or ``gen_ban(Id)``, whose literals come from :meth:`Generator.ban_literals`
(a context function returning symbols) -- no program text is ever built from data.
"""

from __future__ import annotations

import itertools
import threading
import time
import atexit
from functools import lru_cache
from typing import Iterable

from solvers import resources
from solvers.asp import Atom, from_symbol, to_symbol
from solvers.errors import SolverError, SolverTimeout
from solvers.ilp.bias import IlpBias
from solvers.ilp.clauses import Clause, Literal

BAN_KINDS = ("spec_ban", "gen_ban")


class Generator:
    """Candidate clauses for one bias; bans accumulate for the Generator's lifetime."""

    def __init__(self, bias: IlpBias) -> None:
        import clingo

        self.bias = bias
        self._messages: list[str] = []
        self._ctl = clingo.Control(["--models=1"], logger=self._log, message_limit=20)
        self._bans: dict[int, list] = {}
        self._pending: list[tuple[str, int]] = []
        self._size: int | None = None
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None
        self._deadline = 0.0
        from clingo import ast

        with ast.ProgramBuilder(self._ctl) as builder:
            for statement in _encoding():
                builder.add(statement)
        with self._ctl.backend() as backend:
            for fact in self._facts():
                backend.add_rule([backend.add_atom(to_symbol(fact))])
        self._ground([("base", [])])

    # ----------------------------------------------------------------- set-up
    def _facts(self) -> Iterable[Atom]:
        bias = self.bias
        head, arity = bias.head_pred
        yield Atom("clause", (0,))
        yield Atom("head_pred", (head, arity))
        yield Atom("max_body", (bias.max_body,))
        for size in self.sizes():
            yield Atom("size_value", (size,))
        head_vars = tuple(range(arity))
        yield Atom("head_vars", (arity, head_vars))
        tuples = {head_vars}
        for pred, pred_arity in bias.body_preds:
            yield Atom("body_pred", (pred, pred_arity))
        for pred_arity in sorted({a for _, a in bias.body_preds}):
            for vs in itertools.product(range(bias.max_vars), repeat=pred_arity):
                tuples.add(vs)
                yield Atom("var_tuple", (pred_arity, vs))
        for vs in sorted(tuples):
            for i, v in enumerate(vs):
                yield Atom("var_at", (vs, i, v))
        for label, table in (("type", bias.types), ("direction", bias.directions)):
            for pred, values in sorted(table.items()):
                for i, value in enumerate(values):
                    yield Atom(label, (pred, i, value))
        for pred in bias.required_preds:
            yield Atom("required", (pred,))
        if bias.allow_singletons:
            yield Atom("allow_singletons")
        if bias.non_datalog:
            yield Atom("non_datalog")

    def sizes(self) -> range:
        """The clause sizes (literals, head included) the generator can produce."""
        return range(2, self.bias.max_body + 2)

    def _log(self, _code, message: str) -> None:
        self._messages.append(message.strip())

    def _detail(self, exc: Exception) -> str:
        return "; ".join(self._messages[-3:]) or str(exc)

    def _ground(self, parts: list) -> None:
        try:
            self._ctl.ground(parts, context=self)
        except RuntimeError as exc:
            raise SolverError(f"clingo grounding failed: {self._detail(exc)}") from exc

    # ----------------------------------------------------------------- context function
    def ban_literals(self, ban_id):
        """clingo context function: the literals of ban ``ban_id`` as ``(P, Vars)`` symbols."""
        return self._bans[ban_id.number]

    # ----------------------------------------------------------------- bans
    def ban(self, kind: str, body: Iterable[Literal]) -> int:
        """Queue a ban (``spec_ban``: no clause containing all of ``body``; ``gen_ban``: no
        clause whose body lies within ``body``); grounded before the next solve."""
        if kind not in BAN_KINDS:
            raise ValueError(f"unknown ban kind {kind!r}")
        ban_id = len(self._bans)
        self._bans[ban_id] = [to_symbol((lit.pred, lit.args)) for lit in sorted(set(body))]
        self._pending.append((kind, ban_id))
        return ban_id

    @property
    def ban_count(self) -> int:
        """Number of bans added so far (renamings count separately)."""
        return len(self._bans)

    # ----------------------------------------------------------------- solving
    def set_size(self, size: int) -> None:
        """Restrict candidates to clauses of exactly ``size`` literals."""
        import clingo

        if self._size is not None:
            self._ctl.assign_external(clingo.Function("size_is", [clingo.Number(self._size)]),
                                      False)
        self._ctl.assign_external(clingo.Function("size_is", [clingo.Number(size)]), True)
        self._size = size

    def next_clause(self, deadline: float) -> Clause | None:
        """One candidate of the current size obeying every ban so far, or None if none is
        left. Raises :class:`SolverTimeout` past ``deadline`` (a ``time.monotonic()`` value)."""
        import clingo

        if self._pending:
            parts = [(kind, [clingo.Number(ban_id)]) for kind, ban_id in self._pending]
            self._pending = []
            self._ground(parts)
        if time.monotonic() >= deadline:
            raise SolverTimeout("ILP search ran out of time while generating")
        self._watch(deadline)
        with self._ctl.solve(yield_=True) as handle:
            for model in handle:
                return _decode(model.symbols(shown=True))
            result = handle.get()
        if result.interrupted or time.monotonic() >= deadline:
            raise SolverTimeout(f"ILP generator exceeded the time limit (size {self._size})")
        return None

    # ----------------------------------------------------------------- time limit
    def _watch(self, deadline: float) -> None:
        """Start (once) a watchdog thread that interrupts clingo from ``deadline`` on.

        Solving synchronously is ~10x cheaper than an asynchronous solve per call; the
        watchdog keeps interrupting every 50 ms after the deadline, so an interrupt that
        arrives between two solves cannot be lost."""
        if self._watchdog is not None:
            return
        self._deadline = deadline
        self._watchdog = threading.Thread(target=self._watch_loop, name="ilp-clingo-watchdog",
                                          daemon=True)
        self._watchdog.start()

    def _watch_loop(self) -> None:
        while True:
            remaining = self._deadline - time.monotonic()
            if self._stop.wait(remaining if remaining > 0 else 0.05):
                return
            if time.monotonic() >= self._deadline:
                self._ctl.interrupt()

    def close(self) -> None:
        """Stop the watchdog (the Control itself is freed with the Generator)."""
        self._stop.set()
        if self._watchdog is not None:
            self._watchdog.join()
            self._watchdog = None


@lru_cache(maxsize=1)
def _encoding() -> tuple:
    """``asp/ilp_generate.lp`` parsed once per process (a tuple of clingo AST statements)."""
    from clingo import ast

    statements: list = []
    messages: list[str] = []
    try:
        ast.parse_string(resources.read_text("asp", "ilp_generate"), statements.append,
                         logger=lambda _code, msg: messages.append(msg), message_limit=5)
    except RuntimeError as exc:
        detail = "; ".join(m.strip() for m in messages) or str(exc)
        raise SolverError(f"clingo cannot parse ilp_generate.lp: {detail}") from exc
    # release the cached AST before interpreter shutdown tears clingo's library down (else
    # every statement's __del__ fails at exit with "'NoneType' ... clingo_ast_release")
    atexit.register(_encoding.cache_clear)
    return tuple(statements)


def _decode(symbols) -> Clause:
    head: Literal | None = None
    body: list[Literal] = []
    for sym in symbols:
        _clause, pred, _arity, vs = (from_symbol(a) for a in sym.arguments)
        lit = Literal(pred, tuple(vs))
        if sym.name == "head_literal":
            head = lit
        else:
            body.append(lit)
    if head is None:
        raise SolverError("ILP generator produced a model without a head literal")
    return Clause(head, tuple(body))
