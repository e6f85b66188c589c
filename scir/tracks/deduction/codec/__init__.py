"""The deduction track's rendering codec (:class:`scir.text.codec.RenderCodec`).

Stages: :mod:`.contents` (block contents: the premises each block states), :mod:`.writer`
(template documents: statements in the genre's wording, abbreviations defined in one
document's glossary), :mod:`.extractor` (the reference extractor), :mod:`.inverse` (the
LLM renderer's block format: Prover9 formulas, matched by proved equivalence), and
``genres.json`` (the eight genres and the statement wordings).
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
from scir.tracks.deduction.codec import contents, depth, extractor, inverse, writer
from scir.tracks.deduction.formal import DeductionFormal


class DeductionCodec(ModularCodec):
    """Two blocks of premise sentences; documents of statements; Prover9 back-translation."""

    writer: ClassVar[ModuleType] = writer
    extractor: ClassVar[ModuleType] = extractor

    track = "deduction"

    def genre_file(self) -> Traversable:
        return resources.files(__package__) / "genres.json"

    def control_file(self) -> Traversable:
        return resources.files(__package__) / "ctl.json"

    def block_contents(self, task: Task, formal: DeductionFormal) -> list[dict[str, Any]]:
        return contents.block_contents(task, formal)

    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        return contents.canonical(index, content)

    def task_contents(self, task: Task) -> list[dict[str, Any]]:
        """The block contents of ``task`` from its typed formal object, one per block
        (TaskFormatError if not)."""
        return checked_contents(task, self.block_contents(task, load_formal(DeductionFormal, task)))

    def depth_items(self, task: Task) -> list[DepthItem]:
        return depth.depth_items(task, self.task_contents(task))

    def depth_vocabulary(self, task: Task) -> list[str]:
        return depth.depth_vocabulary(task)

    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.description(task)

    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.grammar(task, content)

    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.format_block(content)

    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        return inverse.parse(task, text)

    def match_block(
        self, task: Task, index: int, original: dict[str, Any], recovered: dict[str, Any]
    ) -> list[str]:
        return inverse.match(original, recovered)
