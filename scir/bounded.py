"""Untrusted files read within bounds: JSON, TOML and folder trees that cannot knock a reader
over.

- :func:`open_regular` opens a regular file without ever blocking (FIFOs, devices, sockets and
  folders are refused after a ``stat`` and again on the open descriptor);
  :func:`read_text` reads one of at most ``limit`` bytes as UTF-8;
- :func:`parse_json` and :func:`parse_toml` parse text whose containers nest at most
  ``max_depth`` deep (checked without recursion; the parser's own RecursionError, an integer
  of more than 4300 digits, ``NaN`` / ``Infinity`` in JSON and memory errors are refused);
- :func:`walk_folders` lists a folder tree without recursion and without following links,
  refusing a tree deeper than ``max_depth`` levels.

Every failure is one error of the caller's class (a :class:`scir.errors.ScirError`) naming the
file. :mod:`scir.jsonl` reads task files with the same pieces.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import IO, Any

from scir.errors import ConfigError, ScirError

MAX_DEPTH = 64  # nesting of one JSON / TOML value
MAX_FOLDER_DEPTH = 64  # folders below the root of a walked tree

_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def shown(path: str | os.PathLike) -> str:
    """The path as errors name it: as is, or escaped when it holds a control character (a
    newline or NUL in a file name must not break the one-line message)."""
    text = str(path)
    return text if text.isprintable() else ascii(text)


def _refuse_irregular(mode: int, name: str, error: type[ScirError], what: str) -> None:
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _NOT_REGULAR if test(mode)), "not a regular file")
        raise error(f"cannot read {what}: it is {kind}, not a regular file", file=name)


def open_regular(
    path: str | os.PathLike, error: type[ScirError] = ConfigError, what: str = "the file"
) -> IO[bytes]:
    """Open a regular file for reading without ever blocking: stat first (FIFOs and devices
    are refused before they are opened), open with O_NONBLOCK, and check again on the open
    descriptor (the path may have been swapped in between). ``error`` (naming ``what``) for
    anything else."""
    name = shown(path)
    try:
        _refuse_irregular(os.stat(path).st_mode, name, error, what)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", file=name) from exc
    except ValueError as exc:  # e.g. a NUL in the path
        raise error(f"cannot read {what}: {exc}", file=name) from exc
    try:
        _refuse_irregular(os.fstat(fd).st_mode, name, error, what)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(
    path: str | os.PathLike,
    limit: int,
    error: type[ScirError] = ConfigError,
    what: str = "the file",
) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (``error`` otherwise)."""
    name = shown(path)
    with open_regular(path, error, what) as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read {what}: {exc.strerror or exc}", file=name) from exc
    if len(raw) > limit:
        raise error(f"{what} is larger than {limit} bytes", file=name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{what} is not UTF-8 text: invalid byte at {exc.start + 1}", file=name
        ) from exc


def too_deep(value: Any, limit: int) -> bool:
    """Whether JSON-like data (dicts and lists) nests deeper than ``limit`` containers
    (checked without recursion)."""
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _value_error(exc: ValueError) -> str:
    text = str(exc).split(";")[0]
    return "an integer of more than 4300 digits" if "integer string conversion" in text else text


def parse_json(
    text: str,
    *,
    file: str | None = None,
    error: type[ScirError] = ConfigError,
    max_depth: int = MAX_DEPTH,
    what: str = "JSON",
) -> Any:
    """The JSON value of ``text``, nesting at most ``max_depth`` deep (``error`` naming
    ``file`` otherwise)."""
    deep = f"{what} nested more than {max_depth} levels deep"
    try:
        data = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise error(
            f"invalid {what}: {exc.msg}", file=file, line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise error(deep, file=file) from None
    except ValueError as exc:  # NaN / Infinity, an integer of over 4300 digits
        raise error(f"invalid {what}: {_value_error(exc)}", file=file) from None
    except MemoryError:
        raise error(f"out of memory while parsing {what}", file=file) from None
    if too_deep(data, max_depth):
        raise error(deep, file=file)
    return data


def parse_toml(
    text: str,
    *,
    file: str | None = None,
    error: type[ScirError] = ConfigError,
    max_depth: int = MAX_DEPTH,
) -> dict[str, Any]:
    """The TOML document of ``text``, nesting at most ``max_depth`` deep (``error`` naming
    ``file`` otherwise)."""
    deep = f"TOML nested more than {max_depth} levels deep"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"not a valid TOML file: {exc}", file=file) from None
    except RecursionError:
        raise error(deep, file=file) from None
    except ValueError as exc:  # an integer of over 4300 digits
        raise error(f"not a valid TOML file: {_value_error(exc)}", file=file) from None
    except MemoryError:
        raise error("out of memory while parsing TOML", file=file) from None
    if too_deep(data, max_depth):
        raise error(deep, file=file)
    return data


def walk_folders(
    root: Path, max_depth: int = MAX_FOLDER_DEPTH, error: type[ScirError] = ConfigError
) -> list[tuple[Path, list[str]]]:
    """(folder, names of its other entries: files and links) for ``root`` and every folder
    below it, depth first in name order, without recursion and without following symbolic
    links (as :func:`os.walk` with ``followlinks=False``, which recurses); a folder more than
    ``max_depth`` levels below ``root`` is ``error`` naming it. Folders that cannot be listed
    are left out (as :func:`os.walk` does)."""
    found: list[tuple[Path, list[str]]] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        files, subfolders = [], []
        for entry in entries:
            try:
                folder_entry = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            (subfolders.append(Path(entry.path)) if folder_entry else files.append(entry.name))
        found.append((folder, files))
        if subfolders and depth + 1 > max_depth:
            raise error(
                f"folders nested more than {max_depth} levels deep below {shown(root)}",
                file=shown(subfolders[0]),
            )
        stack.extend((s, depth + 1) for s in reversed(subfolders))
    return found
