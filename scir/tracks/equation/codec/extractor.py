"""Reference extractor for equation documents: recovers the context block (field, inputs in
order, output) and the data block (every printed row, in order, every value digit for digit)
from the text alone, with the genre file's own templates.

Variable names are free identifiers in the context document; the data document is read with
the names the context document declared (columns: the inputs, then the output), or with the
column codes its key defines (``phrases.column_codes``); a column announced as scaled
(``phrases.scaled_column``) is shifted back digit for digit.
"""

from __future__ import annotations

import re
from typing import Any

from scir.errors import VerificationError
from scir.tasks import Task
from scir.text.genres import GenreSet
from scir.text.patterns import alternation, compile_template, find_all
from scir.tracks.equation.codec.writer import FACTORS, unscaled
from scir.tracks.equation.formal import SCIENCES

NAME = r"[A-Za-z_][A-Za-z0-9_]{0,39}"
NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?"
DESCRIPTION = r"[^\n]*?"


def _fail(task: Task, message: str) -> VerificationError:
    return VerificationError(message, task_id=task.task_id)


def _context(task: Task, text: str, gset: GenreSet) -> dict[str, Any]:
    ph = gset.phrases
    science = find_all(ph["science"], {"science": alternation(SCIENCES)}, text)
    if len(science) != 1:
        raise _fail(task, f"expected one statement of the field, found {len(science)}")
    slots = {"name": NAME, "description": DESCRIPTION}
    inputs = [m.group("name") for m in find_all(ph["input"], slots, text)]
    outputs = [m.group("name") for m in find_all(ph["output"], slots, text)]
    if len(outputs) != 1 or not inputs:
        raise _fail(
            task,
            f"expected inputs and one output, found {len(inputs)} inputs and "
            f"{len(outputs)} outputs",
        )
    return {"science": science[0].group("science"), "inputs": inputs, "output": outputs[0]}


def _codes(task: Task, text: str, gset: GenreSet, columns: list[str]) -> dict[str, str]:
    """The column codes the context document's key defines (variable -> code; empty without
    a key); VerificationError unless the key codes every column once."""
    bank: dict[str, Any] = gset.phrases.get("column_codes") or {}
    keys = find_all(bank["key"], {"key": r"[^\n]*?"}, text) if bank else []
    if not keys:
        return {}
    if len(keys) > 1:
        raise _fail(task, f"expected one key of column codes, found {len(keys)}")
    entry = compile_template(bank["entry"], {"code": NAME, "name": NAME}, anchored=False)
    pairs = [(m.group("name"), m.group("code")) for m in entry.finditer(keys[0].group("key"))]
    codes = dict(pairs)
    if sorted(codes) != sorted(columns) or len(set(codes.values())) != len(pairs):
        raise _fail(task, f"the column codes {pairs} do not code the variables {columns} once")
    return codes


def _scale(task: Task, text: str, gset: GenreSet, shown: list[str]) -> dict[str, int]:
    """The scaled column announced in the data document (shown name -> factor)."""
    slots = {"name": alternation(shown), "factor": "|".join(str(f) for f in FACTORS)}
    found = find_all(gset.phrases.get("scaled_column") or [], slots, text)
    if len(found) > 1:
        raise _fail(task, f"expected at most one scaled column, found {len(found)}")
    return {m.group("name"): int(m.group("factor")) for m in found}


def _table(task: Task, text: str, fmt: str, columns: list[str]) -> list[tuple[int, list[str]]]:
    if fmt == "csv":
        head = "row," + ",".join(columns)
        row = re.compile(r"^([0-9]+),(" + NUMBER + r"(?:," + NUMBER + r")*)$", re.M)
        split = ","
    else:
        head = "| Row | " + " | ".join(columns) + " |"
        row = re.compile(r"^\| ([0-9]+) \| (" + NUMBER + r"(?: \| " + NUMBER + r")*) \|$", re.M)
        split = " | "
    if head not in text.splitlines():
        raise _fail(task, f"the {fmt} table header {head!r} is missing")
    found = []
    for m in row.finditer(text):
        values = m.group(2).split(split)
        if len(values) != len(columns):
            raise _fail(task, f"a {fmt} row does not match its header: {m.group(0)!r}")
        found.append((int(m.group(1)), values))
    return found


def _narrative(
    task: Task, text: str, gset: GenreSet, columns: list[str]
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    ph = gset.phrases
    name = alternation(columns)
    pair = (
        "(?:"
        + "|".join(
            re.escape(p).replace(r"\{name\}", name).replace(r"\{value\}", NUMBER)
            for p in ph["values"]
        )
        + ")"
    )
    slots = {"i": "[0-9]+", "values": f"{pair}(?:, {pair})*"}
    found, names = [], None
    for m in find_all(ph["rows"], slots, text):
        cells = re.findall("(" + name + r")(?: = | was )(" + NUMBER + ")", m.group("values"))
        seen = [c for c, _ in cells]
        if names is None:
            names = seen
        if seen != names:
            raise _fail(task, "the runs name different variables")
        found.append((int(m.group("i")), [v for _, v in cells]))
    return names or [], found


def _data(
    task: Task, text: str, fmt: str, gset: GenreSet, columns: list[str], codes: dict[str, str]
) -> dict[str, Any]:
    shown = [codes.get(c, c) for c in columns]
    if fmt in ("csv", "markdown"):
        rows = _table(task, text, fmt, shown)
    else:
        named, rows = _narrative(task, text, gset, shown)
        if named != shown:
            raise _fail(task, f"the runs name {named}, the variables are {shown}")
    if [i for i, _ in rows] != list(range(1, len(rows) + 1)):
        raise _fail(task, "the rows are not numbered 1..n in order")
    if not rows:
        raise _fail(task, "no data rows found")
    scale = _scale(task, text, gset, shown)
    factors = [scale.get(c) for c in shown]
    return {
        "columns": list(columns),
        "rows": [
            [float(v) if f is None else unscaled(v, f) for v, f in zip(r, factors)] for _, r in rows
        ],
    }


def extract(task: Task, gset: GenreSet) -> list[dict[str, Any]]:
    """``[context content, data content]`` from the two documents."""
    if len(task.documents) != 2:
        raise _fail(task, f"expected 2 documents, found {len(task.documents)}")
    context, data = task.documents
    first = _context(task, context.text, gset.for_genre(context.genre))
    columns = first["inputs"] + [first["output"]]
    codes = _codes(task, context.text, gset.for_genre(context.genre), columns)
    fmt = gset.genre(data.genre).option("table_format")
    second = _data(task, data.text, fmt, gset.for_genre(data.genre), columns, codes)
    return [first, second]
