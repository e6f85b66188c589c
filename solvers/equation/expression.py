"""The equation language: a whitelisted subset of Python/sympy arithmetic, parsed with ``ast``.

    >>> eq = parse_equation("params[0]*x*np.exp(-p1*t)", ["x", "t"])
    >>> eq.text, eq.n_params
    ('p0*x*exp(-p1*t)', 2)

The text is untrusted (model output). It is parsed by :func:`ast.parse` and walked against a
whitelist; nothing is ever evaluated by Python. Accepted:

- numeric literals (int, float; finite), the names of ``inputs``, parameters ``p0`` ..
  ``p{max_params-1}`` (also written ``params[i]``), the constants ``pi`` and ``E``
  (also ``np.pi``, ``np.e``);
- ``+ - * / **`` and unary ``-`` / ``+``;
- one-argument calls of :data:`FUNCTIONS` (sympy spellings ``Abs asin acos atan`` too), with an
  optional ``np.`` / ``numpy.`` prefix.

Bounds: :data:`MAX_CHARS` characters, :data:`MAX_DEPTH` levels of nesting; a constant
exponent must satisfy ``|e| <= MAX_EXPONENT`` and every constant subexpression must be finite,
so converting to sympy (exact integers) cannot blow up. Anything else raises
``FormalizationError`` with the line and column of the offending piece.

The canonical text (``Equation.text``) uses numpy spellings (``abs``, ``arcsin``), ``p<i>``
parameters, no ``np.`` prefix and the fewest parentheses; parsing it gives the same text.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from solvers.equation.tree import (
    ALIASES,
    CONSTANTS,
    FUNCTIONS,
    Bin,
    Call,
    Const,
    Neg,
    Node,
    Num,
    Param,
    Params,
    Var,
    constant_value,
    evaluate_node,
    is_constant,
    n_params,
    substitute,
    to_sympy,
    to_text,
)
from solvers.errors import ConfigError, FormalizationError

MAX_CHARS = 2000
MAX_DEPTH = 100
MAX_EXPONENT = 100.0

_N = TypeVar("_N", bound=Node)  # a checked node keeps its type
_NUMPY = ("np", "numpy")
_NP_CONSTANTS = {"pi": "pi", "e": "E"}
_PARAM = re.compile(r"p(0|[1-9][0-9]*)\Z")
RESERVED = frozenset(FUNCTIONS) | frozenset(ALIASES) | frozenset(CONSTANTS) | {"params", *_NUMPY}


# -- the parser -------------------------------------------------------------------------------

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


class _Parser:
    def __init__(self, text: str, inputs: frozenset[str], max_params: int) -> None:
        self.text, self.inputs, self.max_params = text, inputs, max_params
        self.lines = text.split("\n")

    def error(self, message: str, node: ast.AST | None = None) -> FormalizationError:
        line = column = None
        if node is not None and hasattr(node, "lineno") and hasattr(node, "col_offset"):
            line = node.lineno
            raw = self.lines[line - 1].encode("utf-8")[: node.col_offset]
            column = len(raw.decode("utf-8", "replace")) + 1
        return FormalizationError(message, line=line, column=column)

    def node(self, n: ast.AST, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.error(f"the expression is nested deeper than {MAX_DEPTH} levels", n)
        d = depth + 1
        if isinstance(n, ast.Constant):
            return self.number(n)
        if isinstance(n, ast.Name):
            return self.name(n)
        if isinstance(n, ast.BinOp):
            op = _BINOPS.get(type(n.op))
            if op is None:
                hint = "; use ** for powers" if isinstance(n.op, ast.BitXor) else ""
                raise self.error(f"operator {type(n.op).__name__} is not allowed{hint}", n)
            out = Bin(op, self.node(n.left, d), self.node(n.right, d))
            if op == "**":
                self.check_power(out, n)
            return self.check_constant(out, n)
        if isinstance(n, ast.UnaryOp):
            if isinstance(n.op, ast.USub):
                return self.check_constant(Neg(self.node(n.operand, d)), n)
            if isinstance(n.op, ast.UAdd):
                return self.node(n.operand, d)
            raise self.error(f"unary operator {type(n.op).__name__} is not allowed", n)
        if isinstance(n, ast.Call):
            return self.call(n, d)
        if isinstance(n, ast.Subscript):
            return self.subscript(n)
        if isinstance(n, ast.Attribute):
            if isinstance(n.value, ast.Name) and n.value.id in _NUMPY and n.attr in _NP_CONSTANTS:
                return Const(_NP_CONSTANTS[n.attr])
            raise self.error("attribute access is not allowed (only np.<function>, np.pi, np.e)", n)
        raise self.error(f"{type(n).__name__} is not allowed in an equation", n)

    def number(self, n: ast.Constant) -> Num:
        v = n.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"literal {v!r} is not a real number", n)
        try:
            as_float = float(v)
        except OverflowError:
            as_float = math.inf
        if not math.isfinite(as_float):
            raise self.error("numeric literal is too large", n)
        return Num(v)

    def name(self, n: ast.Name) -> Node:
        if n.id in self.inputs:
            return Var(n.id)
        m = _PARAM.match(n.id)
        if m:
            return self.param(int(m.group(1)), n)
        if n.id in CONSTANTS:
            return Const(n.id)
        if n.id in FUNCTIONS or n.id in ALIASES:
            raise self.error(f"function {n.id!r} used without an argument", n)
        known = ", ".join(sorted(self.inputs)) or "none"
        raise self.error(
            f"unknown name {n.id!r} (inputs: {known}; parameters p0..p{self.max_params - 1})", n
        )

    def param(self, index: int, n: ast.AST) -> Param:
        if index >= self.max_params:
            raise self.error(
                f"parameter index {index} exceeds the limit of {self.max_params} parameters", n
            )
        return Param(index)

    def subscript(self, n: ast.Subscript) -> Param:
        s = n.slice
        if (
            isinstance(n.value, ast.Name)
            and n.value.id == "params"
            and isinstance(s, ast.Constant)
            and type(s.value) is int
            and s.value >= 0
        ):
            return self.param(s.value, n)
        raise self.error("subscripts are allowed only as params[<int>]", n)

    def call(self, n: ast.Call, depth: int) -> Call:
        f = n.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in _NUMPY:
            name = f.attr
        elif isinstance(f, ast.Name):
            name = f.id
        else:
            raise self.error("only calls of the whitelisted functions are allowed", n)
        name = ALIASES.get(name, name)
        if name not in FUNCTIONS:
            raise self.error(
                f"function {name!r} is not allowed (allowed: {', '.join(FUNCTIONS)})", n
            )
        if n.keywords or len(n.args) != 1 or isinstance(n.args[0], ast.Starred):
            raise self.error(f"{name} takes exactly one positional argument", n)
        return self.check_constant(Call(name, self.node(n.args[0], depth)), n)

    def check_power(self, node: Bin, n: ast.AST) -> None:
        if is_constant(node.right):
            e = constant_value(node.right)
            if not abs(e) <= MAX_EXPONENT:
                raise self.error(
                    f"constant exponent {e:g} exceeds {MAX_EXPONENT:g} in magnitude", n
                )

    def check_constant(self, node: _N, n: ast.AST) -> _N:
        if is_constant(node) and not math.isfinite(constant_value(node)):
            raise self.error(
                "a constant subexpression is not finite (overflow, division by "
                "zero or a domain error)",
                n,
            )
        return node


def validate_inputs(inputs: Sequence[str]) -> tuple[str, ...]:
    """The input names as a tuple; ``ConfigError`` unless each is a distinct identifier that
    is not a keyword, a function, a constant, ``params``/``np`` or a parameter name."""
    out = tuple(inputs)
    if isinstance(inputs, str):
        raise ConfigError("inputs must be a sequence of names, not one string")
    for name in out:
        if (
            not isinstance(name, str)
            or not name.isidentifier()
            or keyword.iskeyword(name)
            or name in RESERVED
            or _PARAM.match(name)
        ):
            raise ConfigError(f"input name {name!r} is not usable in an equation")
    if len(set(out)) != len(out):
        raise ConfigError(f"input names repeat: {list(out)}")
    return out


def parse_equation(text: str, inputs: Sequence[str], *, max_params: int = 10) -> Equation:
    """Parse untrusted equation text over ``inputs``; ``FormalizationError`` if it is not in
    the language (see the module docstring)."""
    names = validate_inputs(inputs)
    if not isinstance(text, str):
        raise FormalizationError(f"an equation must be text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise FormalizationError(f"the equation is {len(text)} characters long (limit {MAX_CHARS})")
    stripped = text.strip()
    if not stripped:
        raise FormalizationError("the equation is empty")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise FormalizationError(
            f"syntax error: {exc.msg}", line=exc.lineno, column=exc.offset
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise FormalizationError(f"the equation does not parse: {exc}") from None
    parser = _Parser(stripped, frozenset(names), max_params)
    root = parser.node(tree.body, 0)
    return Equation(to_text(root), names, n_params(root), root)


@dataclass(frozen=True)
class Equation:
    """A parsed equation: canonical ``text``, its ``inputs`` (the columns of ``X``, in
    order) and ``n_params`` (highest parameter index + 1; unused indices are allowed)."""

    text: str
    inputs: tuple[str, ...]
    n_params: int
    tree: Node = field(repr=False, compare=False)

    def _check_params(self, params: Params) -> np.ndarray:
        p = np.asarray(params, dtype=float).reshape(-1)
        if p.size != self.n_params:
            raise ConfigError(f"{self.text!r} takes {self.n_params} parameters, got {p.size}")
        return p

    def evaluate(self, X: np.ndarray, params: Params = ()) -> np.ndarray:
        """The values on each row of ``X`` (2-D, one column per input, in ``inputs`` order;
        1-D allowed for one input) as a float array of length ``len(X)``. Floating-point
        errors give nan/inf silently."""
        A = np.asarray(X, dtype=float)
        if A.ndim == 1 and len(self.inputs) == 1:
            A = A.reshape(-1, 1)
        if A.ndim != 2 or A.shape[1] != len(self.inputs):
            raise ConfigError(f"X must have shape (n, {len(self.inputs)}), got {A.shape}")
        p = self._check_params(params)
        columns = {name: i for i, name in enumerate(self.inputs)}
        with np.errstate(all="ignore"):
            out = evaluate_node(self.tree, A, p, columns)
        return np.asarray(out, dtype=float)

    def substitute(self, params: Params) -> str:
        """The canonical text with each parameter replaced by its value."""
        return to_text(substitute(self.tree, self._check_params(params)))

    def to_sympy(self, *, positive: bool = False):
        """The sympy expression: inputs as real symbols (positive ones with ``positive``),
        parameters as real symbols p0..; integer literals exact, floats as sympy Floats."""
        import sympy

        kind = {"positive": True} if positive else {"real": True}
        symbols: dict[str, object] = {n: sympy.Symbol(n, **kind) for n in self.inputs}
        return to_sympy(self.tree, symbols)
