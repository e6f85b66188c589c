"""Command line: ``python -m solvers.gies DATA.csv --env-column E --targets JSON_OR_FILE``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from solvers.errors import ScirError, SolverInputError
from solvers.gies.api import fit, split_frame

EPILOG = """\
example:
  python -m solvers.gies cells.csv --env-column condition \\
      --targets '{"control": [], "u0126": ["mek"], "ly": ["pip3"]}' --log -o graph.json

The table has one row per sample, one column per variable and an environment column.
--targets maps every environment value of that column to the list of intervened column
names (an empty list for observational data); give it inline as JSON or as a JSON file.
Output: the directed (a -> b) and undirected (a - b) edges of the estimated interventional
essential graph, and its BIC score (higher is better).
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m solvers.gies",
        description="Greedy interventional equivalence search (GIES) with the interventional "
        "Gaussian BIC score on a table of samples from several environments.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", type=Path, help="CSV/TSV table, one row per sample")
    parser.add_argument("--env-column", required=True, help="column naming each row's environment")
    parser.add_argument(
        "--targets",
        required=True,
        help="JSON object (inline, or a path to a JSON file): environment -> "
        "list of intervened column names",
    )
    parser.add_argument(
        "--columns",
        default=None,
        help="comma-separated variable columns (default: all but the environment column)",
    )
    parser.add_argument(
        "--sep",
        default=None,
        help="field separator (default: tab for .tsv/.txt files, comma otherwise)",
    )
    parser.add_argument(
        "--log", action="store_true", help="take natural logarithms of the variables first"
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=None, help="write the result as JSON here"
    )
    return parser


def _read_targets(spec: str) -> dict[Hashable, list[str]]:
    text = spec
    if not spec.lstrip().startswith("{"):
        path = Path(spec)
        if not path.is_file():
            raise SolverInputError(
                f"--targets is neither a JSON object nor an existing file: {spec!r}"
            )
        text = path.read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SolverInputError(
            f"--targets is not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from exc
    if not isinstance(value, dict) or not all(
        isinstance(v, list) and all(isinstance(t, str) for t in v) for v in value.values()
    ):
        raise SolverInputError("--targets must map each environment to a list of column names")
    return value


def run(args: argparse.Namespace) -> dict:
    """Fit GIES as the parsed command line asks; return the JSON-ready result."""
    import pandas as pd

    targets_by_env = _read_targets(args.targets)
    sep = args.sep or ("\t" if args.data.suffix.lower() in (".tsv", ".txt") else ",")
    try:
        frame = pd.read_csv(args.data, sep=sep)
    except (OSError, ValueError) as exc:
        raise SolverInputError(f"cannot read the table: {exc}", file=str(args.data)) from exc
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
    data, targets, names, envs = split_frame(frame, args.env_column, targets_by_env, columns)
    if args.log:
        if any((d <= 0).any() for d in data):
            raise SolverInputError(
                "--log needs positive values in every variable column", file=str(args.data)
            )
        data = [np.log(d) for d in data]
    result = fit(data, targets, names=names)
    summary = result.to_dict()
    summary["environments"] = [
        {"name": str(e), "rows": int(d.shape[0]), "targets": [names[t] for t in ts]}
        for e, d, ts in zip(envs, data, targets)
    ]
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        summary = run(args)
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for a, b in summary["directed"]:
        print(f"{a} -> {b}")
    for a, b in summary["undirected"]:
        print(f"{a} - {b}")
    print(
        f"edges: {len(summary['directed']) + len(summary['undirected'])} "
        f"({len(summary['directed'])} directed), score: {summary['score']:.6f}"
    )
    if args.output is not None:
        args.output.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0
