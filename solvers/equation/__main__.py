"""``python -m solvers.equation FILE.csv --equation TEXT``: fit an equation's constants to a
CSV file (header = input names, last column = target) and print the evaluator's report.

Exit status: 0 fitted, 1 no finite fit (or the time budget ran out), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from solvers.errors import ScirError


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m solvers.equation",
        description="Fit the parameters p0, p1, ... of an equation to a CSV file with BFGS "
        "from several starts, and report MAPE, MSE and NMSE (SR-Scientist's "
        "equation evaluator). The CSV header names the inputs; the last column "
        "is the target.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='example: python -m solvers.equation data.csv --equation "p0*x*exp(-p1*t)"\n'
        "exit status: 0 fitted, 1 no finite fit or time budget exhausted, 2 error",
    )
    parser.add_argument("csv", help="CSV file: a header row, inputs..., target last")
    parser.add_argument(
        "--equation",
        required=True,
        help="the equation over the input columns, with parameters p0..p9",
    )
    parser.add_argument(
        "--starts", type=int, default=10, help="BFGS starting points (default: 10); see --strategy"
    )
    parser.add_argument(
        "--strategy",
        choices=("projected", "bfgs"),
        default="projected",
        help="projected: linear parameters solved exactly, BFGS over the "
        "others from ones, a grid search and log-uniform starts; bfgs: "
        "BFGS over every parameter from ones and seeded uniform [-5, 5] "
        "(default: projected)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the starts (default: 0)")
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="time budget of the fit (default: 30)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    import pandas as pd

    from solvers.equation.evaluator import FitStatus, fit, report

    args = build_parser().parse_args(argv)
    try:
        try:
            frame = pd.read_csv(args.csv)
        except (OSError, ValueError, pd.errors.ParserError) as exc:
            raise ScirError(f"cannot read {args.csv}: {exc}") from None
        if frame.shape[1] < 2 or not all(frame.dtypes.map(lambda d: d.kind in "fiu")):
            raise ScirError(f"{args.csv}: need at least two numeric columns (inputs, target)")
        names = [str(c) for c in frame.columns]
        values = frame.to_numpy(dtype=float)
        result = fit(
            args.equation,
            values[:, :-1],
            values[:, -1],
            names[:-1],
            starts=args.starts,
            seed=args.seed,
            seconds=args.seconds,
            strategy=args.strategy,
        )
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report(result))
    return 0 if result.status is FitStatus.OK else 1


if __name__ == "__main__":
    sys.exit(main())
