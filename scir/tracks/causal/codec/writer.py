"""Causal documents: the network document (proteins, known edges, the new protein, the
conditions with labels) and the data document (one table per condition).

Cross-document references: the conditions get labels in the network genre's format
(``Arm B``, ``Condition C3``, ...); the data document heads each table with its label only, in
a shuffled order, so the intervention behind a table is found in the other document. Tables
are rewritten in the data genre's format with a shuffled column order (markdown, csv), as
per-protein series, or as one sentence per cell; every value keeps its printed digits.

Deeper obfuscation (issue 29), each a named technique taking its register's phrase bank:

* **edge table** (:func:`edge_table`): the known edges as a regulator/target table under a
  caption or figure legend instead of sentences (``phrases.edge_table``);
* **split edges** (:func:`edge_statement`): an edge spread over two sentences, one protein
  introduced in the first and its relation in the second (``phrases.edge_split_sentences``);
* **distractors** (:func:`edge_distractors`): sentences naming two proteins of the network
  that no known edge joins and stating nothing causal (``phrases.distractors``);
* **mixed units** (:func:`scaled_value`): in per-protein series, some proteins reported in
  tenths of the common unit under a label stating the conversion (``phrases.scaled_series``).
"""

from __future__ import annotations

import random
from typing import Any

from scir.tasks import Task
from scir.text.document import Draft, Section, dressed_draft, fill_slots, table_parts
from scir.text.genres import Genre, GenreSet
from scir.text.patterns import listing, number_word

DECIMALS = 2
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ANNOTATION_KINDS = ("well", "barcode", "seconds", "percent", "gate")
CHUNK = 8  # rows per printed part of a csv or markdown table
TABLE_SHARE = 0.4  # network documents giving their edges as a table
SPLIT_SHARE = 0.6  # other edges written over two sentences
DISTRACTORS = (1, 2)  # distractor sentences per network document

GATES = ("live singlets", "live singlets CD45+", "intact cells")  # default gate names


def slot_values(task: Task) -> dict[str, str]:
    """No task-specific filler slots."""
    return {}


def arm_label(template: str, index: int) -> str:
    """The label of condition ``index`` (0-based): ``{L}`` a letter, ``{n}`` a number."""
    return template.format(L=LETTERS[index % 26], n=index + 1)


def value(v: float) -> str:
    """A data value exactly as printed in the clean table."""
    return f"{v:.{DECIMALS}f}"


def scaled_value(printed: str) -> str:
    """A printed value (two decimals) in tenths of its unit, by moving the decimal point:
    ``2.11`` -> ``21.1``, ``0.05`` -> ``0.5`` (no digit is lost or rounded)."""
    sign, digits = ("-", printed[1:]) if printed.startswith("-") else ("", printed)
    whole, frac = digits.split(".")
    whole = (whole + frac[0]).lstrip("0") or "0"
    return f"{sign}{whole}.{frac[1:]}"


def unscaled_value(text: str) -> float:
    """The value of a :func:`scaled_value` (tenths) in the common unit."""
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, frac = digits.split(".")
    joined = (whole + frac).rjust(DECIMALS + 1, "0")
    return float(f"{sign}{joined[:-DECIMALS]}.{joined[-DECIMALS:]}")


def _wrap(genre: Genre, wrapper: str, text: str, rng: random.Random, gset: GenreSet) -> str:
    return fill_slots(wrapper, rng, gset.slots, {"text": text, "k": "1"})


def edge_statement(
    sentences: list[str], split: list[str], a: str, b: str, rng: random.Random
) -> tuple[str, bool]:
    """The edge ``a -> b`` in one sentence of ``sentences`` or, ``SPLIT_SHARE`` of the time,
    over the two sentences of a template of ``split``; and whether it was split."""
    is_split = bool(split) and rng.random() < SPLIT_SHARE
    return rng.choice(split if is_split else sentences).format(a=a, b=b), is_split


def edge_table(spec: dict[str, Any], edges: list[list[str]], rng: random.Random) -> str:
    """The edges as a table under a caption: ``spec`` has ``captions``, ``head`` and ``row``
    (slots ``{a}`` regulator, ``{b}`` target)."""
    rows = [spec["row"].format(a=a, b=b) for a, b in edges]
    return "\n".join([rng.choice(spec["captions"]), spec["head"], *rows])


def edge_distractors(
    templates: list[str], nodes: list[str], edges: list[list[str]], count: int, rng: random.Random
) -> list[str]:
    """``count`` sentences of ``templates`` naming two of ``nodes`` that no edge joins."""
    joined = {frozenset(e) for e in edges}
    pairs = [(a, b) for a in nodes for b in nodes if a != b and frozenset((a, b)) not in joined]
    if not templates or not pairs:
        return []
    return [
        rng.choice(templates).format(a=a, b=b) for a, b in (rng.choice(pairs) for _ in range(count))
    ]


def _network(
    first: dict[str, Any],
    labels: list[str],
    genre: Genre,
    gset: GenreSet,
    rng: random.Random,
    info: dict[str, Any],
) -> Draft:
    ph = gset.phrases
    wrapper = rng.choice(genre.items)
    new, conn = first["new_protein"], first["connections"]
    many = "one" if conn == 1 else "many"
    node_list = rng.choice(ph["node_lists"]).format(
        count=number_word(len(first["nodes"])), list=listing(first["nodes"])
    )
    edges = [list(e) for e in first["known_edges"]]
    rng.shuffle(edges)
    extra = edge_distractors(
        ph.get("distractors") or [], first["nodes"], edges, rng.randint(*DISTRACTORS), rng
    )
    table: dict[str, Any] = ph.get("edge_table") or {}
    split = ph.get("edge_split_sentences") or []
    in_table = bool(edges) and bool(table) and rng.random() < TABLE_SHARE
    if in_table:
        texts, splits = [edge_table(table, edges, rng)] + extra, 0
    else:
        stated = [edge_statement(ph["edge_sentences"], split, a, b, rng) for a, b in edges]
        texts, splits = [t for t, _ in stated], sum(s for _, s in stated)
        for text in extra:
            texts.insert(rng.randint(0, len(texts)), text)
    items = [
        text if in_table and k == 0 else _wrap(genre, wrapper, text, rng, gset)
        for k, text in enumerate(texts)
    ]
    lead = (
        node_list + "\n" + (rng.choice(ph["edges_intro"]) if edges else rng.choice(ph["no_edges"]))
    )
    tail = [
        rng.choice(ph["new_protein"][many]).format(new=new, conn=number_word(conn)),
        rng.choice(ph["closure"][many]).format(new=new),
    ]
    samples = first["samples"]
    uniform = len(set(samples)) == 1
    envs = first["environments"]
    if uniform:
        intro = rng.choice(ph["conditions_intro"]).format(
            count=number_word(len(envs)), cells=samples[0]
        )
    else:
        intro = rng.choice(ph["conditions_intro_varied"]).format(count=number_word(len(envs)))
    arms = []
    for label, env, n in zip(labels, envs, samples):
        text = rng.choice(ph["conditions"][env["kind"]]).format(
            targets=listing(env["targets"]) if env["targets"] else ""
        )
        note = "" if uniform else f" ({n} cells)"
        arms.append(_wrap(genre, wrapper, f"{label}: {text}{note}.", rng, gset))
    headings = list(genre.headings)  # network, conditions, data
    sections = [
        Section(
            f"{headings[0]}\n{lead}", items, genre.layout, rng.randrange(2**31), open_start=False
        ),
        Section(None, tail, "paragraphs", rng.randrange(2**31)),
        Section(f"{headings[1]}\n{intro}", arms, "lines", rng.randrange(2**31), open_start=False),
    ]
    info.update({"edge_table": in_table, "split_edges": splits, "distractors": len(extra)})
    return dressed_draft(genre, gset, sections, rng)


def annotation(kind: str, k: int, rng: random.Random, gates: tuple[str, ...] = GATES) -> str:
    """One value of an irrelevant annotation column for cell ``k`` (never two decimals;
    ``gates``: the register's gate names, ``phrases.annotation_values.gate``)."""
    if kind == "well":
        return f"{'ABCDEFGH'[(k - 1) // 12 % 8]}{(k - 1) % 12 + 1:02d}"
    if kind == "barcode":
        return f"BC-{rng.randrange(10000):04d}"
    if kind == "seconds":
        return f"{rng.uniform(5, 900):.1f}"
    if kind == "percent":
        return str(rng.randint(80, 99))
    return rng.choice(gates)


def gate_names(gset: GenreSet) -> tuple[str, ...]:
    """The gate names of ``gset``'s register (``phrases.annotation_values.gate``)."""
    return tuple((gset.phrases.get("annotation_values") or {}).get("gate") or GATES)


def _annotated(
    names: list[str], rows: list[list[str]], genre: Genre, gset: GenreSet, rng: random.Random
) -> tuple[list[str], list[list[str]]]:
    """Columns and rows with the genre's number of annotation columns inserted at random."""
    names, rows = list(names), [list(r) for r in rows]
    bank = list(gset.phrases["annotation_columns"])
    for col in rng.sample(bank, k=min(int(genre.option("annotations", 0)), len(bank))):
        at = rng.randint(0, len(names))
        names.insert(at, col["name"])
        for k, r in enumerate(rows, start=1):
            r.insert(at, annotation(col["kind"], k, rng, gate_names(gset)))
    return names, rows


def _table(
    env_rows: list[list[float]],
    columns: list[str],
    fmt: str,
    genre: Genre,
    gset: GenreSet,
    rng: random.Random,
) -> tuple[list[str], str]:
    """One condition's rows in the data genre's format: (items, section layout)."""
    order = list(range(len(columns)))
    rng.shuffle(order)
    names = [columns[i] for i in order]
    rows = [[value(r[i]) for i in order] for r in env_rows]
    if fmt in ("csv", "markdown", "series"):
        names, rows = _annotated(names, rows, genre, gset, rng)
    if fmt in ("csv", "markdown"):
        return table_parts("Cell", names, rows, fmt, CHUNK), "blocks"
    if fmt == "series":
        scaled = gset.phrases.get("scaled_series") or {}
        lines = []
        for j, name in enumerate(names):
            cells = [r[j] for r in rows]
            if scaled and name in columns and rng.random() < float(scaled["share"]):
                name = rng.choice(scaled["labels"]).format(node=name)
                cells = [scaled_value(c) for c in cells]
            lines.append(f"{name}: " + ", ".join(cells) + ".")
        return lines, "lines"
    pattern = rng.choice(gset.phrases["narrative_values"])
    sentences = []
    for k, r in enumerate(rows, start=1):
        values = ", ".join(pattern.format(node=n, value=v) for n, v in zip(names, r))
        note = rng.choice(gset.phrases["narrative_annotations"]).format(
            **{kind: annotation(kind, k, rng, gate_names(gset)) for kind in ANNOTATION_KINDS}
        )
        sentences.append(
            rng.choice(gset.phrases["narrative_rows"]).format(i=k, values=values, annotation=note)
        )
    return sentences, genre.layout


def _data(
    second: dict[str, Any], labels: list[str], genre: Genre, gset: GenreSet, rng: random.Random
) -> Draft:
    order = list(range(len(labels)))
    rng.shuffle(order)
    sections = []
    for i in order:
        rows = second["environments"][i]["rows"]
        items, layout = _table(
            rows, second["columns"], genre.option("table_format"), genre, gset, rng
        )
        heading = genre.option("table_heading").format(label=labels[i], cells=len(rows))
        sections.append(
            Section(heading, items, layout, rng.randrange(2**31), open_start=layout != "blocks")
        )
    draft = dressed_draft(genre, gset, sections, rng)
    draft.preface.append(genre.headings[-1])
    return draft


def drafts(
    task: Task,
    contents: list[dict[str, Any]],
    genres: list[Genre],
    gset: GenreSet,
    rng: random.Random,
) -> tuple[list[Draft], dict[str, Any]]:
    """The network draft and the data draft."""
    first, second = contents
    labels = [
        arm_label(genres[0].option("arm_label"), i) for i in range(len(first["environments"]))
    ]
    info: dict[str, Any] = {"labels": labels, "table_format": genres[1].option("table_format")}
    return [
        _network(first, labels, genres[0], gset, rng, info),
        _data(second, labels, genres[1], gset, rng),
    ], info
