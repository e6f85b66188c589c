"""``EquationFormalizer``: the equation track's formalization part (``Track.formalizer``):
only the ``cot`` prompt (``scir/prompts/equation/cot.txt``) and the training rows as items;
no formalization grammar (the track is solved by fitting, not by formalizing)."""

from __future__ import annotations

from scir.errors import ConfigError
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks.equation.formal import EquationFormal
from scir.tracks.formalizer import Formalizer


class EquationFormalizer(Formalizer):
    """The ``cot`` prompt (ConfigError for another kind) and the training rows as items."""

    def prompt(
        self, kind: str, task: Task, presentation: str, args: PromptArgs | None = None
    ) -> str:
        """The ``cot`` prompt (``scir/prompts/equation/cot.txt``)."""
        if kind != "cot":
            raise ConfigError(
                f"the equation track has only the cot prompt, not {kind!r}", field="kind"
            )
        return super().prompt(kind, task, presentation, args)

    def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
        """The science, the output and inputs, an example sum and the allowed functions."""
        from solvers.equation.expression import FUNCTIONS

        formal = self.track.formal(task)
        example = " + ".join(f"p{i}*{name}" for i, name in enumerate(formal.inputs))
        return {
            "science": formal.science,
            "output": formal.output,
            "inputs": ", ".join(formal.inputs),
            "example": example,
            "functions": ", ".join(FUNCTIONS),
        }

    def count_items(self, formal: EquationFormal) -> int:
        """Training rows (the data a solver reads)."""
        return len(formal.splits["train"].X)


__all__ = ["EquationFormalizer"]
