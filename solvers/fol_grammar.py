"""Per-task FOL grammars: ``grammars/fol.lark`` with its signature rules set per task.

:func:`formula_grammar` (a :class:`solvers.grammar.Grammar` object; :func:`instantiate_grammar`
gives its Lark text) turns a task's predicates (with arities) and constants into a Lark
grammar that accepts formulas over exactly that signature. Names are checked against an
identifier pattern before anything is built and enter the grammar only as escaped Lark string
literals. Two variants:

* unbounded (``max_formulas=None``): the generic grammar's structure, free whitespace, any
  number of formulas; the signature rules of ``fol.lark`` (``atom``, ``term``,
  ``constant``, ``VARIABLE``) are replaced by name, the placeholders no longer used dropped.
* bounded (``max_formulas=N``): a finite language for constrained decoding -- 1..N formulas,
  each on its own line, in the canonical spacing of :func:`solvers.fol.to_prover9`, nesting
  depth at most ``max_depth`` and ``&``/``|`` chains of at most ``max_operands``; the formula
  rules of ``fol.lark`` are unrolled level by level (level k may only nest level k-1), and
  variables are ``u``-``z`` with at most two digits (``x``, ``y1``, ``z12``).
  :func:`solvers.fol.grammar_bounds` gives the smallest bounds that accept given formulas.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from solvers import resources
from solvers.errors import ConfigError, SolverInputError
from solvers.fol_ast import (
    BINARY,
    And,
    Atom,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Var,
    is_literal,
)
from solvers.grammar import (
    Grammar,
    Item,
    Lit,
    Pat,
    Ref,
    Rep,
    Rule,
    lark_literal,  # noqa: F401  (re-exported: quoting names for Lark)
    rep,
    rule,
    seq,
)
from solvers.grammar_check import llguidance_available, validate_lark

NAME = re.compile(r"[a-z][A-Za-z0-9_]{0,63}")
TASK_VARIABLE = re.compile(r"[u-z][0-9]*")
RESERVED = frozenset({"all", "exists", "end_of_list"})  # end_of_list. ends a Prover9 list
MAX_ARITY = 8
_SIGNATURE_RULES = ("atom", "term", "constant", "VARIABLE")  # replaced per task in fol.lark


def _check_name(name: object, kind: str) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED:
        raise SolverInputError(
            f"invalid {kind} name {name!r} (expected {NAME.pattern}, not "
            f"{', '.join(sorted(RESERVED))})",
            field=f"{kind}s",
        )


def check_signature(
    predicates: Mapping[str, int], constants: Sequence[str]
) -> tuple[list[tuple[str, int]], list[str]]:
    """Validate a signature; return it sorted. Raise SolverInputError naming the bad entry."""
    if not isinstance(predicates, Mapping) or not predicates:
        raise SolverInputError("a signature needs at least one predicate", field="predicates")
    if isinstance(constants, str):
        raise SolverInputError("constants must be a list of names, not a string", field="constants")
    checked = []
    for name, arity in predicates.items():
        _check_name(name, "predicate")
        if TASK_VARIABLE.fullmatch(name):
            raise SolverInputError(
                f"predicate name {name!r} looks like a variable", field="predicates"
            )
        if isinstance(arity, bool) or not isinstance(arity, int) or not 0 <= arity <= MAX_ARITY:
            raise SolverInputError(
                f"invalid arity {arity!r} for predicate {name!r} (expected 0..{MAX_ARITY})",
                field="predicates",
            )
        if arity == 0 and name[0] in "uvwxyz":
            raise SolverInputError(
                f"proposition {name!r} starts with u-z: Prover9 would read it as a variable",
                field="predicates",
            )
        checked.append((name, arity))
    for name in constants:
        _check_name(name, "constant")
        if name[0] in "uvwxyz":
            raise SolverInputError(
                f"constant {name!r} starts with u-z: Prover9 would read it as a variable",
                field="constants",
            )
        if name in predicates:
            raise SolverInputError(
                f"{name!r} is both a predicate and a constant", field="constants"
            )
    if len(set(constants)) != len(constants):
        raise SolverInputError("duplicate constant names", field="constants")
    return sorted(checked), sorted(constants)


def _signature_rules(
    predicates: list[tuple[str, int]], constants: list[str], variable_pattern: str
) -> list[Rule]:
    """``atom`` (one alternative per predicate, with its arity), ``term``, ``constant`` and
    ``VARIABLE`` for this signature."""
    alternatives = []
    for name, arity in predicates:
        more: list[Item] = [Lit(","), Ref("term")]
        args = [Ref("term")] + more * (arity - 1)
        alternatives.append(seq(name, "(", *args, ")") if arity else Lit(name))
    rules = [rule("atom", *alternatives)]
    if constants:
        rules += [
            rule("term", Ref("constant"), Ref("variable"), inline=True),
            rule("constant", *(Lit(c) for c in constants)),
        ]
    else:
        rules.append(rule("term", Ref("variable"), inline=True))
    return rules + [rule("VARIABLE", Pat(variable_pattern))]


def _unbounded(predicates: list[tuple[str, int]], constants: list[str]) -> Grammar:
    """``grammars/fol.lark`` with its signature rules replaced (by name) for this signature."""
    generic = Grammar.read(resources.read_text("grammars", "fol.lark"), "grammars/fol.lark")
    for name in _SIGNATURE_RULES:
        generic[name]  # ResourceError if the file no longer defines it
    return generic.replace(
        *_signature_rules(predicates, constants, r"[u-z][0-9]*"),
        comment="grammars/fol.lark over this task's predicates and "
        "constants (built by solvers.fol_grammar)",
    )


def _repeat(item: str, sep: str, count: int) -> Item:
    return Ref(item) if count == 1 else seq(Ref(item), Rep(seq(sep, Ref(item)), 0, count - 1))


def _bounded(
    predicates: list[tuple[str, int]],
    constants: list[str],
    max_formulas: int,
    max_depth: int,
    max_operands: int,
) -> Grammar:
    top = f"formula_{max_depth}"
    rules = [rule("start", rep(Ref("stmt"), 1, max_formulas)), rule("stmt", seq(Ref(top), ".\n"))]
    for k in range(max_depth + 1):
        d = Ref(f"disjunction_{k}")
        rules += [
            rule(f"formula_{k}", d, seq(d, " -> ", d), seq(d, " <-> ", d)),
            rule(f"disjunction_{k}", _repeat(f"conjunction_{k}", " | ", max_operands)),
            rule(f"conjunction_{k}", _repeat(f"unary_{k}", " & ", max_operands)),
        ]
        unary: list[Item] = [Ref("literal")]
        if k > 0:
            below = Ref(f"formula_{k - 1}")
            unary += [
                seq("-(", below, ")"),
                seq("(", below, ")"),
                seq(Ref("QUANTIFIER"), Ref("VARIABLE"), " ", Ref(f"unary_{k - 1}")),
            ]
        rules.append(rule(f"unary_{k}", *unary))
    term = Ref("term")
    rules += [
        rule(
            "literal",
            Ref("atom"),
            seq("-", Ref("atom")),
            seq(term, " = ", term),
            seq(term, " != ", term),
        ),
        rule("QUANTIFIER", Lit("all "), Lit("exists ")),
        rule("variable", Ref("VARIABLE")),
    ]
    rules += _signature_rules(predicates, constants, r"[u-z][0-9]{0,2}")
    comment = (
        f"Bounded per-task grammar of Prover9 formulas (generated by solvers.fol_grammar "
        f"from grammars/fol.lark):\n1..{max_formulas} formulas, one per line, nesting "
        f"depth <= {max_depth}, &/| chains <= {max_operands} operands."
    )
    return Grammar(tuple(rules), comment=comment)


def _check_bound(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}", field=name)
    return value


def formula_grammar(
    predicates: Mapping[str, int],
    constants: Sequence[str],
    max_formulas: int | None = None,
    *,
    max_depth: int = 4,
    max_operands: int = 6,
) -> Grammar:
    """The grammar object of formulas over exactly this signature (names checked first):
    ``max_formulas=None`` the unbounded grammar, an integer the bounded one (module doc)."""
    preds, consts = check_signature(predicates, constants)
    if max_formulas is None:
        return _unbounded(preds, consts)
    return _bounded(
        preds,
        consts,
        _check_bound("max_formulas", max_formulas, 1),
        _check_bound("max_depth", max_depth, 0),
        _check_bound("max_operands", max_operands, 1),
    )


def instantiate_grammar(
    predicates: Mapping[str, int],
    constants: Sequence[str],
    max_formulas: int | None = None,
    *,
    max_depth: int = 4,
    max_operands: int = 6,
    validate: bool = True,
) -> str:
    """:func:`formula_grammar` as Lark text. With ``validate`` the result is checked by
    llguidance when it is installed (SolverInputError if rejected)."""
    text = formula_grammar(
        predicates, constants, max_formulas, max_depth=max_depth, max_operands=max_operands
    ).to_lark()
    if validate and llguidance_available():
        validate_lark(text)
    return text


def formula_of_tree(node: Any) -> Formula:
    """The formula of a ``stmt`` / ``formula_k`` / ... node of a bounded grammar's parse tree
    (parsed with ``keep_all_tokens=True``: the operators are the tokens between the items)."""
    from lark import Token

    kind = node.data.rstrip("0123456789").rstrip("_")
    parts = [
        c for c in node.children if not isinstance(c, Token) or c.type in ("QUANTIFIER", "VARIABLE")
    ]
    ops = [str(c) for c in node.children if isinstance(c, Token)]
    if kind in ("stmt", "variable", "constant") or (kind == "unary" and ops == ["(", ")"]):
        if kind == "variable":
            return Var(str(node.children[0]))  # type: ignore[return-value]
        if kind == "constant":
            return Const(str(node.children[0]))  # type: ignore[return-value]
        return formula_of_tree(parts[0])
    if kind == "formula":
        if len(parts) == 1:
            return formula_of_tree(parts[0])
        cls = Implies if ops == [" -> "] else Iff
        return cls(formula_of_tree(parts[0]), formula_of_tree(parts[1]))
    if kind in ("disjunction", "conjunction"):
        items = [formula_of_tree(p) for p in parts]
        result = items[-1]
        for item in reversed(items[:-1]):  # right-nested, as Prover9 reads
            result = (Or if kind == "disjunction" else And)(item, result)
        return result
    if kind == "unary":
        if ops and ops[0] == "-(":
            return Not(formula_of_tree(parts[0]))
        if len(parts) == 1:
            return formula_of_tree(parts[0])
        quantifier, variable, body = parts
        quantified = Forall if str(quantifier) == "all " else Exists
        return quantified(str(variable), formula_of_tree(body))
    if kind == "literal":
        if len(parts) == 2:
            left, right = (formula_of_tree(p) for p in parts)
            equal = Eq(left, right)  # type: ignore[arg-type]
            return equal if ops == [" = "] else Not(equal)
        atom = formula_of_tree(parts[0])
        return Not(atom) if ops == ["-"] else atom
    if kind == "atom":
        name = str(node.children[0])
        args = [formula_of_tree(p) for p in parts]
        return Atom(name, tuple(args))  # type: ignore[arg-type]
    raise ValueError(f"not a node of the bounded formula grammar: {node.data}")


def _chain(f: Formula, cls: type[And] | type[Or]) -> list[Formula]:
    """Operands of a right-nested ``cls`` chain as the printer writes it without parentheses."""
    items: list[Formula] = []
    while isinstance(f, cls):
        items.append(f.left)
        f = f.right
    return items + [f]


def _bounds(f: Formula) -> tuple[int, int]:
    """(depth, operands) of ``f`` printed at formula level; see :func:`grammar_bounds`."""
    if is_literal(f):
        return 0, 1
    if isinstance(f, Not):
        depth, width = _bounds(f.body)
        return depth + 1, width
    if isinstance(f, (Forall, Exists)):
        depth, width = _bounds(f.body)
        return depth + (2 if isinstance(f.body, BINARY) else 1), width
    parts: list[tuple[Formula, tuple[type, ...]]]
    if isinstance(f, (Implies, Iff)):
        parts = [(f.left, (Implies, Iff)), (f.right, (Implies, Iff))]
        width = 1
    else:
        assert isinstance(f, (And, Or))  # literals, negations and quantifiers returned above
        cls = type(f)
        looser = (Implies, Iff, Or) if cls is And else (Implies, Iff)
        items = _chain(f, cls)
        parts = [(x, looser + (cls,)) for x in items[:-1]] + [(items[-1], looser)]
        width = len(items)
    depth = 0
    for operand, parenthesized in parts:
        d, w = _bounds(operand)
        depth = max(depth, d + 1 if isinstance(operand, parenthesized) else d)
        width = max(width, w)
    return depth, width


def grammar_bounds(formulas: Iterable[Formula]) -> tuple[int, int]:
    """The smallest ``(max_depth, max_operands)`` whose bounded grammar accepts the formulas.

    Depth counts parentheses, quantifiers and negations of non-literals on the way from the
    top of a formula to its deepest literal; operands is the longest ``&`` or ``|`` chain.
    """
    depth, width = 0, 1
    for f in formulas:
        d, w = _bounds(f)
        depth, width = max(depth, d), max(width, w)
    return depth, width
