"""The whitelist check for untrusted Prolog, in Python, without running anything.

``check_program(program, declared)`` reads the text with the strict reader
(:mod:`solvers.prolog.reader`) and accepts only facts and rules whose heads are declared
predicates and whose bodies call declared predicates or the goals listed in
``prolog/sandbox_whitelist.pl`` (the same file the worker's second check reads). Rejected:
directives, grammar rules, module qualification, variables used as goals, anything else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from solvers import resources
from solvers.errors import ConfigError, ResourceError, SandboxViolation, SolverInputError
from solvers.prolog.reader import ReadClause, read_program
from solvers.prolog.terms import Term, Var

_NAME = re.compile(r"\S(?:.*\S)?\Z", re.S)


@dataclass(frozen=True)
class Whitelist:
    """Plain goals (name, arity) and meta specs name/arity -> per-argument mode."""

    builtins: frozenset[tuple[str, int]]
    meta: dict[tuple[str, int], tuple[str, ...]]


@dataclass(frozen=True)
class ClauseInfo:
    """One accepted clause: position, head, the predicates its body calls, the term."""

    index: int
    line: int
    column: int
    head: tuple[str, int]
    calls: tuple[tuple[str, int], ...]
    term: Any

    @property
    def is_fact(self) -> bool:
        """True for a fact, False for a rule."""
        return not (isinstance(self.term, Term) and self.term.name == ":-" and self.term.arity == 2)


@lru_cache(maxsize=1)
def whitelist() -> Whitelist:
    """The whitelist, read from ``prolog/sandbox_whitelist.pl``."""
    try:
        clauses = read_program(resources.read_text("prolog", "sandbox_whitelist.pl"))
    except SolverInputError as exc:
        raise ResourceError(f"sandbox_whitelist.pl does not read: {exc}") from exc
    builtins, meta = set(), {}
    for clause in clauses:
        t = clause.term
        if isinstance(t, Term) and t.name == "safe_builtin" and t.arity == 2:
            builtins.add((str(t.args[0]), int(t.args[1])))
        elif isinstance(t, Term) and t.name == "safe_meta" and t.arity == 1:
            spec = t.args[0]
            meta[(spec.name, spec.arity)] = tuple(str(a) for a in spec.args)
    return Whitelist(frozenset(builtins), meta)


def _indicator(goal: Any) -> tuple[str, int] | None:
    if isinstance(goal, str):
        return goal, 0
    if isinstance(goal, Term):
        return goal.name, goal.arity
    return None


def _fmt(pi: tuple[str, int]) -> str:
    return f"{pi[0]}/{pi[1]}"


class _Checker:
    def __init__(
        self, declared: frozenset[tuple[str, int]], wl: Whitelist, clause: ReadClause
    ) -> None:
        self.declared, self.wl = declared, wl
        self.clause = clause
        self.calls: set[tuple[str, int]] = set()

    def violation(
        self, message: str, name: str | None = None, in_body: bool = False
    ) -> SandboxViolation:
        """The error, at the first token ``name`` (of the body, with ``in_body``) or else at
        the start of the clause."""
        line, column = self.clause.line, self.clause.column
        if name is not None:
            line, column = self.clause.position_of(name, ":-" if in_body else None)
        return SandboxViolation(message, line=line, column=column)

    def head(self, head: Any) -> tuple[str, int]:
        if isinstance(head, Var):
            raise self.violation("a clause head may not be a variable")
        if isinstance(head, Term) and head.name == ":" and head.arity == 2:
            raise self.violation("module-qualified clause heads are not allowed", ":")
        pi = _indicator(head)
        if pi is None:
            raise self.violation(f"clause head {head!r} is not callable")
        if pi not in self.declared:
            raise self.violation(f"clause for undeclared predicate {_fmt(pi)}", pi[0])
        return pi

    def goal(self, goal: Any) -> None:
        stack = [goal]
        while stack:
            g = stack.pop()
            if isinstance(g, Var):
                raise self.violation("a variable used as a goal (meta-call) is not allowed")
            if isinstance(g, Term) and g.name == ":" and g.arity == 2:
                raise self.violation("module-qualified goals are not allowed", ":", True)
            pi = _indicator(g)
            if pi is None:
                raise self.violation(f"{g!r} is not a callable goal")
            if pi in self.declared:
                self.calls.add(pi)
                continue
            modes = self.wl.meta.get(pi)
            if modes is not None:  # sub-goals are pushed so they pop left to right
                for mode, arg in reversed(list(zip(modes, g.args))):
                    if mode == "goal":
                        stack.append(arg)
                    elif mode == "carets":
                        while isinstance(arg, Term) and arg.name == "^" and arg.arity == 2:
                            arg = arg.args[1]
                        stack.append(arg)
                continue
            if pi in self.wl.builtins:
                continue
            raise self.violation(
                f"{_fmt(pi)} is not allowed (neither declared nor whitelisted)", pi[0], True
            )


def validate_declared(declared: Mapping[str, int]) -> frozenset[tuple[str, int]]:
    """Check the trusted ``declared`` mapping name -> arity; returns its indicators."""
    wl = whitelist()
    out = set()
    for name, arity in declared.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise ConfigError(f"declared predicate name {name!r} is not a plain name")
        if isinstance(arity, bool) or not isinstance(arity, int) or not 0 <= arity <= 64:
            raise ConfigError(f"declared arity of {name!r} must be an int in 0..64")
        if (name, arity) in wl.builtins or (name, arity) in wl.meta or name in (":", "^"):
            raise ConfigError(f"declared predicate {name}/{arity} is a whitelisted built-in")
        out.add((name, arity))
    return frozenset(out)


def check_program(program: str, declared: Mapping[str, int]) -> list[ClauseInfo]:
    """Read and whitelist-check untrusted Prolog; nothing is executed.

    Raises ``SolverInputError`` (syntax, with line and column) or ``SandboxViolation``
    (with the clause's line). Returns one ``ClauseInfo`` per clause, in order.
    """
    decl = validate_declared(declared)
    wl = whitelist()
    infos: list[ClauseInfo] = []
    for index, clause in enumerate(read_program(program), start=1):
        checker = _Checker(decl, wl, clause)
        term = clause.term
        if isinstance(term, Term) and term.name in (":-", "?-") and term.arity == 1:
            raise checker.violation("directives (:- ...) are not allowed")
        if isinstance(term, Term) and term.name == "-->" and term.arity == 2:
            raise checker.violation("grammar rules (-->) are not allowed")
        if isinstance(term, Term) and term.name == ":-" and term.arity == 2:
            head = checker.head(term.args[0])
            checker.goal(term.args[1])
        else:
            head = checker.head(term)
        infos.append(
            ClauseInfo(index, clause.line, clause.column, head, tuple(sorted(checker.calls)), term)
        )
    return infos


def defined_predicates(program: str) -> dict[tuple[str, int], tuple[int, int]]:
    """The predicates the clauses of ``program`` define (name, arity), each with the line and
    column of its first clause; nothing is executed. Directives and clauses whose head is not
    callable are skipped here (``check_program`` rejects them). Raises ``SolverInputError``
    on a syntax error."""
    found: dict[tuple[str, int], tuple[int, int]] = {}
    for clause in read_program(program):
        term = clause.term
        if isinstance(term, Term) and term.name in (":-", "?-") and term.arity == 1:
            continue
        if isinstance(term, Term) and term.name in (":-", "-->") and term.arity == 2:
            term = term.args[0]
        pi = _indicator(term)
        if pi is not None and not isinstance(term, Var):
            found.setdefault(pi, clause.position_of(pi[0]))
    return found
