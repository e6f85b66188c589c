"""``scir export FILE [FILE ...] --format F -o OUT``: write tasks in another format.

``scir`` (one JSON array, :mod:`scir.release.scir_json`) and ``hf`` (a dataset folder with a
card and Croissant metadata, :mod:`scir.release.folder`) take every track; the other formats
are a track's own (``Track.exporters``). Several files are read as one set: a task given twice
(a clean file and its rendered copy) is kept once, the rendered copy winning.

The tasks are read (and validated) first; everything is written into a temporary folder (or
file) next to ``OUT`` and moved into place only when the whole export succeeded
(:func:`scir.outputs.staged`), and every path is built from a validated task id and checked to
stay inside ``OUT`` (:func:`scir.outputs.contained`).
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError
from scir.outputs import staged
from scir.release.card import LICENSES, CardInfo
from scir.release.folder import Release, write_release
from scir.release.rows import Source, merge_tasks
from scir.release.scir_json import SCIR_FIELDS, export_scir
from scir.tasks import Task
from scir.tracks import get_track, track_names
from scir.tracks.reading import read_tasks

__all__ = ["SCIR_FIELDS", "add_parser", "run"]

GENERIC = ("scir", "hf")  # formats of every track (the others are a track's own)


def _track_formats() -> dict[str, list[str]]:
    """Every registered track's own formats (``Track.exporters``): format -> tracks."""
    out: dict[str, list[str]] = {}
    for name in track_names():
        try:
            exporters = get_track(name).exporters()
        except Exception:  # a broken third-party track must not break --help
            continue
        for fmt in exporters:
            out.setdefault(fmt, []).append(name)
    return out


def _formats() -> list[str]:
    return sorted(set(GENERIC) | set(_track_formats()))


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="export tasks (scir, hf, or a track's own format)",
        formatter_class=HelpFormatter,
        epilog="Examples:\n  scir export d.jsonl --format prover9 -o prover9/\n"
        "  scir export d.jsonl d.obf.jsonl --format scir -o d.scir.json\n"
        "  scir export d-easy.obf.jsonl d-hard.obf.jsonl i-easy.obf.jsonl "
        "--format hf -o release/\n"
        "Track formats: "
        + ", ".join(
            f"{fmt} ({', '.join(tracks)})" for fmt, tracks in sorted(_track_formats().items())
        )
        + ". hf: one config per track, one split per "
        "difficulty x presentation (easy_nl, easy_obf, ...), README.md "
        "card and croissant.json; see docs/release.md.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="task files (JSONL), read as one set")
    p.add_argument("--format", required=True, help=f"one of: {', '.join(_formats())}")
    p.add_argument(
        "-o", "--output", required=True, help="output file (scir) or folder (other formats)"
    )
    hf = p.add_argument_group("hf format (the dataset card and croissant.json)")
    hf.add_argument(
        "--audit",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the answer-blind audit (scir audit, 5 folds, seed 1) and put its "
        "tables in the card; about a second per group of 10 tasks plus "
        "model fits that grow with the files: --no-audit for large releases",
    )
    hf.add_argument("--name", default="SciR tasks", help="the dataset's pretty name")
    hf.add_argument(
        "--license",
        default="cc-by-4.0",
        choices=sorted(LICENSES),
        help="the licence of the release (the card and croissant.json)",
    )
    hf.add_argument(
        "--url",
        default="https://huggingface.co/datasets/scir/scir-tasks",
        help="where the dataset is published (croissant.json's url)",
    )
    hf.add_argument("--version", default="1.0.0", help="the dataset's version")
    hf.add_argument(
        "--date",
        type=_iso_date,
        help="publication date YYYY-MM-DD (croissant.json's datePublished; omitted when not given)",
    )
    p.set_defaults(func=run)


def _iso_date(text: str) -> str:
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from exc


def run(args) -> int:
    try:
        return _export(args)
    except OSError as exc:  # e.g. -o names a folder where a file is expected
        raise ConfigError(
            f"cannot write: {exc.strerror or exc}",
            file=str(exc.filename or args.output),
            field="output",
        ) from exc


def _export(args) -> int:
    sources = [Source(Path(f).name, read_tasks(f)) for f in args.files]
    tasks = merge_tasks(sources)
    out = Path(args.output)
    if args.format == "hf":
        release = Release(
            CardInfo(args.name, args.license, args.url, args.version, args.date), audit=args.audit
        )
        with staged(out) as stage:
            written = write_release(sources, list(args.files), stage, release)
        print(f"exported {len(tasks)} tasks as hf to {out} ({written} files)")
        return 0
    if args.format == "scir":
        with staged(out, folder=False) as stage:
            export_scir(tasks, stage)
        print(f"exported {len(tasks)} tasks as scir to {out}")
        return 0
    by_domain: dict[str, list[Task]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    plan = []
    for domain, items in sorted(by_domain.items()):
        exporters = get_track(domain).exporters()
        if args.format not in exporters:
            raise ConfigError(
                f"format {args.format!r} is not available for {domain} tasks "
                f"(available: {', '.join(sorted(set(GENERIC) | set(exporters)))})",
                file=args.files[0],
                field="format",
            )
        plan.append((exporters[args.format], items))
    written = 0
    with staged(out) as stage:
        for exporter, items in plan:
            written += exporter(items, stage)
    print(f"exported {len(tasks)} tasks as {args.format} to {out} ({written} files)")
    return 0
