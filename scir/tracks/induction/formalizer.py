"""``InductionFormalizer``: the induction track's formalization part (``Track.formalizer``):
background facts and labelled pairs (:mod:`scir.tracks.induction.formalize`), prompts from
``scir/prompts/induction/`` (:mod:`scir.tracks.induction.prompts`)."""

from __future__ import annotations

from scir.tasks import Task
from scir.tracks.formalizer import Extraction, Formalizer, match_items
from scir.tracks.induction import formalize, prompts
from scir.tracks.induction.formal import InductionProblem


class InductionFormalizer(Formalizer):
    """The task's bounded Lark grammar (facts over its relation types, drugs and proteins,
    then ``pos(interacts(a, b)).`` and ``neg(interacts(a, b)).`` lines), its bound, parser and
    canonical writer; facts and examples as items."""

    grammar = staticmethod(formalize.formalization_grammar)
    max_chars = staticmethod(formalize.max_formalization_chars)
    parse = staticmethod(formalize.parse_formalization)
    format = staticmethod(formalize.format_formal)

    def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
        """The nine relation types and, but in ``cot``, the task's signature."""
        own = {"relations": prompts.relations_text()}
        if kind != "cot":
            own["signature"] = prompts.signature_text(task)
        return own

    def count_items(self, formal: InductionProblem) -> int:
        """Background facts plus examples."""
        return len(formal.facts) + len(formal.pos) + len(formal.neg)

    def extraction(self, task: Task, formal: InductionProblem) -> Extraction:
        """Fact-level precision and recall against the gold facts and examples: exact
        matches of background facts and of labelled pairs (names are the task's, as the
        grammar and the parser normalise them; pairs unordered)."""

        def items(f: InductionProblem) -> list[tuple[str, ...]]:
            out: list[tuple[str, ...]] = [("fact", *x) for x in f.facts]
            out += [("pos", *x) for x in f.pos]
            out += [("neg", *x) for x in f.neg]
            return out

        def show(item: tuple[str, ...]) -> str:
            if item[0] == "fact":
                return f"{item[1]}({item[2]}, {item[3]})"
            return f"{item[0]}(interacts({item[1]}, {item[2]}))"

        return match_items(items(formal), items(self.track.formal(task)), show)


__all__ = ["InductionFormalizer"]
