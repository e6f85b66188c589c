"""Outputs that stay inside their folder and appear only when complete (every export uses it).

- :func:`contained` builds a path inside an output folder from a validated task id (or another
  name) and refuses anything that would resolve outside it: an absolute name, ``..``, a path
  separator, a NUL, a symbolic link leading out.
- :func:`staged` gives a temporary folder (or file) next to the output; everything is written
  there and moved into place only when the whole export succeeded. An export that fails
  half-way leaves nothing new behind and does not touch an existing output.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from scir.errors import ConfigError, TaskFormatError
from scir.tasks import shorten

# a file name an export may create: a task id's characters (``scir.tasks.TASK_ID_PATTERN``)
# and length up to the file-system limit, as ids get suffixes (``<id>.negated.in``)
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")


def contained(root: str | os.PathLike, *parts: str, task_id: str | None = None) -> Path:
    """``root/part/...``, checked to lie inside ``root`` once resolved.

    Each part must be a single file name (:data:`FILE_NAME`: no separator, no leading dot, no
    control character); the resolved path (symbolic links
    followed) must stay under the resolved ``root``. Raises TaskFormatError otherwise."""
    base = Path(root).resolve()
    for part in parts:
        if not isinstance(part, str) or FILE_NAME.fullmatch(part) is None:
            raise TaskFormatError(f"{shorten(part)} cannot name an export file", task_id=task_id,
                                  field="task_id")
    path = base.joinpath(*parts)
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:
        raise TaskFormatError(f"{shorten(str(path))} would be written outside {base}",
                              task_id=task_id, field="task_id")
    return path


def _merge(stage: Path, out: Path) -> None:
    """Move every file of ``stage`` into ``out`` (an existing folder), keeping sub-folders;
    each destination is checked to stay inside ``out`` (a link in ``out`` must not lead out)."""
    base = out.resolve()
    for source in sorted(p for p in stage.rglob("*") if not p.is_dir()):
        relative = source.relative_to(stage)
        target = base.joinpath(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        parent = target.parent.resolve()
        if parent != base and base not in parent.parents:
            raise TaskFormatError(f"{relative} would be written outside {base} (through a "
                                  "symbolic link in the output folder)", field="output")
        os.replace(source, parent / target.name)


@contextmanager
def staged(out: str | os.PathLike, *, folder: bool = True) -> Iterator[Path]:
    """A temporary folder (``folder=True``) or file path next to ``out`` to write into.

    On success a folder is renamed to ``out`` when ``out`` does not exist yet, or merged into
    the existing folder file by file (files of the same name are replaced, others kept); a file
    replaces ``out`` atomically. On any exception the temporary is removed and ``out`` is
    untouched."""
    out = Path(out)
    if folder and out.exists() and not out.is_dir():
        raise ConfigError(f"{out} exists and is not a folder", field="output")
    if not folder and out.is_dir():
        raise ConfigError(f"{out} is a folder; this format writes one file", field="output")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    umask = os.umask(0o022)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp gives 0700; the folder becomes the output
    try:
        if folder:
            yield tmp
            if out.is_dir():
                _merge(tmp, out)
            else:
                os.replace(tmp, out)
        else:
            target = tmp / out.name
            yield target
            os.replace(target, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
