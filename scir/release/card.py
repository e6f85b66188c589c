"""The dataset card (``README.md``) of a released folder: a YAML header that the Hugging Face
hub and ``datasets.load_dataset`` read (configs with their split files, typed features,
licence), and a body with the splits, fields, loading, chance levels, generation parameters
and seeds of each input file, the answer-blind audit and the data licences.

Everything the input files bring (tiers, parameters, provenance, file names, the release
name) is written through :func:`md_text` or :func:`code_span`: a ``<script>`` in a task field
appears in the rendered card as the text ``<script>``, never as HTML."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from statistics import fmean
from typing import Any

import yaml

from scir.release.rows import Source, Split
from scir.release.schema import COLUMNS, SHOWN, hf_features
from scir.tracks import get_track

# --license choices: the hub's licence id -> its URL (Croissant wants a URL)
LICENSES = {
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "mit": "https://opensource.org/licenses/MIT",
}
CITATION = (
    "SciR: A Controllable Benchmark for Scientific Reasoning in LLMs, NeurIPS 2026 "
    "Datasets & Benchmarks, arXiv:2606.13020"
)


@dataclass(frozen=True)
class CardInfo:
    """What the card says about the release as a whole."""

    name: str
    license: str
    url: str
    version: str
    date: str | None = None


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return label
    return "100K<n<1M"


def header(configs: dict[str, list[Split]], info: CardInfo) -> dict[str, Any]:
    """The YAML header as a dict (keys in the hub's usual order)."""
    rows = sum(len(s.rows) for parts in configs.values() for s in parts)
    return {
        "pretty_name": info.name,
        "license": info.license,
        "language": ["en"],
        "task_categories": ["question-answering", "text-classification"],
        "tags": ["reasoning", "logic", "neuro-symbolic", "scientific-reasoning", "synthetic"],
        "size_categories": [_size_category(rows)],
        "configs": [
            {
                "config_name": config,
                "data_files": [{"split": s.name, "path": s.path} for s in parts],
            }
            for config, parts in configs.items()
        ],
        "dataset_info": [{"config_name": config, "features": hf_features()} for config in configs],
    }


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# Text from the input files (task fields, file names, provenance) reaches the card only
# through md_text or code_span, so that it stays text: no HTML, no Markdown of its own.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|&~!#])")
_BACKTICKS = re.compile(r"`+")


def _one_line(text: str) -> str:
    """``text`` with control characters (a newline in a file name, ...) escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def md_text(value: Any) -> str:
    """``value`` as Markdown text that renders as itself: every character Markdown or HTML
    would read (``<``, ``&``, backticks, ``|``, emphasis, links, ...) backslash-escaped, on
    one line."""
    return _MARKDOWN.sub(r"\\\1", _one_line(str(value)))


def code_span(text: str, cell: bool = False) -> str:
    """``text`` as one inline code span on one line, fenced by more backticks than any run
    inside it (CommonMark); for a table ``cell``, ``|`` escaped (GFM)."""
    text = _one_line(text)
    if cell:
        text = text.replace("|", "\\|")
    fence = "`" * (1 + max((len(m) for m in _BACKTICKS.findall(text)), default=0))
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _code(value: Any) -> str:
    return code_span(json.dumps(value, ensure_ascii=False, sort_keys=True), cell=True)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def chance_table(configs: dict[str, list[Split]]) -> str:
    """Mean chance and constrained chance per config and split."""
    rows = [
        [
            config,
            s.name,
            len(s.rows),
            _pct(fmean(r["chance"] for r in s.rows)),
            _pct(fmean(r["chance_constrained"] for r in s.rows)),
        ]
        for config, parts in configs.items()
        for s in parts
    ]
    return _table(["config", "split", "rows", "mean chance", "mean constrained chance"], rows)


def tracks_section(configs: dict[str, list[Split]]) -> str:
    """One line per config: its track's name and description (``Track.description``; any
    registered track, built-in or not)."""
    lines = []
    for config in configs:
        description = get_track(config).description or "(no description)"
        lines.append(f"- `{config}`: {md_text(description)}")
    return "\n".join(lines)


def generation_section(sources: list[Source]) -> str:
    """Per input file: tracks, difficulties, tiers, seeds, parameters, generator, renderer."""
    parts = []
    for source in sources:
        tasks = source.tasks
        seeds = sorted({t.seed for t in tasks})
        params = sorted({json.dumps(t.params, sort_keys=True) for t in tasks})
        generators = sorted(
            {
                json.dumps(
                    {
                        k: t.provenance[k]
                        for k in ("generator", "generator_version")
                        if k in t.provenance
                    },
                    sort_keys=True,
                )
                for t in tasks
            }
        )
        renders = sorted(
            {
                json.dumps(
                    {
                        k: v
                        for k, v in t.provenance["render"].items()
                        if k in ("renderer", "version", "seed", "model", "inverse_model")
                    },
                    sort_keys=True,
                )
                for t in tasks
                if isinstance(t.provenance.get("render"), dict)
            }
        )
        rendered = sum(1 for t in tasks if t.documents)
        rows = [
            ["tasks", f"{len(tasks)} ({rendered} rendered)"],
            ["tracks", ", ".join(md_text(x) for x in sorted({t.domain for t in tasks}))],
            ["difficulty", ", ".join(md_text(x) for x in sorted({t.difficulty for t in tasks}))],
            ["tiers", ", ".join(md_text(x) for x in sorted({t.tier for t in tasks}))],
            ["seeds", ", ".join(str(s) for s in seeds)],
            ["parameters", "<br>".join(_code(json.loads(p)) for p in params)],
            ["generator", "<br>".join(_code(json.loads(g)) for g in generators)],
            ["renderer", "<br>".join(_code(json.loads(r)) for r in renders) or "none"],
        ]
        parts.append(f"### {code_span(source.name)}\n\n" + _table(["", ""], rows))
    return "\n\n".join(parts)


def licence_section(configs: dict[str, list[Split]], info: CardInfo) -> str:
    """The release's licence and every third-party data source of its tracks."""
    lines = [f"The tasks are released under `{info.license}` ({LICENSES[info.license]}).", ""]
    for config in configs:
        for statement in get_track(config).data_sources():
            lines.append(f"- **{config}**: {statement}")
    return "\n".join(lines)


def loading_section(configs: dict[str, list[Split]]) -> str:
    """How to load a config with ``datasets`` and how to score an answer."""
    config = next(iter(configs))
    split = configs[config][0].name
    return (
        "```python\nfrom datasets import load_dataset\n\n"
        f'ds = load_dataset("path/to/this/folder", "{config}")   # or the hub id\n'
        f'row = ds["{split}"][0]\nprint(row["problem"], row["question"], row["options"])\n'
        "```\n\n"
        "`formal`, `params`, `domain_metadata` and `provenance` are JSON text "
        '(`json.loads(row["formal"])`). Score an answer with the toolkit\'s rule for the '
        "row (`scoring`): `label` exact match with `answer`; `pool` membership in "
        "`answer_pool`; `option` an option letter in `answer_pool`, or a stated edge set matched "
        "to the option with the same set, else to the only option whose set it strictly "
        "contains. With the toolkit installed: `scir.release.scir_json.record_task(row)` "
        'gives a task that `get_track(row["domain"]).scorer().score(task, answer)` scores.'
        "\n\nThe folder also carries `croissant.json` (Croissant 1.0: one "
        "record set per config, every data file with its sha256): "
        '`mlcroissant.Dataset(jsonld="croissant.json").records("' + config + '")`.'
    )


def provenance_section() -> str:
    """The toolkit (version, git commit, whether the checkout had changes) and the solvers
    on the path when this release was written (:func:`scir.provenance.probe`)."""
    from scir.provenance import UNKNOWN, probe

    found = probe()
    kit = found["toolkit"]
    commit = kit.get("commit", UNKNOWN)
    state = {True: " (with uncommitted changes)", False: ""}.get(kit.get("dirty"), "")
    rows = [
        ["SciR toolkit", code_span(str(kit.get("version", UNKNOWN)), cell=True)],
        ["git commit", code_span(str(commit), cell=True) + md_text(state)],
        ["Python", code_span(str(found.get("python", UNKNOWN)), cell=True)],
    ]
    rows += [
        [md_text(name), code_span(str(version), cell=True)]
        for name, version in sorted(found.get("solvers", {}).items())
    ]
    return (
        "The release was written by this toolkit, with these solvers on the path (the "
        "tasks' own `provenance` field names the generator of each):\n\n"
        + _table(["component", "version"], rows)
    )


def card(configs: dict[str, list[Split]], sources: list[Source], info: CardInfo, audit: str) -> str:
    """The whole ``README.md``: YAML header and Markdown body (``audit`` is the audit
    section's Markdown, see :mod:`scir.release.folder`)."""
    yaml_text = yaml.safe_dump(
        header(configs, info), sort_keys=False, allow_unicode=True, width=100
    )
    split_rows = [
        [config, s.name, len(s.rows), code_span(s.path, cell=True)]
        for config, parts in configs.items()
        for s in parts
    ]
    fields = _table(
        ["field", "type", "meaning"],
        [[f"`{c.name}`", SHOWN[c.kind], c.description] for c in COLUMNS],
    )
    body = [
        f"# {md_text(info.name)}",
        "Verifiable reasoning tasks generated by the SciR toolkit: each answer is fixed by a "
        f"formal object before any text exists. Cite: {CITATION}.",
        tracks_section(configs),
        "## Configs and splits",
        "One config per track; one split per difficulty x presentation, named "
        "`{difficulty}_{presentation}`: `nl` rows give the clean natural-language problem "
        "(`problem` = the blocks joined, `blocks` filled, `documents` empty), `obf` rows the "
        "rendered scientific documents (`problem` = the documents joined, `documents` filled, "
        "`blocks` empty). A task appears once per presentation with the same `task_id`; a "
        "task with no rendered documents has no `obf` row. Splits are presentations of one "
        "set of tasks, not train/test partitions.",
        _table(["config", "split", "rows", "file"], split_rows),
        "## Fields",
        fields,
        "## Loading",
        loading_section(configs),
        "## Chance levels",
        "The chance of a uniformly random answer being accepted (each task's `chance`, set by "
        "its track: e.g. deduction 1/3; induction |pool|/45; causal 1/options), and the "
        "chance among the answers the question allows.",
        chance_table(configs),
        "## Generation",
        "Every task is regenerated byte for byte from its track, `seed` and `params` (`scir "
        "generate`); the input files of this release:",
        generation_section(sources),
        "## Provenance",
        provenance_section(),
        "## Answer-blind audit",
        audit,
        "## Licence",
        licence_section(configs, info),
    ]
    return f"---\n{yaml_text}---\n\n" + "\n\n".join(body) + "\n"
