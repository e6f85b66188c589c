"""Variable projection for the equation evaluator: the parameters that enter an equation
linearly, and their exact least-squares values for given values of the others.

    >>> eq = parse_equation("p0*x + p1*sin(p2*t) + p3", ["x", "t"])      # doctest: +SKIP
    >>> linear_params(eq.tree, eq.n_params)
    (0, 1, 3)

An equation is *affine* in a set ``L`` of parameters when it reads
``g0(x; q) + sum_{i in L} p_i * g_i(x; q)`` with ``g0``, ``g_i`` free of ``L`` (``q``: the other
parameters). The test is structural on the parsed tree, hence exact and cheap (no sympy):
a parameter of ``L`` has degree 1, a node free of ``L`` degree 0; ``+`` and ``-`` take the
larger degree, ``*`` the sum, ``/`` the numerator's when the denominator has degree 0; a
function call or a power of anything of degree 1 is nonlinear, as is any degree above 1 (so
``p0*p1`` and ``p0*(1 - p1*P)`` keep only ``p0`` linear). ``L`` is built greedily in index
order: a parameter joins when the equation stays affine in ``L`` with it. The structural test
is sound (every parameter it calls linear is) and may miss linearity that only algebra shows
(``exp(log(p0))*x``); such a parameter is then simply fitted by BFGS.

:class:`Projection` holds the trees of ``g0`` and of every ``g_i`` (terms that vanish are
dropped rather than multiplied by 0, so a ``nan`` elsewhere does not leak into them); for
given ``q`` its :class:`Solver` solves the linear least-squares problem exactly
(``numpy.linalg.lstsq`` on norm-scaled columns, minimum-norm when the columns are dependent),
and :meth:`Solver.profile` does so for many values of one nonlinear parameter at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from solvers.equation.tree import (
    Bin,
    Call,
    Neg,
    Node,
    Num,
    Param,
    Params,
    Var,
    evaluate_node,
    map_params,
)

_NONLINEAR = 2
SWEPT = "params[{}]"  # the swept parameters' columns (never an input name)
CACHED = 8  # values of each part kept by a Solver
CHUNK_ROWS = 100_000  # rows of the tiled data evaluated at once by a profile


def degree(node: Node, linear: frozenset[int]) -> int:
    """0 if ``node`` is free of the parameters ``linear``, 1 if it is affine in them, 2 if
    it is not (structurally, see the module docstring)."""
    if isinstance(node, Param):
        return 1 if node.index in linear else 0
    if isinstance(node, Neg):
        return degree(node.arg, linear)
    if isinstance(node, Call):
        return 0 if degree(node.arg, linear) == 0 else _NONLINEAR
    if not isinstance(node, Bin):
        return 0  # Num, Const, Var
    left, right = degree(node.left, linear), degree(node.right, linear)
    if node.op in "+-":
        return max(left, right)
    if node.op == "*":
        return min(left + right, _NONLINEAR)
    if node.op == "/":
        return left if right == 0 else _NONLINEAR
    return 0 if left == right == 0 else _NONLINEAR  # **


def used_params(node: Node) -> set[int]:
    """The parameter indices that occur in ``node``."""
    if isinstance(node, Param):
        return {node.index}
    if isinstance(node, (Neg, Call)):
        return used_params(node.arg)
    if isinstance(node, Bin):
        return used_params(node.left) | used_params(node.right)
    return set()


def linear_params(node: Node, n_params: int) -> tuple[int, ...]:
    """The parameters (of those used, in index order, greedily) in which ``node`` is jointly
    affine."""
    used = used_params(node)
    chosen: list[int] = []
    for i in range(n_params):
        if i in used and degree(node, frozenset(chosen + [i])) <= 1:
            chosen.append(i)
    return tuple(chosen)


def _swap(node: Node, indices: Sequence[int]) -> Node:
    """``node`` with the ``k``-th of parameters ``indices`` read from the column
    ``SWEPT.format(k)``."""
    return map_params(
        node, lambda p: Var(SWEPT.format(indices.index(p.index))) if p.index in indices else p
    )


# -- the affine decomposition; None stands for the zero tree ---------------------------------


def _neg(a: Node | None) -> Node | None:
    return None if a is None else Neg(a)


def _add(op: str, a: Node | None, b: Node | None) -> Node | None:
    if b is None:
        return a
    if a is None:
        return b if op == "+" else Neg(b)
    return Bin(op, a, b)


def _scale(op: str, a: Node | None, b: Node) -> Node | None:
    return None if a is None else Bin(op, a, b)


def _part(node: Node, linear: frozenset[int], index: int | None) -> Node | None:
    """The coefficient tree of parameter ``index`` (None: the offset ``g0``) of an affine
    ``node``."""
    if isinstance(node, Param) and node.index in linear:
        return Num(1) if node.index == index else None
    if degree(node, linear) == 0:
        return node if index is None else None
    if isinstance(node, Neg):
        return _neg(_part(node.arg, linear, index))
    assert isinstance(node, Bin)
    if node.op in "+-":
        return _add(node.op, _part(node.left, linear, index), _part(node.right, linear, index))
    if node.op == "*":
        if degree(node.left, linear) == 0:
            return _scale("*", _part(node.right, linear, index), node.left)
        return _scale("*", _part(node.left, linear, index), node.right)
    return _scale("/", _part(node.left, linear, index), node.right)  # "/"


@dataclass(frozen=True)
class Projection:
    """An equation split as ``offset + sum(p_i * columns[k])`` over its ``linear``
    parameters ``p_i`` (``i = linear[k]``); ``nonlinear``: the other used parameters."""

    n_params: int
    linear: tuple[int, ...]
    nonlinear: tuple[int, ...]
    offset: Node | None
    columns: tuple[Node | None, ...]

    @classmethod
    def of(cls, tree: Node, n_params: int) -> Projection:
        """The decomposition of ``tree`` (``n_params``: the equation's parameter count)."""
        linear = linear_params(tree, n_params)
        chosen = frozenset(linear)
        nonlinear = tuple(sorted(used_params(tree) - chosen))
        return cls(
            n_params,
            linear,
            nonlinear,
            _part(tree, chosen, None),
            tuple(_part(tree, chosen, i) for i in linear),
        )

    def full(self, q: Params, a: Params) -> np.ndarray:
        """The full parameter vector from nonlinear values ``q`` and linear values ``a``
        (unused parameters: 1, LLM-SR's initial value)."""
        p = np.ones(self.n_params)
        p[list(self.nonlinear)] = q
        p[list(self.linear)] = a
        return p

    def solver(self, A: np.ndarray, t: np.ndarray, columns: dict[str, int]) -> Solver:
        """The linear least-squares solver on the data ``A`` (columns named by ``columns``),
        ``t``."""
        return Solver(self, A, t, columns)


class Solver:
    """Solves for the linear parameters of a :class:`Projection` on fixed data. Each part
    (offset, column) is re-evaluated only when a nonlinear parameter it uses changed (a
    coordinate search, and a finite-difference gradient, move one parameter at a time; the
    last :data:`CACHED` values of each part are kept)."""

    def __init__(
        self, projection: Projection, A: np.ndarray, t: np.ndarray, columns: dict[str, int]
    ) -> None:
        self.projection, self.A, self.t, self.names = projection, A, t, columns
        parts = (projection.offset,) + projection.columns
        self.parts = parts
        self.uses = [
            [
                k
                for k, i in enumerate(projection.nonlinear)
                if part is not None and i in used_params(part)
            ]
            for part in parts
        ]
        self.cache: list[dict[tuple[float, ...], np.ndarray]] = [{} for _ in parts]

    def part(self, index: int, q: Params, p: np.ndarray) -> np.ndarray:
        node = self.parts[index]
        n = self.A.shape[0]
        if node is None:
            return np.zeros(n)
        key = tuple(float(q[k]) for k in self.uses[index])
        cache = self.cache[index]
        if key in cache:
            return cache[key]
        values = np.broadcast_to(evaluate_node(node, self.A, p, self.names), (n,))
        if len(cache) >= CACHED:
            del cache[next(iter(cache))]  # the oldest
        cache[key] = values
        return values

    def profile(
        self,
        q: Params,
        ks: Sequence[int],
        values: np.ndarray,
        tick: Callable[[], None] = lambda: None,
    ) -> np.ndarray:
        """The MSE after solving for the linear parameters, for each row of ``values`` (one
        column per nonlinear parameter ``ks[c]``, by position; the others at ``q``),
        computed for all rows at once: the parameters become columns of the data tiled once
        per row, and the batched
        least-squares problems are solved with ``numpy.linalg.pinv`` (the same cut-off as
        ``lstsq``). inf where a prediction is not finite. ``tick`` is called before each
        chunk of :data:`CHUNK_ROWS` rows (a time budget may raise there). Call inside
        ``np.errstate``."""
        proj = self.projection
        q = np.asarray(q, dtype=float)
        p = proj.full(q, np.zeros(len(proj.linear)))
        n, width = self.A.shape
        ks = list(ks)
        values = np.asarray(values, dtype=float).reshape(-1, len(ks))
        names = dict(self.names, **{SWEPT.format(c): width + c for c in range(len(ks))})
        indices = [proj.nonlinear[k] for k in ks]
        out = np.full(len(values), np.inf)
        step = max(1, CHUNK_ROWS // n)
        for first in range(0, len(values), step):
            tick()
            v = values[first : first + step]
            g = len(v)
            big = np.column_stack([np.tile(self.A, (g, 1)), np.repeat(v, n, axis=0)])
            parts = []
            for i, node in enumerate(self.parts):
                if node is not None and set(ks) & set(self.uses[i]):
                    swapped = _swap(node, indices)
                    values_i = np.broadcast_to(evaluate_node(swapped, big, p, names), (g * n,))
                    parts.append(values_i.reshape(g, n))
                else:
                    parts.append(np.broadcast_to(self.part(i, q, p), (g, n)))
            g0 = parts[0]
            ok = np.all(np.isfinite(g0), axis=1)
            pred = np.array(g0)
            if proj.linear:
                G = np.stack(parts[1:], axis=2)
                ok &= np.all(np.isfinite(G), axis=(1, 2))
                G = np.where(ok[:, None, None], G, 0.0)
                r = np.where(ok[:, None], self.t - g0, 0.0)
                norms = np.linalg.norm(G, axis=1)
                norms[norms == 0] = 1.0
                rcond = np.finfo(float).eps * max(n, len(proj.linear))
                coef = (np.linalg.pinv(G / norms[:, None, :], rcond=rcond) @ r[..., None])[
                    ..., 0
                ] / norms
                pred = pred + (G @ coef[..., None])[..., 0]
            mse = np.mean((pred - self.t) ** 2, axis=1)
            out[first : first + g] = np.where(ok & np.isfinite(mse), mse, np.inf)
        return out

    def __call__(self, q: Params) -> tuple[np.ndarray, np.ndarray] | None:
        """The full parameter vector whose linear part minimises the squared error for the
        nonlinear values ``q``, and its predictions; None when a column or the offset is not
        finite on the data (call inside ``np.errstate(all="ignore")``)."""
        proj = self.projection
        q = np.asarray(q, dtype=float)
        p = proj.full(q, np.zeros(len(proj.linear)))
        g0 = self.part(0, q, p)
        if not np.all(np.isfinite(g0)):
            return None
        if not proj.linear:
            return p, g0
        G = np.column_stack([self.part(k + 1, q, p) for k in range(len(proj.linear))])
        if not np.all(np.isfinite(G)):
            return None
        norms = np.linalg.norm(G, axis=0)
        norms[norms == 0] = 1.0
        coef, *_ = np.linalg.lstsq(G / norms, self.t - g0, rcond=None)
        a = coef / norms
        p[list(proj.linear)] = a
        return p, g0 + G @ a


__all__ = ["Projection", "Solver", "degree", "linear_params", "used_params"]
