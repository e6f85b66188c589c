"""The generate stage: one multi-shot clingo Control over ``asp/ilp_generate.lp`` (plus the
user's bias statements) that enumerates candidate programs of a requested size and takes
the constraints learned from failures.

Bias facts enter through clingo's backend as symbols; learned constraints are non-ground
rules (built in :mod:`solvers.ilp.constraints` from numbers and clingo-printed symbols)
grounded in a new program part before each enumeration, and ground nogoods (lists of program literals looked up from the
symbolic atoms) prune the running enumeration (``model.context.add_nogood``). The user's
bias statements are ASP by definition and are parsed as such.

"""

from __future__ import annotations

import atexit
import itertools
import threading
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache

from solvers import resources
from solvers.asp import AspControl, Atom
from solvers.errors import SolverError, SolverTimeout
from solvers.ilp.bias import IlpBias
from solvers.ilp.clauses import Clause, Literal

Program = tuple[tuple[int, Clause], ...]  # (slot, clause) pairs in slot order


class Generator:
    """Candidate programs for one bias; see the module doc."""

    def __init__(self, bias: IlpBias) -> None:
        self.bias = bias
        self._asp = AspControl(["--models=0"], message_limit=20)
        self._ctl = self._asp.control
        self._size: int | None = None
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None
        self._deadline = 0.0
        self._pending: list = []
        self._parts = 0
        self._ground_rate = 0.0  # seconds per learned rule at the last grounding
        self.constraints = 0
        self._asp.add_statements(_encoding(), bias.user_asp, "bias statements")
        self._asp.add_facts(self._facts())
        self._ground([("base", [])])
        self._index()

    # ----------------------------------------------------------------- set-up
    def _facts(self) -> Iterable[Atom]:
        bias = self.bias
        head, arity = bias.head_pred
        yield Atom("head_pred", (head, arity))
        yield Atom("max_body", (bias.max_body,))
        yield Atom("max_vars", (bias.max_vars,))
        yield Atom("max_clauses", (self.slots,))
        for size in self.sizes():
            yield Atom("size_value", (size,))
        arities = {arity, *(a for _, a in bias.body_preds)}
        if bias.enable_pi:
            arities |= set(range(1, max(arities) + 1))
            for i in range(1, self.slots):
                yield Atom("inv_symbol", (f"inv{i}", i))
        for a in sorted(arities):
            yield Atom("head_vars", (a, tuple(range(a))))
            for vs in itertools.permutations(range(bias.max_vars), a):
                yield Atom("vars", (a, vs))
                for i, v in enumerate(vs):
                    yield Atom("var_pos", (v, vs, i))
        for pred, pred_arity in bias.body_preds:
            yield Atom("body_pred", (pred, pred_arity))
        for label, table in (("type", bias.types), ("direction", bias.directions)):
            name = "arg_type" if label == "type" else "arg_dir"
            for pred, values in sorted(table.items()):
                yield Atom(label, (pred, tuple(values)))
                for i, value in enumerate(values):
                    yield Atom(name, (pred, i, value))
        for pred in bias.required_preds:
            yield Atom("required", (pred,))
        for flag in ("allow_singletons", "non_datalog", "enable_recursion", "enable_pi"):
            if getattr(bias, flag):
                yield Atom(flag)

    @property
    def slots(self) -> int:
        """Number of clause slots (1 unless recursion or predicate invention)."""
        return self.bias.max_clauses if self.bias.multi_clause else 1

    def sizes(self) -> range:
        """The program sizes (literals, heads included) the generator can produce."""
        largest = (self.bias.max_body + 1) * self.slots
        if self.bias.max_size is not None:  # custom_max_size(K), as Popper d48951f's alan.pl
            largest = min(largest, self.bias.max_size)
        return range(2, largest + 1)

    def _index(self) -> None:
        """Program literals of the atoms constraints refer to."""
        atoms = self._ctl.symbolic_atoms
        self.body_lit: dict[tuple, int] = {}
        self.head_lit: dict[tuple, int] = {}
        self.size_lit: dict[tuple[int, int], int] = {}
        self.clause_lit: dict[int, int] = {}
        for sa in atoms.by_signature("body_literal", 4):
            c, p, _a, vs = sa.symbol.arguments
            self.body_lit[(c.number, p.name, tuple(x.number for x in vs.arguments))] = sa.literal
        for sa in atoms.by_signature("head_literal", 4):
            c, p, _a, vs = sa.symbol.arguments
            self.head_lit[(c.number, p.name, tuple(x.number for x in vs.arguments))] = sa.literal
        for sa in atoms.by_signature("body_size", 2):
            c, n = sa.symbol.arguments
            self.size_lit[(c.number, n.number)] = sa.literal
        for sa in atoms.by_signature("clause", 1):
            self.clause_lit[sa.symbol.arguments[0].number] = sa.literal
        self.num_recursive_lit: dict[tuple[str, int], int] = {}
        for sa in atoms.by_signature("num_recursive", 2):
            p, n = sa.symbol.arguments
            self.num_recursive_lit[(p.name, n.number)] = sa.literal
        self.recursive_lit: dict[tuple[int, str], int] = {}
        for sa in atoms.by_signature("recursive_clause", 3):
            c, p, _a = sa.symbol.arguments
            self.recursive_lit[(c.number, p.name)] = sa.literal

    def _detail(self, exc: Exception) -> str:
        return self._asp.detail(exc, last=3)

    def _ground(self, parts: list) -> None:
        self._asp.ground(parts)

    # ----------------------------------------------------------------- constraints
    def ban_now(self, nogoods: Iterable[list[int]], model) -> None:
        """Forbid every set of literals in ``nogoods`` (program literals; negative = not) in
        the running enumeration only (``model`` is the current model)."""
        for nogood in nogoods:
            model.context.add_nogood(nogood)

    def add_constraints(self, rules: Iterable) -> None:
        """Queue integrity constraints (ASP rules, :mod:`solvers.ilp.constraints`);
        they are grounded before the next enumeration."""
        self._pending.extend(rules)

    def _flush(self, deadline: float) -> None:
        """Ground the queued constraints. Grounding cannot be interrupted: when the last
        grounding's seconds per rule, doubled, say they would not all be grounded before
        ``deadline``, only as many as fit are grounded now (the rest stay queued; a
        constraint only prunes, so the search stays sound without it) and the search goes
        on until the deadline itself: a time-out is never reported before the time limit."""
        if not self._pending:
            return
        fits = len(self._pending)
        if self._ground_rate > 0:
            fits = int((deadline - time.monotonic()) / (2 * self._ground_rate))
        if fits <= 0:
            return
        pending, self._pending = self._pending[:fits], self._pending[fits:]
        self._ground_part(pending)

    def _ground_part(self, rules: list) -> None:
        """Add ``rules`` as a new program part and ground it."""
        started = time.monotonic()
        count = len(rules)
        self._parts += 1
        part = f"learned_{self._parts}"
        try:
            self._ctl.add(part, [], "\n".join(rules))
        except RuntimeError as exc:
            raise SolverError(f"clingo rejected a learned constraint: {self._detail(exc)}") from exc
        self.constraints += count
        self._ground([(part, [])])
        self._ground_rate = (time.monotonic() - started) / count

    # ----------------------------------------------------------------- solving
    def programs(self, size: int, deadline: float) -> Iterator[tuple[Program, object]]:
        """Every program of exactly ``size`` literals obeying the bias and the constraints
        so far, each with its clingo model (for :meth:`add`). Raises SolverTimeout past
        ``deadline`` (a ``time.monotonic()`` value)."""
        import clingo

        self._flush(deadline)
        if self._size is not None:
            self._ctl.assign_external(
                clingo.Function("size_is", [clingo.Number(self._size)]), False
            )
        self._ctl.assign_external(clingo.Function("size_is", [clingo.Number(size)]), True)
        self._size = size
        if time.monotonic() >= deadline:
            raise SolverTimeout("ILP search ran out of time while generating")
        self._watch(deadline)
        try:
            with self._ctl.solve(yield_=True) as handle:
                for model in handle:
                    yield _decode(model.symbols(shown=True)), model
                    if time.monotonic() >= deadline:
                        raise SolverTimeout(f"ILP search ran out of time (size {size})")
                result = handle.get()
        except RuntimeError as exc:
            raise SolverError(f"clingo failed while generating: {self._detail(exc)}") from exc
        if result.interrupted or time.monotonic() >= deadline:
            raise SolverTimeout(f"ILP generator exceeded the time limit (size {size})")

    # ----------------------------------------------------------------- time limit
    def _watch(self, deadline: float) -> None:
        """A watchdog thread interrupting clingo from ``deadline`` on (every 50 ms, so an
        interrupt arriving between two solves is not lost)."""
        self._deadline = deadline
        if self._watchdog is not None:
            return
        self._watchdog = threading.Thread(
            target=self._watch_loop, name="ilp-clingo-watchdog", daemon=True
        )
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


def _parse_resource(name: str) -> tuple:
    from clingo import ast

    statements: list = []
    messages: list[str] = []
    try:
        ast.parse_string(
            resources.read_text("asp", name),
            statements.append,
            logger=lambda _code, msg: messages.append(msg),
            message_limit=5,
        )
    except RuntimeError as exc:
        detail = "; ".join(m.strip() for m in messages) or str(exc)
        raise SolverError(f"clingo cannot parse {name}.lp: {detail}") from exc
    return tuple(statements)


@lru_cache(maxsize=1)
def _encoding() -> tuple:
    """``asp/ilp_generate.lp`` parsed once per process (a tuple of clingo AST statements)."""
    # release the cached AST before interpreter shutdown tears clingo's library down (else
    # every statement's __del__ fails at exit with "'NoneType' ... clingo_ast_release")
    atexit.register(_encoding.cache_clear)
    return _parse_resource("ilp_generate")


@lru_cache(maxsize=100_000)
def _decode_atom(sym) -> tuple[bool, int, Literal]:
    """(is a head, clause slot, literal) of a shown atom (symbols recur across models)."""
    c, pred, _arity, vs = sym.arguments
    return (
        sym.name == "head_literal",
        c.number,
        Literal(pred.name, tuple(v.number for v in vs.arguments)),
    )


def _decode(symbols) -> Program:
    heads: dict[int, Literal] = {}
    bodies: dict[int, list[Literal]] = {}
    for sym in symbols:
        is_head, c, lit = _decode_atom(sym)
        if is_head:
            heads[c] = lit
        else:
            bodies.setdefault(c, []).append(lit)
    if 0 not in heads:
        raise SolverError("ILP generator produced a model without a head literal")
    return tuple((c, Clause(heads[c], tuple(bodies.get(c, ())))) for c in sorted(heads))
