"""The language bias of an ILP problem (:class:`IlpBias`) and the reader of Popper's
``bias.pl``.

Popper hands ``bias.pl`` to clingo (its tuples such as ``type(p,(t,))`` are ASP syntax, not
Prolog), so this reader parses it with clingo's own parser and accepts facts only:

    head_pred(p,2).  body_pred(q,2).  type(p,(t1,t2)).  direction(p,(in,out)).
    max_vars(N).  max_body(N).  max_clauses(N).  allow_singletons.  non_datalog.
    mode(partial).  mode(classic).          % our extension: the learning mode
    required_pred(q).                       % our extension: every clause uses q

Anything else (rules, constraints, unknown facts) is a :class:`SolverInputError` naming the
file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from solvers.errors import SolverInputError

MODES = ("classic", "partial")
DEFAULT_MAX_VARS = 6
DEFAULT_MAX_BODY = 6
DEFAULT_MAX_CLAUSES = 1
_CLINGO_POS = re.compile(r"\A<string>:(\d+):(\d+)(?:-\d+(?::\d+)?)?: (?:error: )?(.*)", re.S)


@dataclass
class IlpBias:
    """What clauses may look like: predicates, types, directions and size bounds."""

    head_pred: tuple[str, int]
    body_preds: tuple[tuple[str, int], ...]
    types: dict[str, tuple[str, ...]] = field(default_factory=dict)
    directions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    max_vars: int = DEFAULT_MAX_VARS
    max_body: int = DEFAULT_MAX_BODY
    max_clauses: int = DEFAULT_MAX_CLAUSES
    mode: str = "classic"
    allow_singletons: bool = False
    non_datalog: bool = False
    required_preds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.head_pred = (str(self.head_pred[0]), int(self.head_pred[1]))
        self.body_preds = tuple(sorted({(str(p), int(a)) for p, a in self.body_preds}))
        self.required_preds = tuple(sorted(set(self.required_preds)))
        self.validate()

    def validate(self) -> None:
        """Raise :class:`SolverInputError` when the bias is inconsistent."""
        name, arity = self.head_pred
        if self.mode not in MODES:
            raise SolverInputError(f"unknown mode {self.mode!r}; expected one of {MODES}")
        if not self.body_preds:
            raise SolverInputError("the bias declares no body_pred")
        if (name, arity) in self.body_preds:
            raise SolverInputError(f"{name}/{arity} is both head and body predicate "
                                   "(recursion is not supported)")
        for label, value, low in (("max_vars", self.max_vars, max(1, arity)),
                                  ("max_body", self.max_body, 1),
                                  ("max_clauses", self.max_clauses, 1)):
            if not isinstance(value, int) or value < low:
                raise SolverInputError(f"{label} must be an integer >= {low}, got {value!r}")
        arities = dict(self.body_preds)
        arities[name] = arity
        if len(arities) != len(self.body_preds) + 1:
            raise SolverInputError("a predicate name is declared with two arities")
        for label, table in (("type", self.types), ("direction", self.directions)):
            for pred, values in table.items():
                if pred not in arities:
                    raise SolverInputError(f"{label} given for undeclared predicate {pred!r}")
                if len(values) != arities[pred]:
                    raise SolverInputError(f"{label}({pred}, ...) has {len(values)} entries; "
                                           f"{pred} has arity {arities[pred]}")
        for pred, values in self.directions.items():
            if any(v not in ("in", "out") for v in values):
                raise SolverInputError(f"direction of {pred} must use in/out, got {values}")
        body_names = {p for p, _ in self.body_preds}
        for pred in self.required_preds:
            if pred not in body_names:
                raise SolverInputError(f"required predicate {pred!r} is not a body_pred")

    def restricted(self, body_preds: list[tuple[str, int]] | tuple[tuple[str, int], ...],
                   **changes: Any) -> "IlpBias":
        """A copy with only ``body_preds`` allowed in bodies (and other fields changed, e.g.
        ``required_preds`` or ``mode``)."""
        keep = {p for p, _ in body_preds} | {self.head_pred[0]}
        changes.setdefault("required_preds",
                           tuple(p for p in self.required_preds if p in keep))
        return replace(self, body_preds=tuple(body_preds),
                       types={p: t for p, t in self.types.items() if p in keep},
                       directions={p: d for p, d in self.directions.items() if p in keep},
                       **changes)


def parse_bias(text: str, file: str = "bias.pl") -> IlpBias:
    """Parse the text of a Popper ``bias.pl`` (see module doc) into an :class:`IlpBias`."""
    from clingo import ast

    messages: list[str] = []
    statements: list[Any] = []
    try:
        ast.parse_string(text, statements.append,
                         logger=lambda _code, msg: messages.append(msg), message_limit=5)
    except RuntimeError as exc:
        first = messages[0].strip() if messages else str(exc)
        pos = _CLINGO_POS.match(first)
        detail = pos.group(3).strip() if pos else first
        raise SolverInputError(detail, file=file,
                               line=int(pos.group(1)) if pos else None,
                               column=int(pos.group(2)) if pos else None) from exc
    facts: list[tuple[int, str, tuple]] = []
    for stmt in statements:
        kind = stmt.ast_type
        if kind in (ast.ASTType.Comment, ast.ASTType.Program):
            continue
        line = stmt.location.begin.line
        if kind != ast.ASTType.Rule or stmt.body or stmt.head.ast_type != ast.ASTType.Literal \
                or stmt.head.sign != ast.Sign.NoSign \
                or stmt.head.atom.ast_type != ast.ASTType.SymbolicAtom:
            raise SolverInputError("only facts are supported in a bias file (no rules, "
                                   "constraints or directives)", file=file, line=line)
        value = _value(stmt.head.atom.symbol, file, line)
        name, args = (value, ()) if isinstance(value, str) else value
        facts.append((line, name, args))
    return _build(facts, file)


def read_bias(path: Path | str) -> IlpBias:
    """Read and parse a ``bias.pl`` file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SolverInputError(f"cannot read bias file: {exc}", file=str(path)) from exc
    return parse_bias(text, file=str(path))


def _value(node: Any, file: str, line: int) -> Any:
    """A ground clingo AST term as Python: constants -> str, numbers -> int, tuples -> tuple,
    ``f(args)`` -> (name, args)."""
    import clingo
    from clingo import ast

    kind = node.ast_type
    if kind == ast.ASTType.SymbolicTerm:
        sym = node.symbol
        if sym.type == clingo.SymbolType.Number:
            return sym.number
        if sym.type == clingo.SymbolType.String:
            return sym.string
        if sym.type == clingo.SymbolType.Function and not sym.arguments:
            return sym.name
    elif kind == ast.ASTType.Function and not node.external:
        args = tuple(_value(a, file, line) for a in node.arguments)
        if node.name == "":
            return args
        return (node.name, args) if args else node.name
    elif kind == ast.ASTType.UnaryOperation and node.operator_type == ast.UnaryOperator.Minus:
        inner = _value(node.argument, file, line)
        if isinstance(inner, int):
            return -inner
    raise SolverInputError(f"unsupported term {node} in a bias fact (facts must be ground)",
                           file=file, line=line)


_SIGNATURES = {"head_pred": 2, "body_pred": 2, "type": 2, "direction": 2, "max_vars": 1,
               "max_body": 1, "max_clauses": 1, "mode": 1, "allow_singletons": 0,
               "non_datalog": 0, "required_pred": 1}


def _build(facts: list[tuple[int, str, tuple]], file: str) -> IlpBias:
    heads: list[tuple[str, int]] = []
    bodies: list[tuple[str, int]] = []
    required: list[str] = []
    settings: dict[str, Any] = {}
    types: dict[str, tuple[str, ...]] = {}
    directions: dict[str, tuple[str, ...]] = {}
    lines: dict[str, int] = {}
    for line, name, args in facts:
        def fail(message: str) -> SolverInputError:
            return SolverInputError(message, file=file, line=line)

        if _SIGNATURES.get(name) != len(args):
            known = ", ".join(f"{k}/{v}" for k, v in sorted(_SIGNATURES.items()))
            raise fail(f"unknown bias fact {name}/{len(args)} (known: {known})")
        if name in ("head_pred", "body_pred"):
            pred, arity = args
            if not isinstance(pred, str) or not isinstance(arity, int) or arity < 0:
                raise fail(f"{name} needs a predicate name and an arity, got {args}")
            (heads if name == "head_pred" else bodies).append((pred, arity))
            lines.setdefault(f"{name}:{pred}", line)
        elif name in ("type", "direction"):
            pred, values = args
            values = values if isinstance(values, tuple) else (values,)
            if not isinstance(pred, str) or not all(isinstance(v, str) for v in values):
                raise fail(f"{name} needs a predicate and a tuple of names, got {args}")
            table = types if name == "type" else directions
            if pred in table and table[pred] != values:
                raise fail(f"conflicting {name} declarations for {pred}")
            table[pred] = values
            lines[f"{name}:{pred}"] = line
        elif name == "required_pred":
            if not isinstance(args[0], str):
                raise fail(f"required_pred needs a predicate name, got {args[0]!r}")
            required.append(args[0])
            lines.setdefault(f"required_pred:{args[0]}", line)
        elif name in ("max_vars", "max_body", "max_clauses", "mode"):
            (value,) = args
            if name == "mode" and value not in MODES:
                raise fail(f"mode must be one of {', '.join(MODES)}, got {value!r}")
            if name != "mode" and (not isinstance(value, int) or value < 1):
                raise fail(f"{name} must be a positive integer, got {value!r}")
            if name in settings and settings[name] != value:
                raise fail(f"conflicting {name} declarations ({settings[name]!r} and {value!r})")
            settings[name] = value
            lines[name] = line
        else:
            settings[name] = True
    if len(set(heads)) != 1:
        found = ", ".join(f"{p}/{a}" for p, a in sorted(set(heads))) or "none"
        raise SolverInputError(f"exactly one head_pred is required (found: {found})", file=file)
    arities = dict(bodies)
    arities[heads[0][0]] = heads[0][1]
    for table, label in ((types, "type"), (directions, "direction")):
        for pred, values in table.items():
            line = lines[f"{label}:{pred}"]
            if pred not in arities:
                raise SolverInputError(f"{label} given for undeclared predicate {pred!r}",
                                       file=file, line=line)
            if len(values) != arities[pred]:
                raise SolverInputError(f"{label}({pred}, ...) has {len(values)} entries; "
                                       f"{pred} has arity {arities[pred]}", file=file, line=line)
            if label == "direction" and any(v not in ("in", "out") for v in values):
                raise SolverInputError(f"direction of {pred} must use in/out, got {values}",
                                       file=file, line=line)
    for pred in required:
        if pred not in {p for p, _ in bodies}:
            raise SolverInputError(f"required predicate {pred!r} is not a body_pred",
                                   file=file, line=lines[f"required_pred:{pred}"])
    if settings.get("max_vars", DEFAULT_MAX_VARS) < heads[0][1]:
        raise SolverInputError(f"max_vars is smaller than the head arity {heads[0][1]}",
                               file=file, line=lines.get("max_vars"))
    try:
        return IlpBias(head_pred=heads[0], body_preds=tuple(bodies), types=types,
                       directions=directions, required_preds=tuple(required), **settings)
    except SolverInputError as exc:
        raise SolverInputError(exc.message, file=file) from exc
