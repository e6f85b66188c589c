"""clingo helpers: the one wrapper that creates clingo Controls (:class:`AspControl`), and
programs that load ``.lp`` resources, add facts from Python records, ground and enumerate
models as typed records within one time limit for grounding and solving (:class:`AspProgram`).

Data enters as clingo symbols built from Python values (never as program text):

    >>> from solvers.asp import AspProgram, Atom
    >>> prog = AspProgram()                                     # doctest: +SKIP
    >>> prog.load("induction")                                  # asp/induction.lp
    >>> prog.add_facts("substrate_of", [("d1", "p1")])
    >>> models = prog.models(time_limit=5)                      # list[AspModel]

Python -> clingo: ``str`` that is a clingo identifier (``[a-z_][A-Za-z0-9_']*``) -> constant,
other ``str`` -> string; ``int`` (32-bit) -> number; ``tuple`` -> tuple; :class:`Atom` ->
function term (a name starting with ``-`` is a classically negated term, ``-p(a)``).
clingo -> Python: the same mapping back (constants and strings both become ``str``).
Models list their atoms in a fixed total order (:func:`sort_key`), so results never depend on
the solver's order.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from solvers import resources
from solvers.errors import SolverError, SolverInputError, SolverTimeout
from solvers.records import Record
from solvers.terms import Compound

_R = TypeVar("_R", bound=Record)

_IDENT = re.compile(r"[a-z_][A-Za-z0-9_']*\Z")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


class Atom(Compound):
    """A ground atom or function term ``name(args...)`` (:class:`solvers.terms.Compound`,
    written in clingo's syntax; a nested tuple is a clingo tuple)."""

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({','.join(_show(a) for a in self.args)})"


def _show(value: Any) -> str:
    if isinstance(value, str):
        if _IDENT.match(value):
            return value
        escaped = value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
        return '"' + escaped + '"'
    if isinstance(value, tuple):
        return "(" + ",".join(_show(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


@dataclass
class AspModel:
    """One answer set: its shown atoms (sorted), cost and model number."""

    atoms: list[Atom]
    number: int
    cost: list[int] = field(default_factory=list)
    optimal: bool = False

    def by_name(self, name: str) -> list[tuple]:
        """The argument tuples of every atom named ``name`` (sorted by :func:`sort_key`)."""
        return sorted((a.args for a in self.atoms if a.name == name), key=sort_key)

    def records(self, record: type[_R]) -> list[_R]:
        """Every atom of ``record``'s predicate as that typed record, in :func:`sort_key`
        order (:mod:`solvers.records`; SolverError on an atom of the wrong types, or when
        the predicate appears only with another arity: a declaration out of step with the
        program)."""
        arity = record.arity()
        named = [a.args for a in self.atoms if a.name == record.predicate]
        rows = [args for args in named if len(args) == arity]
        if named and not rows:
            others = sorted({len(args) for args in named})
            raise SolverError(
                f"{record.signature()} is declared, but the answer set has "
                f"{record.predicate}/{others[0]}"
            )
        return [record.from_args(args) for args in sorted(rows, key=sort_key)]


def sort_key(value: Any) -> tuple:
    """A total order over converted values (numbers < strings < tuples < atoms), so that
    mixed values such as ``p(1)`` and ``p(a)`` sort without a ``TypeError``."""
    if isinstance(value, int):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, tuple):
        return (2, len(value), tuple(sort_key(v) for v in value))
    if isinstance(value, Atom):
        return (3, value.name, len(value.args), tuple(sort_key(v) for v in value.args))
    return (4, str(value))


def to_symbol(value: Any):
    """Convert a Python value (see module doc) to a clingo symbol."""
    import clingo

    if isinstance(value, bool):
        raise SolverInputError(f"booleans have no clingo form: {value!r}")
    if isinstance(value, Atom):
        name, positive = (
            (value.name[1:], False) if value.name.startswith("-") else (value.name, True)
        )
        if not _IDENT.match(name):
            raise SolverInputError(f"invalid clingo function name {value.name!r}")
        return clingo.Function(name, [to_symbol(v) for v in value.args], positive)
    if isinstance(value, str):
        return clingo.Function(value) if _IDENT.match(value) else clingo.String(value)
    if isinstance(value, int):
        if not _INT_MIN <= value <= _INT_MAX:
            raise SolverInputError(f"clingo numbers are 32-bit integers, got {value}")
        return clingo.Number(value)
    if isinstance(value, tuple):
        return clingo.Tuple_([to_symbol(v) for v in value])
    raise SolverInputError(f"cannot pass {type(value).__name__} value {value!r} to clingo")


def from_symbol(sym) -> Any:
    """Convert a clingo symbol back to a Python value (see module doc)."""
    import clingo

    if sym.type == clingo.SymbolType.Number:
        return sym.number
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.type == clingo.SymbolType.Function:
        args = tuple(from_symbol(a) for a in sym.arguments)
        if sym.name == "":
            return args
        if sym.negative:
            return Atom("-" + sym.name, args)
        if not args:
            return sym.name
        return Atom(sym.name, args)
    return str(sym)  # #inf / #sup


class AspControl:
    """The one place where the toolkit creates a clingo ``Control``: its logger collects
    clingo's messages for the errors below. Program text that does not parse is a
    SolverInputError naming its origin; a grounding error is a SolverInputError when clingo
    reports it as an error of the program (unsafe variables, ...), else a SolverError.
    :class:`AspProgram` builds on it; multi-shot users (the ILP generator) use :attr:`control`
    for solving, externals and symbolic atoms."""

    def __init__(self, arguments: Sequence[str] = (), message_limit: int = 50) -> None:
        import clingo

        self.messages: list[tuple[Any, str]] = []  # (clingo.MessageCode, text)
        try:
            self.control = clingo.Control(
                list(arguments), logger=self._log, message_limit=message_limit
            )
        except RuntimeError as exc:
            raise SolverInputError(f"invalid clingo arguments {list(arguments)}: {exc}") from exc

    def _log(self, code, message: str) -> None:
        self.messages.append((code, message.strip()))

    def detail(self, exc: Exception, last: int | None = None) -> str:
        """clingo's messages since the last operation (or the error itself)."""
        texts = [text for _, text in self.messages]
        return "; ".join(texts[-last:] if last else texts) or str(exc)

    def add(
        self, text: str, origin: str = "<program>", part: str = "base", params: Sequence[str] = ()
    ) -> None:
        """Add program text to ``part`` (SolverInputError naming ``origin`` if it does not
        parse)."""
        self.messages.clear()
        try:
            self.control.add(part, list(params), text)
        except RuntimeError as exc:
            raise SolverInputError(f"clingo cannot parse {origin}: {self.detail(exc)}") from exc

    def add_statements(
        self, statements: Iterable[Any], user_text: str | None = None, origin: str = "<program>"
    ) -> None:
        """Add clingo AST statements, then ``user_text`` parsed as ASP (SolverInputError
        naming ``origin`` if it does not parse)."""
        from clingo import ast

        with ast.ProgramBuilder(self.control) as builder:
            for statement in statements:
                builder.add(statement)
            if user_text:
                try:
                    ast.parse_string(user_text, builder.add)
                except RuntimeError as exc:
                    raise SolverInputError(f"{origin} do not parse: {exc}") from exc

    def add_facts(self, facts: Iterable[Any]) -> None:
        """Add ground facts through the backend, as symbols (:func:`to_symbol`)."""
        with self.control.backend() as backend:
            for fact in facts:
                backend.add_rule([backend.add_atom(to_symbol(fact))])

    def ground(self, parts: Sequence[tuple[str, Sequence[Any]]] = (("base", ()),)) -> None:
        """Ground ``parts`` (see the class doc for the errors)."""
        import clingo

        self.messages.clear()
        try:
            self.control.ground([(name, list(args)) for name, args in parts])
        except RuntimeError as exc:
            kind = (
                SolverInputError
                if any(code == clingo.MessageCode.RuntimeError for code, _ in self.messages)
                else SolverError
            )
            raise kind(f"clingo grounding failed: {self.detail(exc)}") from exc


class AspProgram:
    """A clingo program assembled from resources and Python facts, solved on demand.

    With a time limit, grounding and solving run in the clingo worker process
    (:mod:`solvers.asp_worker`), killed when the limit passes (clingo's grounding cannot be
    interrupted), so a program whose grounding is too large ends in the same
    :class:`SolverTimeout` as one whose search is; without a limit they run in this process."""

    def __init__(self, arguments: Sequence[str] = ()) -> None:
        self._arguments = list(arguments)
        self._texts: list[tuple[str, str]] = []  # (origin, text)
        self._facts: list[Any] = []

    def load(self, name: str) -> AspProgram:
        """Add the resource ``asp/<name>.lp``."""
        self._texts.append((str(resources.path("asp", name)), resources.read_text("asp", name)))
        return self

    def load_path(self, path: str | Path) -> AspProgram:
        """Add a trusted ``.lp`` file given by path (e.g. one shipped with a third-party track)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SolverInputError(f"cannot read ASP file {path}: {exc.strerror}") from exc
        self._texts.append((str(path), text))
        return self

    def add_program(self, text: str, origin: str = "<program>") -> AspProgram:
        """Add trusted program text written by the toolkit itself (rules, not data)."""
        self._texts.append((origin, text))
        return self

    def add_facts(self, predicate: str, rows: Iterable[Sequence[Any] | Any]) -> AspProgram:
        """Add one fact ``predicate(row...)`` per row (a tuple of values, or one value)."""
        if not _IDENT.match(predicate):
            raise SolverInputError(f"invalid predicate name {predicate!r}")
        for row in rows:
            args = tuple(row) if isinstance(row, (tuple, list)) else (row,)
            self._facts.append(Atom(predicate, args))
        return self

    def add_records(self, records: Iterable[Record]) -> AspProgram:
        """Add typed records (:mod:`solvers.records`) as facts, each checked against its
        predicate's declared types."""
        self._facts.extend(Atom(r.predicate, r.args()) for r in records)
        return self

    def add_atoms(self, atoms: Iterable[Atom]) -> AspProgram:
        """Add ground atoms as facts."""
        self._facts.extend(atoms)
        return self

    def _control(self, extra: Sequence[str]) -> AspControl:
        asp = AspControl(self._arguments + list(extra))
        for origin, text in self._texts:
            asp.add(text, origin)
        asp.add_facts(self._facts)
        asp.ground()
        return asp

    def models(
        self,
        limit: int = 0,
        time_limit: float | None = 10.0,
        optimize: bool = False,
        in_process: bool = False,
        best_so_far: bool = False,
    ) -> list[AspModel]:
        """Enumerate answer sets (``limit`` 0 = all; with ``optimize``, the optimal ones).

        Raises :class:`SolverTimeout` when grounding and solving exceed ``time_limit``
        seconds together (see the class doc). ``in_process``: ground and solve in this
        process, not the worker (no process start, no data sent over a pipe); the limit
        then holds for solving only, so only for programs whose grounding is known to be
        small (linear in trusted facts, as the ILP learner's combine stage).
        ``best_so_far`` (with ``optimize`` and ``in_process``): at the time limit, return the
        best model found so far (``optimal`` False) instead of raising, when there is one.
        """
        if limit < 0:
            raise SolverInputError(f"model limit must be >= 0, got {limit}")
        extra = [str(limit)]
        if optimize:
            extra.append("--opt-mode=optN")
        if time_limit is None or in_process:
            return self._solve(extra, optimize, time_limit, best_so_far)
        from solvers.asp_worker import solve_in_worker

        request = (self._arguments, self._texts, self._facts, extra, optimize, time_limit)
        return solve_in_worker(request, time_limit, lambda elapsed: _timeout(time_limit, elapsed))

    def _solve(
        self,
        extra: Sequence[str],
        optimize: bool,
        time_limit: float | None,
        best_so_far: bool = False,
    ) -> list[AspModel]:
        start = time.monotonic()
        ctl = self._control(extra).control
        found: list[AspModel] = []
        improving: list[AspModel] = []

        def on_model(model) -> None:
            if optimize and not model.optimality_proven:
                if best_so_far:
                    atoms = sorted((from_atom(s) for s in model.symbols(shown=True)), key=sort_key)
                    improving[:] = [AspModel(atoms, model.number, list(model.cost), False)]
                return
            atoms = sorted((from_atom(s) for s in model.symbols(shown=True)), key=sort_key)
            found.append(AspModel(atoms, model.number, list(model.cost), model.optimality_proven))

        if time_limit is not None and time.monotonic() - start >= time_limit:
            raise _timeout(time_limit, time.monotonic() - start)
        with ctl.solve(on_model=on_model, async_=True) as handle:
            finished = handle.wait(
                -1 if time_limit is None else max(0.001, time_limit - (time.monotonic() - start))
            )
            # wait() can return False early (a spurious wake-up, seen under load: "exceeded
            # 10 s after 0.0 s"); only the clock decides that the limit has passed
            while not finished and time_limit is not None and time.monotonic() - start < time_limit:
                finished = handle.wait(max(0.001, time_limit - (time.monotonic() - start)))
            if not finished:
                handle.cancel()
                if best_so_far and (found or improving):
                    return found or improving
                raise _timeout(time_limit, time.monotonic() - start)
            handle.get()
        return found

    def satisfiable(self, time_limit: float | None = 10.0) -> bool:
        """Whether the program has at least one answer set."""
        return bool(self.models(limit=1, time_limit=time_limit))


def _timeout(limit: float | None, elapsed: float) -> SolverTimeout:
    return SolverTimeout(f"clingo exceeded {limit} s (after {elapsed:.1f} s)")


def from_atom(sym) -> Atom:
    """A shown clingo symbol as an :class:`Atom` (constants become zero-argument atoms)."""
    value = from_symbol(sym)
    return value if isinstance(value, Atom) else Atom(str(value), ())


def version() -> str:
    """The clingo version string."""
    import clingo

    return clingo.__version__
