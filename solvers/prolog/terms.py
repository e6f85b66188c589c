"""Prolog values in Python (``Term``, ``Var``) and the *wire* form that crosses a bridge.

Python -> Prolog: ``str`` -> atom; ``int``/``float`` -> number; ``list``/``tuple`` -> list;
``Term(name, args)`` -> compound (an atom when ``args`` is empty); ``Var(name)`` -> a variable
(the same name within one call is the same variable). ``bool`` and ``None`` are refused.

Prolog -> Python: atom -> ``str``; string -> ``str``; integer/float -> ``int``/``float``;
proper list -> ``list``; compound -> ``Term``; unbound variable -> ``Var("_G<n>")``
(numbered in order of appearance within one answer).

The wire form is built only from ``str``, ``int``, ``float`` and ``list``, the subset of data
that pyswip and janus-swi both transport the same way (``str`` arrives in Prolog as an atom,
a Prolog string arrives in Python as ``str``). Plain values stand for themselves; a list is
always a tagged node. ``prolog/bridge.pl`` decodes and encodes it on the Prolog side.

    "text"  atom (or string)    17  integer in int64       1.5  float
    ["I", digits] big integer   ["l", [w, ...]] proper list
    ["c", name, [w, ...]] compound                        ["v", name] variable
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from solvers.errors import SolverError, SolverInputError

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

_PLAIN_ATOM = re.compile(r"[a-z][a-zA-Z0-9_]*\Z")
_SYMBOL_ATOM = re.compile(r"[#$&*+\-./:<=>?@^~\\]+\Z")
_SOLO_ATOMS = frozenset({"!", ";", "{}"})
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a",
            "\b": "\\b", "\f": "\\f", "\v": "\\v", "\0": "\\0\\"}


def quote_atom(name: str) -> str:
    """``name`` written as a Prolog atom, quoted only where Prolog syntax needs it."""
    if _PLAIN_ATOM.match(name) or name in _SOLO_ATOMS:
        return name
    if _SYMBOL_ATOM.match(name) and not name.startswith("/*") and name != ".":
        return name
    out = []
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):x}\\")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def _normalise(value: Any) -> Any:
    """Lists inside a Term become tuples, so every Term is hashable."""
    if isinstance(value, list):
        return tuple(_normalise(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_normalise(v) for v in value)
    return value


@dataclass(frozen=True)
class Term:
    """A Prolog compound term ``name(args...)``; with no args it stands for the atom ``name``.

    Lists among the arguments are stored as tuples (both mean a Prolog list), which keeps
    every Term hashable.
    """

    name: str
    args: tuple = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"Term name must be a str, got {type(self.name).__name__}")
        object.__setattr__(self, "args", _normalise(tuple(self.args)))

    @property
    def arity(self) -> int:
        """The number of arguments."""
        return len(self.args)

    def __str__(self) -> str:
        if not self.args:
            return quote_atom(self.name)
        return quote_atom(self.name) + "(" + ",".join(to_prolog_text(a) for a in self.args) + ")"


@dataclass(frozen=True)
class Var:
    """A Prolog variable. Within one call, equal names denote the same variable."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("Var name must be a non-empty str")

    def __str__(self) -> str:
        return self.name


def to_prolog_text(value: Any) -> str:
    """A Python value in Prolog syntax (for messages and ``__str__``; never fed to Prolog)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return quote_atom(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "1.5NaN"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_prolog_text(v) for v in value) + "]"
    return str(value)


def to_wire(value: Any) -> Any:
    """Encode a Python value (see module docstring) as wire data; refuses unknown types."""
    if isinstance(value, bool) or value is None:
        raise SolverInputError(
            f"{value!r} is not a Prolog value (use the atoms 'true'/'false' or a Term)")
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if _INT64_MIN <= value <= _INT64_MAX else ["I", str(value)]
    if isinstance(value, float):
        return value
    if isinstance(value, (list, tuple)):
        return ["l", [to_wire(v) for v in value]]
    if isinstance(value, Term):
        if not value.args:
            return value.name
        return ["c", value.name, [to_wire(a) for a in value.args]]
    if isinstance(value, Var):
        return ["v", value.name]
    raise SolverInputError(f"cannot pass a {type(value).__name__} to Prolog: {value!r}")


def from_wire(wire: Any) -> Any:
    """Decode wire data produced by ``prolog/bridge.pl`` into Python values."""
    try:
        return _from_wire(wire)
    except RecursionError as exc:
        raise SolverError("Prolog answer is nested too deeply to convert") from exc


def _from_wire(wire: Any) -> Any:
    if isinstance(wire, (str, float)) or (isinstance(wire, int) and not isinstance(wire, bool)):
        return wire
    if not isinstance(wire, (list, tuple)) or not wire:
        raise SolverError(f"malformed value from the Prolog bridge: {wire!r}")
    tag = wire[0]
    if tag == "l":
        return [_from_wire(w) for w in wire[1]]
    if tag == "c":
        return Term(str(wire[1]), tuple(_from_wire(w) for w in wire[2]))
    if tag == "v":
        return Var(str(wire[1]))
    if tag == "I":
        return int(str(wire[1]))
    raise SolverError(f"malformed value from the Prolog bridge (tag {tag!r})")
