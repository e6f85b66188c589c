"""``scir import FORMAT DIR -o FILE``: read problems from another benchmark's files into tasks.

One format so far, ``llmsr``: LLM-SR / LSR-Synth problem folders (``train.csv``,
``test_id.csv``, ``test_ood.csv``; ground truth, when there is one, in ``equation.json`` or
``equation.txt``) or LLM-SRBench's HDF5 file with its problem table, into equation tasks (see :mod:`scir.tracks.equation.llmsr` and docs/tracks/equation.md).
Every imported task with a ground truth is verified (it reproduces its data) before anything
is written; nothing is downloaded.
"""

from __future__ import annotations

import sys

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError, VerificationError, one_line
from scir.tasks import write_tasks


def add_parser(sub) -> None:
    p = sub.add_parser(
        "import",
        help="import problems of another benchmark as tasks",
        formatter_class=HelpFormatter,
        epilog="Example:\n  scir import llmsr lsr_bench/ -o lsr.jsonl\n"
        "  scir import llmsr problems/osc1 --science physics -o osc.jsonl",
    )
    formats = p.add_subparsers(dest="format", metavar="FORMAT", required=True)
    f = formats.add_parser(
        "llmsr",
        formatter_class=HelpFormatter,
        help="LLM-SR / LSR-Synth / LLM-SRBench problems -> equation tasks",
        description="Every folder under DIR (any depth) holding train.csv, "
        "test_id.csv and test_ood.csv (header = variable names, "
        "a UTF-8 BOM allowed, target in the last column) "
        "becomes one equation task (difficulty custom); DIR may "
        "also be LLM-SRBench's HDF5 file (train_data, "
        "id_test_data, ood_test_data per problem, output "
        "first). The ground truth is read from equation.json, "
        "equation.txt or the --table; a problem without one "
        "(LLM-SR's own folders) is imported with symbolic "
        "accuracy n/a. Folders with missing splits are skipped "
        "and listed.",
        epilog="Examples:\n  scir import llmsr LLM-SR/ -o llmsr.jsonl\n"
        "  scir import llmsr lsr_synth/ -o lsr.jsonl && "
        "scir verify lsr.jsonl\n"
        "  scir import llmsr lsr_bench_data.hdf5 --table "
        "llm-srbench/data -o lsr.jsonl",
    )
    f.add_argument(
        "dir", metavar="DIR", help="root folder of the problem folders, or LLM-SRBench's HDF5 file"
    )
    f.add_argument(
        "--table",
        default=None,
        help="LLM-SRBench's problem table (a .parquet/.json/.jsonl/.csv file or a "
        "folder of them): names, descriptions and ground truths",
    )
    f.add_argument(
        "--science",
        default=None,
        choices=("chemistry", "biology", "physics", "materials"),
        help="the science of every problem (default: read from the folder path, "
        "e.g. chem_react, bio_pop_growth, phys_osc, matsci)",
    )
    f.add_argument(
        "--noise",
        type=float,
        default=0.0,
        help="std of the relative noise already in the train targets (verify "
        "then allows 3 sigma on train)",
    )
    f.add_argument("--seed", type=int, default=0, help="the seed written into the task ids")
    f.add_argument(
        "--no-verify",
        action="store_true",
        help="write the tasks even when a ground truth does not reproduce its data",
    )
    f.add_argument("-o", "--output", required=True, help="output JSONL file")
    f.set_defaults(func=run)


def run(args) -> int:
    from scir.tracks import get_track
    from scir.tracks.equation.llmsr import import_llmsr

    imported = import_llmsr(
        args.dir, science=args.science, noise=args.noise, seed=args.seed, table=args.table
    )
    for source, reason in imported.skipped:
        print(one_line(f"skipped {source or '.'}: {reason}"), file=sys.stderr)
    for source, note in imported.notes:
        print(one_line(f"note {source or '.'}: {note}"), file=sys.stderr)
    if not imported.tasks:
        raise ConfigError(
            "no complete problem found (train.csv, test_id.csv and test_ood.csv "
            "in one folder, or an HDF5 file's problem groups)",
            file=str(args.dir),
        )
    if not args.no_verify:
        track = get_track("equation")
        for task in imported.tasks:
            check = track.verify(task)
            if not check.ok:
                raise VerificationError(
                    f"{task.provenance['source'] or '.'}: {check.message} "
                    "(use --no-verify to import it anyway)",
                    task_id=task.task_id,
                )
    try:
        count = write_tasks(args.output, imported.tasks)
    except OSError as exc:
        raise ConfigError(
            f"cannot write: {exc.strerror or exc}", file=str(args.output), field="output"
        ) from exc
    without = sum(1 for t in imported.tasks if not t.domain_metadata.get("ground_truth"))
    print(
        f"imported {count} equation tasks to {args.output} "
        f"({len(imported.skipped)} skipped, {without} without ground truth: symbolic "
        "accuracy n/a)"
    )
    return 0
