"""Tracks loaded from files without packaging: the environment variable ``SCIR_TRACKS``
names ``PATH.py:TrackClass`` entries, separated by ``os.pathsep`` or a comma. Each file is
imported as a module named after it, and its folder is appended to ``sys.path`` so that it
can import the files beside it (e.g. its rendering codec). Every problem -- a malformed entry,
a missing file, a file that fails to import, a missing or wrong class, a name already taken --
is a ConfigError naming the entry (field ``SCIR_TRACKS``)."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

from scir.errors import ConfigError
from scir.tracks.base import Track

ENV_VAR = "SCIR_TRACKS"

_FILE_ENTRY = re.compile(
    r"(?P<path>[^,]+?\.py):(?P<cls>[A-Za-z_][A-Za-z0-9_]*)"
    rf"(?=$|,|{re.escape(os.pathsep)})"
)


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
            raise ConfigError(
                f"{ENV_VAR} entry {rest!r} is not PATH.py:TrackClass (entries "
                f"are separated by {os.pathsep!r} or ',')",
                field=ENV_VAR,
            )
        out.append((m.group(0), m.group("path").strip(), m.group("cls")))
        pos = m.end()
    return out


def _load_file(entry: str, path_text: str, class_name: str) -> type[Track]:
    """The track class ``class_name`` of the Python file ``path_text``, imported as a module
    named after the file (its folder is appended to ``sys.path``, so it can import the
    files beside it)."""
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise ConfigError(f"{ENV_VAR} entry {entry!r}: no such file {str(path)!r}", field=ENV_VAR)
    name = path.stem
    module = sys.modules.get(name)
    module_file = getattr(module, "__file__", None)
    if module is None or module_file is None or Path(module_file).resolve() != path:
        if module is not None:
            raise ConfigError(
                f"{ENV_VAR} entry {entry!r}: another module called {name!r} is "
                f"already imported (from {module_file}); rename the file",
                field=ENV_VAR,
            )
        if str(path.parent) not in sys.path:
            sys.path.append(str(path.parent))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ConfigError(
                f"{ENV_VAR} entry {entry!r}: {str(path)!r} cannot be imported", field=ENV_VAR
            )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # any error in a user's track file, translated once here
            del sys.modules[name]
            raise ConfigError(
                f"{ENV_VAR} entry {entry!r}: importing {str(path)!r} failed: "
                f"{type(exc).__name__}: {exc}",
                field=ENV_VAR,
            ) from exc
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Track)):
        raise ConfigError(
            f"{ENV_VAR} entry {entry!r}: {str(path)!r} has no Track subclass {class_name!r}",
            field=ENV_VAR,
        )
    if not cls.name:
        raise ConfigError(f"{ENV_VAR} entry {entry!r}: {class_name}.name is empty", field=ENV_VAR)
    return cls


def load_file_tracks(value: str, taken: set[str]) -> dict[str, type[Track]]:
    """The track classes named by a ``SCIR_TRACKS`` value, by track name (ConfigError naming
    the entry for a bad one, or for a name in ``taken`` or used twice)."""
    found: dict[str, type[Track]] = {}
    for entry, path, class_name in _file_entries(value):
        cls = _load_file(entry, path, class_name)
        if cls.name in taken or found.get(cls.name, cls) is not cls:
            raise ConfigError(
                f"{ENV_VAR} entry {entry!r}: a track called {cls.name!r} is already known",
                field=ENV_VAR,
            )
        found[cls.name] = cls
    return found
