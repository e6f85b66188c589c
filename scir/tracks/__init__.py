"""Track registry: finds tracks by name -- built-in ones, third-party ones registered under
the entry-point group ``scir.tracks`` (value: ``module:TrackClass``), and track files named
in the environment variable ``SCIR_TRACKS`` (``path/to/file.py:TrackClass``, several separated
by ``os.pathsep`` or a comma), which need no packaging."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from scir.errors import ConfigError
from scir.tracks.base import Check, Formalization, Track, TrackParam

if TYPE_CHECKING:
    from scir.tasks import Task

__all__ = ["Check", "Formalization", "Track", "TrackParam", "get_track", "track_names",
           "track_of", "register", "unregister"]

# built-in tracks: name -> "module:Class" (imported lazily)
BUILTIN: dict[str, str] = {
    "deduction": "scir.tracks.deduction:DeductionTrack",
    "induction": "scir.tracks.induction:InductionTrack",
    "causal": "scir.tracks.causal:CausalTrack",
}

ENTRY_POINT_GROUP = "scir.tracks"
ENV_VAR = "SCIR_TRACKS"
_extra: dict[str, Callable[[], Track]] = {}
_cache: dict[str, Track] = {}
_files: dict[str, dict[str, type[Track]]] = {}     # SCIR_TRACKS value -> name -> class


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


_FILE_ENTRY = re.compile(r"(?P<path>[^,]+?\.py):(?P<cls>[A-Za-z_][A-Za-z0-9_]*)"
                         rf"(?=$|,|{re.escape(os.pathsep)})")


def _file_entries(value: str) -> list[tuple[str, str, str]]:
    """``(entry, path, class name)`` of every ``PATH.py:Class`` entry of a SCIR_TRACKS value."""
    out, pos, seps = [], 0, ("," + os.pathsep)
    while pos < len(value):
        if value[pos] in seps or value[pos].isspace():
            pos += 1
            continue
        m = _FILE_ENTRY.match(value, pos)
        if m is None:
            rest = value[pos:].split(",")[0]
            raise ConfigError(f"{ENV_VAR} entry {rest!r} is not PATH.py:TrackClass (entries "
                              f"are separated by {os.pathsep!r} or ',')", field=ENV_VAR)
        out.append((m.group(0), m.group("path").strip(), m.group("cls")))
        pos = m.end()
    return out


def _load_file(entry: str, path_text: str, class_name: str) -> type[Track]:
    """The track class ``class_name`` of the Python file ``path_text``, imported as a module
    named after the file (its folder is appended to ``sys.path``, so it can import the
    files beside it)."""
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise ConfigError(f"{ENV_VAR} entry {entry!r}: no such file {str(path)!r}",
                          field=ENV_VAR)
    name = path.stem
    module = sys.modules.get(name)
    module_file = getattr(module, "__file__", None)
    if module is None or module_file is None or Path(module_file).resolve() != path:
        if module is not None:
            raise ConfigError(f"{ENV_VAR} entry {entry!r}: another module called {name!r} is "
                              f"already imported (from {module_file}); rename the file",
                              field=ENV_VAR)
        if str(path.parent) not in sys.path:
            sys.path.append(str(path.parent))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ConfigError(f"{ENV_VAR} entry {entry!r}: {str(path)!r} cannot be imported",
                              field=ENV_VAR)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # any error in a user's track file, translated once here
            del sys.modules[name]
            raise ConfigError(f"{ENV_VAR} entry {entry!r}: importing {str(path)!r} failed: "
                              f"{type(exc).__name__}: {exc}", field=ENV_VAR) from exc
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Track)):
        raise ConfigError(f"{ENV_VAR} entry {entry!r}: {str(path)!r} has no Track subclass "
                          f"{class_name!r}", field=ENV_VAR)
    if not cls.name:
        raise ConfigError(f"{ENV_VAR} entry {entry!r}: {class_name}.name is empty",
                          field=ENV_VAR)
    return cls


def _file_tracks() -> dict[str, type[Track]]:
    """The tracks named by ``SCIR_TRACKS`` (read once per value): name -> class."""
    value = os.environ.get(ENV_VAR, "")
    if value not in _files:
        found: dict[str, type[Track]] = {}
        for entry, path, class_name in _file_entries(value):
            cls = _load_file(entry, path, class_name)
            if cls.name in BUILTIN or found.get(cls.name, cls) is not cls:
                raise ConfigError(f"{ENV_VAR} entry {entry!r}: a track called {cls.name!r} "
                                  "is already known", field=ENV_VAR)
            found[cls.name] = cls
        _files[value] = found
    return _files[value]


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
            raise ConfigError(f"track {name!r} cannot be loaded from {target}: {exc}",
                              field="track") from exc
        return factory()
    ep = _entry_points().get(name)
    if ep is None:
        known = ", ".join(track_names()) or "none"
        raise ConfigError(f"unknown track {name!r} (known tracks: {known})", field="track")
    try:
        factory = ep.load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"track {name!r} cannot be loaded from entry point {ep.value} "
                          f"(group {ENTRY_POINT_GROUP}): {exc}", field="track") from exc
    return factory()


def get_track(name: str) -> Track:
    """The track registered as ``name`` (raises ConfigError naming the known ones)."""
    if name in _cache:
        return _cache[name]
    track = _load(name)
    if not isinstance(track, Track):
        raise ConfigError(f"track {name!r} is not a scir.tracks.Track "
                          f"(got {type(track).__name__})", field="track")
    if track.name != name:  # tasks name their track in Task.domain; both must agree
        raise ConfigError(f"track registered as {name!r} calls itself {track.name!r}",
                          field="track")
    _cache[name] = track
    return track


def track_of(task: "Task") -> Track:
    """The track of ``task`` (the one its ``domain`` names)."""
    return get_track(task.domain)
