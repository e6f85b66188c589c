"""``CausalFormalizer``: the causal track's formalization part (``Track.formalizer``): data
rows per environment and known edges (:mod:`scir.tracks.causal.formalize`), prompts from
``scir/prompts/causal/`` (``cot_open`` and ``symbcot_open`` for open-answer tasks)."""

from __future__ import annotations

from typing import Any

from scir.tasks import Task
from scir.tracks.causal import formalize
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.scm import DECIMALS
from scir.tracks.formalizer import Extraction, Formalizer, match_items


class CausalFormalizer(Formalizer):
    """The task's bounded Lark grammar (proteins, column count, precision, row bounds), its
    bound, parser and canonical writer; data rows and known edges as items."""

    grammar = staticmethod(formalize.formalization_grammar)
    max_chars = staticmethod(formalize.max_formalization_chars)
    parse = staticmethod(formalize.parse_formalization)
    format = staticmethod(formalize.format_formal)

    def template_name(self, kind: str, task: Task) -> str:
        """``cot_open`` / ``symbcot_open`` for an open-answer task's ``cot`` / ``symbcot``."""
        is_open = task.params.get("answer", "options") == "open"
        return f"{kind}_open" if is_open and kind in ("cot", "symbcot") else kind

    def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
        """The lettered options, the new protein, the task's proteins, their number and the
        decimals of the data."""
        nodes, new = formalize.task_nodes(task)
        return {
            "options": formalize.options_text(task),
            "new_protein": new,
            "proteins": ", ".join(nodes),
            "columns": str(len(nodes)),
            "decimals": str(DECIMALS),
        }

    def count_items(self, formal: CausalFormal) -> int:
        """Data rows over all environments plus known edges."""
        return sum(len(e.rows) for e in formal.environments) + len(formal.known_edges)

    def extraction(self, task: Task, formal: CausalFormal) -> Extraction:
        """Row- and edge-level precision and recall against the gold: a data row matches a
        gold row of the environment with the same intervention targets when every value,
        put in the gold's column order by column name, rounds to the gold value at the
        rendering's ``DECIMALS`` (each gold row matched once); a known edge matches when the
        gold states it, direction included."""
        gold = self.track.formal(task)
        order = list(gold.column_order)

        def items(f: CausalFormal) -> list[tuple[Any, ...]]:
            columns = list(f.column_order)
            index = (
                [columns.index(c) for c in order]
                if sorted(columns) == sorted(order)
                else list(range(len(columns)))
            )
            out: list[tuple[Any, ...]] = []
            for env in f.environments:
                key = tuple(sorted(env.targets))
                out += [
                    (
                        "row",
                        key,
                        tuple(round(float(row[i]), DECIMALS) + 0.0 for i in index if i < len(row)),
                    )
                    for row in env.rows
                ]
            return out + [("edge", a, b) for a, b in f.known_edges]

        def show(item: tuple[Any, ...]) -> str:
            if item[0] == "edge":
                return f"{item[1]} -> {item[2]}"
            where = ", ".join(item[1]) or "observational"
            return f"row ({where}): " + " ".join(f"{v:.{DECIMALS}f}" for v in item[2])

        return match_items(items(formal), items(gold), show)


__all__ = ["CausalFormalizer"]
