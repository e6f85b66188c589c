"""``scir generate TRACK``: generate a benchmark file for any registered track."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from typing import Any

from scir import api, executors
from scir.api import generate_chunk
from scir.commands._common import HelpFormatter, progress
from scir.errors import ConfigError, ScirError
from scir.tasks import write_tasks
from scir.tracks import get_track, track_names

__all__ = ["add_parser", "generate_chunk", "run"]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "generate",
        help="generate tasks of a track",
        formatter_class=HelpFormatter,
        epilog="Examples:\n  scir generate deduction --difficulty hard -n 200 --seed 1 -o d.jsonl\n"
        "  scir generate induction --distractors 3 -n 20 --seed 7 -o i.jsonl\n"
        "  scir generate causal -n 400 --seed 1 -o c.jsonl --executor local --workers 8\n"
        "  scir generate causal -n 4000 -o c.jsonl --executor ray --ray-address auto\n"
        "  scir generate causal --answer open --nodes 11 --connections 5 -n 20 -o f.jsonl\n"
        "Run `scir generate TRACK --help` for a track's own flags.",
    )
    tracks = p.add_subparsers(dest="track", metavar="TRACK", required=True)
    for name in track_names():
        try:
            track = get_track(name)
        except ScirError as exc:  # reported when this track is asked for, not on every command
            # every argument is a positional here (no prefix char can occur), so any flags
            # reach run(), which reports the load error
            t = tracks.add_parser(
                name, help=f"(cannot be loaded: {exc})", add_help=False, prefix_chars="\x00"
            )
            t.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
            t.set_defaults(func=_fail(exc))
            continue
        t = tracks.add_parser(
            name,
            help=track.description,
            formatter_class=HelpFormatter,
            description=track.description,
            epilog=f"Example: scir generate {name} --difficulty easy -n 10 "
            f"--seed 1 -o {name}.jsonl",
        )
        t.add_argument(
            "--difficulty",
            choices=["easy", "hard"],
            default="easy",
            help="parameter preset; explicit flags override it (difficulty custom)",
        )
        for spec in track.parameters():
            kwargs: dict[str, Any] = {
                "type": spec.type,
                "default": None,
                "metavar": spec.name.upper(),
                "help": f"{spec.help} (easy {spec.easy}, hard {spec.hard})",
            }
            if spec.choices is not None:
                kwargs["choices"] = spec.choices
            t.add_argument(spec.flag, dest=f"param_{spec.name}", **kwargs)
        t.add_argument("-n", type=int, default=10, help="number of tasks")
        t.add_argument("--seed", type=int, default=0, help="random seed (same seed, same file)")
        t.add_argument("-o", "--output", required=True, help="output JSONL file")
        executors.add_arguments(t)
        t.set_defaults(func=run)


def _fail(exc: ScirError):
    def run(args) -> int:
        raise exc

    return run


def run(args) -> int:
    overrides = {
        k[len("param_") :]: v
        for k, v in vars(args).items()
        if k.startswith("param_") and v is not None
    }
    if args.n < 1:
        raise ConfigError("-n must be at least 1", field="n")
    executor = executors.from_arguments(args)
    generated = api.iter_generate(
        args.track, args.n, args.seed, args.difficulty, overrides, executor=executor
    )
    tasks = progress(generated, total=args.n, desc=f"generate {args.track}")
    try:
        with executor or nullcontext():
            count = write_tasks(args.output, tasks)
    except OSError as exc:  # e.g. -o names a folder; an existing file is left as it was
        raise ConfigError(
            f"cannot write: {exc.strerror or exc}", file=str(args.output), field="output"
        ) from exc
    print(f"wrote {count} {args.track} tasks to {args.output}")
    return 0
