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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scir.errors import ConfigError, TaskFormatError
from scir.tasks import safe_id, shorten

# a file name an export may create: a task id's characters (``scir.tasks.TASK_ID_PATTERN``)
# and length up to the file-system limit, as ids get suffixes (``<id>.negated.in``)
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")


def contained(root: str | os.PathLike, *parts: str, task_id: str | None = None) -> Path:
    """``root/part/...``, checked to lie inside ``root`` once resolved.

    Each part must be a single file name (:data:`FILE_NAME`: no separator, no leading dot, no
    control character); the resolved path (symbolic links followed) must stay under the
    resolved ``root``. Raises TaskFormatError otherwise."""
    task_id = safe_id(task_id)  # an error names the task only when its id is printable
    base = Path(root).resolve()
    for part in parts:
        if not isinstance(part, str) or FILE_NAME.fullmatch(part) is None:
            raise TaskFormatError(
                f"{shorten(part)} cannot name an export file", task_id=task_id, field="task_id"
            )
    path = base.joinpath(*parts)
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:
        raise TaskFormatError(
            f"{shorten(str(path))} would be written outside {base}",
            task_id=task_id,
            field="task_id",
        )
    return path


def _merge(stage: Path, out: Path) -> None:
    """Move every file of ``stage`` into ``out`` (an existing folder), keeping sub-folders.

    Every destination is checked first (inside ``out`` once links are followed, not a folder),
    so a bad one stops the merge before anything is moved."""
    base = out.resolve()
    moves = []
    for source in sorted(p for p in stage.rglob("*") if not p.is_dir()):
        relative = source.relative_to(stage)
        parent = base.joinpath(relative).parent
        real = parent.resolve()
        if real != base and base not in real.parents:
            raise ConfigError(
                f"{relative} would be written outside the output folder "
                "(through a symbolic link in it)",
                file=str(out),
                field="output",
            )
        if (real / relative.name).is_dir():
            raise ConfigError(
                f"{relative} is a folder in the output folder", file=str(out), field="output"
            )
        moves.append((source, parent, real / relative.name))
    for source, parent, target in moves:
        parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)


@contextmanager
def staged(out: str | os.PathLike, *, folder: bool = True) -> Iterator[Path]:
    """A temporary folder (``folder=True``) or file path next to ``out`` to write into.

    On success a folder is renamed to ``out`` when ``out`` does not exist yet, or merged into
    the existing folder file by file (files of the same name are replaced, others kept); a file
    replaces ``out`` atomically. On any exception the temporary is removed and ``out`` is
    untouched."""
    out = Path(out)
    if folder and out.exists() and not out.is_dir():
        raise ConfigError("exists and is not a folder", file=str(out), field="output")
    if not folder and out.is_dir():
        raise ConfigError("is a folder; this format writes one file", file=str(out), field="output")
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
