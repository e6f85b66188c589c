"""The one compound-term structure both logic bridges use: ``name(args...)`` as a frozen,
hashable, ordered record (:class:`Compound`). Each bridge gives it its own surface syntax --
:class:`solvers.asp.Atom` writes clingo's, :class:`solvers.prolog.terms.Term` Prolog's -- and
its own reading of nested values (clingo refuses a list, Prolog reads a list or a tuple as a
Prolog list and stores it as a tuple: :func:`normalise`), but the structure and its checks
are defined here once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def normalise(value: Any) -> Any:
    """Lists inside a term become tuples (at any depth), so every term is hashable."""
    if isinstance(value, (list, tuple)):
        return tuple(normalise(v) for v in value)
    return value


@dataclass(frozen=True, order=True)
class Compound:
    """A compound term ``name(args...)``; with no args it stands for the constant ``name``."""

    name: str
    args: tuple = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(
                f"{type(self).__name__} name must be a str, got {type(self.name).__name__}"
            )
        object.__setattr__(self, "args", tuple(self.args))

    @property
    def arity(self) -> int:
        """The number of arguments."""
        return len(self.args)
