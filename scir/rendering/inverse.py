"""The inverse of the LLM renderer, per task: the formal format of one block, its grammar,
its parser and the check that a formalized rewrite holds the block's information, asked of the
task's codec (the generic helpers the codecs share are :mod:`scir.text.inverse`)."""

from __future__ import annotations

from typing import Any

from scir.rendering.codecs import codec_of
from scir.tasks import Task
from scir.text.inverse import BlockFormat


def block_format(task: Task, index: int, content: dict[str, Any]) -> BlockFormat:
    """The format, grammar and output bound of block ``index`` of ``task``."""
    codec = codec_of(task)
    size = len(codec.format_block(task, index, content))
    tokens = size // 2 + 128
    return BlockFormat(
        codec.block_description(task, index, content),
        codec.block_grammar(task, index, content),
        tokens,
    )


def format_block(task: Task, index: int, content: dict[str, Any]) -> str:
    """The block's content in its formal format (what a faithful inverse call writes)."""
    return codec_of(task).format_block(task, index, content)


def parse_block(task: Task, index: int, text: str) -> dict[str, Any]:
    """Parse a formalization of block ``index`` (FormalizationError if it does not parse)."""
    return codec_of(task).parse_block(task, index, text)


def match_block(
    task: Task, index: int, original: dict[str, Any], recovered: dict[str, Any]
) -> list[str]:
    """How a recovered content falls short of the original (empty: accepted)."""
    return codec_of(task).match_block(task, index, original, recovered)
