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
    ["f", [node, ...]] the same value, flat: its leaves and ["c", name, n] / ["l", n] nodes
                       in post-order (each node takes the n values before it)

Both conversions are iterative (no Python recursion however deep the term). The nested form is
refused beyond ``MAX_NESTED_DEPTH`` levels (the JSON codec and the bridges recurse on it); the
flat form (:func:`to_flat_wire`), which the sandbox uses for deep untrusted clauses, has no
depth limit of its own. Text must be encodable as UTF-8 (no lone surrogates).
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from typing import Any

from solvers.errors import SolverError, SolverInputError, SolverResourceLimit
from solvers.terms import Compound, normalise

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
MAX_NESTED_DEPTH = 300  # levels of the nested wire form (Terms and lists)

_PLAIN_ATOM = re.compile(r"[a-z][a-zA-Z0-9_]*\Z")
_SYMBOL_ATOM = re.compile(r"[#$&*+\-./:<=>?@^~\\]+\Z")
_SOLO_ATOMS = frozenset({"!", ";", "{}"})
_ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\v": "\\v",
    "\0": "\\0\\",
}


def quote_atom(name: str) -> str:
    """``name`` written as a Prolog atom, quoted only where Prolog syntax needs it."""
    if _PLAIN_ATOM.match(name) or name in _SOLO_ATOMS:
        return name
    if _SYMBOL_ATOM.match(name) and not name.startswith("/*") and name != ".":
        return name
    return quote_always(name)


def quote_always(name: str) -> str:
    """``name`` as a quoted Prolog atom (``'name'``): followed by ``(`` it is always a
    compound's functor, whatever the operators (for text that Prolog reads back)."""
    out = []
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):x}\\")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


class Term(Compound):
    """A Prolog compound term ``name(args...)`` (:class:`solvers.terms.Compound`, written in
    Prolog syntax); with no args it stands for the atom ``name``.

    Lists among the arguments are stored as tuples (both mean a Prolog list), which keeps
    every Term hashable.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "args", normalise(self.args))

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


def _text(value: str) -> str:
    """``value`` if it can cross as UTF-8, else a SolverInputError."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SolverInputError(
                f"text with a character that UTF-8 cannot encode (U+{ord(value[exc.start]):04X} "
                f"at position {exc.start})"
            ) from None
    return value


def _leaf(value: Any) -> Any:
    """The wire form of a leaf (atom, number, variable), or None for a container."""
    if isinstance(value, bool) or value is None:
        raise SolverInputError(
            f"{value!r} is not a Prolog value (use the atoms 'true'/'false' or a Term)"
        )
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
        try:
            return ["I", str(value)]
        except ValueError:  # over Python's int-to-str limit (4300 digits)
            raise SolverInputError(
                f"an integer of more than {sys.get_int_max_str_digits()} "
                f"digits cannot be sent to Prolog"
            ) from None
    if isinstance(value, float):
        return value
    if isinstance(value, Term):
        return _text(value.name) if not value.args else None
    if isinstance(value, Var):
        return ["v", _text(value.name)]
    if isinstance(value, (list, tuple)):
        return None
    raise SolverInputError(f"cannot pass a {type(value).__name__} to Prolog: {value!r}")


def term_depth(term: Any, limit: int) -> int:
    """The nesting depth of a Python term (a compound or list is one level above its
    arguments; a leaf is 0), counted iteratively and only up to ``limit + 1``."""
    deepest = 0
    stack = [(term, 1)]
    while stack:
        t, depth = stack.pop()
        children: list[Any] | tuple[Any, ...]
        if isinstance(t, Term) and t.args:
            children = t.args
        elif isinstance(t, (list, tuple)):
            children = t
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def to_flat_wire(value: Any) -> list:
    """Encode a Python value as the flat wire form ``["f", nodes]`` (any depth)."""
    nodes: list[Any] = []
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, header = stack.pop()
        if header:  # every child is already out: the node itself
            nodes.append(item)
            continue
        leaf = _leaf(item)
        if leaf is not None:
            nodes.append(leaf)
            continue
        if isinstance(item, Term):
            stack.append((["c", _text(item.name), len(item.args)], True))
            children = item.args
        else:
            stack.append((["l", len(item)], True))
            children = item
        stack.extend((child, False) for child in reversed(children))
    return ["f", nodes]


def to_wire(value: Any, *, deep: str = "refuse") -> Any:
    """Encode a Python value (see module docstring) as nested wire data; refuses unknown
    types and unencodable text. A term deeper than ``MAX_NESTED_DEPTH`` is refused
    (``deep="refuse"``) or sent in the flat form (``deep="flat"``, for receivers that decode
    both, as the sandbox does: nested data is cheaper to decode, flat data has no depth)."""
    leaf = _leaf(value)
    if leaf is not None:
        return leaf
    if isinstance(value, Term) and not any(isinstance(a, (list, tuple, Term)) for a in value.args):
        return ["c", _text(value.name), [_leaf(a) for a in value.args]]  # a fact: flat
    _, nodes = to_flat_wire(value)
    built: list[tuple[Any, int]] = []  # (wire, depth) of the values so far
    for node in nodes:
        if isinstance(node, list) and node[0] in ("c", "l"):
            n = node[-1]
            parts = built[len(built) - n :] if n else []
            del built[len(built) - n :]
            depth = 1 + max((d for _, d in parts), default=0)
            if depth > MAX_NESTED_DEPTH:
                if deep == "flat":
                    return ["f", nodes]
                raise SolverInputError(f"term nested deeper than {MAX_NESTED_DEPTH} levels")
            args = [w for w, _ in parts]
            built.append((["c", node[1], args] if node[0] == "c" else ["l", args], depth))
        else:
            built.append((node, 0))
    return built[0][0]


def from_wire(wire: Any) -> Any:
    """Decode wire data produced by ``prolog/bridge.pl`` into Python values."""
    try:
        return _from_wire(wire)
    except RecursionError as exc:
        raise SolverError("Prolog answer is nested too deeply to convert") from exc
    except ValueError as exc:  # an integer over Python's int-to-str limit
        raise SolverResourceLimit(
            f"the Prolog answer holds an integer of more than {sys.get_int_max_str_digits()} digits"
        ) from exc


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
