"""Reference extractor for causal documents: recovers the network block (proteins, known
edges, the new protein and its number of edges, the conditions with their interventions and
cell counts) and the data block (every row of every condition) from the text alone.

The universe is the Sachs protein names plus the task's new protein. The network document
defines the condition labels; the data document's tables are found by those labels (a table
heading names only its label), then read in the data genre's format.
"""

from __future__ import annotations

import re
from typing import Any

from scir.errors import VerificationError
from scir.tasks import Task
from scir.text.genres import Genre, GenreSet
from scir.text.patterns import (
    alternation,
    compile_template,
    find_all,
    label_regex,
    listing_regex,
    number_regex,
    read_number,
)
from scir.tracks.causal.codec.writer import unscaled_value
from scir.tracks.causal.graph import ORDER
from scir.tracks.causal.scm import environment_name

NUMBER = r"[0-9]+\.[0-9]{2}"
SCALED = r"[0-9]+\.[0-9]"  # a value in tenths of its unit (writer.scaled_value)


class _Names:
    def __init__(self, task: Task) -> None:

        self.new = str(task.domain_metadata.get("new_protein", "XYZ"))
        self.node = alternation(list(ORDER) + [self.new])
        self.list = listing_regex(self.node)
        self.task_id = task.task_id

    def items(self, text: str) -> list[str]:
        return re.findall(self.node, text)

    def fail(self, message: str) -> VerificationError:
        return VerificationError(message, task_id=self.task_id)


def _network(
    text: str, genre: Genre, gset: GenreSet, names: _Names
) -> tuple[dict[str, Any], list[str]]:

    ph = gset.phrases
    lists = find_all(ph["node_lists"], {"count": number_regex(), "list": names.list}, text)
    if len(lists) != 1:
        raise names.fail(f"expected one protein list, found {len(lists)}")
    nodes = names.items(lists[0].group("list"))
    if read_number(lists[0].group("count")) != len(nodes):
        raise names.fail("the protein count does not match the protein list")
    forms = list(ph["edge_sentences"]) + list(ph.get("edge_split_sentences") or [])
    if ph.get("edge_table"):
        forms.append(ph["edge_table"]["row"])
    edges = [
        [m.group("a"), m.group("b")]
        for m in find_all(forms, {"a": names.node, "b": names.node}, text)
    ]
    new_slots = {"new": re.escape(names.new), "conn": number_regex()}
    one = find_all(ph["new_protein"]["one"], new_slots, text)
    many = find_all(ph["new_protein"]["many"], new_slots, text)
    if len(one) + len(many) != 1:
        raise names.fail("expected one statement about the new protein")
    connections = 1 if one else read_number(many[0].group("conn"))
    closure = find_all(ph["closure"]["one" if one else "many"], {"new": re.escape(names.new)}, text)
    if len(closure) != 1:
        raise names.fail("the statement that no other direct relation exists is missing")
    intro = find_all(ph["conditions_intro"], {"count": number_regex(), "cells": "[0-9]+"}, text)
    varied = find_all(ph["conditions_intro_varied"], {"count": number_regex()}, text)
    if len(intro) + len(varied) != 1:
        raise names.fail("expected one sentence introducing the conditions")
    arm_slots = {"label": label_regex(genre.option("arm_label")), "targets": names.list}
    arms = []
    for kind, templates in ph["conditions"].items():
        wrapped = ["{label}: " + t + "{note}." for t in templates]
        for m in find_all(wrapped, {**arm_slots, "note": r"(?: \([0-9]+ cells\))?"}, text):
            arms.append((m.start(), kind, m))
    arms.sort(key=lambda a: a[0])
    envs, labels, samples = [], [], []
    for _, kind, m in arms:
        targets = names.items(m.groupdict().get("targets") or "")
        envs.append(
            {
                "name": environment_name(kind, targets[0] if targets else None),
                "kind": kind,
                "targets": targets,
            }
        )
        labels.append(m.group("label"))
        note = re.search(r"\(([0-9]+) cells\)", m.group("note") or "")
        samples.append(int(note.group(1)) if note else None)
    count = (intro or varied)[0].group("count")
    if read_number(count) != len(envs) or len(set(labels)) != len(labels):
        raise names.fail("the conditions do not match their announced number or labels repeat")
    if intro:
        samples = [int(intro[0].group("cells"))] * len(envs)
    content = {
        "nodes": nodes,
        "new_protein": names.new,
        "connections": connections,
        "known_edges": edges,
        "environments": envs,
        "samples": samples,
    }
    return content, labels


def _rows(
    body: str, fmt: str, gset: GenreSet, names: _Names
) -> tuple[list[str], list[list[float]]]:
    """The columns and rows of one table body in format ``fmt``."""
    if fmt in ("csv", "markdown"):
        if fmt == "csv":
            heads = list(re.finditer(r"^cell,(?P<cols>.+)$", body, re.M))
            row = re.compile(r"^(?P<i>[0-9]+),(?P<vals>.+)$", re.M)
            cell = re.compile(r"[^,]+")
        else:
            heads = list(re.finditer(r"^\| Cell \| (?P<cols>.+) \|$", body, re.M))
            row = re.compile(r"^\| (?P<i>[0-9]+) \| (?P<vals>.+) \|$", re.M)
            cell = re.compile(r"[^|]+")
        if not heads or len({h.group(0) for h in heads}) != 1:
            raise names.fail(f"a {fmt} table needs one header line (repeated identically)")
        head = heads[0]
        header = [c.strip() for c in cell.findall(head.group("cols"))]
        keep = [i for i, c in enumerate(header) if re.fullmatch(names.node, c)]
        columns = [header[i] for i in keep]
        rows = []
        for m in row.finditer(body):
            cells = [c.strip() for c in cell.findall(m.group("vals"))]
            if len(cells) != len(header) or not all(re.fullmatch(NUMBER, cells[i]) for i in keep):
                raise names.fail(f"a {fmt} row does not match its header: {m.group(0)!r}")
            rows.append((int(m.group("i")), [float(cells[i]) for i in keep]))
    elif fmt == "series":
        series = re.compile(
            r"^(?P<node>" + names.node + r"): (?P<vals>" + NUMBER + r"(?:, " + NUMBER + r")*)\.$",
            re.M,
        )
        found_at = [
            (m.start(), m.group("node"), [float(v) for v in re.findall(NUMBER, m.group("vals"))])
            for m in series.finditer(body)
        ]
        labels = (gset.phrases.get("scaled_series") or {}).get("labels", [])
        if labels:
            label = "|".join(
                compile_template(t, {"node": names.node}, anchored=False).pattern.replace(
                    "(?P<node>", "(?:"
                )
                for t in labels
            )
            scaled = re.compile(
                r"^(?:" + label + r"): (?P<vals>" + SCALED + r"(?:, " + SCALED + r")*)\.$", re.M
            )
            for m in scaled.finditer(body):
                node = names.items(m.group(0).split(":", 1)[0])
                if len(node) != 1:
                    raise names.fail(f"a scaled series names {len(node)} proteins")
                found_at.append(
                    (
                        m.start(),
                        node[0],
                        [unscaled_value(v) for v in re.findall(SCALED, m.group("vals"))],
                    )
                )
        found = [(node, vals) for _, node, vals in sorted(found_at)]
        columns = [n for n, _ in found]
        length = {len(v) for _, v in found}
        if len(length) != 1:
            raise names.fail("the series of one table differ in length")
        rows = [(k + 1, [v[k] for _, v in found]) for k in range(length.pop())]
    else:
        pair = (
            r"(?:"
            + "|".join(
                re.escape(p).replace(r"\{node\}", names.node).replace(r"\{value\}", NUMBER)
                for p in gset.phrases["narrative_values"]
            )
            + ")"
        )
        values = f"{pair}(?:, {pair})*"
        rows, columns = [], []
        slots = {"i": "[0-9]+", "values": values, "annotation": r"[^()\n]*"}
        for m in find_all(gset.phrases["narrative_rows"], slots, body):
            cells = re.findall(
                r"(" + names.node + r")(?: at| =)? (" + NUMBER + r")", m.group("values")
            )
            if not columns:
                columns = [c for c, _ in cells]
            if [c for c, _ in cells] != columns:
                raise names.fail("narrated cells of one table name different proteins")
            rows.append((int(m.group("i")), [float(v) for _, v in cells]))
    if [i for i, _ in rows] != list(range(1, len(rows) + 1)):
        raise names.fail("table rows are not numbered 1..n in order")
    if any(len(r) != len(columns) for _, r in rows) or len(set(columns)) != len(columns):
        raise names.fail("a table row does not match its columns")
    return columns, [r for _, r in rows]


def _data(
    text: str,
    genre: Genre,
    gset: GenreSet,
    names: _Names,
    labels: list[str],
    envs: list[dict[str, Any]],
) -> dict[str, Any]:
    heading = compile_template(
        genre.option("table_heading"),
        {"label": alternation(labels), "cells": "[0-9]+"},
        anchored=False,
    )
    heading = re.compile(r"^" + heading.pattern + r"$", re.M)
    matches = list(heading.finditer(text))
    ends = [m.start() for m in matches[1:]] + [len(text)]
    tables: dict[str, tuple[list[str], list[list[float]]]] = {}
    for m, end in zip(matches, ends):
        if m.group("label") in tables:
            raise names.fail(f"two tables for {m.group('label')}")
        tables[m.group("label")] = _rows(
            text[m.end() : end], genre.option("table_format"), gset, names
        )
    if sorted(tables) != sorted(labels):
        raise names.fail(f"tables found for {sorted(tables)}, conditions are {labels}")
    columns = sorted(tables[labels[0]][0]) if labels else []
    out = []
    for label, env in zip(labels, envs):
        cols, rows = tables[label]
        if sorted(cols) != columns:
            raise names.fail(f"the table of {label} has other proteins than the first table")
        index = [cols.index(c) for c in columns]
        out.append({"name": env["name"], "rows": [[r[i] for i in index] for r in rows]})
    return {"columns": columns, "environments": out}


def extract(task: Task, gset: GenreSet) -> list[dict[str, Any]]:
    """``[network content, data content]`` from the two documents."""
    names = _Names(task)
    if len(task.documents) != 2:
        raise names.fail(f"expected 2 documents, found {len(task.documents)}")
    network, data = task.documents
    first, labels = _network(
        network.text, gset.genre(network.genre), gset.for_genre(network.genre), names
    )
    second = _data(
        data.text,
        gset.genre(data.genre),
        gset.for_genre(data.genre),
        names,
        labels,
        first["environments"],
    )
    return [first, second]
