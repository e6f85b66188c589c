"""Equation documents: the context document (field, inputs in column order, output, as
sentences of the genre file's phrase banks) and the data document (the printed training rows
in the data genre's format: ``csv`` or ``markdown`` tables printed in parts with the header
repeated, or ``narrative``: one sentence per run naming every value). Every value keeps its
printed digits (:func:`numeric.printed`); rows keep their order and are numbered from 1.
"""

from __future__ import annotations

import random
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, dressed_draft, fill_slots, table_parts
from scir.text.genres import Genre, GenreSet
from scir.tracks.equation.numeric import printed
from scir.tracks.equation.templates import described

CHUNK = 8  # rows per printed part of a csv or markdown table


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


def _context(first: dict[str, Any], genre: Genre, gset: GenreSet, rng: random.Random) -> Draft:
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
    items = [_wrap(genre, wrapper, t, rng, gset) for t in items]
    section = Section(
        genre.headings[0], items, genre.layout, rng.randrange(2**31), open_start=False
    )
    return dressed_draft(genre, gset, [section], rng)


def _data(second: dict[str, Any], genre: Genre, gset: GenreSet, rng: random.Random) -> Draft:
    fmt = genre.option("table_format")
    columns, rows = second["columns"], second["rows"]
    heading = genre.headings[-1]
    if fmt in ("csv", "markdown"):
        cells = [[printed(v) for v in r] for r in rows]
        section = Section(
            heading,
            table_parts("Row", columns, cells, fmt, CHUNK),
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
                values=", ".join(pair.format(name=c, value=printed(v)) for c, v in zip(columns, r)),
            )
            for k, r in enumerate(rows, start=1)
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
    """The context draft and the data draft."""
    first, second = contents
    return (
        [_context(first, genres[0], gset, rng), _data(second, genres[1], gset, rng)],
        {"table_format": genres[1].option("table_format")},
    )
