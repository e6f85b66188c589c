"""Hand-written induction rules: parse one (``grammars/induction_rule.lark``), check its shape,
and test it against a task's examples with the Prolog coverage of ``prolog/induction.pl``.

    >>> from scir.tracks.induction.rules import check_rule
    >>> result = check_rule(track.formal(task),                            # doctest: +SKIP
    ...     "interacts(A,B) :- substrate_of(A,P), inhibits_enzyme(B,P).")
    >>> result.valid, result.in_pool, result.covered_positives             # doctest: +SKIP

Accepted: either orientation (``r1(A,P), r2(B,P)`` or ``r2(A,P), r1(B,P)``), either body
order, any variable names. Errors are :class:`FormalizationError` with line and column.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scir.errors import FormalizationError
from scir.tracks.induction.formal import InductionProblem
from scir.tracks.induction.semantics import Pair, coverage, prolog_module
from scir.tracks.induction.world import Rule, World, load_world, rule_key

HEAD = "interacts"


@dataclass(frozen=True)
class ParsedRule:
    """A rule that parsed and has the right shape."""

    rule: Rule           # the sorted pair of relation types
    clause: str          # the rule written back in canonical spacing


@dataclass
class RuleCheck:
    """A rule tested against one task."""

    rule: Rule
    clause: str
    category: str | None            # the rule's category; None for a mixed pair
    target_category: str | None
    covered_positives: list[Pair]
    covered_negatives: list[Pair]
    n_positives: int
    n_negatives: int
    # covers at least one known interacting pair and no known non-interacting pair: Prolog's
    # valid/2 (prolog/induction.pl), not restated here
    valid: bool

    @property
    def in_pool(self) -> bool:
        """Valid and of the target's category: an accepted answer."""
        return self.valid and self.category is not None and self.category == self.target_category

    @property
    def answer(self) -> str:
        """The rule as an answer string ``r1,r2``."""
        return rule_key(self.rule)


@lru_cache(maxsize=1)
def _parser():
    from lark import Lark

    from solvers import resources

    return Lark(resources.read_text("grammars", "induction_rule.lark"), parser="lalr",
                propagate_positions=True)


def _describe_expected(names: set[str]) -> str:
    parser = _parser()
    shown = []
    for name in sorted(names):
        if name == "NAME":
            shown.append("a predicate name")
        elif name == "VARIABLE":
            shown.append("a variable")
        elif name == "$END":
            shown.append("the end of the rule")
        else:
            try:
                shown.append(repr(parser.get_terminal(name).pattern.value))
            except KeyError:
                shown.append(name)
    return ", ".join(sorted(set(shown)))


def parse_rule(text: str, world: World | None = None) -> ParsedRule:
    """Parse and shape-check a rule; raises :class:`FormalizationError` with its position."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    world = world or load_world()
    try:
        tree = _parser().parse(text)
    except UnexpectedToken as exc:
        if exc.token.type == "$END":
            lines = text.rstrip().splitlines() or [""]
            raise FormalizationError(
                f"rule ends too early; expected {_describe_expected(exc.expected)}",
                line=len(lines), column=len(lines[-1]) + 1) from exc
        raise FormalizationError(
            f"rule does not parse: unexpected {exc.token.value!r}; expected "
            f"{_describe_expected(exc.expected)}", line=exc.line, column=exc.column) from exc
    except UnexpectedCharacters as exc:
        raise FormalizationError(f"rule does not parse: unexpected character {exc.char!r}",
                                 line=exc.line, column=exc.column) from exc
    except UnexpectedEOF as exc:
        lines = text.rstrip().splitlines() or [""]
        raise FormalizationError(
            f"rule ends too early; expected {_describe_expected(set(exc.expected))}",
            line=len(lines), column=len(lines[-1]) + 1) from exc
    head, first, second = (_atom(a) for a in tree.children)
    return _shape(head, first, second, world)


@dataclass(frozen=True)
class _Atom:
    name: str
    args: tuple[str, str]
    positions: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]  # name, arg1, arg2


def _atom(tree: Any) -> _Atom:
    name, a, b = tree.children
    return _Atom(str(name), (str(a), str(b)),
                 ((name.line, name.column), (a.line, a.column), (b.line, b.column)))


def _error(message: str, position: tuple[int, int]) -> FormalizationError:
    return FormalizationError(message, line=position[0], column=position[1])


def _shape(head: _Atom, first: _Atom, second: _Atom, world: World) -> ParsedRule:
    if head.name != HEAD:
        raise _error(f"the head must be {HEAD}(X, Y), got {head.name}/2", head.positions[0])
    x, y = head.args
    for var, pos in zip(head.args, head.positions[1:]):
        if var == "_":
            raise _error("the head needs named variables, not '_'", pos)
    if x == y:
        raise _error(f"the head must have two different drug variables, got {HEAD}({x}, {y})",
                     head.positions[2])
    known = world.relation_names
    for lit in (first, second):
        if lit.name not in known:
            raise _error(f"unknown predicate {lit.name!r}; known relation types: "
                         f"{', '.join(known)}", lit.positions[0])
        if lit.args[0] not in (x, y):
            raise _error(f"the first argument of {lit.name} must be a drug of the head "
                         f"({x} or {y}), got {lit.args[0]}", lit.positions[1])
        if lit.args[1] in (x, y) or lit.args[1] == "_":
            raise _error(f"the second argument of {lit.name} must be the protein variable "
                         f"shared by both body literals, got {lit.args[1]}", lit.positions[2])
    if first.args[1] != second.args[1]:
        raise _error(f"both body literals must share the protein variable: {first.args[1]} and "
                     f"{second.args[1]} differ", second.positions[2])
    if first.args[0] == second.args[0]:
        raise _error(f"the two body literals must be about different drugs ({x} and {y}), both "
                     f"are about {first.args[0]}", second.positions[1])
    by_drug = {first.args[0]: first, second.args[0]: second}
    p = first.args[1]
    lx, ly = by_drug[x], by_drug[y]
    clause = f"{HEAD}({x}, {y}) :- {lx.name}({x}, {p}), {ly.name}({y}, {p})."
    return ParsedRule(tuple(sorted((first.name, second.name))), clause)  # type: ignore[arg-type]


def check_rule(problem: InductionProblem, text: str, world: World | None = None
               ) -> RuleCheck:
    """Parse ``text`` and test the rule against a formal object (``track.formal(task)``)."""
    world = world or load_world()
    parsed = parse_rule(text, world)
    with prolog_module(problem, world) as module:
        cov = coverage(module, parsed.rule)
    return RuleCheck(parsed.rule, parsed.clause, world.rule_category(parsed.rule),
                     problem.category, cov.positives, cov.negatives, len(problem.pos),
                     len(problem.neg), cov.valid)
