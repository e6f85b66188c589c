"""``DeductionFormalizer``: the deduction track's formalization part (``Track.formalizer``):
first-order premises and a goal in Prover9 syntax (:mod:`scir.tracks.deduction.formalize`),
prompts from ``scir/prompts/deduction/``."""

from __future__ import annotations

from scir.tasks import Task
from scir.tracks.deduction import formalize
from scir.tracks.deduction.extraction import extraction
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.formalizer import Extraction, Formalizer


class DeductionFormalizer(Formalizer):
    """The task's bounded Lark grammar (``premise: F.`` lines and a ``goal: F.`` line over the
    task's predicates and individuals), its parser and canonical writer; premises as items."""

    grammar = staticmethod(formalize.formalization_grammar)
    parse = staticmethod(formalize.parse_formalization)
    format = staticmethod(formalize.format_formal)

    def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
        """The task's signature (predicates and individuals), in every prompt but ``cot``."""
        return {} if kind == "cot" else {"signature": formalize.signature_text(task)}

    def count_items(self, formal: DeductionFormal) -> int:
        """The number of premises."""
        return len(formal.premises)

    def extraction(self, task: Task, formal: DeductionFormal) -> Extraction:
        """Premise-level precision and recall against the gold premises, and the goal
        (:mod:`scir.tracks.deduction.extraction`: canonical text, else Prover9)."""

        gold = self.track.formal(task)
        return extraction(list(formal.premises), formal.goal, list(gold.premises), gold.goal)


__all__ = ["DeductionFormalizer"]
