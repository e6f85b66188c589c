"""The equation track's rendering codec (:class:`scir.text.codec.RenderCodec`).

Two blocks: block 1 ``{"science", "inputs", "output"}`` (the context: what is measured),
block 2 ``{"columns", "rows"}`` (the printed training rows, inputs then output, in order).
Stages: :mod:`.writer` (template documents: variables as sentences of the genre's phrase
banks; the data as a CSV or Markdown table or one sentence per run; column codes and a scaled
column), :mod:`.extractor` (the reference extractor: every value read back digit for digit),
:mod:`.depth` (the data rows as the generic extractor sees them), :mod:`.inverse` (the LLM
renderer's block format), ``genres.json`` and ``ctl.json``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import Any, ClassVar

from scir.tasks import Task
from scir.text.blocks import checked_contents
from scir.text.codec import ModularCodec
from scir.text.depth import DepthItem
from scir.tracks.base import load_formal
from scir.tracks.equation.codec import depth, extractor, inverse, writer
from scir.tracks.equation.formal import EquationFormal
from scir.tracks.equation.templates import shown_rows


class EquationCodec(ModularCodec):
    """The context block and the data block."""

    writer: ClassVar[ModuleType] = writer
    extractor: ClassVar[ModuleType] = extractor

    track = "equation"
    genre_count = None

    def genre_file(self) -> Traversable:
        return resources.files(__package__) / "genres.json"

    def control_file(self) -> Traversable:
        return resources.files(__package__) / "ctl.json"

    def block_contents(self, task: Task, formal: EquationFormal) -> list[dict[str, Any]]:
        # descriptions (an imported problem's own) shape the wording only: canonical()
        # leaves them out of the comparison
        first: dict[str, Any] = {
            "science": formal.science,
            "inputs": list(formal.inputs),
            "output": formal.output,
        }
        if formal.descriptions:
            first["descriptions"] = dict(formal.descriptions)
        return [
            first,
            {"columns": list(formal.inputs) + [formal.output], "rows": shown_rows(formal)},
        ]

    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        if index == 0:
            return {
                "science": content.get("science"),
                "inputs": list(content.get("inputs", [])),
                "output": content.get("output"),
            }
        return {
            "columns": list(content.get("columns", [])),
            "rows": [list(r) for r in content.get("rows", [])],
        }

    def task_contents(self, task: Task) -> list[dict[str, Any]]:
        """The block contents of ``task`` from its typed formal object, one per block
        (TaskFormatError if not)."""
        return checked_contents(task, self.block_contents(task, load_formal(EquationFormal, task)))

    def depth_items(self, task: Task) -> list[DepthItem]:
        return depth.depth_items(task, self.task_contents(task))

    def depth_vocabulary(self, task: Task) -> list[str]:
        return depth.depth_vocabulary(task, self.task_contents(task))

    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.description(index)

    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.grammar(index, content, bounded=True)

    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.format_block(index, content)

    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        return inverse.parse(task, index, text)


__all__ = ["EquationCodec"]
