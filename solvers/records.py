"""Typed predicates: a predicate's name and argument types declared once, as a frozen
dataclass, and used on both sides of the Python/logic boundary -- as facts handed to clingo
(:meth:`solvers.asp.AspProgram.add_records`) or SWI-Prolog
(:meth:`solvers.prolog.engine.Module.add_records`), and as typed records read back from an
answer set (:meth:`solvers.asp.AspModel.records`). In the spirit of clorm's predicates, over
the one value mapping both bridges already use (``str``, ``int``, ``tuple``)::

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Edge(Record, predicate="edge"):
    ...     source: str
    ...     target: str
    >>> Edge("a", "b").args()
    ('a', 'b')
    >>> Edge.from_args(("a", "b"))
    Edge(source='a', target='b')
    >>> Edge.from_args(("a", 3))
    Traceback (most recent call last):
    ...
    solvers.errors.SolverError: edge/2: argument 2 (target) must be str, got int 3

A field is ``str`` (a clingo constant or string, a Prolog atom or string), ``int`` (a number;
``bool`` is refused), ``float`` (Prolog only), ``tuple`` (a clingo tuple, a Prolog list) or
``Any``. A wrong arity or type read back from a solver is a :class:`SolverError` naming the
predicate, the argument and the value, instead of a tuple unpacked wrongly somewhere later.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any, ClassVar, TypeVar

from solvers.errors import SolverError, SolverInputError

_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_R = TypeVar("_R", bound="Record")
_KINDS: dict[Any, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (float, int),
    tuple: (tuple,),
}


class Record:
    """The base of a typed predicate: subclass it as a frozen dataclass and name the predicate
    with the class keyword ``predicate`` (module docstring)."""

    predicate: ClassVar[str]
    _fields: ClassVar[tuple[tuple[str, Any], ...]]

    def __init_subclass__(cls, predicate: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if predicate is None:
            raise TypeError(
                f"{cls.__name__}: name its predicate, class {cls.__name__}(Record, predicate='...')"
            )
        if not _NAME.match(predicate):
            raise TypeError(f"{cls.__name__}: {predicate!r} is not a predicate name")
        cls.predicate = predicate

    @classmethod
    def fields(cls) -> tuple[tuple[str, Any], ...]:
        """(name, type) of every argument, in order (the dataclass's fields)."""
        cached = cls.__dict__.get("_fields")
        if cached is None:
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls.__name__} must be a dataclass")
            hints = typing.get_type_hints(cls)
            cached = tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))
            for name, kind in cached:
                if name == "predicate":
                    raise TypeError(
                        f"{cls.__name__}: a field cannot be called 'predicate' "
                        f"(the class's predicate name)"
                    )
                if kind is not Any and kind not in _KINDS:
                    raise TypeError(
                        f"{cls.__name__}.{name}: {kind!r} has no logic form "
                        f"(use str, int, float, tuple or Any)"
                    )
            cls._fields = cached
        return cached

    @classmethod
    def arity(cls) -> int:
        return len(cls.fields())

    @classmethod
    def signature(cls) -> str:
        """``name/arity``, as both solvers write it."""
        return f"{cls.predicate}/{cls.arity()}"

    def args(self) -> tuple:
        """The argument values in order, each checked against its field's type
        (SolverInputError: a record built with a wrong value never reaches a solver)."""
        values = tuple(getattr(self, name) for name, _ in self.fields())
        _check(type(self), values, SolverInputError)
        return values

    @classmethod
    def from_args(cls: type[_R], args: tuple) -> _R:
        """The record of one atom's arguments (SolverError on a wrong arity or type)."""
        _check(cls, args, SolverError)
        return cls(*args)


def _check(cls: type[Record], values: tuple, error: type[Exception]) -> None:
    fields = cls.fields()
    if len(values) != len(fields):
        raise error(f"{cls.predicate}/{len(fields)}: got {len(values)} arguments {values!r}")
    for k, ((name, kind), value) in enumerate(zip(fields, values, strict=True), start=1):
        if kind is Any:
            continue
        if isinstance(value, bool) or not isinstance(value, _KINDS[kind]):
            raise error(
                f"{cls.signature()}: argument {k} ({name}) must be "
                f"{kind.__name__}, got {type(value).__name__} {value!r}"
            )
