"""The fields of a released row: name, type and meaning, stated once.

A type is one of :data:`KINDS`; the Hugging Face feature (the card's ``dataset_info``) and the
Croissant field are both derived from it here, so the data files, the card and the
Croissant metadata cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STRING, INT, FLOAT, STRINGS, DOCUMENTS, JSON = (
    "string",
    "int64",
    "float64",
    "strings",
    "documents",
    "json",
)
KINDS = (STRING, INT, FLOAT, STRINGS, DOCUMENTS, JSON)


@dataclass(frozen=True)
class Column:
    """One field of a row: its name, kind (:data:`KINDS`) and a one-line description."""

    name: str
    kind: str
    description: str


COLUMNS: tuple[Column, ...] = (
    Column("task_id", STRING, "unique task id, `{track}-{tier}-{seed}-{index}`"),
    Column("domain", STRING, "the track (the config): deduction, induction, causal, ..."),
    Column("difficulty", STRING, "easy, hard, or custom (parameters set by hand)"),
    Column("tier", STRING, "the parameter code, e.g. e4d1, d2p2, n5c1"),
    Column(
        "presentation",
        STRING,
        "nl (clean natural language), obf (rendered documents) or "
        "ctl (control documents, plain non-scientific genres)",
    ),
    Column(
        "problem",
        STRING,
        "the text a solver sees in this presentation (nl: the blocks "
        "joined; obf, ctl: the documents joined)",
    ),
    Column("question", STRING, "the question put to the solver"),
    Column("options", STRINGS, "the option texts, lettered A, B, ... (causal); empty otherwise"),
    Column("answer", STRING, "the gold answer (a label, a rule `r1,r2`, an option letter)"),
    Column("answer_pool", STRINGS, "every accepted answer"),
    Column(
        "scoring",
        STRING,
        "how an answer is scored: label (exact), pool (any pool member), "
        "option (a letter in the pool, or a stated set matched to an "
        "option exactly or as the only strict subset), edges (open "
        "causal tasks: exactly the gold set of XYZ's directed edges)",
    ),
    Column("chance", FLOAT, "chance of a random answer being accepted"),
    Column("chance_constrained", FLOAT, "chance among the answers the question allows"),
    Column("blocks", STRINGS, "nl rows: the clean-NL blocks; obf and ctl rows: empty"),
    Column(
        "documents",
        DOCUMENTS,
        "obf and ctl rows: the rendered documents {genre, text}; nl rows: empty",
    ),
    Column("formal", JSON, "the gold formal object (JSON text)"),
    Column("domain_metadata", JSON, "track extras (JSON text)"),
    Column("seed", INT, "the generation seed"),
    Column("params", JSON, "the generation parameters (JSON text)"),
    Column("provenance", JSON, "generator, renderer and checks (JSON text)"),
    Column("schema_version", INT, "the task schema version"),
)

# how the card's field table names a kind
SHOWN = {
    STRING: "string",
    INT: "int64",
    FLOAT: "float64",
    STRINGS: "list of string",
    DOCUMENTS: "list of {genre: string, text: string}",
    JSON: "string (JSON)",
}
_HF_DTYPE = {STRING: "string", INT: "int64", FLOAT: "float64", JSON: "string"}
_CROISSANT_TYPE = {
    STRING: "sc:Text",
    INT: "sc:Integer",
    FLOAT: "sc:Float",
    JSON: "sc:Text",
    STRINGS: "sc:Text",
}


def hf_features() -> list[dict[str, Any]]:
    """The columns as the dataset card's ``dataset_info.features`` (Hugging Face YAML)."""
    out: list[dict[str, Any]] = []
    for c in COLUMNS:
        if c.kind == STRINGS:
            out.append({"name": c.name, "sequence": "string"})
        elif c.kind == DOCUMENTS:
            out.append(
                {
                    "name": c.name,
                    "list": [
                        {"name": "genre", "dtype": "string"},
                        {"name": "text", "dtype": "string"},
                    ],
                }
            )
        else:
            out.append({"name": c.name, "dtype": _HF_DTYPE[c.kind]})
    return out


def croissant_fields(record_set: str, file_set: str) -> list[dict[str, Any]]:
    """The columns as Croissant 1.0 fields of ``record_set``, read from ``file_set``."""

    def source(column: str, **transform: str) -> dict[str, Any]:
        out: dict[str, Any] = {"fileSet": {"@id": file_set}, "extract": {"column": column}}
        if transform:
            out["transform"] = transform
        return out

    out: list[dict[str, Any]] = []
    for c in COLUMNS:
        field: dict[str, Any] = {
            "@type": "cr:Field",
            "@id": f"{record_set}/{c.name}",
            "name": c.name,
            "description": c.description,
        }
        if c.kind == DOCUMENTS:
            # a list of {genre, text}: each sub-field picks its key from every document
            field["repeated"] = True
            field["subField"] = [
                {
                    "@type": "cr:Field",
                    "@id": f"{record_set}/{c.name}/{part}",
                    "name": part,
                    "description": f"the document's {part}",
                    "dataType": "sc:Text",
                    "source": source(c.name, jsonPath=part),
                }
                for part in ("genre", "text")
            ]
        else:
            field["dataType"] = _CROISSANT_TYPE[c.kind]
            if c.kind == STRINGS:
                field["repeated"] = True
            field["source"] = source(c.name)
        out.append(field)
    return out
