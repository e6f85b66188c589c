"""The language bias of an ILP problem (:class:`IlpBias`) and the reader of Popper's
``bias.pl``.

Popper hands ``bias.pl`` to clingo (its tuples such as ``type(p,(t,))`` are ASP syntax, not
Prolog); so does this reader: the file is grounded (never solved) and the directives are the
directive atoms of the ground program, so rules may derive them, ``#const`` names work and an
atom of a choice rule counts as declared. Directives (Popper's, with Popper's meaning):

    head_pred(p,2).  body_pred(q,2).  type(p,(t1,t2)).  direction(p,(in,out)).
    max_vars(N).  max_body(N).  max_clauses(N).   (defaults 6, 6; without max_clauses any
                                        number of non-recursive clauses, 2 with recursion/PI)
    enable_recursion.  enable_pi.  non_datalog.
    allow_singletons.        accepted; Popper's reader always allows singleton variables
    custom_max_size(K).      generated programs have at most K literals (Popper d48951f)
    mode(partial).  mode(classic).          % our extension: the learning mode
    required_pred(q).                       % our extension: every clause uses q

Every other statement -- constraints and rules over the generator's vocabulary
(``:- clause(C), #count{V : clause_var(C,V), var_type(C,V,ex)} != 1.``), helper facts -- goes
to the generator unchanged (:attr:`IlpBias.user_asp`), as Popper adds bias.pl to its
generator; so do ``#const`` and ``#defined``. Directives of Popper's we do not implement (:data:`UNSUPPORTED`) and malformed
ones are a :class:`SolverInputError` naming the file and line.
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
UNBOUNDED_CLAUSES = 1000  # a bias file without max_clauses, no recursion: combine freely
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
    enable_recursion: bool = False
    enable_pi: bool = False
    max_size: int | None = None
    user_asp: str = ""

    @property
    def multi_clause(self) -> bool:
        """Whether the generator builds programs of several clauses (recursion or PI)."""
        return self.enable_recursion or self.enable_pi

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
            raise SolverInputError(
                f"{name}/{arity} is both head and body predicate (declare enable_recursion instead)"
            )
        if self.max_size is not None and (not isinstance(self.max_size, int) or self.max_size < 1):
            raise SolverInputError(
                f"custom_max_size must be a positive integer, got {self.max_size!r}"
            )
        for label, value, low in (
            ("max_vars", self.max_vars, max(1, arity)),
            ("max_body", self.max_body, 1),
            ("max_clauses", self.max_clauses, 1),
        ):
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
                    raise SolverInputError(
                        f"{label}({pred}, ...) has {len(values)} entries; "
                        f"{pred} has arity {arities[pred]}"
                    )
        for pred, values in self.directions.items():
            if any(v not in ("in", "out") for v in values):
                raise SolverInputError(f"direction of {pred} must use in/out, got {values}")
        body_names = {p for p, _ in self.body_preds}
        for pred in self.required_preds:
            if pred not in body_names:
                raise SolverInputError(f"required predicate {pred!r} is not a body_pred")

    def restricted(
        self, body_preds: list[tuple[str, int]] | tuple[tuple[str, int], ...], **changes: Any
    ) -> IlpBias:
        """A copy with only ``body_preds`` allowed in bodies (and other fields changed, e.g.
        ``required_preds`` or ``mode``)."""
        keep = {p for p, _ in body_preds} | {self.head_pred[0]}
        changes.setdefault("required_preds", tuple(p for p in self.required_preds if p in keep))
        return replace(
            self,
            body_preds=tuple(body_preds),
            types={p: t for p, t in self.types.items() if p in keep},
            directions={p: d for p, d in self.directions.items() if p in keep},
            **changes,
        )


def parse_bias(text: str, file: str = "bias.pl") -> IlpBias:
    """Parse the text of a Popper ``bias.pl`` (see module doc) into an :class:`IlpBias`.

    As Popper reads it (``Settings._load_bias`` in its ``util.py``): the file is an ASP
    program that clingo *grounds* (its generator vocabulary declared but empty), and the
    directives are the directive atoms of the ground program (``symbolic_atoms``), never
    solved. So rules may derive directives (``body_pred(P,1) :- constant(P,_).``),
    ``#const`` names work, an atom of a choice rule counts as declared, and a constraint
    over the generator's vocabulary (``:- not body_var(_,1).``) means nothing here: it goes
    to the generator, as every statement that does not define a directive does (constraints,
    rules, helper facts such as ``only_once(head).``, ``#const``, ``#defined``), in
    :attr:`IlpBias.user_asp`. ``#show`` is accepted and ignored; the other statements
    (``#minimize`` and weak constraints, ``#heuristic``, ``#external``, ``#project``,
    ``#edge``, ``#script``, ``#program`` parts other than ``base``) are a
    :class:`SolverInputError` naming the statement and its line."""
    from clingo import ast

    statements = _parse_statements(text, file)
    user: list[str] = []
    grounded: list[Any] = []
    for stmt in statements:
        kind = stmt.ast_type
        line = stmt.location.begin.line
        if kind.name in _IGNORED:
            continue
        if kind == ast.ASTType.Program:
            if stmt.name != "base" or stmt.parameters:
                raise SolverInputError(
                    f"unsupported statement in a bias file: {stmt} (only "
                    "the base program part is read)",
                    file=file,
                    line=line,
                )
            continue
        if kind in (ast.ASTType.Definition, ast.ASTType.Defined):
            grounded.append(stmt)
            user.append(str(stmt))
            continue
        if kind != ast.ASTType.Rule:
            what = _STATEMENTS.get(kind.name, kind.name)
            raise SolverInputError(
                f"unsupported statement in a bias file: {what}: {stmt}", file=file, line=line
            )
        heads = _head_signatures(stmt)
        for head in heads:
            if head in UNSUPPORTED:
                raise SolverInputError(
                    f"the bias directive {head[0]}/{head[1]} is not "
                    f"supported ({UNSUPPORTED[head]})",
                    file=file,
                    line=line,
                )
        directives = [h for h in heads if h in _DIRECTIVES]
        if directives and len(directives) != len(heads):
            names = ", ".join(f"{n}/{a}" for n, a in heads if (n, a) not in _DIRECTIVES)
            raise SolverInputError(
                f"a rule whose head mixes bias directives with other atoms "
                f"({names}) is not supported: {stmt}",
                file=file,
                line=line,
            )
        grounded.append(stmt)
        if not directives:
            user.append(str(stmt))
    from solvers.asp import AspControl

    asp = AspControl(["--warn=none"], message_limit=5)
    ctl = asp.control
    try:
        with ast.ProgramBuilder(ctl) as builder:
            for stmt in grounded:
                builder.add(stmt)
            for name, arity in GENERATOR_VOCABULARY:
                for decl in _parse_statements(f"#defined {name}/{arity}.", "<vocabulary>"):
                    builder.add(decl)
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        first = asp.messages[0][1] if asp.messages else str(exc)
        pos = _CLINGO_POS.match(first)
        detail = pos.group(3).strip() if pos else first
        raise SolverInputError(
            f"clingo cannot ground the bias: {detail}",
            file=file,
            line=int(pos.group(1)) if pos else None,
        ) from exc
    facts: list[tuple[int, str, tuple]] = []
    lines = _fact_lines(statements)
    atoms = sorted((sa.symbol for sa in ctl.symbolic_atoms), key=str)
    for sym in atoms:
        if sym.type.name != "Function" or not sym.name:
            continue
        signature = (sym.name, len(sym.arguments))
        line = lines.get(str(sym), lines.get(sym.name, 0))
        if signature in UNSUPPORTED:
            raise SolverInputError(
                f"the bias directive {sym.name}/{len(sym.arguments)} is not "
                f"supported ({UNSUPPORTED[signature]})",
                file=file,
                line=line or None,
            )
        if sym.name in _SIGNATURES and signature not in _DIRECTIVES:
            raise SolverInputError(
                f"bias directive {sym.name}/{len(sym.arguments)} has the "
                f"wrong arity (expected {sym.name}/{_SIGNATURES[sym.name]})",
                file=file,
                line=line,
            )
        if signature not in _DIRECTIVES:
            continue
        args = tuple(_symbol_value(a, file, line) for a in sym.arguments)
        facts.append((line, sym.name, args))
    facts.sort(key=lambda f: (f[0], f[1], repr(f[2])))
    bias = _build(facts, file)
    return replace(bias, user_asp="\n".join(user), allow_singletons=True)


def _parse_statements(text: str, file: str) -> list[Any]:
    from clingo import ast

    messages: list[str] = []
    statements: list[Any] = []
    try:
        ast.parse_string(
            text, statements.append, logger=lambda _code, msg: messages.append(msg), message_limit=5
        )
    except RuntimeError as exc:
        first = messages[0].strip() if messages else str(exc)
        pos = _CLINGO_POS.match(first)
        detail = pos.group(3).strip() if pos else first
        raise SolverInputError(
            detail,
            file=file,
            line=int(pos.group(1)) if pos else None,
            column=int(pos.group(2)) if pos else None,
        ) from exc
    return statements


def _head_signature(stmt: Any) -> tuple[str, int] | None:
    """``(name, arity)`` of a rule's plain head atom (None for constraints, choices, ...)."""
    from clingo import ast

    head = stmt.head
    if head.ast_type != ast.ASTType.Literal or head.sign != ast.Sign.NoSign:
        return None
    return _atom_signature(head.atom)


def _atom_signature(atom: Any) -> tuple[str, int] | None:
    from clingo import ast

    if atom.ast_type != ast.ASTType.SymbolicAtom:
        return None
    term = atom.symbol
    if term.ast_type == ast.ASTType.Function:
        return (term.name, len(term.arguments))
    if term.ast_type == ast.ASTType.SymbolicTerm:
        sym = term.symbol
        return (sym.name, len(sym.arguments)) if sym.type.name == "Function" else None
    return None


def _head_signatures(stmt: Any) -> list[tuple[str, int]]:
    """The signatures of the atoms a rule's head may derive: its plain atom, or the atoms
    of a choice (``{ a; b(1) }``) or a disjunction (``a ; b``); none for a constraint."""
    from clingo import ast

    found: list[tuple[str, int]] = []

    class Heads(ast.Transformer):
        def visit_ConditionalLiteral(self, lit: Any) -> Any:
            self(lit.literal)
            return lit

        def visit_Literal(self, lit: Any) -> Any:
            if lit.sign == ast.Sign.NoSign:
                sig = _atom_signature(lit.atom)
                if sig is not None:
                    found.append(sig)
            return lit

        def visit_BodyAggregateElement(self, elem: Any) -> Any:
            return elem

        def visit_HeadAggregateElement(self, elem: Any) -> Any:
            self(elem.condition)
            return elem

    Heads()(stmt.head)
    return found


def _fact_lines(statements: list[Any]) -> dict[str, int]:
    """Lines for error messages: each fact's text -> its line, each head name -> the first
    line defining it (for atoms derived by rules)."""
    lines: dict[str, int] = {}
    for stmt in statements:
        if stmt.ast_type.name == "Rule":
            for name, _arity in _head_signatures(stmt):
                lines.setdefault(name, stmt.location.begin.line)
            if _head_signature(stmt) is not None and not stmt.body:
                lines.setdefault(str(stmt.head), stmt.location.begin.line)
    return lines


def _symbol_value(sym: Any, file: str, line: int) -> Any:
    """A clingo Symbol as Python: constants -> str, numbers -> int, tuples -> tuple."""
    import clingo

    if sym.type == clingo.SymbolType.Number:
        return sym.number
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.type == clingo.SymbolType.Function:
        if sym.name == "":
            return tuple(_symbol_value(a, file, line) for a in sym.arguments)
        if not sym.arguments:
            return sym.name
        return (sym.name, tuple(_symbol_value(a, file, line) for a in sym.arguments))
    raise SolverInputError(f"unsupported term {sym} in a bias directive", file=file, line=line)


def read_bias(path: Path | str) -> IlpBias:
    """Read and parse a ``bias.pl`` file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SolverInputError(f"cannot read bias file: {exc}", file=str(path)) from exc
    return parse_bias(text, file=str(path))


# Statements (clingo AST kinds) read as nothing: comments, and #show (which would only change
# what the generator's models show)
_IGNORED = frozenset({"Comment", "ShowSignature", "ShowTerm"})
# Statements refused, by AST kind: what they are, for the error message
_STATEMENTS = {
    "Minimize": "#minimize / weak constraints (the generator does not optimise)",
    "Heuristic": "#heuristic (the generator uses clingo's default heuristic)",
    "External": "#external",
    "ProjectAtom": "#project",
    "ProjectSignature": "#project",
    "Edge": "#edge",
    "Script": "#script (a bias file runs no code)",
    "TheoryDefinition": "#theory",
    "ShowTermTheory": "#show",
}
_SIGNATURES = {
    "head_pred": 2,
    "body_pred": 2,
    "type": 2,
    "direction": 2,
    "max_vars": 1,
    "max_body": 1,
    "max_clauses": 1,
    "mode": 1,
    "allow_singletons": 0,
    "non_datalog": 0,
    "required_pred": 1,
    "enable_recursion": 0,
    "enable_pi": 0,
    "custom_max_size": 1,
}
_DIRECTIVES = frozenset(_SIGNATURES.items())
# Popper directives (of this or later Popper versions) whose meaning we do not implement.
UNSUPPORTED = {
    ("magic_value_type", 1): "magic values (constants learned in clauses)",
    ("numerical_pred", 2): "numerical reasoning",
    ("bounds", 3): "numerical bounds",
    ("max_ho", 1): "higher-order definitions",
}
# The generator's vocabulary a bias file may refer to (asp/ilp_generate.lp defines it).
GENERATOR_VOCABULARY = (
    ("clause", 1),
    ("head_literal", 4),
    ("body_literal", 4),
    ("head_var", 2),
    ("body_var", 2),
    ("clause_var", 2),
    ("var_type", 3),
    ("var_member", 2),
    ("var_pos", 3),
    ("vars", 2),
    ("var", 1),
    ("body_size", 2),
    ("recursive_clause", 3),
    ("base_clause", 3),
    ("recursive", 0),
    ("pi", 0),
    ("invented", 2),
    ("var_in_literal", 4),
    ("num_clauses", 2),
    ("head_vars", 2),
)


def _build(facts: list[tuple[int, str, tuple]], file: str) -> IlpBias:
    heads: list[tuple[str, int]] = []
    bodies: list[tuple[str, int]] = []
    required: list[str] = []
    settings: dict[str, Any] = {}
    types: dict[str, tuple[str, ...]] = {}
    directions: dict[str, tuple[str, ...]] = {}
    lines: dict[str, int] = {}
    for line, name, args in facts:

        def fail(message: str, line: int = line) -> SolverInputError:
            return SolverInputError(message, file=file, line=line)

        if _SIGNATURES.get(name) != len(args):
            known = ", ".join(f"{k}/{v}" for k, v in sorted(_SIGNATURES.items()))
            raise fail(f"bias directive {name}/{len(args)} has the wrong arity (known: {known})")
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
        elif name in ("max_vars", "max_body", "max_clauses", "mode", "custom_max_size"):
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
    if "max_clauses" not in settings:
        # Popper's defaults: 2 clauses with recursion or invention; without them, any number
        # of clauses combined ("do not supply max_clauses if you are learning non-recursive
        # programs")
        multi = settings.get("enable_recursion") or settings.get("enable_pi")
        settings["max_clauses"] = 2 if multi else UNBOUNDED_CLAUSES
    if "custom_max_size" in settings:
        settings["max_size"] = settings.pop("custom_max_size")
    if len(set(heads)) != 1:
        found = ", ".join(f"{p}/{a}" for p, a in sorted(set(heads))) or "none"
        raise SolverInputError(f"exactly one head_pred is required (found: {found})", file=file)
    arities = dict(bodies)
    arities[heads[0][0]] = heads[0][1]
    for table in (types, directions):
        # Popper reads types and directions of declared predicates only: the others mean
        # nothing (a bias file may keep them for predicates it comments out)
        for pred in [p for p in table if p not in arities]:
            del table[pred]
    for table, label in ((types, "type"), (directions, "direction")):
        for pred, values in table.items():
            line = lines[f"{label}:{pred}"]
            if len(values) != arities[pred]:
                raise SolverInputError(
                    f"{label}({pred}, ...) has {len(values)} entries; "
                    f"{pred} has arity {arities[pred]}",
                    file=file,
                    line=line,
                )
            if label == "direction" and any(v not in ("in", "out") for v in values):
                raise SolverInputError(
                    f"direction of {pred} must use in/out, got {values}", file=file, line=line
                )
    for pred in required:
        if pred not in {p for p, _ in bodies}:
            raise SolverInputError(
                f"required predicate {pred!r} is not a body_pred",
                file=file,
                line=lines[f"required_pred:{pred}"],
            )
    if settings.get("max_vars", DEFAULT_MAX_VARS) < heads[0][1]:
        raise SolverInputError(
            f"max_vars is smaller than the head arity {heads[0][1]}",
            file=file,
            line=lines.get("max_vars"),
        )
    try:
        return IlpBias(
            head_pred=heads[0],
            body_preds=tuple(bodies),
            types=types,
            directions=directions,
            required_preds=tuple(required),
            **settings,
        )
    except SolverInputError as exc:
        raise SolverInputError(exc.message, file=file) from exc
