"""The deduction block format of the LLM renderer's inverse call: Prover9 formulas, one per
line, over the task's signature -- the bounded grammar of
``solvers.fol_grammar.instantiate_grammar``; a recovered formula matches an original one when
Prover9 proves each from the other (identical canonical strings match without a call)."""

from __future__ import annotations

from typing import Any

from scir.errors import FormalizationError, SolverError
from scir.tasks import Task
from scir.text.inverse import equivalent
from scir.tracks.base import load_formal
from scir.tracks.deduction.formal import DeductionFormal


def _signature(task: Task) -> tuple[dict[str, int], list[str]]:
    """The task's unary predicates and its constants (from its typed formal object)."""
    formal: DeductionFormal = load_formal(DeductionFormal, task)
    return (
        {p: 1 for p in sorted(name for name, _ in formal.predicates or ())},
        sorted(formal.constants or ()),
    )


def description(task: Task) -> str:
    """The format as told to the inverse model: the forms, the predicates and constants."""
    lex = task.domain_metadata.get("lexicon") or {}
    preds = "; ".join(
        f"{p} = {v['plural']}" for p, v in sorted((lex.get("predicates") or {}).items())
    )
    consts = "; ".join(f"{c} = {n}" for c, n in sorted((lex.get("individuals") or {}).items()))
    return (
        "One Prover9 formula per line, each ending with '.', over these unary "
        f"predicates: {preds}"
        + (f"; and these constants: {consts}" if consts else "")
        + ". Use only the forms: all x (p(x) -> q(x)). all x (p(x) -> -q(x)). "
        "exists x (p(x) & q(x)). exists x (p(x) & -q(x)). p(c). -p(c). exists x p(x)."
    )


def grammar(task: Task, content: dict[str, Any]) -> str:
    """The bounded FOL grammar over the task's signature (a few formulas more than given)."""
    from solvers.fol import grammar_bounds, parse_formula
    from solvers.fol_grammar import instantiate_grammar

    preds, consts = _signature(task)
    depth, _ = grammar_bounds(parse_formula(p) for p in content["premises"])
    return instantiate_grammar(
        preds,
        consts,
        max_formulas=len(content["premises"]) + 2,
        max_depth=depth + 1,
        max_operands=2,
    )


def format_block(content: dict[str, Any]) -> str:
    """One premise per line, each ending with a full stop."""
    return "".join(f"{p}.\n" for p in content["premises"])


def parse(task: Task, text: str) -> dict[str, Any]:
    """``{"premises": [...]}`` in canonical Prover9 printing (FormalizationError outside the
    task's signature)."""
    from solvers.fol import parse_formulas
    from solvers.fol_ast import signature, to_prover9

    try:
        formulas = parse_formulas(text)
    except SolverError as exc:
        raise FormalizationError(
            f"not Prover9 formulas: {exc.message}",
            line=exc.line,
            column=exc.column,
            task_id=task.task_id,
        ) from exc
    preds, consts = signature(formulas)
    allowed, allowed_consts = _signature(task)
    unknown = sorted(set(preds) - set(allowed)) + sorted(set(consts) - set(allowed_consts))
    if unknown or any(a != 1 for a in preds.values()):
        raise FormalizationError(
            f"names outside the task's signature or wrong arity: {unknown or sorted(preds)}",
            task_id=task.task_id,
        )
    return {"premises": [to_prover9(f) for f in formulas]}


def match(original: dict[str, Any], recovered: dict[str, Any]) -> list[str]:
    """Premises matched one to one by proved equivalence; what is missing or extra."""
    remaining = list(original["premises"])
    extra = []
    candidates = list(recovered["premises"])
    for r in sorted(candidates, key=lambda x: x not in remaining):  # identical ones first
        hit = next((o for o in remaining if equivalent(o, r)), None)
        if hit is None:
            extra.append(r)
        else:
            remaining.remove(hit)
    problems = []
    if remaining:
        problems.append(f"{len(remaining)} statement(s) not recovered, e.g. {remaining[0]}")
    if extra:
        problems.append(f"{len(extra)} statement(s) not in the block, e.g. {extra[0]}")
    return problems
