"""Scientific genres of the rendered documents, read from each track's genre file (JSON,
shipped as package data beside the track's rendering codec, e.g.
``scir/tracks/deduction/codec/genres.json``; :meth:`scir.text.codec.RenderCodec.genre_file`).

Each track file holds the track's genres (eight per built-in track) and what they share:

* ``description``, ``ratio`` (the template renderer's range of obfuscated/clean length),
  ``fidelity`` (what every rewrite must keep: the LLM renderer's constraints);
* ``phrases``: the track's phrase banks (quantifier wordings, relation wordings, table
  formats, ...), keyed by the track's own vocabulary;
* ``slots``: word banks for the ``{slot}`` fields of filler sentences;
* ``filler``: filler sentences every genre of the track may use;
* ``genres``: one object per genre -- ``name``, ``title``, ``style`` (a description of the
  genre's conventions, used in LLM prompts and docs), ``headers``, ``intro``, ``headings``,
  ``items`` (wrappers of one statement), ``note`` (wrapper of a filler line), ``filler``,
  ``closing`` and track-specific ``options``.

Everything is data: the track codecs' writers fill these templates, their reference
extractors compile the same templates into anchored regular expressions
(:mod:`scir.text.patterns`).
"""

from __future__ import annotations

import dataclasses
import string
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from scir.bounded import parse_json
from scir.errors import ConfigError, ResourceError

GENRES_PER_TRACK = 8  # the built-in tracks' genre count (docs/rendering.md)

LAYOUTS = ("paragraphs", "lines")
# numeric and generic slots every filler may use (filled by scir.text.document.fill_slots)
GENERIC_SLOTS = frozenset(
    {"int1", "int2", "int3", "int4", "dec1", "pct", "date", "time", "letter", "id", "k"}
)
_GENRE_KEYS = (
    "name",
    "title",
    "style",
    "layout",
    "headers",
    "intro",
    "headings",
    "items",
    "note",
    "filler",
    "closing",
)


@dataclass(frozen=True)
class Genre:
    """One scientific genre of a track: its conventions as templates."""

    name: str
    title: str
    style: str
    layout: str  # "paragraphs" (running prose) or "lines" (one per line)
    headers: tuple[str, ...]
    intro: tuple[str, ...]
    headings: tuple[str, ...]
    items: tuple[str, ...]  # wrappers of one statement: "{text}", "- {text}", ...
    note: str  # wrapper of a filler in the lines layout
    filler: tuple[str, ...]
    closing: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def option(self, key: str, default: Any = None) -> Any:
        """A track-specific option of this genre."""
        return self.options.get(key, default)


@dataclass(frozen=True)
class GenreSet:
    """The genres of one track and the banks they share."""

    track: str
    description: str
    ratio: tuple[float, float]
    fidelity: tuple[str, ...]
    phrases: dict[str, Any]
    slots: dict[str, tuple[str, ...]]
    filler: tuple[str, ...]
    genres: tuple[Genre, ...]
    # the control register (``ctl``, docs/rendering.md): plain non-scientific genres, each
    # derived from a scientific one (its options, items and layout), with their own banks
    control: tuple[Genre, ...] = ()
    control_filler: tuple[str, ...] = ()
    control_slots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the control register's phrase banks: the scientific ``phrases`` with every bank the
    # control file restates in plain words replaced (the same keys, ids and shapes)
    control_phrases: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The genre names, in file order."""
        return [g.name for g in self.genres]

    def genre(self, name: str) -> Genre:
        """The genre called ``name`` (ConfigError naming the known ones)."""
        for g in self.genres + self.control:
            if g.name == name:
                return g
        raise ConfigError(
            f"track {self.track} has no genre {name!r} "
            f"(known: {', '.join(self.names + [g.name for g in self.control])})",
            field="genre",
        )

    def phrases_for(self, genre: str) -> dict[str, Any]:
        """The phrase banks of the register of the genre called ``genre``: the control
        phrases for a control genre (when the control file has any), else the scientific ones
        (what a reference extractor reads a document with)."""
        if self.control_phrases and any(g.name == genre for g in self.control):
            return self.control_phrases
        return self.phrases

    def for_genre(self, genre: str) -> GenreSet:
        """This genre set with the phrase banks of the register of ``genre``
        (:meth:`phrases_for`): what a reference extractor reads that genre's document with."""
        phrases = self.phrases_for(genre)
        return self if phrases is self.phrases else dataclasses.replace(self, phrases=phrases)

    def in_register(self, presentation: str) -> GenreSet:
        """This genre set as a writer of ``presentation`` sees it: the register's genres,
        slot banks, shared filler and phrase banks in place of the scientific ones (``obf``:
        itself; ConfigError for a register the track does not have)."""
        genres, filler, slots = self.register(presentation)
        if presentation == "obf":
            return self
        return dataclasses.replace(
            self,
            genres=genres,
            filler=filler,
            slots=slots,
            phrases=self.control_phrases or self.phrases,
        )

    def register(
        self, presentation: str
    ) -> tuple[tuple[Genre, ...], tuple[str, ...], dict[str, tuple[str, ...]]]:
        """The genres, shared filler and slot banks of ``presentation`` (``obf``: the
        scientific genres; ``ctl``: the control genres, ConfigError if the track has none)."""
        if presentation == "obf":
            return self.genres, self.filler, self.slots
        if presentation == "ctl" and self.control:
            return self.control, self.control_filler, {**self.slots, **self.control_slots}
        raise ConfigError(
            f"track {self.track} has no {presentation!r} genres", field="presentation"
        )


def template_fields(template: str) -> list[str]:
    """The ``{field}`` names of a format template, in order (repeats kept)."""
    try:
        return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ResourceError(f"bad template {template!r}: {exc}") from exc


def _strings(data: dict, key: str, where: str, minimum: int = 1) -> tuple[str, ...]:
    value = data.get(key)
    if (
        not isinstance(value, list)
        or len(value) < minimum
        or not all(isinstance(v, str) and v for v in value)
    ):
        raise ResourceError(
            f"{where}: {key!r} must be a list of at least {minimum} non-empty strings"
        )
    return tuple(value)


def _check_slots(templates: tuple[str, ...], allowed: frozenset[str], where: str) -> None:
    for t in templates:
        unknown = [f for f in template_fields(t) if f not in allowed]
        if unknown:
            raise ResourceError(f"{where}: template {t!r} uses unknown slot(s) {unknown}")


def _genre(data: Any, where: str, filler_slots: frozenset[str]) -> Genre:
    if not isinstance(data, dict):
        raise ResourceError(f"{where}: a genre is a JSON object")
    missing = [k for k in _GENRE_KEYS if k not in data]
    if missing:
        raise ResourceError(f"{where}: missing key(s) {missing}")
    where = f"{where} ({data['name']})"
    if data["layout"] not in LAYOUTS:
        raise ResourceError(f"{where}: layout must be one of {LAYOUTS}")
    genre = Genre(
        name=data["name"],
        title=data["title"],
        style=data["style"],
        layout=data["layout"],
        headers=_strings(data, "headers", where),
        intro=_strings(data, "intro", where),
        headings=_strings(data, "headings", where),
        items=_strings(data, "items", where),
        note=data["note"],
        filler=_strings(data, "filler", where, 8),
        closing=_strings(data, "closing", where),
        options=dict(data.get("options") or {}),
    )
    if "{text}" not in genre.note:
        raise ResourceError(f"{where}: note must contain {{text}}")
    for item in genre.items:
        if template_fields(item).count("text") != 1:
            raise ResourceError(f"{where}: item wrapper {item!r} needs exactly one {{text}}")
        _check_slots((item,), filler_slots | {"text", "k"}, where)
    _check_slots(
        genre.filler + genre.intro + genre.closing + genre.headers + genre.headings,
        filler_slots,
        where,
    )
    return genre


def _parse(track: str, data: Any, where: str, expected: int | None) -> GenreSet:
    if not isinstance(data, dict) or data.get("track") != track:
        raise ResourceError(f'{where}: expected an object with "track": "{track}"')
    slots_raw = data.get("slots") or {}
    if not isinstance(slots_raw, dict):
        raise ResourceError(f"{where}: slots must be an object")
    slots = {k: _strings(slots_raw, k, f"{where} slots") for k in sorted(slots_raw)}
    task_slots = frozenset(data.get("task_slots") or [])
    filler_slots = GENERIC_SLOTS | frozenset(slots) | task_slots
    ratio = data.get("ratio")
    if (
        not isinstance(ratio, list)
        or len(ratio) != 2
        or not all(isinstance(r, (int, float)) for r in ratio)
        or not 2.0 <= ratio[0] <= ratio[1] <= 4.5
    ):
        raise ResourceError(f"{where}: ratio must be [low, high] with 2 <= low <= high <= 4.5")
    filler = _strings(data, "filler", where, 8)
    _check_slots(filler, filler_slots, where)
    genres = tuple(
        _genre(g, f"{where} genre {i}", filler_slots)
        for i, g in enumerate(data.get("genres") or [])
    )
    if (expected is not None and len(genres) != expected) or not genres:
        raise ResourceError(
            f"{where}: expected {expected or 'at least 1'} genres, found {len(genres)}"
        )
    names = [g.name for g in genres]
    if len(set(names)) != len(names):
        raise ResourceError(f"{where}: genre names must be unique")
    phrases = data.get("phrases")
    if not isinstance(phrases, dict):
        raise ResourceError(f"{where}: phrases must be an object")
    return GenreSet(
        track=track,
        description=str(data.get("description", "")),
        ratio=(float(ratio[0]), float(ratio[1])),
        fidelity=_strings(data, "fidelity", where),
        phrases=phrases,
        slots=slots,
        filler=filler,
        genres=genres,
    )


_READ: dict[tuple[str, str, int | None], GenreSet] = {}


def read_genre_file(
    track: str, file: Traversable | Path, expected: int | None = GENRES_PER_TRACK
) -> GenreSet:
    """The genres of ``track`` read (once per file) from its genre ``file`` (ResourceError
    naming the file when it is missing or malformed; ``expected``: the number of genres it
    must hold, None for any)."""
    key = (track, str(file), expected)
    if key not in _READ:
        where = f"{track} genre file {file}"
        try:
            data = parse_json(file.read_text(encoding="utf-8"), error=ResourceError)
        except (OSError, UnicodeDecodeError, ResourceError) as exc:
            raise ResourceError(f"cannot read the {where}: {exc}") from None
        _READ[key] = _parse(track, data, where, expected)
    return _READ[key]


_CONTROL_OPTIONAL = ("items", "note")  # a control genre's own item wrappers and note
_CONTROL_KEYS = (
    "name",
    "base",
    "title",
    "style",
    "headers",
    "intro",
    "headings",
    "filler",
    "closing",
)


def with_control(gset: GenreSet, file: Traversable | Path) -> GenreSet:
    """``gset`` with the control genres of its track's control file (``ctl.json`` beside the
    genre file; read once per file; ResourceError naming the file when it is malformed).

    The file holds ``track``, ``description``, ``slots`` and ``filler`` (plain, non-scientific
    word banks and filler sentences), ``phrases`` (plain versions of the track's phrase banks,
    merged over the scientific ones into ``control_phrases``: :func:`_merged_phrases`) and
    ``genres``: each names its scientific ``base`` genre and replaces its title, style,
    headers, intro, headings, filler and closing (and, when given, its item wrappers and
    note); layout comes from the base, and its options are the base's updated with the
    control genre's ``options`` (so the track's writer and reference extractor read a control
    document exactly as a document of its base genre, with its register's phrases)."""
    key = (gset.track, str(file), len(gset.genres))
    if key not in _CONTROL:
        where = f"{gset.track} control genre file {file}"
        try:
            data = parse_json(file.read_text(encoding="utf-8"), error=ResourceError)
        except (OSError, UnicodeDecodeError, ResourceError) as exc:
            raise ResourceError(f"cannot read the {where}: {exc}") from None
        if not isinstance(data, dict) or data.get("track") != gset.track:
            raise ResourceError(f'{where}: expected an object with "track": "{gset.track}"')
        slots_raw = data.get("slots") or {}
        if not isinstance(slots_raw, dict):
            raise ResourceError(f"{where}: slots must be an object")
        slots = {k: _strings(slots_raw, k, f"{where} slots") for k in sorted(slots_raw)}
        allowed = (
            GENERIC_SLOTS
            | frozenset(gset.slots)
            | frozenset(slots)
            | frozenset(data.get("task_slots") or [])
        )
        filler = _strings(data, "filler", where, 8)
        _check_slots(filler, allowed, where)
        genres = []
        for i, raw in enumerate(data.get("genres") or []):
            at = f"{where} genre {i}"
            if not isinstance(raw, dict) or any(k not in raw for k in _CONTROL_KEYS):
                raise ResourceError(f"{at}: a control genre is an object with {_CONTROL_KEYS}")
            base = next((g for g in gset.genres if g.name == raw["base"]), None)
            if base is None or raw["name"] in gset.names:
                raise ResourceError(
                    f"{at}: base must name a genre of the track and name must be new"
                )
            options = raw.get("options") or {}
            if not isinstance(options, dict):
                raise ResourceError(f"{at}: options must be an object")
            genres.append(
                _genre(
                    {
                        "layout": base.layout,
                        "items": list(base.items),
                        "note": base.note,
                        **{k: raw[k] for k in _CONTROL_KEYS + _CONTROL_OPTIONAL if k in raw},
                        "options": {**base.options, **options},
                    },
                    at,
                    allowed,
                )
            )
        names = [g.name for g in genres]
        if len(genres) < 2 or len(set(names)) != len(names):
            raise ResourceError(f"{where}: expected at least 2 genres with unique names")
        raw_phrases = data.get("phrases") or {}
        if not isinstance(raw_phrases, dict):
            raise ResourceError(f"{where}: phrases must be an object")
        phrases = _merged_phrases(gset.phrases, raw_phrases, f"{where} phrases")
        _CONTROL[key] = dataclasses.replace(
            gset,
            control=tuple(genres),
            control_filler=filler,
            control_slots=slots,
            control_phrases=phrases if raw_phrases else {},
        )
    return _CONTROL[key]


_CONTROL: dict[tuple[str, str, int], GenreSet] = {}


def _merged_phrases(science: Any, plain: Any, where: str) -> Any:
    """The scientific phrase banks ``science`` with the control file's ``plain`` ones in
    place: objects merge key by key (a key must be one of the scientific banks), anything
    else is replaced by a value of the same shape -- a list of the same kind of items, and
    for statement banks (objects with an ``id``) the same ids, so that the genres' options
    that name wordings by id choose the same technique in either register (ResourceError
    naming the bank otherwise)."""
    if isinstance(science, dict):
        if not isinstance(plain, dict):
            raise ResourceError(f"{where}: must be an object like the scientific bank")
        unknown = sorted(set(plain) - set(science))
        if unknown:
            raise ResourceError(f"{where}: no scientific bank called {unknown}")
        return {
            k: _merged_phrases(v, plain[k], f"{where}.{k}") if k in plain else v
            for k, v in science.items()
        }
    if isinstance(science, list):
        if not isinstance(plain, list) or not plain:
            raise ResourceError(f"{where}: must be a non-empty list like the scientific bank")
        if {type(x) for x in plain} != {type(x) for x in science}:
            raise ResourceError(f"{where}: items must be of the scientific bank's kind")
        ids = sorted(str(x.get("id")) for x in science if isinstance(x, dict) and "id" in x)
        if ids and ids != sorted(str(x.get("id")) for x in plain if isinstance(x, dict)):
            raise ResourceError(f"{where}: must have the scientific bank's ids {ids}")
        return plain
    if type(plain) is not type(science):
        raise ResourceError(f"{where}: must be a {type(science).__name__}")
    return plain
