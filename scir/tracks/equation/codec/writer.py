"""Equation documents: the context document (field, inputs in column order, output, as
sentences of the genre file's phrase banks) and the data document (the printed training rows
in the data genre's format: ``csv`` or ``markdown`` tables printed in parts with the header
repeated, or ``narrative``: one sentence per run naming every value). Every value keeps its
printed digits (:func:`numeric.printed`); rows keep their order and are numbered from 1.

Deeper obfuscation (issue 29), each a named technique taking its register's phrase bank:

* **column codes** (:func:`column_codes`): in ``CODE_SHARE`` of the tasks the data document
  names every variable by a code (``ch17``, ``V4``: ``phrases.column_codes.pattern``) that
  only the context document's key explains ("Column codes used in the data table: V4 = t;
  V9 = A; V2 = dA_dt.") -- reading the data needs the other document;
* **scaled column** (:func:`scaled`): in ``SCALE_SHARE`` of the tasks one column is printed
  in a unit 10, 100 or 1000 times smaller, its digits shifted exactly, under a sentence
  stating the conversion (``phrases.scaled_column``: "Values of A are recorded multiplied by
  1000; divide by 1000 to convert to the stated unit.");
* **distractors** (:func:`distractors`): one or two sentences in the context document naming
  two of the variables and stating nothing about the data ("Earlier campaigns recorded t and
  dP_dt at a different site.", ``phrases.distractors``).
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, dressed_draft, fill_slots, table_parts
from scir.text.genres import Genre, GenreSet
from scir.tracks.equation.numeric import printed
from scir.tracks.equation.templates import described

CHUNK = 8  # rows per printed part of a csv or markdown table
CODE_SHARE = 0.5  # data documents naming the variables by column codes
SCALE_SHARE = 0.5  # data documents printing one column in a scaled unit
FACTORS = (10, 100, 1000)  # the scaled column's factors
DISTRACTORS = (1, 2)  # distractor sentences in the context document (min, max)


def column_codes(columns: list[str], pattern: str, rng: random.Random) -> dict[str, str]:
    """A distinct code from ``pattern`` (a ``{n}`` slot: ``V{n}``) for every column, never a
    column's own name (variable -> code)."""
    numbers = rng.sample(range(1, 100), len(columns) + 10)
    codes = [c for c in (pattern.format(n=n) for n in numbers) if c not in columns]
    return dict(zip(columns, codes))


def code_key(codes: dict[str, str], bank: dict[str, Any], rng: random.Random) -> str:
    """The key sentence defining ``codes`` (``phrases.column_codes``), entries shuffled."""
    entries = [bank["entry"].format(code=code, name=name) for name, code in codes.items()]
    rng.shuffle(entries)
    return rng.choice(bank["key"]).format(key=bank["sep"].join(entries))


def distractors(
    templates: list[str], names: list[str], count: int, rng: random.Random
) -> list[str]:
    """``count`` sentences of ``templates`` (slots ``{a}``, ``{b}``) over ordered pairs of
    distinct variables of ``names`` (none without templates or with one variable)."""
    pairs = [(a, b) for a in names for b in names if a != b]
    if not templates or not pairs:
        return []
    return [
        rng.choice(templates).format(a=a, b=b) for a, b in (rng.choice(pairs) for _ in range(count))
    ]


def scaled(text: str, factor: int) -> str:
    """A printed value multiplied by ``factor`` (10, 100, 1000) by shifting its digits,
    exactly, without an exponent: ``0.6811`` x 1000 -> ``681.1``."""
    return format(Decimal(text).scaleb(len(str(factor)) - 1), "f")


def unscaled(text: str, factor: int) -> float:
    """The value of a :func:`scaled` text in the stated unit (exactly the printed value)."""
    return float(Decimal(text).scaleb(1 - len(str(factor))))


def slot_values(task: Task) -> dict[str, str]:
    """No task-specific filler slots."""
    return {}


def description(science: str, name: str, output: bool, given: dict[str, str] | None = None) -> str:
    """A variable's meaning with its unit, as the documents print it (``given``: the
    descriptions an imported problem's source states)."""
    d = described(science, name, output, given)
    return f"{d.description} ({d.unit})" if d.unit else d.description


def _wrap(genre: Genre, wrapper: str, text: str, rng: random.Random, gset: GenreSet) -> str:
    return fill_slots(wrapper, rng, gset.slots, {"text": text, "k": "1"})


def _context(
    first: dict[str, Any],
    genre: Genre,
    gset: GenreSet,
    rng: random.Random,
    key: str | None,
    extra: list[str],
) -> Draft:
    ph = gset.phrases
    wrapper = rng.choice(genre.items)
    science = first["science"]
    given = first.get("descriptions") or {}
    items = [rng.choice(ph["science"]).format(science=science)]
    items += [
        rng.choice(ph["input"]).format(name=n, description=description(science, n, False, given))
        for n in first["inputs"]
    ]
    items.append(
        rng.choice(ph["output"]).format(
            name=first["output"], description=description(science, first["output"], True, given)
        )
    )
    for text in ([key] if key is not None else []) + extra:  # somewhere after the field
        items.insert(rng.randint(1, len(items)), text)
    items = [_wrap(genre, wrapper, t, rng, gset) for t in items]
    section = Section(
        genre.headings[0], items, genre.layout, rng.randrange(2**31), open_start=False
    )
    return dressed_draft(genre, gset, [section], rng)


def _data(
    second: dict[str, Any],
    genre: Genre,
    gset: GenreSet,
    rng: random.Random,
    codes: dict[str, str],
    scale: tuple[int, int] | None,
) -> Draft:
    fmt = genre.option("table_format")
    columns, rows = second["columns"], second["rows"]
    shown = [codes.get(c, c) for c in columns]
    cells = [[printed(v) for v in r] for r in rows]
    heading = genre.headings[-1]
    if scale is not None:
        j, factor = scale
        cells = [[scaled(c, factor) if k == j else c for k, c in enumerate(r)] for r in cells]
        note = rng.choice(gset.phrases["scaled_column"]).format(name=shown[j], factor=factor)
        heading = f"{heading}\n{note}"
    if fmt in ("csv", "markdown"):
        section = Section(
            heading,
            table_parts("Row", shown, cells, fmt, CHUNK),
            "blocks",
            rng.randrange(2**31),
            open_start=False,
        )
    else:
        ph = gset.phrases
        row_template, pair = rng.choice(ph["rows"]), rng.choice(ph["values"])
        items = [
            row_template.format(
                i=k,
                values=", ".join(pair.format(name=c, value=v) for c, v in zip(shown, r)),
            )
            for k, r in enumerate(cells, start=1)
        ]
        wrapper = rng.choice(genre.items)
        items = [_wrap(genre, wrapper, t, rng, gset) for t in items]
        section = Section(
            f"{heading}\n{rng.choice(ph['data_intro'])}",
            items,
            genre.layout,
            rng.randrange(2**31),
            open_start=False,
        )
    return dressed_draft(genre, gset, [section], rng)


def drafts(
    task: Task,
    contents: list[dict[str, Any]],
    genres: list[Genre],
    gset: GenreSet,
    rng: random.Random,
) -> tuple[list[Draft], dict[str, Any]]:
    """The context draft and the data draft (with the column codes defined in the context
    draft, the scaled column and the distractors, when drawn)."""
    first, second = contents
    columns = list(second["columns"])
    bank: dict[str, Any] = gset.phrases.get("column_codes") or {}
    codes = (
        column_codes(columns, rng.choice(bank["pattern"]), rng)
        if bank and rng.random() < CODE_SHARE
        else {}
    )
    scale = None
    if gset.phrases.get("scaled_column") and rng.random() < SCALE_SHARE:
        scale = (rng.randrange(len(columns)), rng.choice(FACTORS))
    key = code_key(codes, bank, rng) if codes else None
    extra = distractors(
        gset.phrases.get("distractors") or [], columns, rng.randint(*DISTRACTORS), rng
    )
    return (
        [
            _context(first, genres[0], gset, rng, key, extra),
            _data(second, genres[1], gset, rng, codes, scale),
        ],
        {
            "table_format": genres[1].option("table_format"),
            "column_codes": bool(codes),
            "distractors": len(extra),
            "scaled_column": None
            if scale is None
            else {"column": columns[scale[0]], "factor": scale[1]},
        },
    )
