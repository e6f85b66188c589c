"""The checks that establish a deduction task's label, each independently:

* :func:`asp_label` -- countermodel search with clingo (``asp/deduction.lp``), complete for the
  fragment: the formulas enter as facts describing their structure; with
  ``existential_import=True`` under the reading where every universal formula's subject is
  non-empty (the track's convention is the other reading; a task must not depend on it);
* :func:`redundant_premises`, :func:`import_agrees` -- the balanced construction's
  minimality and existential-import checks, built on :func:`asp_label`;
* :func:`prover9_label` -- Prover9 on the statement and on its negation
  (:func:`solvers.prover9.entails`);
* :func:`double_check` -- both, raising :class:`VerificationError` when they disagree;
* :func:`check_trees` -- the stored proof trees against ``prolog/deduction.pl``, in a fresh
  Prolog module per call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from scir.errors import SolverError, VerificationError
from scir.tracks.deduction import predicates as preds
from scir.tracks.deduction.logic import (
    Formula,
    Node,
    fragment,
    negation_table,
    negative_kinds,
    prolog_engine,
)

PROVER9_MEGS = 200  # Prover9's max_megs for every label


@dataclass(frozen=True)
class AspVerdict:
    """The ASP answer: ``label`` (None when the premises are unsatisfiable) and one model of
    the premises with the statement (``affirm``) and with its negation (``deny``), each a
    sorted list of (predicate, element) pairs, or None when there is none."""

    label: str | None
    affirm: list[tuple[str, str]] | None
    deny: list[tuple[str, str]] | None
    seconds: float


def _facts(premises: Sequence[Formula], statement: Formula) -> list[preds.FormulaFact]:
    rows = []
    for number, formula in enumerate([statement, *premises]):
        a = formula.args
        rows.append(preds.FormulaFact(number, formula.kind, a[0], a[1] if len(a) > 1 else 0))
    return rows


def _model(
    premises: Sequence[Formula],
    statement: Formula,
    mode: str,
    time_limit: float,
    existential_import: bool = False,
) -> list[tuple[str, str]] | None:
    from solvers.asp import AspProgram

    program = AspProgram().load("deduction")
    program.add_records(_facts(premises, statement))
    program.add_records(preds.Premise(n) for n in range(1, len(premises) + 1))
    program.add_records([preds.Statement(0), preds.Mode(mode)])
    if existential_import:
        program.add_records([preds.Reading("import")])
    models = program.models(limit=1, time_limit=time_limit)
    if not models:
        return None
    return sorted((h.pred, str(h.element)) for h in models[0].records(preds.Holds))


def asp_label(
    premises: Sequence[Formula],
    statement: Formula,
    time_limit: float = 10.0,
    existential_import: bool = False,
) -> AspVerdict:
    """True iff premises + not statement has no model; False iff premises + statement has
    none; Unknown iff both have one; label None when neither has (unsatisfiable premises).

    ``existential_import`` reads every universal formula (premises, statement or its
    negation) as saying that its subject is non-empty (``reading(import)`` of the program).
    """
    start = time.perf_counter()
    affirm = _model(premises, statement, "affirm", time_limit, existential_import)
    deny = _model(premises, statement, "deny", time_limit, existential_import)
    if affirm is None and deny is None:
        label = None
    elif deny is None:
        label = "True"
    elif affirm is None:
        label = "False"
    else:
        label = "Unknown"
    return AspVerdict(label, affirm, deny, time.perf_counter() - start)


def redundant_premises(
    premises: Sequence[Formula], statement: Formula, candidates: Sequence[Formula]
) -> list[Formula]:
    """The ``candidates`` (premises of a proof) that are not necessary: removing one from
    ``premises`` leaves the statement's ASP label True or False (instead of Unknown).
    Empty for a minimal proof."""
    redundant = []
    for candidate in candidates:
        rest = [p for p in premises if p != candidate]
        if asp_label(rest, statement).label != "Unknown":
            redundant.append(candidate)
    return redundant


def import_agrees(
    premises: Sequence[Formula], statement: Formula, label: str | None = None
) -> bool:
    """Whether the ASP label is the same with and without existential import (``label``:
    the label without import, when already known)."""
    if label is None:
        label = asp_label(premises, statement).label
    return asp_label(premises, statement, existential_import=True).label == label


def _import_of(formula: Formula) -> Formula | None:
    """The existence a universal formula carries under existential import (its subject has
    an element, as ``reading(import)`` of ``asp/deduction.lp`` states for the forms of its
    ``universal/1``, read through :func:`fragment`), else None."""
    if formula.kind not in fragment().universal:
        return None
    return Formula("exists", (formula.args[0],))


def _with_import(formula: Formula) -> str:
    """``formula`` asserted under existential import, as Prover9 text."""
    existence = _import_of(formula)
    text = formula.to_prover9()
    return f"(({text}) & ({existence.to_prover9()}))" if existence else text


def prover9_import_label(
    premises: Sequence[Formula], statement: Formula, max_seconds: int = 10
) -> str | None:
    """Prover9's label under existential import, the second check of ``reading(import)``:
    every asserted universal formula's subject has an element. True iff the premises (with
    their existence) and the negated statement (with its existence) are inconsistent, i.e.
    Prover9 proves ``-(negation & existence)``; False likewise for the statement; None when
    both are proved (the premises with import are inconsistent). Limits raise."""
    from solvers.prover9 import proves

    base = [p.to_prover9() for p in premises]
    base += [e.to_prover9() for e in map(_import_of, premises) if e is not None]
    negation = statement.negated()
    proved = proves(base, f"-({_with_import(negation)})", max_seconds, PROVER9_MEGS)
    refuted = proves(
        base, f"-({_with_import(statement)})", max_seconds, PROVER9_MEGS, what="negated goal"
    )
    if proved and refuted:
        return None
    return "True" if proved else "False" if refuted else "Unknown"


def prover9_entails(premises: Sequence[str], goal: str, max_seconds: int = 10) -> str:
    """Prover9's label for Prover9 strings (:func:`solvers.prover9.entails`: only exit 0
    counts as proved and only exit 2 as not proved; a limit raises)."""
    from solvers.prover9 import entails

    return entails(premises, goal, max_seconds=max_seconds, max_megs=PROVER9_MEGS)


def prover9_label(premises: Sequence[Formula], statement: Formula, max_seconds: int = 10) -> str:
    """Prover9 on the statement and on its negation (:func:`prover9_entails`).

    Raises SolverTimeout / SolverResourceLimit on a limit, SolverError when Prover9 proves
    both (inconsistent premises).
    """
    return prover9_entails([p.to_prover9() for p in premises], statement.to_prover9(), max_seconds)


@dataclass(frozen=True)
class Verdict:
    """A label established by both checks, with the time each took."""

    label: str | None
    asp: AspVerdict
    prover9: str | None
    prover9_seconds: float


def double_check(
    premises: Sequence[Formula],
    statement: Formula,
    max_seconds: int = 10,
    task_id: str | None = None,
    asp: AspVerdict | None = None,
) -> Verdict:
    """The label by ASP (``asp`` when already computed) and by Prover9; VerificationError
    when they disagree.

    Unsatisfiable premises give label None, when Prover9 agrees (it proves the statement and
    its negation). Prover9 limits propagate as SolverTimeout / SolverResourceLimit.
    """
    if asp is None:
        asp = asp_label(premises, statement)
    start = time.perf_counter()
    try:
        found: str | None = prover9_label(premises, statement, max_seconds)
    except SolverError as exc:
        if type(exc) is not SolverError:  # limits and input errors keep their type
            raise
        found = None  # Prover9 proves both: inconsistent premises
        if asp.label is not None:
            raise VerificationError(
                f"ASP finds the premises satisfiable, Prover9 does not: {exc.message}",
                task_id=task_id,
            ) from exc
    seconds = time.perf_counter() - start
    if found != asp.label:
        raise VerificationError(
            f"the solvers disagree: ASP says {asp.label or 'unsatisfiable'}, Prover9 says {found}",
            task_id=task_id,
        )
    return Verdict(asp.label, asp, found, seconds)


# ---------------------------------------------------------------- proof trees (Prolog)


@dataclass(frozen=True)
class TreeCheck:
    """One proof tree checked in Prolog: ``ok`` when every step is an instance of its rule,
    every stated leaf is a premise and every missing leaf is not; ``missing`` lists the
    missing leaves; ``error`` says what is wrong otherwise."""

    ok: bool
    missing: list[Formula] = field(default_factory=list)
    error: str = ""


def _formula(term) -> Formula:
    return Formula(term.name, tuple(str(a) for a in term.args))


def _describe(term) -> str:
    name = getattr(term, "name", None)
    if name == "bad_step":
        f, rule, fs = term.args
        return f"{_formula(f).to_prover9()} does not follow by {rule} from " + "; ".join(
            _formula(x).to_prover9() for x in fs
        )
    if name == "not_stated":
        return f"leaf {_formula(term.args[0]).to_prover9()} is not among the premises"
    if name == "stated_missing":
        return f"missing leaf {_formula(term.args[0]).to_prover9()} is among the premises"
    return "the tree is malformed"


def check_trees(trees: Sequence[Node], premises: Sequence[Formula]) -> list[TreeCheck]:
    """Check each tree against the premises with ``check_trees/3`` of ``prolog/deduction.pl``
    (one query in a fresh module; the trees and premises are passed as bindings)."""
    with prolog_engine().module("scir_deduction_") as module:
        module.consult("deduction")
        answer = module.query_once(
            "check_trees(Ts, Ps, Rs)",
            {"Ts": [t.to_term() for t in trees], "Ps": [p.to_term() for p in premises]},
        )
    if answer is None:
        raise SolverError("check_trees/3 failed on the proof trees")
    results = []
    for result in answer["Rs"]:
        if result.name == "ok":
            results.append(TreeCheck(True, [_formula(t) for t in result.args[0]]))
        else:
            results.append(TreeCheck(False, error=_describe(result.args[0])))
    return results


def _negation_term(formula: Formula) -> object:
    return formula.negated().to_term() if formula.kind in negation_table() else "none"


def shape_problems(
    construction: str,
    label: str,
    statement: Formula,
    trees: Sequence[Node],
    premises: Sequence[Formula],
    decoys: Sequence[Node] = (),
) -> list[str]:
    """What is wrong with the shape of a task's trees ``[proof, *distractors]`` (and the
    balanced construction's ``decoys``, one per tree) for its label and construction
    (``paper`` or ``balanced``): ``shape_error/9`` of ``prolog/deduction.pl`` (the one
    statement of the shapes), in words, in its order."""

    paper = construction == "paper"
    with prolog_engine().module("scir_deduction_") as module:
        module.consult("deduction")
        module.add_records(
            [preds.NegativeForm(k) for k in sorted(negative_kinds())], preds.NegativeForm
        )
        rows = module.query(
            "shape_error(C, L, S, N, Ts, Ds, RN, Ps, E)",
            {
                "C": "paper" if paper else "balanced",
                "L": label,
                "S": statement.to_term(),
                "N": _negation_term(statement),
                "Ts": [t.to_term() for t in trees],
                "Ds": [d.to_term() for d in decoys],
                "RN": _negation_term(trees[0].formula),
                "Ps": [p.to_term() for p in premises],
            },
        )
    problems = []
    for row in rows:
        error = row["E"]
        name = getattr(error, "name", error)
        if name == "proof":
            wanted = error.args[1]
            what = _formula(wanted).to_prover9() if hasattr(wanted, "name") else "the statement"
            problems.append(f"proof: a {label} task needs a complete proof of {what}")
        elif name == "unknown_proof":
            problems.append(
                "proof: an Unknown task needs a proof of the statement or its "
                "negation with exactly one premise "
                + ("missing" if paper else "replaced by its converse")
            )
        elif name == "distractor":
            problems.append(
                f"distractor {error.args[0]}: "
                + (
                    "needs the proof's conclusion and exactly one missing premise"
                    if paper
                    else "needs the proof's conclusion or its negation and "
                    + (
                        "one premise replaced by its converse"
                        if decoys
                        else "one or two premises replaced by their converses"
                    )
                )
            )
        elif name == "half_negated":
            problems.append("trees: half of them must conclude the negation of the others")
        elif name == "converse_count":
            problems.append(
                "trees: there must be as many converse premises as trees"
                + (" (decoys included)" if decoys else "")
            )
        elif name == "decoy_count":
            problems.append("decoys: there must be one decoy per tree")
        elif name == "decoy":
            which = error.args[0]
            problems.append(
                f"decoy {which}: needs the shape of a subtree of its tree "
                f"(or, before balanced 4.0, a conclusion of the other polarity "
                f"than its tree's), a conclusion about one term of that tree "
                f"(not of its conclusion) and one term of no tree, and "
                + (
                    "one converse premise"
                    if which == 1 and label != "Unknown"
                    else "no converse premise"
                )
                + " (none deleted)"
            )
        else:
            raise SolverError(f"shape_error/8 gave an unknown error {error!r}")
    return problems


def proof_steps(tree: Node) -> list[tuple[Formula, str, list[Formula]]]:
    """The derivations of ``tree`` in reading order, as Prolog's ``tree_steps/2`` gives them."""
    with prolog_engine().module("scir_deduction_") as module:
        module.consult("deduction")
        answer = module.query_once("tree_steps(T, Steps)", {"T": tree.to_term()})
    if answer is None:
        raise SolverError("tree_steps/2 failed on a proof tree")
    return [
        (_formula(s.args[0]), str(s.args[1]), [_formula(f) for f in s.args[2]])
        for s in answer["Steps"]
    ]
