"""Track registry: finds tracks by name, built-in ones and third-party ones registered under
the entry-point group ``scir.tracks`` (value: ``module:TrackClass``)."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Callable

from scir.errors import ConfigError
from scir.tracks.base import Check, Formalization, Track, TrackParam

__all__ = ["Check", "Formalization", "Track", "TrackParam", "get_track", "track_names",
           "register"]

# built-in tracks: name -> "module:Class" (imported lazily)
BUILTIN: dict[str, str] = {}
for _name, _target in [
    ("deduction", "scir.tracks.deduction:DeductionTrack"),
    ("induction", "scir.tracks.induction:InductionTrack"),
    ("causal", "scir.tracks.causal:CausalTrack"),
]:
    BUILTIN[_name] = _target

ENTRY_POINT_GROUP = "scir.tracks"
_extra: dict[str, Callable[[], Track]] = {}
_cache: dict[str, Track] = {}


def register(name: str, factory: Callable[[], Track]) -> None:
    """Register a track at run time (tests, notebooks); entry points are the packaged way."""
    _extra[name] = factory
    _cache.pop(name, None)


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _available_builtin() -> dict[str, str]:
    out = {}
    for name, target in BUILTIN.items():
        module = target.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            out[name] = target
    return out


def track_names() -> list[str]:
    """Names of every track that can be loaded, sorted."""
    return sorted(set(_available_builtin()) | set(_entry_points()) | set(_extra))


def get_track(name: str) -> Track:
    """The track registered as ``name`` (raises ConfigError naming the known ones)."""
    if name in _cache:
        return _cache[name]
    if name in _extra:
        track = _extra[name]()
    else:
        target = _available_builtin().get(name) or _entry_points().get(name)
        if target is None:
            known = ", ".join(track_names()) or "none"
            raise ConfigError(f"unknown track {name!r} (known tracks: {known})", field="track")
        module_name, _, attr = target.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"track {name!r} cannot be loaded from {target}: {exc}") from exc
        track = cls()
    if not isinstance(track, Track):
        raise ConfigError(f"track {name!r} is not a scir.tracks.Track")
    _cache[name] = track
    return track
