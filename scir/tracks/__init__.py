"""Track registry: finds tracks by name -- built-in ones, third-party ones registered under
the entry-point group ``scir.tracks`` (value: ``module:TrackClass``), and track files named
in the environment variable ``SCIR_TRACKS`` (``path/to/file.py:TrackClass``, several separated
by ``os.pathsep`` or a comma), which need no packaging."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

from scir.errors import ConfigError
from scir.tracks.base import Check, Formalization, FormalObject, Track, TrackParam, load_formal
from scir.tracks.files import ENV_VAR, load_file_tracks
from scir.tracks.formalizer import Formalizer, PromptArgs

if TYPE_CHECKING:
    from scir.tasks import Task

__all__ = [
    "Check",
    "FormalObject",
    "Formalization",
    "Formalizer",
    "PromptArgs",
    "Track",
    "TrackParam",
    "get_track",
    "load_formal",
    "track_names",
    "track_of",
    "register",
    "unregister",
]

# built-in tracks: name -> "module:Class" (imported lazily)
BUILTIN: dict[str, str] = {
    "deduction": "scir.tracks.deduction:DeductionTrack",
    "induction": "scir.tracks.induction:InductionTrack",
    "causal": "scir.tracks.causal:CausalTrack",
    "equation": "scir.tracks.equation:EquationTrack",
}

ENTRY_POINT_GROUP = "scir.tracks"
_extra: dict[str, Callable[[], Track]] = {}
_cache: dict[str, Track] = {}
_files: dict[str, dict[str, type[Track]]] = {}  # SCIR_TRACKS value -> name -> class


def _file_tracks() -> dict[str, type[Track]]:
    """The tracks named by ``SCIR_TRACKS`` (read once per value): name -> class."""
    value = os.environ.get(ENV_VAR, "")
    if value not in _files:
        _files[value] = load_file_tracks(value, taken=set(BUILTIN))
    return _files[value]


def register(name: str, factory: Callable[[], Track]) -> None:
    """Register a track at run time (tests, notebooks); entry points are the packaged way."""
    _extra[name] = factory
    _cache.pop(name, None)


def unregister(name: str) -> None:
    """Forget a track registered with :func:`register` (and any cached instance of ``name``)."""
    _extra.pop(name, None)
    _cache.pop(name, None)


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def track_names() -> list[str]:
    """Names of every track that can be loaded, sorted (ConfigError for a bad SCIR_TRACKS)."""
    return sorted(set(BUILTIN) | set(_entry_points()) | set(_extra) | set(_file_tracks()))


def _load(name: str) -> Track:
    if name in _extra:
        return _extra[name]()
    target = BUILTIN.get(name)
    if target is None and name in _file_tracks():
        return _file_tracks()[name]()
    if target is not None:
        module_name, _, attr = target.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(
                f"track {name!r} cannot be loaded from {target}: {exc}", field="track"
            ) from exc
        return factory()
    ep = _entry_points().get(name)
    if ep is None:
        known = ", ".join(track_names()) or "none"
        raise ConfigError(f"unknown track {name!r} (known tracks: {known})", field="track")
    try:
        factory = ep.load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(
            f"track {name!r} cannot be loaded from entry point {ep.value} "
            f"(group {ENTRY_POINT_GROUP}): {exc}",
            field="track",
        ) from exc
    return factory()


def get_track(name: str) -> Track:
    """The track registered as ``name`` (raises ConfigError naming the known ones)."""
    if name in _cache:
        return _cache[name]
    track = _load(name)
    if not isinstance(track, Track):
        raise ConfigError(
            f"track {name!r} is not a scir.tracks.Track (got {type(track).__name__})", field="track"
        )
    if track.name != name:  # tasks name their track in Task.domain; both must agree
        raise ConfigError(
            f"track registered as {name!r} calls itself {track.name!r}", field="track"
        )
    _cache[name] = track
    return track


def track_of(task: Task) -> Track:
    """The track of ``task`` (the one its ``domain`` names)."""
    return get_track(task.domain)
