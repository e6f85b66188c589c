"""A track's formalization face: the :class:`Formalizer`, as the rendering codec
(:class:`scir.text.codec.RenderCodec`) is its rendering face. It holds what the pipelines need
to have a model formalize a task and read the result: the prompts (with typed
:class:`PromptArgs`), the grammar and its bound, the parser and writer of formalization text,
and the reference items and their extraction check. ``Track.formalizer()`` returns the
track's.

A track written against the older ``Track`` methods (``formalization_grammar``,
``parse_formalization``, ``format_formal``, ``prompt(kind, task, presentation, **extra)``,
``count_items``, ...) keeps working until scir :data:`OLDER_METHODS_REMOVED_IN`, with one
DeprecationWarning per track class: its default formalizer, :class:`TrackMethods`, calls the
methods it defines. The base ``Track`` no longer lists them; calling one on a track that does
not define it forwards to the track's formalizer, with a DeprecationWarning
(:func:`older_method`).
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections.abc import Callable, MutableSet, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from scir.prompts import PROMPT_KINDS, PromptArgs, find_template, task_prompt
from scir.tasks import Task

if TYPE_CHECKING:
    from scir.tracks.base import Track


@dataclass
class Formalization:
    """A parsed formalization: the track's formal object (``Track.formal_type``) plus what
    was counted in it."""

    formal: Any
    items: int  # extracted items (FOL formulas, facts, data rows)


@dataclass
class Extraction:
    """A formalization's items checked against the gold formal object (``Track.extraction``):
    ``correct`` of its ``items`` match a gold item (precision), ``recalled`` of the
    ``gold_items`` follow from it (recall); ``missing`` gold items and ``extra`` items of its
    own, as text; ``goal`` how its goal (statement, query) compares with the gold one (None
    when the track has none); ``undecided`` items a solver limit left unchecked (counted as
    not matching)."""

    items: int
    correct: int
    gold_items: int
    recalled: int
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    goal: str | None = None
    undecided: int = 0

    @property
    def precision(self) -> float | None:
        return self.correct / self.items if self.items else None

    @property
    def recall(self) -> float | None:
        return self.recalled / self.gold_items if self.gold_items else None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored with a result (precision and recall included)."""
        return {
            "precision": self.precision,
            "recall": self.recall,
            "items": self.items,
            "correct": self.correct,
            "gold_items": self.gold_items,
            "recalled": self.recalled,
            "missing": list(self.missing),
            "extra": list(self.extra),
            "goal": self.goal,
            "undecided": self.undecided,
        }


MAX_LISTED = 20  # missing / extra items kept in an Extraction's lists (counts are exact)


def match_items(
    mine: Sequence[Any], gold: Sequence[Any], show: Callable[[Any], str] = str
) -> Extraction:
    """Item-level extraction by exact match of hashable items (multisets: each gold item
    matches at most one of ``mine``, so a duplicate counts as extra): precision over
    ``mine``, recall over ``gold``, the first :data:`MAX_LISTED` missing and extra items
    shown by ``show``."""
    from collections import Counter

    left = Counter(gold)
    correct, extra = 0, []
    for item in mine:
        if left[item] > 0:
            left[item] -= 1
            correct += 1
        else:
            extra.append(item)
    missing = [item for item, k in left.items() for _ in range(k)]
    return Extraction(
        items=len(mine),
        correct=correct,
        gold_items=len(gold),
        recalled=len(gold) - len(missing),
        missing=[show(i) for i in missing[:MAX_LISTED]],
        extra=[show(i) for i in extra[:MAX_LISTED]],
    )


class Formalizer:
    """A track's formalization part (``Track.formalizer()``). The defaults: no grammar, parser
    or writer (NotImplementedError: the pipelines stop with a ConfigError naming the hook), no
    bound on the grammar's output, no item check, and prompts from the track's prompt files
    (``<prompt_dir>/<track>/<kind>.txt``, then ``scir/prompts/<track>/<kind>.txt``: ``string.
    Template`` files filled with ``$problem``, ``$question``, :meth:`prompt_values` and, for
    ``symbcot``, ``$formalization``)."""

    # a directory of the track's own prompt files, laid out as scir/prompts/
    # (``<track>/<kind>.txt``), looked in before the built-in ones; relative paths are taken
    # from the working directory, so a track outside the package names its own with
    # ``Path(__file__).parent / ...``
    prompt_dir: ClassVar[str | Path | None] = None

    def __init__(self, track: Track) -> None:
        self.track = track

    def grammar(self, task: Task) -> str:
        """The Lark grammar (text) a formalization of this task must follow."""
        raise NotImplementedError(f"track {self.track.name} has no formalization grammar yet")

    def max_chars(self, task: Task) -> int | None:
        """The length of the longest text ``grammar(task)`` accepts, if known.

        The pipelines raise a formalization call's ``max_tokens`` to at least this, so that a
        bounded grammar's output is never cut into unparseable text.
        """
        return None

    def parse(self, task: Task, text: str) -> Formalization:
        """Parse a model's formalization into the track's formal object."""
        raise NotImplementedError(f"track {self.track.name} cannot parse formalizations yet")

    def format(self, task: Task, formal: Any = None) -> str:
        """A formal object (default: the task's gold one) as formalization text, in the syntax
        :meth:`parse` reads: what a perfect formalization writes (the explorer diffs a model's
        formalization against it)."""
        raise NotImplementedError(
            f"track {self.track.name} cannot write its formal object as formalization text yet"
        )

    def prompt(
        self, kind: str, task: Task, presentation: str, args: PromptArgs | None = None
    ) -> str:
        """The prompt of ``kind`` (``cot``, ``formalize``, ``symbcot``) for a task, from the
        track's prompt files (:meth:`template_name`, :meth:`prompt_values`); NotImplementedError
        when the track has no such file, ConfigError for another kind."""
        dirs = self.prompt_dirs()
        template = self.template_name(kind, task)
        if kind in PROMPT_KINDS and find_template(self.track.name, template, dirs) is None:
            raise NotImplementedError(f"track {self.track.name} has no {kind} prompt yet")
        return task_prompt(
            self.track.name,
            kind,
            task,
            presentation,
            args or PromptArgs(),
            lambda: self.prompt_values(kind, task),
            template,
            dirs,
        )

    def prompt_dirs(self) -> tuple[Path, ...]:
        """The directories of the track's own prompt files (:attr:`prompt_dir`)."""
        return () if self.prompt_dir is None else (Path(self.prompt_dir),)

    def template_name(self, kind: str, task: Task) -> str:
        """The name of the prompt file of ``kind`` for ``task`` (default: ``kind``)."""
        return kind

    def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
        """The track's own ``$names`` in its ``kind`` prompt (default: none)."""
        return {}

    def count_items(self, formal: Any) -> int:
        """The number of reference items in a formal object (of ``formal_type``; Table-2
        statistics)."""
        raise NotImplementedError

    def extraction(self, task: Task, formal: Any) -> Extraction | None:
        """A parsed formalization's items against the task's gold formal object (precision,
        recall, what is missing and what is extra); None when the track does not check
        items (the default)."""
        return None

    def reference_items(self, task: Task) -> int | None:
        """Items of the task's gold formal object, or None when the track does not count."""
        try:
            return int(self.count_items(self.track.formal(task)))
        except NotImplementedError:
            return None


# a Formalizer method -> the Track method a track written before the Formalizer overrides
TRACK_METHODS = {
    "grammar": "formalization_grammar",
    "max_chars": "formalization_max_chars",
    "parse": "parse_formalization",
    "format": "format_formal",
    "prompt": "prompt",
    "count_items": "count_items",
    "extraction": "extraction",
    "reference_items": "reference_items",
}


# the release that stops reading the older methods (scir.version is 0.1.0; the older scoring
# hooks end there too: scir.tracks.scoring)
OLDER_METHODS_REMOVED_IN = "0.2"  # the next minor release
_warned: MutableSet[type] = weakref.WeakSet()  # the track classes warned about their older methods
_warned_lock = threading.Lock()  # the pipelines call tracks in threads


def older_methods(track_class: type) -> list[str]:
    """The older formalization methods (:data:`TRACK_METHODS`' values) a track class
    defines."""
    return [m for m in TRACK_METHODS.values() if callable(getattr(track_class, m, None))]


def warn_once(warned: MutableSet[type], track_class: type, message: str) -> None:
    """A DeprecationWarning about a track class, the first time for that class in ``warned``
    (the older formalization methods: :data:`_warned`; the older scoring hooks keep their
    own), reported at the caller of ``Track.formalizer()`` / ``Track.scorer()``."""
    with _warned_lock:
        if track_class in warned:
            return
        warned.add(track_class)
    warnings.warn(message, DeprecationWarning, stacklevel=4)


class TrackMethods(Formalizer):
    """The default formalizer of a track written against the older ``Track`` methods: each
    method calls the track's own (``TRACK_METHODS``) when the track defines it, else the
    :class:`Formalizer` default; ``Track.prompt_dir`` names the prompt files. A track class
    that defines any of them gets one DeprecationWarning."""

    def __init__(self, track: Track) -> None:
        super().__init__(track)
        found = older_methods(type(track))
        if found:
            warn_once(
                _warned,
                type(track),
                f"track {track.name!r} ({type(track).__name__}) defines the older "
                f"formalization methods {', '.join(found)}; return a Formalizer from "
                "Track.formalizer() instead (docs/extending.md). They are read until scir "
                f"{OLDER_METHODS_REMOVED_IN}.",
            )

    def _own(self, name: str) -> Callable[..., Any] | None:
        method = TRACK_METHODS[name]
        if not callable(getattr(type(self.track), method, None)):
            return None
        own: Callable[..., Any] = getattr(self.track, method)
        return own

    def grammar(self, task: Task) -> str:
        own = self._own("grammar")
        return own(task) if own else super().grammar(task)

    def max_chars(self, task: Task) -> int | None:
        own = self._own("max_chars")
        return own(task) if own else super().max_chars(task)

    def parse(self, task: Task, text: str) -> Formalization:
        own = self._own("parse")
        return own(task, text) if own else super().parse(task, text)

    def format(self, task: Task, formal: Any = None) -> str:
        own = self._own("format")
        return own(task, formal) if own else super().format(task, formal)

    def prompt(
        self, kind: str, task: Task, presentation: str, args: PromptArgs | None = None
    ) -> str:
        own = self._own("prompt")
        if own is None:
            return super().prompt(kind, task, presentation, args)
        return own(kind, task, presentation, **(args or PromptArgs()).keywords())

    def prompt_dirs(self) -> tuple[Path, ...]:
        folder = getattr(self.track, "prompt_dir", None)
        return super().prompt_dirs() if folder is None else (Path(folder),)

    def count_items(self, formal: Any) -> int:
        own = self._own("count_items")
        return own(formal) if own else super().count_items(formal)

    def extraction(self, task: Task, formal: Any) -> Extraction | None:
        own = self._own("extraction")
        return own(task, formal) if own else super().extraction(task, formal)

    def reference_items(self, task: Task) -> int | None:
        own = self._own("reference_items")
        return own(task) if own else super().reference_items(task)


def older_method(track: Track, name: str) -> Callable[..., Any]:
    """``track.<name>`` for an older formalization method the track does not define
    (``Track.__getattr__``): its formalizer's method, with a DeprecationWarning; the older
    ``prompt`` keeps its keyword arguments (the fields of :class:`PromptArgs`).
    AttributeError for any other name."""
    face_name = {old: new for new, old in TRACK_METHODS.items()}.get(name)
    if face_name is None:
        raise AttributeError(f"{type(track).__name__!r} object has no attribute {name!r}")
    warnings.warn(
        f"Track.{name} is deprecated: call track.formalizer().{face_name} (removed in scir "
        f"{OLDER_METHODS_REMOVED_IN})",
        DeprecationWarning,
        stacklevel=3,
    )
    face = track.formalizer()
    if face_name == "prompt":

        def prompt(kind: str, task: Task, presentation: str, **extra: Any) -> str:
            return face.prompt(kind, task, presentation, PromptArgs.of(extra))

        return prompt
    method: Callable[..., Any] = getattr(face, face_name)
    return method


__all__ = [
    "MAX_LISTED",
    "OLDER_METHODS_REMOVED_IN",
    "TRACK_METHODS",
    "Extraction",
    "Formalization",
    "Formalizer",
    "PromptArgs",
    "TrackMethods",
    "match_items",
    "older_method",
    "older_methods",
    "warn_once",
]
