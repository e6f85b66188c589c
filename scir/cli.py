"""The ``scir`` command: one entry point, one module per subcommand in ``scir.commands``.

Each command module has ``add_parser(subparsers)`` and ``run(args) -> int``. Toolkit errors are
printed as one line (``error: file:line: message``) with exit code 2, as argparse does for usage
errors; nothing else is caught.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from scir.errors import ScirError

COMMANDS = ["doctor", "generate", "verify", "export", "check_rule", "render", "stats", "solve",
            "report", "audit"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scir",
        description="SciR toolkit: generate, render, verify and evaluate scientific-reasoning "
                    "benchmarks.",
        epilog="Example: scir generate deduction --difficulty easy -n 10 --seed 1 -o d.jsonl "
               "&& scir verify d.jsonl\nSee docs/cli.md for every command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from scir import __version__

    parser.add_argument("--version", action="version", version=f"scir {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"scir.commands.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``scir`` command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return int(args.func(args) or 0)
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `scir stats f.jsonl | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
