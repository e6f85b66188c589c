"""The tree of a parsed equation (:mod:`solvers.equation.expression` builds it): nodes,
canonical printing, numpy evaluation, parameter substitution and conversion to sympy."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

FUNCTIONS: dict[str, np.ufunc] = {
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "tanh": np.tanh,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
}
ALIASES = {"Abs": "abs", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "absolute": "abs"}
CONSTANTS = {"pi": math.pi, "E": math.e}


# -- the tree ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    value: int | float


@dataclass(frozen=True, slots=True)
class Var:
    name: str


@dataclass(frozen=True, slots=True)
class Param:
    index: int


@dataclass(frozen=True, slots=True)
class Const:
    name: str  # "pi" or "E"


@dataclass(frozen=True, slots=True)
class Neg:
    arg: Node


@dataclass(frozen=True, slots=True)
class Bin:
    op: str  # + - * / **
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Call:
    fn: str  # a key of FUNCTIONS
    arg: Node


Node = Num | Var | Param | Const | Neg | Bin | Call
Params = Sequence[float] | np.ndarray  # parameter values: a list or a numpy vector
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}
_NEG_PREC, _ATOM = 3, 5


def is_constant(node: Node) -> bool:
    if isinstance(node, (Num, Const)):
        return True
    if isinstance(node, (Var, Param)):
        return False
    if isinstance(node, (Neg, Call)):
        return is_constant(node.arg)
    return is_constant(node.left) and is_constant(node.right)


def constant_value(node: Node) -> float:
    with np.errstate(all="ignore"):
        return float(evaluate_node(node, np.zeros((1, 0)), (), {})[0])


def n_params(node: Node) -> int:
    if isinstance(node, Param):
        return node.index + 1
    if isinstance(node, (Neg, Call)):
        return n_params(node.arg)
    if isinstance(node, Bin):
        return max(n_params(node.left), n_params(node.right))
    return 0


# -- printing ---------------------------------------------------------------------------------


def _prec(node: Node) -> int:
    if isinstance(node, Bin):
        return _PREC[node.op]
    if isinstance(node, Neg) or (isinstance(node, Num) and node.value < 0):
        return _NEG_PREC
    return _ATOM


def _wrap(node: Node, parens: bool) -> str:
    s = to_text(node)
    return f"({s})" if parens else s


def to_text(node: Node) -> str:
    """The canonical text of a tree (re-parses to the same text)."""
    if isinstance(node, Num):
        return repr(node.value)
    if isinstance(node, Var):
        return node.name
    if isinstance(node, Param):
        return f"p{node.index}"
    if isinstance(node, Const):
        return node.name
    if isinstance(node, Call):
        return f"{node.fn}({to_text(node.arg)})"
    if isinstance(node, Neg):
        return "-" + _wrap(node.arg, _prec(node.arg) <= _NEG_PREC)
    p = _PREC[node.op]
    if node.op == "**":
        return (
            _wrap(node.left, _prec(node.left) <= p)
            + "**"
            + _wrap(node.right, _prec(node.right) < p)
        )
    sep = f" {node.op} " if p == 1 else node.op
    return _wrap(node.left, _prec(node.left) < p) + sep + _wrap(node.right, _prec(node.right) <= p)


# -- evaluation -------------------------------------------------------------------------------


def evaluate_node(node: Node, X: np.ndarray, params: Params, columns: dict[str, int]) -> np.ndarray:
    """Evaluate a tree on the rows of ``X`` (call inside ``np.errstate(all="ignore")``)."""
    if isinstance(node, Num):
        return np.full(X.shape[0], float(node.value))
    if isinstance(node, Var):
        return X[:, columns[node.name]]
    if isinstance(node, Param):
        return np.full(X.shape[0], float(params[node.index]))
    if isinstance(node, Const):
        return np.full(X.shape[0], CONSTANTS[node.name])
    if isinstance(node, Neg):
        return -evaluate_node(node.arg, X, params, columns)
    if isinstance(node, Call):
        return FUNCTIONS[node.fn](evaluate_node(node.arg, X, params, columns))
    a = evaluate_node(node.left, X, params, columns)
    b = evaluate_node(node.right, X, params, columns)
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if node.op == "/":
        return a / b
    return np.power(a, b)


def map_params(node: Node, replace: Callable[[Param], Node]) -> Node:
    """The tree with each parameter node ``p`` replaced by ``replace(p)``."""
    if isinstance(node, Param):
        return replace(node)
    if isinstance(node, Neg):
        return Neg(map_params(node.arg, replace))
    if isinstance(node, Call):
        return Call(node.fn, map_params(node.arg, replace))
    if isinstance(node, Bin):
        return Bin(node.op, map_params(node.left, replace), map_params(node.right, replace))
    return node


def substitute(node: Node, params: Params) -> Node:
    """The tree with each parameter replaced by its value."""
    return map_params(node, lambda p: Num(float(params[p.index])))


def to_sympy(node: Node, symbols: dict[str, object]):
    import sympy

    if isinstance(node, Num):
        return (
            sympy.Integer(node.value)
            if isinstance(node.value, int)
            else sympy.Float(repr(node.value))
        )
    if isinstance(node, Var):
        return symbols[node.name]
    if isinstance(node, Param):
        return symbols.setdefault(f"p{node.index}", sympy.Symbol(f"p{node.index}", real=True))
    if isinstance(node, Const):
        return sympy.pi if node.name == "pi" else sympy.E
    if isinstance(node, Neg):
        return -to_sympy(node.arg, symbols)
    if isinstance(node, Call):
        fn = {
            "abs": sympy.Abs,
            "arcsin": sympy.asin,
            "arccos": sympy.acos,
            "arctan": sympy.atan,
        }.get(node.fn) or getattr(sympy, node.fn)
        return fn(to_sympy(node.arg, symbols))
    a, b = to_sympy(node.left, symbols), to_sympy(node.right, symbols)
    return {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: a / b,
        "**": lambda: a**b,
    }[node.op]()


def lift_floats(node: Node, first: int, values: list[float]) -> Node:
    """The tree with each float literal replaced by a parameter ``p<first + k>`` (k in order
    of appearance); the literals' values are appended to ``values``."""
    if isinstance(node, Num) and isinstance(node.value, float):
        values.append(node.value)
        return Param(first + len(values) - 1)
    if isinstance(node, Neg):
        return Neg(lift_floats(node.arg, first, values))
    if isinstance(node, Call):
        return Call(node.fn, lift_floats(node.arg, first, values))
    if isinstance(node, Bin):
        return Bin(
            node.op, lift_floats(node.left, first, values), lift_floats(node.right, first, values)
        )
    return node
