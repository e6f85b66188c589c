"""Sentences generated from a grammar object (:mod:`solvers.grammar`), as a Hypothesis
strategy: the walk chooses an alternative of each rule, a count within each repetition's
bounds and a string for each regular expression, and returns the text with its derivation.
Used to test that a grammar and the parser of its texts agree (tests/test_grammar.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from hypothesis import strategies as st
from hypothesis.errors import UnsatisfiedAssumption

from solvers.grammar import Choice, Grammar, Item, Lit, Pat, Ref, Rep, Seq

MAX_DEPTH = 60                 # rule nesting before a walk is abandoned (unbounded grammars)
OPEN_REPEAT = 3                # repetitions beyond the minimum of an unbounded repetition


@dataclass(frozen=True)
class Node:
    """One rule of a derivation: its name and its parts (text or nodes), in order."""

    name: str
    parts: tuple[Union[str, "Node"], ...]

    @property
    def text(self) -> str:
        return "".join(p if isinstance(p, str) else p.text for p in self.parts)

    def find(self, name: str) -> list["Node"]:
        """The outermost nodes named ``name`` below (or at) this one, in order."""
        if self.name == name:
            return [self]
        return [n for p in self.parts if isinstance(p, Node) for n in p.find(name)]

    def named(self) -> list["Node"]:
        """The direct child nodes."""
        return [p for p in self.parts if isinstance(p, Node)]


def _regex(item: Pat) -> re.Pattern[str]:
    flags = re.IGNORECASE if "i" in item.flags else 0
    return re.compile(item.pattern, flags)


def _min_sizes(grammar: Grammar) -> dict[str, float]:
    """The fewest rule expansions a derivation of each rule needs (a fixed point)."""
    size = {r.name: float("inf") for r in grammar.rules}

    def of(item: Item) -> float:
        if isinstance(item, Ref):
            return size.get(item.name, float("inf"))
        if isinstance(item, Seq):
            return sum(of(i) for i in item.items)
        if isinstance(item, Choice):
            return min(of(o) for o in item.options)
        if isinstance(item, Rep):
            return item.low * of(item.item) if item.low else 0
        return 0

    changed = True
    while changed:
        changed = False
        for r in grammar.rules:
            best = 1 + min(of(a.item) for a in r.alts)
            if best < size[r.name]:
                size[r.name], changed = best, True
    return size


def derivations(grammar: Grammar, start: str | None = None,
                budget: int = 120) -> st.SearchStrategy[Node]:
    """Random derivations of ``grammar`` from ``start`` (default: the grammar's start). A
    repetition draws at most half the expansions left of ``budget`` beyond its minimum, and
    after ``budget`` expansions the walk takes the smallest alternatives, so sentences stay
    small (the largest counts are tested by the tracks' own tests of the bounds)."""
    sizes = _min_sizes(grammar)

    def smallest(items) -> list:
        cost = [_cost(i, sizes) for i in items]
        return [i for i, c in zip(items, cost) if c == min(cost)]

    @st.composite
    def build(draw) -> Node:
        used = [0]

        def walk(item: Item, depth: int) -> list:
            if isinstance(item, Lit):
                return [item.text]
            if isinstance(item, Pat):
                return [draw(st.from_regex(_regex(item), fullmatch=True))]
            if isinstance(item, Ref):
                return [expand(item.name, depth + 1)]
            if isinstance(item, Seq):
                return [p for i in item.items for p in walk(i, depth)]
            if isinstance(item, Choice):
                options = list(item.options) if used[0] < budget else smallest(item.options)
                return walk(draw(st.sampled_from(options)), depth)
            if isinstance(item, Rep):
                high = item.low + OPEN_REPEAT if item.high is None else item.high
                high = min(high, item.low + max(0, budget - used[0]) // 2)
                count = draw(st.integers(item.low, high))
                return [p for _ in range(count) for p in walk(item.item, depth)]
            raise TypeError(item)

        def expand(name: str, depth: int) -> Node:
            if depth > MAX_DEPTH:
                raise UnsatisfiedAssumption()
            used[0] += 1
            alts = list(grammar[name].alts)
            if used[0] >= budget:
                alts = smallest(alts)
            alt = draw(st.sampled_from(alts))
            return Node(alt.alias or name, tuple(walk(alt.item, depth)))

        return expand(start or grammar.start, 0)

    return build()


def _cost(item, sizes: dict[str, float]) -> float:
    from solvers.grammar import Alt

    if isinstance(item, Alt):
        item = item.item
    if isinstance(item, Ref):
        return sizes.get(item.name, 0)
    if isinstance(item, Seq):
        return sum(_cost(i, sizes) for i in item.items)
    if isinstance(item, Choice):
        return min(_cost(o, sizes) for o in item.options)
    if isinstance(item, Rep):
        return item.low * _cost(item.item, sizes)
    return 0


def sentences(grammar: Grammar, start: str | None = None) -> st.SearchStrategy[str]:
    """Random sentences of ``grammar`` (the texts of :func:`derivations`)."""
    return derivations(grammar, start).map(lambda n: n.text)
