"""``scir export FILE --format F -o OUT``: write tasks in another format.

The tasks are read (and validated) first; everything is written into a temporary folder (or
file) next to ``OUT`` and moved into place only when the whole export succeeded
(:func:`scir.outputs.staged`), and every path is built from a validated task id and checked to
stay inside ``OUT`` (:func:`scir.outputs.contained`).
"""

from __future__ import annotations

import json
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError
from scir.outputs import contained, staged
from scir.tasks import Task, read_tasks
from scir.tracks import get_track, track_names

SCIR_FIELDS = ("task_id", "domain", "tier", "problem_nl", "problem_obfuscated", "answer",
               "domain_metadata")


def export_scir(tasks: list[Task], out: Path) -> int:
    """The SciR release's subset of fields, as one JSON array in one file."""
    rows = [{k: getattr(t, k) for k in SCIR_FIELDS} for t in tasks]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 1


def export_hf(tasks: list[Task], out: Path) -> int:
    """A Hugging Face ``datasets``-loadable folder: one JSONL per domain with flat fields."""
    out.mkdir(parents=True, exist_ok=True)
    by_domain: dict[str, list[Task]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    for domain, items in sorted(by_domain.items()):
        with contained(out, f"{domain}.jsonl").open("w", encoding="utf-8") as handle:
            for t in items:
                row = {k: getattr(t, k) for k in ("task_id", "domain", "difficulty", "tier",
                                                  "question", "options", "answer",
                                                  "answer_pool", "chance", "problem_nl",
                                                  "problem_obfuscated")}
                row["formal"] = json.dumps(t.formal, ensure_ascii=False)
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(by_domain)


GENERIC = {"scir": export_scir, "hf": export_hf}
ONE_FILE = {"scir"}                # formats whose output is a file, not a folder


def _formats() -> list[str]:
    names = set(GENERIC)
    for name in track_names():
        try:
            names |= set(get_track(name).exporters())
        except Exception:  # a broken third-party track must not break --help
            continue
    return sorted(names)


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="export tasks (scir, hf, or a track's own format)",
                       formatter_class=HelpFormatter,
                       epilog="Examples:\n  scir export d.jsonl --format prover9 -o prover9/\n"
                              "  scir export d.jsonl --format scir -o d.scir.json\n"
                              "Track formats: prover9 (deduction), popper (induction), "
                              "csv (causal).")
    p.add_argument("file", help="task file (JSONL)")
    p.add_argument("--format", required=True, help=f"one of: {', '.join(_formats())}")
    p.add_argument("-o", "--output", required=True,
                   help="output file (scir) or folder (other formats)")
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        return _export(args)
    except OSError as exc:  # e.g. -o names a folder where a file is expected
        raise ConfigError(f"cannot write: {exc.strerror or exc}",
                          file=str(exc.filename or args.output), field="output") from exc


def _export(args) -> int:
    tasks = read_tasks(args.file)
    out = Path(args.output)
    if args.format in GENERIC:
        with staged(out, folder=args.format not in ONE_FILE) as stage:
            GENERIC[args.format](tasks, stage)
        print(f"exported {len(tasks)} tasks as {args.format} to {out}")
        return 0
    by_domain: dict[str, list[Task]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    plan = []
    for domain, items in sorted(by_domain.items()):
        exporters = get_track(domain).exporters()
        if args.format not in exporters:
            raise ConfigError(f"format {args.format!r} is not available for {domain} tasks "
                              f"(available: {', '.join(sorted(set(GENERIC) | set(exporters)))})",
                              file=args.file, field="format")
        plan.append((exporters[args.format], items))
    written = 0
    with staged(out) as stage:
        for exporter, items in plan:
            written += exporter(items, stage)
    print(f"exported {len(tasks)} tasks as {args.format} to {out} ({written} files)")
    return 0
