"""What ``scir import llmsr`` knows about a problem besides its data: LLM-SRBench's table of
problems (``--table``) and LLM-SR's specification files.

**The problem table** (LLM-SRBench ships it as a Hugging Face dataset next to its HDF5 file;
one split per domain: ``lsr_synth_chem_react``, ``lsr_synth_bio_pop_growth``,
``lsr_synth_phys_osc``, ``lsr_synth_matsci``, ``lsr_transform``). One record per problem:
``name``, ``symbols`` (output first, then the other columns), ``symbol_descs``,
``symbol_properties`` (``O`` output, ``V`` variable, ``C`` constant) and ``expression`` (the
ground truth). ``--table`` takes a file or a folder of files: ``.parquet`` (needs pyarrow),
``.json`` (a list of records, or an object mapping a split name to its list), ``.jsonl``
(one record a line) or ``.csv`` (list cells as JSON text). A record's domain is its
``subset``/``dataset``/``domain`` field, else the split it is listed under, else the file
name (``lsr_synth_chem_react-00000-of-00001.parquet`` -> ``chem_react``).

**LLM-SR's specification files** (``specs/specification_<problem>_numpy.txt`` in its
repository): the docstring of ``def equation(...)`` states the system (its first line) and
one line per argument, ``name: A numpy array representing observations of <meaning>.``;
found anywhere under the imported folder (import the repository's root to use them).

Symbol names are cleaned as LLM-SR's own code cleans them (``$`` and ``\\`` stripped, spaces
to ``_``, ``text`` dropped); a name that is still not a variable name is an error naming it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scir.bounded import parse_json
from scir.errors import ConfigError, TaskFormatError
from scir.tasks import shorten
from scir.tracks.equation.formal import MAX_DESCRIPTION, NAME

MAX_TABLE_BYTES = 64 * 1024 * 1024
MAX_SPEC_BYTES = 256 * 1024
TABLE_SUFFIXES = (".parquet", ".json", ".jsonl", ".csv")
SPLIT_PREFIXES = ("lsr_synth_", "lsr_")
_SPEC = re.compile(r"specification_(?P<name>.+?)_(?:numpy|torch)\.txt")
_DOCSTRING = re.compile(
    r"def\s+equation\s*\((?P<args>[^)]*)\)[^:]*:\s*(?:\"\"\"|''')"
    r"(?P<doc>.*?)(?:\"\"\"|''')",
    re.S,
)
_ARG = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<desc>.+?)\s*$")
_NUMPY_WORDS = re.compile(
    r"^(?:an?\s+)?(?:numpy\s+)?array\s+representing\s+"
    r"(?:observations\s+of\s+)?",
    re.I,
)
_FIND = "Find the mathematical function skeleton that represents "
_MODULE_DOC = re.compile(r'\A\s*(?:"""|\'\'\')(?P<doc>.*?)(?:"""|\'\'\')', re.S)


@dataclass
class TableEntry:
    """One problem of the table: its domain (``chem_react``; "" when unknown), name, the
    symbols in column order (output first), their descriptions and properties, and the
    ground-truth expression ("" when absent)."""

    domain: str
    name: str
    symbols: list[str]
    descriptions: list[str]
    properties: list[str]
    expression: str
    where: str = ""

    def columns(self, width: int) -> tuple[str, list[str], dict[str, str]]:
        """(output, inputs, descriptions) for a data array ``width`` columns wide (output
        first): all symbols when there are as many, else the output and the ``V`` symbols
        (constants are not columns); TaskFormatError otherwise."""
        names = [clean_symbol(s, self.where) for s in self.symbols]
        keep = list(range(len(names)))
        if len(names) != width:
            keep = [i for i, p in enumerate(self.properties) if i == 0 or "V" in str(p).upper()]
        if len(keep) != width or not keep:
            raise TaskFormatError(
                f"problem {shorten(self.name)}: the table names "
                f"{len(names)} symbols ({len(keep)} output and variables), "
                f"the data have {width} columns",
                file=self.where,
            )
        chosen = [names[i] for i in keep]
        descs = {
            names[i]: _description(self.descriptions[i])
            for i in keep
            if i < len(self.descriptions) and _description(self.descriptions[i])
        }
        return chosen[0], chosen[1:], descs


@dataclass
class Table:
    """The problems of a table by (domain, name) and by name."""

    entries: list[TableEntry] = field(default_factory=list)

    def find(self, domain: str, name: str) -> TableEntry | None:
        """The entry of problem ``name`` in ``domain`` (or the only one of that name)."""
        same = [e for e in self.entries if e.name == name]
        exact = [e for e in same if e.domain and e.domain == domain]
        if len(exact) == 1:
            return exact[0]
        return same[0] if len(same) == 1 else None


def clean_symbol(symbol: Any, where: str = "") -> str:
    """A table symbol as a variable name (LLM-SR's cleaning; TaskFormatError if still not
    one)."""
    text = str(symbol).strip().strip("$").replace("\\", "").replace("text", "")
    text = text.replace("{", "").replace("}", "").strip().replace(" ", "_")
    if not NAME.fullmatch(text):
        raise TaskFormatError(
            f"symbol {shorten(str(symbol))} is not a variable name (letters, digits, _)",
            file=where or None,
        )
    return text


def _description(text: Any) -> str:
    out = " ".join(str(text).split()).rstrip(".")
    return out[:MAX_DESCRIPTION]


def domain_of_split(split: str) -> str:
    """``lsr_synth_chem_react`` -> ``chem_react`` (``lsr_transform`` -> ``transform``)."""
    for prefix in SPLIT_PREFIXES:
        if split.startswith(prefix):
            return split[len(prefix) :]
    return split


def _records_of(data: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(data, list):
        return [("", r) for r in data]
    if isinstance(data, dict) and "name" in data:
        return [("", data)]
    if isinstance(data, dict):
        out = []
        for split, rows in data.items():
            if not isinstance(rows, list):
                raise TaskFormatError(
                    f"split {shorten(str(split))} is not a list of records", file=where
                )
            out += [(str(split), r) for r in rows]
        return out
    raise TaskFormatError("expected a list of problem records or an object of lists", file=where)


def _list_cell(value: Any, field_name: str, where: str) -> list[Any]:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise TaskFormatError(f"{field_name} is not a list", file=where) from None
    if not isinstance(value, (list, tuple)):
        raise TaskFormatError(f"{field_name} is not a list", file=where)
    return list(value)


def _entry(split: str, record: Any, file_domain: str, where: str) -> TableEntry:
    if not isinstance(record, dict):
        raise TaskFormatError("a problem record is not an object", file=where)
    name = record.get("name")
    if not isinstance(name, str) or not name:
        raise TaskFormatError("a problem record has no name", file=where)
    symbols = _list_cell(record.get("symbols"), f"{name}: symbols", where)
    descs = _list_cell(record.get("symbol_descs", []) or [], f"{name}: symbol_descs", where)
    props = _list_cell(
        record.get("symbol_properties", []) or [], f"{name}: symbol_properties", where
    )
    expression = record.get("expression") or ""
    if not isinstance(expression, str):
        raise TaskFormatError(f"{name}: expression is not text", file=where)
    domain = (
        next(
            (
                str(record[k])
                for k in ("subset", "dataset", "domain")
                if isinstance(record.get(k), str) and record[k]
            ),
            "",
        )
        or split
        or file_domain
    )
    return TableEntry(
        domain_of_split(domain),
        name,
        [str(s) for s in symbols],
        [str(d) for d in descs],
        [str(p) for p in props],
        expression,
        where,
    )


def _read_table_file(path: Path) -> list[TableEntry]:
    where = str(path)
    if path.stat().st_size > MAX_TABLE_BYTES:
        raise TaskFormatError(f"larger than {MAX_TABLE_BYTES} bytes", file=where)
    file_domain = domain_of_split(path.name.split("-")[0].split(".")[0])
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise ConfigError(
                "reading a .parquet table needs pyarrow (pip install pyarrow)", file=where
            ) from exc
        try:
            rows = pq.read_table(path).to_pylist()
        except Exception as exc:  # pyarrow's own errors (ArrowInvalid, OSError, ...)
            raise TaskFormatError(f"not a readable parquet file: {exc}", file=where) from exc
        pairs = [("", r) for r in rows]
    else:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TaskFormatError(f"not UTF-8 text: {exc}", file=where) from exc
        if suffix == ".json":
            pairs = _records_of(parse_json(text, file=where, error=TaskFormatError), where)
        elif suffix == ".jsonl":
            pairs = [
                ("", parse_json(line, file=f"{where}:{i}", error=TaskFormatError))
                for i, line in enumerate(text.splitlines(), start=1)
                if line.strip()
            ]
        else:
            pairs = [("", dict(r)) for r in csv.DictReader(io.StringIO(text))]
    return [_entry(split, record, file_domain, where) for split, record in pairs]


def read_table(path: str | Path) -> Table:
    """The problem table at ``path`` (a file or a folder of table files; ConfigError when
    there is none, TaskFormatError naming the file for a malformed one)."""
    base = Path(path)
    if base.is_dir():
        files = sorted(
            p
            for p in base.rglob("*")
            if p.is_file() and not p.is_symlink() and p.suffix.lower() in TABLE_SUFFIXES
        )
        if not files:
            raise ConfigError(
                f"no table file ({', '.join(TABLE_SUFFIXES)}) in the folder",
                file=str(path),
                field="table",
            )
    elif base.is_file():
        if base.suffix.lower() not in TABLE_SUFFIXES:
            raise ConfigError(
                f"a problem table is one of {', '.join(TABLE_SUFFIXES)}",
                file=str(path),
                field="table",
            )
        files = [base]
    else:
        raise ConfigError("no such file or folder", file=str(path), field="table")
    return Table([e for f in files for e in _read_table_file(f)])


@dataclass
class Spec:
    """What an LLM-SR specification states: the system and each variable's meaning."""

    context: str
    descriptions: dict[str, str]


def spec_files(files: list[tuple[Path, list[str]]]) -> dict[str, Path]:
    """Problem name -> its specification file, from a folder walk's (folder, files) pairs
    (the numpy variant first)."""
    out: dict[str, Path] = {}
    for folder, names in files:
        for name in sorted(names, key=lambda n: ("torch" in n, n)):
            match = _SPEC.fullmatch(name)
            if match and match["name"] not in out:
                out[match["name"]] = folder / name
    return out


def read_spec(path: Path, names: list[str]) -> Spec:
    """The system sentence and the descriptions of ``names`` (inputs and output, the output
    last) in an LLM-SR specification file; what it does not state is left out."""
    if path.stat().st_size > MAX_SPEC_BYTES:
        raise TaskFormatError(f"larger than {MAX_SPEC_BYTES} bytes", file=str(path))
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TaskFormatError(f"not UTF-8 text: {exc}", file=str(path)) from exc
    found = _DOCSTRING.search(text)
    if found is None:
        return Spec("", {})
    lines = [ln.strip() for ln in found["doc"].strip().splitlines()]
    context = (
        _description(lines[0].removeprefix("Mathematical function for "))
        if lines and lines[0]
        else ""
    )
    descriptions: dict[str, str] = {}
    section = ""
    for line in lines[1:]:
        low = line.lower().rstrip(":")
        if low in ("args", "return", "returns"):
            section = low
            continue
        if section == "args":
            arg = _ARG.match(line)
            if arg and arg["name"] in names[:-1]:
                descriptions[arg["name"]] = _description(_NUMPY_WORDS.sub("", arg["desc"]))
        elif section.startswith("return") and line and names:
            meaning = _NUMPY_WORDS.sub("", line).split(" as the result")[0]
            descriptions.setdefault(names[-1], _description(meaning))
    module = _MODULE_DOC.search(text)
    sentence = _description(" ".join(module["doc"].split())) if module else ""
    if sentence.startswith(_FIND):
        context = "The equation sought gives " + sentence[len(_FIND) :]
    elif context:
        context = "The equation sought gives " + context
    return Spec(context, descriptions)


__all__ = [
    "Spec",
    "Table",
    "TableEntry",
    "clean_symbol",
    "domain_of_split",
    "read_spec",
    "read_table",
    "spec_files",
]
