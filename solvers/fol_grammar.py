"""Per-task FOL grammars: ``grammars/fol.lark`` with its placeholders filled by a signature.

:func:`instantiate_grammar` turns a task's predicates (with arities) and constants into a Lark
grammar that accepts formulas over exactly that signature. Names are checked against an
identifier pattern before anything is built and enter the grammar only as escaped Lark string
literals. Two variants:

* unbounded (``max_formulas=None``): the generic grammar's structure, free whitespace, any
  number of formulas; the signature section of ``fol.lark`` is replaced.
* bounded (``max_formulas=N``): a finite language for constrained decoding -- 1..N formulas,
  each on its own line, in the canonical spacing of :func:`solvers.fol.to_prover9`, nesting
  depth at most ``max_depth`` and ``&``/``|`` chains of at most ``max_operands``; the formula
  rules of ``fol.lark`` are unrolled level by level (level k may only nest level k-1), and
  variables are ``u``-``z`` with at most two digits (``x``, ``y1``, ``z12``).
  :func:`solvers.fol.grammar_bounds` gives the smallest bounds that accept given formulas.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from solvers import resources
from solvers.errors import ConfigError, ResourceError, SolverInputError
from solvers.fol_ast import BINARY, And, Exists, Forall, Formula, Iff, Implies, Not, Or, is_literal
from solvers.grammar_check import llguidance_available, validate_lark

NAME = re.compile(r"[a-z][A-Za-z0-9_]{0,63}")
TASK_VARIABLE = re.compile(r"[u-z][0-9]*")
RESERVED = frozenset({"all", "exists", "end_of_list"})  # end_of_list. ends a Prover9 list
MAX_ARITY = 8
_SECTION = re.compile(r"^// ---- signature: begin.*?^// ---- signature: end ----$\n?",
                      re.M | re.S)


def lark_literal(text: str) -> str:
    """``text`` as a Lark string literal (backslash and double quote escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check_name(name: object, kind: str) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED:
        raise SolverInputError(f"invalid {kind} name {name!r} (expected {NAME.pattern}, not "
                               f"{', '.join(sorted(RESERVED))})", field=f"{kind}s")


def check_signature(predicates: Mapping[str, int],
                    constants: Sequence[str]) -> tuple[list[tuple[str, int]], list[str]]:
    """Validate a signature; return it sorted. Raise SolverInputError naming the bad entry."""
    if not isinstance(predicates, Mapping) or not predicates:
        raise SolverInputError("a signature needs at least one predicate", field="predicates")
    if isinstance(constants, str):
        raise SolverInputError("constants must be a list of names, not a string",
                               field="constants")
    checked = []
    for name, arity in predicates.items():
        _check_name(name, "predicate")
        if TASK_VARIABLE.fullmatch(name):
            raise SolverInputError(f"predicate name {name!r} looks like a variable",
                                   field="predicates")
        if isinstance(arity, bool) or not isinstance(arity, int) or not 0 <= arity <= MAX_ARITY:
            raise SolverInputError(f"invalid arity {arity!r} for predicate {name!r} "
                                   f"(expected 0..{MAX_ARITY})", field="predicates")
        if arity == 0 and name[0] in "uvwxyz":
            raise SolverInputError(f"proposition {name!r} starts with u-z: Prover9 would "
                                   "read it as a variable", field="predicates")
        checked.append((name, arity))
    for name in constants:
        _check_name(name, "constant")
        if name[0] in "uvwxyz":
            raise SolverInputError(f"constant {name!r} starts with u-z: Prover9 would read it "
                                   "as a variable", field="constants")
        if name in predicates:
            raise SolverInputError(f"{name!r} is both a predicate and a constant",
                                   field="constants")
    if len(set(constants)) != len(constants):
        raise SolverInputError("duplicate constant names", field="constants")
    return sorted(checked), sorted(constants)


def _signature_rules(predicates: list[tuple[str, int]], constants: list[str],
                     variable_pattern: str) -> list[str]:
    alternatives = []
    for name, arity in predicates:
        args = ' "," term' * (arity - 1)
        alternatives.append(f'{lark_literal(name)} "(" term{args} ")"' if arity
                            else lark_literal(name))
    rules = ["atom: " + "\n    | ".join(alternatives)]
    if constants:
        rules += ["?term: constant | variable",
                  "constant: " + "\n        | ".join(lark_literal(c) for c in constants)]
    else:
        rules.append("?term: variable")
    rules.append(f"VARIABLE: /{variable_pattern}/")
    return rules


def _unbounded(predicates: list[tuple[str, int]], constants: list[str]) -> str:
    generic = resources.read_text("grammars", "fol.lark")
    sections = _SECTION.findall(generic)
    if len(sections) != 1:
        raise ResourceError("grammars/fol.lark must hold exactly one signature section")
    rules = _signature_rules(predicates, constants, r"[u-z][0-9]*")
    section = ("// ---- signature: this task's predicates and constants ----\n"
               + "\n".join(rules) + "\n")
    return generic.replace(sections[0], section)


def _repeat(item: str, sep: str, count: int) -> str:
    return item if count == 1 else f"{item} ({lark_literal(sep)} {item}) ~ 0..{count - 1}"


def _bounded(predicates: list[tuple[str, int]], constants: list[str], max_formulas: int,
             max_depth: int, max_operands: int) -> str:
    top = f"formula_{max_depth}"
    rules = [
        "// Bounded per-task grammar of Prover9 formulas (generated by "
        "solvers.fol_grammar from grammars/fol.lark):",
        f"// 1..{max_formulas} formulas, one per line, nesting depth <= {max_depth}, "
        f"&/| chains <= {max_operands} operands.",
        "start: stmt" + (f" ~ 1..{max_formulas}" if max_formulas > 1 else ""),
        f'stmt: {top} ".\\n"',
    ]
    for k in range(max_depth + 1):
        rules += [
            f'formula_{k}: disjunction_{k}\n    | disjunction_{k} " -> " disjunction_{k}'
            f'\n    | disjunction_{k} " <-> " disjunction_{k}',
            f"disjunction_{k}: " + _repeat(f"conjunction_{k}", " | ", max_operands),
            f"conjunction_{k}: " + _repeat(f"unary_{k}", " & ", max_operands),
        ]
        unary = ["literal"]
        if k > 0:
            unary += [f'"-(" formula_{k - 1} ")"', f'"(" formula_{k - 1} ")"',
                      f'QUANTIFIER VARIABLE " " unary_{k - 1}']
        rules.append(f"unary_{k}: " + "\n    | ".join(unary))
    rules += ['literal: atom | "-" atom | term " = " term | term " != " term',
              'QUANTIFIER: "all " | "exists "', "variable: VARIABLE"]
    rules += _signature_rules(predicates, constants, r"[u-z][0-9]{0,2}")
    return "\n".join(rules) + "\n"


def _check_bound(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}", field=name)
    return value


def instantiate_grammar(predicates: Mapping[str, int], constants: Sequence[str],
                        max_formulas: int | None = None, *, max_depth: int = 4,
                        max_operands: int = 6, validate: bool = True) -> str:
    """A Lark grammar of formulas over exactly this signature (names checked first).

    ``max_formulas=None`` gives the unbounded grammar; an integer gives the bounded one (see
    the module docstring). With ``validate`` the result is checked by llguidance when it is
    installed (SolverInputError if rejected).
    """
    preds, consts = check_signature(predicates, constants)
    if max_formulas is None:
        text = _unbounded(preds, consts)
    else:
        text = _bounded(preds, consts, _check_bound("max_formulas", max_formulas, 1),
                        _check_bound("max_depth", max_depth, 0),
                        _check_bound("max_operands", max_operands, 1))
    if validate and llguidance_available():
        validate_lark(text)
    return text


def _chain(f: Formula, cls: type) -> list[Formula]:
    """Operands of a right-nested ``cls`` chain as the printer writes it without parentheses."""
    items = []
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
    if isinstance(f, (Implies, Iff)):
        parts = [(f.left, (Implies, Iff)), (f.right, (Implies, Iff))]
        width = 1
    else:
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
