"""The induction track's rendering codec (:class:`scir.text.codec.RenderCodec`).

Three blocks: ``{"facts": [[relation, drug, protein], ...]}``, ``{"pos": [[a, b], ...]}``,
``{"neg": [[a, b], ...]}``. Stages: :mod:`.writer` (template documents: facts as sentences,
records or protein sections; drugs named by catalogue codes defined in the facts document),
:mod:`.extractor` (the reference extractor), :mod:`.inverse` (the LLM renderer's block
format), and ``genres.json`` (the eight genres and the relation wordings).
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
from scir.tracks.induction.codec import depth, extractor, inverse, writer
from scir.tracks.induction.codec.inverse import KEYS
from scir.tracks.induction.formal import InductionProblem


class InductionCodec(ModularCodec):
    """Facts, positive pairs, negative pairs; each matched as a set."""

    writer: ClassVar[ModuleType] = writer
    extractor: ClassVar[ModuleType] = extractor

    track = "induction"

    def genre_file(self) -> Traversable:
        return resources.files(__package__) / "genres.json"

    def control_file(self) -> Traversable:
        return resources.files(__package__) / "ctl.json"

    def block_contents(self, task: Task, formal: InductionProblem) -> list[dict[str, Any]]:
        return [
            {"facts": [list(x) for x in formal.facts]},
            {"pos": [list(p) for p in formal.pos]},  # pairs are stored sorted
            {"neg": [list(p) for p in formal.neg]},
        ]

    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        key = KEYS[index]
        return {key: sorted(list(x) for x in content.get(key, []))}

    def task_contents(self, task: Task) -> list[dict[str, Any]]:
        """The block contents of ``task`` from its typed formal object, one per block
        (TaskFormatError if not)."""
        return checked_contents(
            task, self.block_contents(task, load_formal(InductionProblem, task))
        )

    def depth_items(self, task: Task) -> list[DepthItem]:
        return depth.depth_items(task, self.task_contents(task))

    def depth_vocabulary(self, task: Task) -> list[str]:
        return depth.depth_vocabulary(task, self.task_contents(task))

    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.description(task, index)

    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.grammar(task, index, len(content[KEYS[index]]), bounded=True)

    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.format_block(index, content)

    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        return inverse.parse(task, index, text)
