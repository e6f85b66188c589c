"""The ``Task`` record and its JSONL files (schema in ``docs/formats.md``).

One JSON object per line. Reading validates every record once, at this boundary: the generic
fields here (``task_id`` against :data:`TASK_ID_PATTERN`, types, ranges), then the ``check``
the reader is given -- the track's own shapes (``Track.validate_formal``: answer, answer pool,
options, formal object), which :mod:`scir.tracks.reading` supplies (its ``read_tasks``,
``iter_tasks`` and ``task_from_dict`` are the readers the toolkit uses). The first problem is a
:class:`TaskFormatError` naming the file, line, task and field. The lines come from
:func:`scir.jsonl.json_lines`, which no file can knock over (regular files only, bounded lines
and nesting, every OS, decoding and value error translated). Writing is atomic (a temporary
file renamed into place), so an interrupted write never loses a file that was already there.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from scir.errors import TaskFormatError
from scir.jsonl import json_lines, shown

SCHEMA_VERSION = 2
# versions this toolkit reads; version 1 records had no chance_constrained (read as chance)
READABLE_VERSIONS = (1, 2)
DIFFICULTIES = ("easy", "hard", "custom")

# A task id is also a file name in exports: ASCII letters, digits, ``_``, ``-`` and ``.``, first
# a letter, digit or ``_`` (no leading dot or dash), at most TASK_ID_MAX characters; hence no
# path separator, no ``..`` component, no NUL or other control character, no newline.
TASK_ID_MAX = 200
TASK_ID_PATTERN = re.compile(rf"[A-Za-z0-9_][A-Za-z0-9_.-]{{0,{TASK_ID_MAX - 1}}}")
MAX_MESSAGE_CHARS = 400  # a track checker's message, as printed


@dataclass
class Document:
    """One rendered document: the genre it was written in and its text."""

    genre: str
    text: str


@dataclass
class Task:
    """One benchmark task; see ``docs/formats.md`` for every field."""

    task_id: str
    domain: str
    difficulty: str
    tier: str
    seed: int
    params: dict[str, Any]
    question: str
    answer: str
    answer_pool: list[str]
    chance: float
    formal: dict[str, Any]
    blocks: list[str]
    options: list[str] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    problem_nl: str = ""
    problem_obfuscated: str = ""
    # the control presentation (``ctl``, docs/rendering.md): the same blocks in plain
    # non-scientific genres; written to the file only when rendered
    documents_control: list[Document] = field(default_factory=list)
    problem_control: str = ""
    domain_metadata: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    # the chance of a random answer among those the question allows (e.g. induction: the
    # same-category pairs); None means the same as ``chance``
    chance_constrained: float | None = None
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.chance_constrained is None:
            self.chance_constrained = float(self.chance)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict, fields in schema order."""
        out: dict[str, Any] = {"schema_version": self.schema_version}
        for f in dataclasses.fields(self):
            if f.name == "schema_version":
                continue
            value = getattr(self, f.name)
            if f.name in _OPTIONAL and not value:
                continue
            if f.name in ("documents", "documents_control"):
                value = [{"genre": d.genre, "text": d.text} for d in value]
            elif f.name in ("chance", "chance_constrained"):
                value = float(value)  # 1 and 1.0 must give the same bytes after a re-read
            out[f.name] = value
        return out

    def to_json(self) -> str:
        """One JSONL line (no newline): deterministic for equal records."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(
        cls,
        data: Any,
        *,
        file: str | None = None,
        line: int | None = None,
        check: TaskCheck | None = None,
    ) -> Task:
        """Build a task from a parsed JSON object, validating every generic field, then with
        ``check`` (e.g. :func:`scir.tracks.reading.check_with_track`; None: none)."""
        task = _validate(data, file=file, line=line)
        if check is not None:
            check(task, file=file, line=line)
        return task


class TaskCheck(Protocol):
    """A check of a record beyond its generic fields (its track's shapes): a TaskFormatError
    naming ``file``, ``line``, the task and the field when it fails."""

    def __call__(self, task: Task, *, file: str | None, line: int | None) -> None: ...


# fields left out of a task's JSON when empty (files without them read as before)
_OPTIONAL = frozenset({"documents_control", "problem_control"})

# field name -> (accepted python types, required)
_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "schema_version": ((int,), True),
    "task_id": ((str,), True),
    "domain": ((str,), True),
    "difficulty": ((str,), True),
    "tier": ((str,), True),
    "seed": ((int,), True),
    "params": ((dict,), True),
    "question": ((str,), True),
    "options": ((list,), False),
    "answer": ((str,), True),
    "answer_pool": ((list,), True),
    "chance": ((float, int), True),
    "chance_constrained": ((float, int), False),
    "formal": ((dict,), True),
    "blocks": ((list,), True),
    "documents": ((list,), False),
    "problem_nl": ((str,), False),
    "problem_obfuscated": ((str,), False),
    "documents_control": ((list,), False),
    "problem_control": ((str,), False),
    "domain_metadata": ((dict,), False),
    "provenance": ((dict,), False),
}


def is_safe_task_id(value: Any) -> bool:
    """Whether ``value`` is a task id that may name a file (:data:`TASK_ID_PATTERN`)."""
    return isinstance(value, str) and TASK_ID_PATTERN.fullmatch(value) is not None


def safe_id(value: Any) -> str | None:
    """``value`` when it is a safe task id, else None: what an error may name as its task."""
    return value if is_safe_task_id(value) else None


def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters: safe to put in a one-line message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + "...'"


def _in_unit_interval(value: int | float) -> bool:
    try:
        return 0.0 <= float(value) <= 1.0
    except OverflowError:  # an integer too large for a float
        return False


def _validate(data: Any, *, file: str | None, line: int | None) -> Task:
    def fail(message: str, fld: str | None = None, task_id: str | None = None) -> TaskFormatError:
        return TaskFormatError(message, file=file, line=line, field=fld, task_id=task_id)

    if not isinstance(data, dict):
        raise fail(f"expected a JSON object, got {type(data).__name__}")
    raw_id = data.get("task_id")
    # an id is named in messages only once it is known to be safe to print (one line, short)
    task_id = raw_id if is_safe_task_id(raw_id) else None
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise fail(f"unknown field(s): {', '.join(unknown)}", unknown[0], task_id)
    for name, (types, required) in _FIELDS.items():
        if name not in data:
            if required:
                raise fail("missing required field", name, task_id)
            continue
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, types):
            want = " or ".join(t.__name__ for t in types)
            raise fail(f"expected {want}, got {type(value).__name__}", name, task_id)
    if task_id is None:
        raise fail(
            f"task_id {shorten(raw_id)} is not a safe id: 1 to {TASK_ID_MAX} ASCII "
            "letters, digits, '_', '-' or '.', not starting with '.' or '-' (it names "
            "export files)",
            "task_id",
        )
    if data["schema_version"] not in READABLE_VERSIONS:
        raise fail(
            f"schema version {data['schema_version']} is not supported "
            f"(this toolkit reads versions {', '.join(map(str, READABLE_VERSIONS))})",
            "schema_version",
            task_id,
        )
    if data["schema_version"] == 1 and "chance_constrained" in data:
        raise fail("schema version 1 has no chance_constrained", "chance_constrained", task_id)
    if data["difficulty"] not in DIFFICULTIES:
        raise fail(f"difficulty must be one of {', '.join(DIFFICULTIES)}", "difficulty", task_id)
    for name in ("options", "answer_pool", "blocks"):
        if not all(isinstance(v, str) for v in data.get(name, [])):
            raise fail("expected a list of strings", name, task_id)
    for name in ("chance", "chance_constrained"):
        if name in data and not _in_unit_interval(data[name]):
            raise fail(f"{name} must lie in [0, 1]", name, task_id)
    docs: dict[str, list[Document]] = {"documents": [], "documents_control": []}
    for name, found in docs.items():
        for i, doc in enumerate(data.get(name, [])):
            if (
                not isinstance(doc, dict)
                or set(doc) != {"genre", "text"}
                or not all(isinstance(v, str) for v in doc.values())
            ):
                raise fail(
                    f"document {i} must be an object with string fields genre and text",
                    name,
                    task_id,
                )
            found.append(Document(doc["genre"], doc["text"]))
    kwargs = {k: v for k, v in data.items() if k not in ("schema_version", *docs)}
    kwargs["chance"] = float(kwargs["chance"])
    if "chance_constrained" in kwargs:
        kwargs["chance_constrained"] = float(kwargs["chance_constrained"])
    return Task(documents=docs["documents"], documents_control=docs["documents_control"], **kwargs)


def _numbered(path: Path, check: TaskCheck | None) -> Iterator[tuple[int, Task]]:
    """(line number, task) for every non-blank line of a JSONL file."""
    for number, data, name in json_lines(path):
        try:
            task = Task.from_dict(data, file=name, line=number, check=check)
        except RecursionError as exc:  # a track's checker on a pathological value
            raise TaskFormatError(
                "record too deeply nested to check", file=name, line=number
            ) from exc
        yield number, task


def iter_tasks(path: str | os.PathLike, check: TaskCheck | None) -> Iterator[Task]:
    """Yield the tasks of a JSONL file one by one (blank lines are skipped), each checked with
    ``check`` (None: the generic fields only)."""
    for _, task in _numbered(Path(path), check):
        yield task


def read_tasks(path: str | os.PathLike, check: TaskCheck | None) -> list[Task]:
    """All tasks of a JSONL file, each checked with ``check`` (None: the generic fields only);
    task ids must be unique (a repeat names both lines)."""
    tasks: list[Task] = []
    first_line: dict[str, int] = {}
    for number, task in _numbered(Path(path), check):
        if task.task_id in first_line:
            raise TaskFormatError(
                f"duplicate task_id (first on line {first_line[task.task_id]})",
                file=shown(Path(path)),
                line=number,
                task_id=task.task_id,
                field="task_id",
            )
        first_line[task.task_id] = number
        tasks.append(task)
    return tasks


def _new_file_mode() -> int:
    """The permission bits a plain ``open(path, "w")`` would give a new file (0o666 & ~umask)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_tasks(path: str | os.PathLike, tasks: Iterable[Task]) -> int:
    """Write tasks as JSONL atomically; returns the number written.

    The tasks go to a temporary file in the same folder, which replaces ``path`` only once
    every task is written: if ``tasks`` raises midway, an existing file is left untouched. A
    task whose id the reader would refuse (:data:`TASK_ID_PATTERN`) is a TaskFormatError, so
    no file is written that cannot be read back.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for task in tasks:
                if not is_safe_task_id(task.task_id):
                    raise TaskFormatError(
                        f"task_id {shorten(task.task_id)} is not a safe id",
                        file=str(path),
                        field="task_id",
                    )
                handle.write(task.to_json() + "\n")
                count += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)  # mkstemp creates 0600; keep the mode a plain write would give
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count
