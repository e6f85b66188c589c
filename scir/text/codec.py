"""The rendering codec: everything the generic text machinery needs to know about one track's
blocks, implemented once per track in the track's own package and returned by
:meth:`scir.tracks.Track.codec`.

A codec answers five questions about the clean-NL blocks of a task:

* **contents** -- the formal content of every block (:meth:`RenderCodec.block_contents`, which
  receives the task's typed formal object, ``Track.formal(task)``) and its normal form (:meth:`RenderCodec.canonical`: equal normal forms mean the same
  information);
* **genres** -- the track's scientific genres (:meth:`RenderCodec.genre_file`, a JSON file
  shipped as package data beside the codec; read by :mod:`scir.text.genres`);
* **template writing** -- one :class:`~scir.text.document.Draft` per block in its genre
  (:meth:`RenderCodec.drafts`) plus the task's filler slot values;
* **reference extraction** -- the block contents read back from the rendered documents alone
  (:meth:`RenderCodec.extract`), the proof that every fact stayed recoverable;
* **back-translation** -- the block's formal format (prompt description, decoding grammar),
  the faithful formal text of a content, its parser and the match of a recovered content
  against the original (used by the LLM renderer, :mod:`scir.rendering.llm_renderer`).

The rendering drivers (:mod:`scir.rendering.blocks`, :mod:`scir.rendering.template`,
:mod:`scir.rendering.extractors`, :mod:`scir.rendering.inverse`,
:mod:`scir.rendering.llm_renderer`) ask the task's codec through
:func:`scir.rendering.codecs.codec_of` and never branch on a track's name. A codec reads the
formal object only in its typed form (the track's ``formal_type``, e.g. ``DeductionFormal``):
:meth:`RenderCodec.block_contents` is given it, and the other methods, which are given the
task, load it with :func:`scir.tracks.base.load_formal` (cached per task), never
``task.formal``'s JSON.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from importlib.resources.abc import Traversable
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from scir.tasks import Task
from scir.text.blocks import content_differences
from scir.text.depth import DepthItem
from scir.text.document import Draft
from scir.text.genres import GENRES_PER_TRACK, Genre, GenreSet, read_genre_file, with_control


class RenderCodec(ABC):
    """How one track's blocks are rendered into documents and read back.

    ``track`` is the track's name (``Task.domain``); ``genre_count`` the number of genres its
    genre file must define (None: any number, at least one).
    """

    track: str = ""
    genre_count: int | None = GENRES_PER_TRACK

    # ---- genres -----------------------------------------------------------------------
    @abstractmethod
    def genre_file(self) -> Traversable | Path:
        """The track's genre file (JSON, the format of docs/rendering.md), e.g.
        ``importlib.resources.files(__package__) / "genres.json"``."""

    def control_file(self) -> Traversable | Path | None:
        """The track's control genre file (``ctl.json``, plain non-scientific genres derived
        from the scientific ones, :func:`scir.text.genres.with_control`); None: the track has
        no ``ctl`` presentation."""
        return None

    def genres(self) -> GenreSet:
        """The track's genres, read (once) from :meth:`genre_file`, with the control genres
        of :meth:`control_file` when it has one."""
        gset = read_genre_file(self.track, self.genre_file(), self.genre_count)
        control = self.control_file()
        return gset if control is None else with_control(gset, control)

    # ---- block contents ---------------------------------------------------------------
    @abstractmethod
    def block_contents(self, task: Task, formal: Any) -> list[dict[str, Any]]:
        """The formal content of every block of ``task``, in block order, from ``formal``,
        the task's typed formal object (``Track.formal(task)``, of the track's
        ``formal_type``); TaskFormatError if it cannot be told."""

    @abstractmethod
    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        """The normal form of block ``index``'s content: unordered collections sorted, so
        that equal normal forms mean the same information."""

    # ---- the template renderer ----------------------------------------------------------
    @abstractmethod
    def drafts(
        self,
        task: Task,
        contents: list[dict[str, Any]],
        genres: list[Genre],
        gset: GenreSet,
        rng: random.Random,
    ) -> tuple[list[Draft], dict[str, Any]]:
        """One draft per block (before filler) in its genre, drawn from ``rng``, plus what
        was done (recorded in ``provenance.render``)."""

    def slot_values(self, task: Task) -> dict[str, str]:
        """Task-specific values of the genre file's ``task_slots`` in filler (default none)."""
        return {}

    @abstractmethod
    def extract(self, task: Task) -> list[dict[str, Any]]:
        """The block contents read back from ``task.documents`` alone, one per document
        (VerificationError when the documents cannot be read)."""

    # ---- measured depth (scir.text.depth) -------------------------------------------------
    def depth_items(self, task: Task) -> list[DepthItem]:
        """The task's premises as the generic extractor sees them: names and clean-NL
        statement patterns (default none: the track is not measured)."""
        return []

    def depth_vocabulary(self, task: Task) -> list[str]:
        """Every name of the task's vocabulary (for sentence skeletons; default none)."""
        return []

    # ---- back-translation (the LLM renderer's inverse call) ---------------------------------
    @abstractmethod
    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        """The formal format of block ``index`` as described to the inverse model."""

    @abstractmethod
    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        """The bounded Lark grammar that constrains the inverse call's output."""

    @abstractmethod
    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        """The content in its formal format (what a faithful inverse call writes)."""

    @abstractmethod
    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        """Parse a formalization of block ``index`` (FormalizationError if it does not)."""

    def match_block(
        self, task: Task, index: int, original: dict[str, Any], recovered: dict[str, Any]
    ) -> list[str]:
        """How a recovered content falls short of the original (empty: accepted). The
        default compares normal forms (:meth:`canonical`)."""
        return content_differences(
            self.canonical(index, original), self.canonical(index, recovered)
        )


class ModularCodec(RenderCodec):
    """A codec whose template writer and reference extractor are modules of the track's codec
    package (the built-in tracks' layout): ``writer.drafts`` / ``writer.slot_values`` and
    ``extractor.extract(task, gset)``, given the codec's genres (:meth:`genres`), otherwise with
    the signatures of the methods above."""

    writer: ClassVar[ModuleType]
    extractor: ClassVar[ModuleType]

    def drafts(
        self,
        task: Task,
        contents: list[dict[str, Any]],
        genres: list[Genre],
        gset: GenreSet,
        rng: random.Random,
    ) -> tuple[list[Draft], dict[str, Any]]:
        return self.writer.drafts(task, contents, genres, gset, rng)

    def slot_values(self, task: Task) -> dict[str, str]:
        return self.writer.slot_values(task)

    def extract(self, task: Task) -> list[dict[str, Any]]:
        return self.extractor.extract(task, self.genres())
