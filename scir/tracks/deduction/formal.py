"""The deduction track's formal object, typed: :class:`DeductionFormal` (``Track.formal_type``).

``load`` reads ``Task.formal`` and is the one place it is validated: ``premises`` and ``goal``
as formulas of the fragment (parsed with :func:`logic.parse`, the one parser), the ``proof`` and
``distractors`` trees and the balanced construction's ``decoys`` (:meth:`logic.Node.from_json`),
the signature (``predicates``,
``constants``) and ``premise_sources``; sizes are bounded; errors are TaskFormatError naming the
field. ``dump`` writes the JSON form back, key order included (the generator builds the object
and dumps it). A formalization (``parse_formalization``) is the same class with ``premises`` and
``goal`` only, in general first-order Prover9 syntax (built by the parser, which checks its own
text); the solver reads nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import shorten
from scir.tracks.deduction.logic import Formula, Node, parse
from scir.tracks.shapes import bounded_list, fail, string

MAX_PREMISES = 2000  # a Hard task has about 30
MAX_FORMULA_CHARS = 2000  # a premise is under 100 characters
MAX_TREES = 64  # distractor trees (the generator allows 6)
MAX_NAMES = 4000  # predicates, constants, lexicon entries
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class DeductionFormal:
    """Premises and goal (Prover9 text), and for a gold object its proof and distractor
    trees, the source of each premise and the signature."""

    premises: tuple[str, ...]
    goal: str
    proof: Node | None = None
    distractors: tuple[Node, ...] | None = None
    premise_sources: tuple[Any, ...] | None = None
    predicates: tuple[tuple[str, int], ...] | None = None  # name -> arity, in order
    constants: tuple[str, ...] | None = None
    decoys: tuple[Node, ...] | None = None  # balanced: one per tree, in ``trees`` order

    # ---- the JSON form ------------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        """The JSON form stored in ``Task.formal`` (fields that are None are left out)."""
        out: dict[str, Any] = {"premises": list(self.premises), "goal": self.goal}
        if self.proof is not None:
            out["proof"] = self.proof.to_json()
        if self.distractors is not None:
            out["distractors"] = [d.to_json() for d in self.distractors]
        if self.decoys is not None:
            out["decoys"] = [d.to_json() for d in self.decoys]
        if self.premise_sources is not None:
            out["premise_sources"] = list(self.premise_sources)
        if self.predicates is not None:
            out["predicates"] = dict(self.predicates)
        if self.constants is not None:
            out["constants"] = list(self.constants)
        return out

    @classmethod
    def load(cls, data: Any) -> DeductionFormal:
        """Validate a gold formal object (TaskFormatError naming the field) and read it."""
        if not isinstance(data, dict):
            raise fail(f"expected an object, got {type(data).__name__}", "formal")
        premises = tuple(
            _formula(p, f"formal.premises[{i}]")
            for i, p in enumerate(
                bounded_list(data.get("premises"), "formal.premises", MAX_PREMISES)
            )
        )
        goal = _formula(data.get("goal"), "formal.goal")
        proof = _tree(data["proof"], "formal.proof") if "proof" in data else None
        distractors = None
        if "distractors" in data:
            distractors = tuple(
                _tree(t, f"formal.distractors[{i}]")
                for i, t in enumerate(
                    bounded_list(data["distractors"], "formal.distractors", MAX_TREES)
                )
            )
        decoys = None
        if "decoys" in data:
            decoys = tuple(
                _tree(t, f"formal.decoys[{i}]")
                for i, t in enumerate(bounded_list(data["decoys"], "formal.decoys", MAX_TREES))
            )
        sources = data.get("premise_sources")
        if sources is not None:
            sources = tuple(bounded_list(sources, "formal.premise_sources", MAX_PREMISES))
        predicates, constants = _signature(data)
        return cls(premises, goal, proof, distractors, sources, predicates, constants, decoys)

    # ---- typed views --------------------------------------------------------------------
    @cached_property
    def formulas(self) -> tuple[list[Formula], Formula]:
        """(premises, goal) as fragment formulas (TaskFormatError naming the field when one
        is not in the fragment, e.g. a formalization's)."""
        return (
            [parse(p, field=f"formal.premises[{i}]") for i, p in enumerate(self.premises)],
            parse(self.goal, field="formal.goal"),
        )

    @property
    def trees(self) -> list[Node]:
        """The proof then the distractor trees (TaskFormatError without a proof)."""
        if self.proof is None:
            raise fail("missing (expected a proof tree)", "formal.proof")
        return [self.proof, *(self.distractors or ())]


def _formula(value: Any, field: str) -> str:
    text = string(value, field, MAX_FORMULA_CHARS)
    try:
        parse(text, field=field)
    except TaskFormatError as exc:  # its message quotes the formula: keep it short
        cause = exc.__cause__  # a syntax error's position inside the formula
        raise TaskFormatError(
            exc.message
            if len(text) <= 80
            else f"formula {shorten(text)} is not a formula of the deduction fragment",
            field=field,
            line=getattr(cause, "line", None),
            column=getattr(cause, "column", None),
        ) from exc
    return text


def _tree(value: Any, field: str) -> Node:
    if not isinstance(value, dict):
        raise fail(f"expected a proof node object, got {type(value).__name__}", field)
    stack = [value]
    while stack:  # bound the strings before the (recursive, cached) tree reader sees them
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("conclusion"), str):
                string(node["conclusion"], field, MAX_FORMULA_CHARS)
            if isinstance(node.get("premises"), list):
                stack.extend(node["premises"])
    return Node.from_json(value, field=field)


def _signature(
    formal: dict[str, Any],
) -> tuple[tuple[tuple[str, int], ...] | None, tuple[str, ...] | None]:
    predicates = formal.get("predicates")
    if predicates is not None:
        if not isinstance(predicates, dict) or len(predicates) > MAX_NAMES:
            raise fail(
                f"expected an object of at most {MAX_NAMES} predicate: arity entries",
                "formal.predicates",
            )
        for name, arity in predicates.items():
            string(name, "formal.predicates", MAX_NAME_CHARS)
            if isinstance(arity, bool) or not isinstance(arity, int) or not 0 <= arity <= 8:
                raise fail(
                    f"arity of {shorten(name)} must be an integer in 0..8", "formal.predicates"
                )
        predicates = tuple(predicates.items())
    constants = formal.get("constants")
    if constants is not None:
        constants = tuple(
            string(name, f"formal.constants[{i}]", MAX_NAME_CHARS)
            for i, name in enumerate(bounded_list(constants, "formal.constants", MAX_NAMES))
        )
    return predicates, constants


__all__ = ["DeductionFormal"]
