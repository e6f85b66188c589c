"""Formulas of the deduction fragment, the syllogism catalogue and proof trees.

The fragment is monadic first-order logic without equality, in seven forms (``S``, ``P``
predicates, ``c`` a constant), with no existential import:

    all(S, P)       all x (S(x) -> P(x))        "Every S is a P."
    no(S, P)        all x (S(x) -> -P(x))       "No S is a P."
    some(S, P)      exists x (S(x) & P(x))      "Some Ss are Ps."
    some_not(S, P)  exists x (S(x) & -P(x))     "Some Ss are not Ps."
    fact(P, c)      P(c)                        "c is a P."
    neg_fact(P, c)  -P(c)                       "c is not a P."
    exists(P)       exists x P(x)               "There is at least one P."

The negation of every form except ``exists`` is again a form (``all`` <-> ``some_not``,
``no`` <-> ``some``, ``fact`` <-> ``neg_fact``), so goals and negated goals stay in the fragment.

:func:`catalogue` (also ``RULES``) is the syllogism catalogue the generator instantiates, read
from ``prolog/deduction.pl`` (the proof semantics); the forms and their argument sorts
(:func:`kinds`, also ``KINDS``), :func:`negation_table` and the universal forms are read from
``asp/deduction.lp`` (:func:`fragment`). None is restated here (tests check every rule valid
and minimal with ASP and Prover9, and every negation with Prover9).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scir.errors import ResourceError, TaskFormatError
from scir.tracks.deduction import predicates as preds


@dataclass(frozen=True)
class Fragment:
    """The fragment's forms as ``asp/deduction.lp`` states them (the one definition)."""

    kinds: dict[str, tuple[str, ...]]  # kind -> argument sorts (p: predicate, c: constant)
    negation: dict[str, str]  # kind -> the kind of its negation, within the fragment
    universal: frozenset[str]  # kinds that carry their subject under import
    negative: frozenset[str] = frozenset()  # kinds that deny (``negative/1``)


@lru_cache(maxsize=1)
def fragment() -> Fragment:
    """The forms (``form/4``, in its order), the negation table (``negation/2``) and the
    universal forms (``universal/1``), read from the answer set of ``asp/deduction.lp``
    without input (one clingo call per process; the countermodel search uses the same
    facts). The negation table is restricted to the fragment (``exists`` has no negation among
    the seven forms; ``nothing`` is the ASP's)."""
    from solvers.asp import AspProgram

    models = AspProgram().load("deduction").models(limit=2, time_limit=10.0)
    if len(models) != 1:
        raise ResourceError(
            f"asp/deduction.lp without input has {len(models)} answer sets, expected 1"
        )
    model = models[0]
    forms = sorted(model.records(preds.Form), key=lambda f: f.index)
    kinds = {f.kind: tuple(s for s in (f.sort1, f.sort2) if s != "none") for f in forms}
    if len(kinds) != len(forms) or not kinds:
        raise ResourceError("asp/deduction.lp: form/4 must list each form once")
    table = {n.kind: n.negation for n in model.records(preds.Negation)}
    return Fragment(
        kinds,
        {k: n for k, n in table.items() if k in kinds and n in kinds},
        frozenset(u.kind for u in model.records(preds.Universal)),
        frozenset(n.kind for n in model.records(preds.Negative)),
    )


def kinds() -> dict[str, tuple[str, ...]]:
    """Kind -> argument sorts (``p`` predicate, ``c`` constant), in the track's order:
    ``form/4`` of ``asp/deduction.lp`` (:func:`fragment`)."""
    return fragment().kinds


def goal_kinds() -> tuple[str, ...]:
    """The forms a statement can take: those whose negation is in the fragment (all but
    ``exists``), in the order of :func:`kinds`."""
    negation = fragment().negation
    return tuple(k for k in kinds() if k in negation)


_ENGINE = None


def prolog_engine():
    """The process's Prolog engine (created on first use; the checks and the form catalogue
    share it)."""
    global _ENGINE
    if _ENGINE is None:
        from solvers.prolog import Engine

        _ENGINE = Engine()
    return _ENGINE


def negative_kinds() -> frozenset[str]:
    """The forms that deny (``no``, ``some_not``, ``neg_fact``): ``negative/1`` of
    ``asp/deduction.lp`` (:func:`fragment`)."""
    return fragment().negative


def negation_table() -> dict[str, str]:
    """Kind -> the kind of its negation, read from ``negation/2`` of ``asp/deduction.lp`` (the
    one definition: the countermodel search denies a statement with it), restricted to the
    fragment (:func:`fragment`)."""
    return fragment().negation


@dataclass(frozen=True, order=True)
class Formula:
    """One formula of the fragment: ``kind`` and its arguments (see the module doc)."""

    kind: str
    args: tuple[str, ...]

    def __post_init__(self) -> None:
        sorts = kinds().get(self.kind)
        if sorts is None or len(sorts) != len(self.args):
            raise ValueError(f"not a formula of the fragment: {self.kind}{self.args}")

    @property
    def predicates(self) -> tuple[str, ...]:
        """The predicate names, in argument order."""
        return tuple(a for a, s in zip(self.args, kinds()[self.kind]) if s == "p")

    @property
    def constants(self) -> tuple[str, ...]:
        """The constant names (one for ``fact``/``neg_fact``, none otherwise)."""
        return tuple(a for a, s in zip(self.args, kinds()[self.kind]) if s == "c")

    def negated(self) -> Formula:
        """The negation, itself a form of the fragment (not defined for ``exists``), by the
        table of ``asp/deduction.lp`` (:func:`negation_table`)."""
        table = negation_table()
        if self.kind not in table:
            raise ValueError(f"the negation of {self.kind} is not in the fragment")
        return Formula(table[self.kind], self.args)

    def to_prover9(self) -> str:
        """Prover9 text, in the canonical form ``solvers.fol.to_prover9`` prints."""
        a = self.args
        return {
            "all": lambda: f"all x ({a[0]}(x) -> {a[1]}(x))",
            "no": lambda: f"all x ({a[0]}(x) -> -{a[1]}(x))",
            "some": lambda: f"exists x ({a[0]}(x) & {a[1]}(x))",
            "some_not": lambda: f"exists x ({a[0]}(x) & -{a[1]}(x))",
            "fact": lambda: f"{a[0]}({a[1]})",
            "neg_fact": lambda: f"-{a[0]}({a[1]})",
            "exists": lambda: f"exists x {a[0]}(x)",
        }[self.kind]()

    def to_term(self):
        """The Prolog term of ``prolog/deduction.pl`` (``all(S, P)``, ``fact(P, C)``, ...)."""
        from solvers.prolog import Term

        return Term(self.kind, self.args)


def from_ast(f: Any) -> Formula | None:
    """The fragment formula of a ``solvers.fol`` AST, or None if it is not one of the forms."""
    from solvers.fol import And, Atom, Const, Exists, Forall, Implies, Not, Var

    def unary(g: Any, var: str | None) -> str | None:
        if (
            isinstance(g, Atom)
            and len(g.args) == 1
            and isinstance(g.args[0], Var)
            and g.args[0].name == var
        ):
            return g.pred
        return None

    if isinstance(f, Atom) and len(f.args) == 1 and isinstance(f.args[0], Const):
        return Formula("fact", (f.pred, f.args[0].name))
    if (
        isinstance(f, Not)
        and isinstance(f.body, Atom)
        and len(f.body.args) == 1
        and isinstance(f.body.args[0], Const)
    ):
        return Formula("neg_fact", (f.body.pred, f.body.args[0].name))
    if isinstance(f, Forall) and isinstance(f.body, Implies):
        s = unary(f.body.left, f.var)
        right = f.body.right
        negative = isinstance(right, Not)
        p = unary(right.body if isinstance(right, Not) else right, f.var)
        if s and p:
            return Formula("no" if negative else "all", (s, p))
    if isinstance(f, Exists):
        single = unary(f.body, f.var)
        if single:
            return Formula("exists", (single,))
        if isinstance(f.body, And):
            s = unary(f.body.left, f.var)
            right = f.body.right
            negative = isinstance(right, Not)
            p = unary(right.body if isinstance(right, Not) else right, f.var)
            if s and p:
                return Formula("some_not" if negative else "some", (s, p))
    return None


@lru_cache(maxsize=1 << 16)
def _parsed(text: str) -> Formula | None:
    """The fragment formula of ``text`` or None (SolverInputError when it does not parse);
    cached, as a task repeats its premises in its proof trees."""
    from solvers.fol import parse_formula

    return from_ast(parse_formula(text))


def parse(text: str, *, task_id: str | None = None, field: str | None = None) -> Formula:
    """Parse Prover9 text (with ``solvers.fol``) into a fragment formula.

    Raises TaskFormatError when the text does not parse or is not one of the seven forms.
    """
    from solvers.errors import SolverInputError

    try:
        formula = _parsed(text)
    except SolverInputError as exc:
        raise TaskFormatError(
            f"formula {text!r} does not parse: {exc.message}", task_id=task_id, field=field
        ) from exc
    if formula is None:
        raise TaskFormatError(
            f"formula {text!r} is not one of the deduction forms", task_id=task_id, field=field
        )
    return formula


# ---------------------------------------------------------------- syllogisms

# Roles in rule schemas: S, P (predicates of the conclusion), C (its constant), M (a fresh
# predicate), D (a fresh constant). ("existence", X) is the existence premise on predicate X:
# either exists(X) or fact(X, D) with D fresh -- the explicit premise that makes a mood which
# classically needs existential import valid without it.
EXISTENCE = "existence"


@dataclass(frozen=True)
class Rule:
    """One syllogism: ``premises`` (schemas over roles) derive ``conclusion``."""

    name: str
    conclusion: tuple[str, ...]
    premises: tuple[tuple[str, ...], ...]


def _schema(term: Any) -> tuple[str, ...]:
    return (str(term.name), *(str(a).upper() for a in term.args))


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Rule]:
    """The syllogism catalogue, read from ``rule_schema/3`` of ``prolog/deduction.pl`` (the one
    definition: the proof semantics that checks the trees is the catalogue the generator
    instantiates), in clause order, roles in upper case. The forms' argument sorts it names
    the roles by are ASP's (:func:`kinds`), passed as ``form/3`` facts."""

    forms = [
        preds.FormSorts(k, *sorts, *["none"] * (2 - len(sorts))) for k, sorts in kinds().items()
    ]
    with prolog_engine().module("scir_deduction_") as module:
        module.consult("deduction")
        module.add_records(forms, preds.FormSorts)
        rows = module.query("rule_schema(N, C, Ps)")
    rules = {
        str(row["N"]): Rule(str(row["N"]), _schema(row["C"]), tuple(_schema(p) for p in row["Ps"]))
        for row in rows
    }
    if len(rules) != len(rows) or not rules:
        raise ResourceError("prolog/deduction.pl: rule_schema/3 must give one schema per rule")
    return rules


def __getattr__(name: str) -> Any:
    """``RULES``: the catalogue (:func:`catalogue`), read from Prolog on first use;
    ``KINDS`` and ``GOAL_KINDS``: :func:`kinds` and :func:`goal_kinds`, read from ASP."""
    if name == "RULES":
        return catalogue()
    if name == "KINDS":
        return kinds()
    if name == "GOAL_KINDS":
        return goal_kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rules_for(kind: str) -> list[Rule]:
    """The rules concluding a formula of ``kind``, in catalogue order."""
    return [r for r in catalogue().values() if r.conclusion[0] == kind]


def instantiate(
    rule: Rule, conclusion: Formula, fresh_predicate, fresh_constant, existence: str
) -> list[Formula]:
    """The premises of ``rule`` for ``conclusion``, drawing fresh names on demand.

    ``existence`` is ``"exists"`` or ``"fact"``: how an existence premise is stated.
    """
    if rule.conclusion[0] != conclusion.kind:
        raise ValueError(f"rule {rule.name} does not conclude a {conclusion.kind} formula")
    roles = dict(zip(rule.conclusion[1:], conclusion.args))
    premises = []
    for schema in rule.premises:
        for role in schema[1:]:
            if role not in roles:
                roles[role] = fresh_predicate() if role == "M" else fresh_constant()
        if schema[0] == EXISTENCE:
            if existence == "exists":
                premises.append(Formula("exists", (roles[schema[1]],)))
            else:
                premises.append(Formula("fact", (roles[schema[1]], fresh_constant())))
        else:
            premises.append(Formula(schema[0], tuple(roles[r] for r in schema[1:])))
    return premises


# ---------------------------------------------------------------- proof trees

PREMISE, MISSING, REPLACED = "premise", "missing", "replaced"
# The forms whose converse (predicates swapped) is not equivalent to them: ``no`` and ``some``
# are symmetric (Prover9 checks both claims in the tests). The leaves the balanced
# construction can break.
CONVERSE_KINDS = ("all", "some_not")


def converse(formula: Formula) -> Formula:
    """``formula`` with its two predicates swapped (same form, same terms): the premise that
    replaces a leaf of a broken tree in the balanced construction. Only the
    :data:`CONVERSE_KINDS` have a converse that is not equivalent to them, so only these are
    used."""
    if formula.kind not in CONVERSE_KINDS:
        raise ValueError(f"no non-equivalent converse of a {formula.kind} formula")
    return Formula(formula.kind, (formula.args[1], formula.args[0]))


@dataclass
class Node:
    """A proof-tree node: a derived ``formula`` (``rule`` and ``children``) or a leaf
    (``rule`` None) that is stated, ``missing`` (deleted from the premises) or ``missing``
    and ``replaced_by`` another formula (its converse is stated instead: balanced
    construction)."""

    formula: Formula
    rule: str | None = None
    children: list[Node] = field(default_factory=list)
    missing: bool = False
    replaced_by: Formula | None = None

    @property
    def stated(self) -> Formula | None:
        """The premise a leaf contributes: its formula, its replacement, or None."""
        if not self.missing:
            return self.formula
        return self.replaced_by

    def leaves(self) -> Iterator[Node]:
        """The leaves, left to right."""
        if self.rule is None:
            yield self
        else:
            for child in self.children:
                yield from child.leaves()

    def formulas(self) -> Iterator[Formula]:
        """Every formula in the tree (root first)."""
        yield self.formula
        for child in self.children:
            yield from child.formulas()

    def to_json(self) -> dict[str, Any]:
        """``{"conclusion": prover9, "rule": name | "premise" | "missing", "premises": [...]}``;
        a replaced leaf is ``{"conclusion": ..., "rule": "replaced", "by": prover9}``."""
        if self.rule is None:
            if self.replaced_by is not None:
                return {
                    "conclusion": self.formula.to_prover9(),
                    "rule": REPLACED,
                    "by": self.replaced_by.to_prover9(),
                }
            return {
                "conclusion": self.formula.to_prover9(),
                "rule": MISSING if self.missing else PREMISE,
            }
        return {
            "conclusion": self.formula.to_prover9(),
            "rule": self.rule,
            "premises": [c.to_json() for c in self.children],
        }

    @classmethod
    def from_json(
        cls, data: Any, *, task_id: str | None = None, field: str = "formal.proof"
    ) -> Node:
        """Read a tree written by :meth:`to_json` (raises TaskFormatError)."""
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("conclusion"), str)
            or not isinstance(data.get("rule"), str)
        ):
            raise TaskFormatError(
                "a proof node needs string fields conclusion and rule", task_id=task_id, field=field
            )
        formula = parse(data["conclusion"], task_id=task_id, field=field)
        rule = data["rule"]
        if rule in (PREMISE, MISSING):
            return cls(formula, None, [], rule == MISSING)
        if rule == REPLACED:
            if not isinstance(data.get("by"), str):
                raise TaskFormatError(
                    "a replaced leaf needs a string field by", task_id=task_id, field=field
                )
            return cls(formula, None, [], True, parse(data["by"], task_id=task_id, field=field))
        children = data.get("premises")
        if not isinstance(children, list) or not children:
            raise TaskFormatError(
                f"proof step {rule!r} needs a non-empty premises list", task_id=task_id, field=field
            )
        return cls(
            formula, rule, [cls.from_json(c, task_id=task_id, field=field) for c in children]
        )

    def to_term(self):
        """The Prolog term: ``node(F, Rule, Subtrees)``, ``premise(F)``, ``missing(F)`` or
        ``replaced(F, G)``."""
        from solvers.prolog import Term

        if self.rule is None and self.replaced_by is not None:
            return Term(REPLACED, (self.formula.to_term(), self.replaced_by.to_term()))
        if self.rule is None:
            return Term(MISSING if self.missing else PREMISE, (self.formula.to_term(),))
        return Term(
            "node", (self.formula.to_term(), self.rule, [c.to_term() for c in self.children])
        )
