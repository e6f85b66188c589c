"""The causal track's rendering codec (:class:`scir.text.codec.RenderCodec`).

Two blocks: block 1 ``{"nodes", "new_protein", "connections", "known_edges",
"environments": [{"name", "kind", "targets"}], "samples"}``, block 2 ``{"columns",
"environments": [{"name", "rows"}]}``. Stages: :mod:`.writer` (template documents: the
network with condition labels, the data as tables or narrated cells), :mod:`.extractor` (the
reference extractor), :mod:`.inverse` (the LLM renderer's block format), and ``genres.json``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import Any, ClassVar

from scir.errors import TaskFormatError
from scir.tasks import Task
from scir.text.blocks import checked_contents
from scir.text.codec import ModularCodec
from scir.text.depth import DepthItem
from scir.tracks.base import load_formal
from scir.tracks.causal.codec import depth, extractor, inverse, writer
from scir.tracks.causal.formal import CausalFormal


class CausalCodec(ModularCodec):
    """The network block and the data block; rows matched as multisets."""

    writer: ClassVar[ModuleType] = writer
    extractor: ClassVar[ModuleType] = extractor

    track = "causal"

    def genre_file(self) -> Traversable:
        return resources.files(__package__) / "genres.json"

    def control_file(self) -> Traversable:
        return resources.files(__package__) / "ctl.json"

    def block_contents(self, task: Task, formal: CausalFormal) -> list[dict[str, Any]]:
        new = task.domain_metadata.get("new_protein", "XYZ")
        envs = formal.environments
        missing = [
            name
            for name, value in (("xyz_edges", formal.xyz_edges), ("columns", formal.columns))
            if value is None
        ]
        missing += [f"environments[{i}].kind" for i, e in enumerate(envs) if e.kind is None]
        if missing:
            raise TaskFormatError(
                f"causal formal object lacks {', '.join(missing)}",
                task_id=task.task_id,
                field="formal",
            )
        # both are in ``missing`` above when None, so they are set here
        assert formal.xyz_edges is not None and formal.columns is not None
        first = {
            "nodes": [n for n in formal.nodes if n != new],
            "new_protein": new,
            "connections": int(task.params.get("connections", len(formal.xyz_edges))),
            "known_edges": [list(e) for e in formal.known_edges],
            "environments": [
                {"name": e.name, "kind": e.kind, "targets": list(e.targets)} for e in envs
            ],
            "samples": [len(e.rows) for e in envs],
        }
        second = {
            "columns": list(formal.columns),
            "environments": [{"name": e.name, "rows": [list(r) for r in e.rows]} for e in envs],
        }
        return [first, second]

    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        if index == 0:
            return {
                "nodes": list(content.get("nodes", [])),
                "new_protein": content.get("new_protein"),
                "connections": content.get("connections"),
                "known_edges": sorted(list(e) for e in content.get("known_edges", [])),
                "environments": [
                    {
                        "name": e.get("name"),
                        "kind": e.get("kind"),
                        "targets": sorted(e.get("targets", [])),
                    }
                    for e in content.get("environments", [])
                ],
                "samples": list(content.get("samples", [])),
            }
        columns = list(content.get("columns", []))
        order = sorted(range(len(columns)), key=lambda i: columns[i])
        return {
            "columns": [columns[i] for i in order],
            "environments": [
                {"name": e.get("name"), "rows": [[r[i] for i in order] for r in e.get("rows", [])]}
                for e in content.get("environments", [])
            ],
        }

    def task_contents(self, task: Task) -> list[dict[str, Any]]:
        """The block contents of ``task`` from its typed formal object, one per block
        (TaskFormatError if not)."""
        return checked_contents(task, self.block_contents(task, load_formal(CausalFormal, task)))

    def depth_items(self, task: Task) -> list[DepthItem]:
        return depth.depth_items(task, self.task_contents(task))

    def depth_vocabulary(self, task: Task) -> list[str]:
        return depth.depth_vocabulary(task, self.task_contents(task))

    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.description(index)

    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.grammar(task, index, content, bounded=True)

    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return inverse.format_block(index, content)

    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        return inverse.parse(task, index, text)

    def match_block(
        self, task: Task, index: int, original: dict[str, Any], recovered: dict[str, Any]
    ) -> list[str]:
        if index == 1:
            original, recovered = inverse.sorted_rows(original), inverse.sorted_rows(recovered)
        return super().match_block(task, index, original, recovered)
