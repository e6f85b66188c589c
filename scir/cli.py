"""The ``scir`` command: one entry point, one module per subcommand in ``scir.commands``.

Each command module has ``add_parser(subparsers)`` and ``run(args) -> int``. Toolkit errors are
printed as one line (``error: file:line: message``; control characters such as a newline in a
quoted value are escaped, so it stays one line) with exit code 2, as argparse does for usage
errors; so are operating-system errors (``error: PATH: reason``, e.g. an output folder that
cannot be written). Nothing else is caught: anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence

from scir.errors import ScirError, one_line
from scir.version import __version__

COMMANDS = [
    "doctor",
    "generate",
    "verify",
    "export",
    "check",
    "render",
    "stats",
    "solve",
    "report",
    "rescore",
    "audit",
    "eval",
    "explore",
    "import_",
    "trajectories",
    "train",
]


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class _Parser(argparse.ArgumentParser):
    """argparse, with "did you mean" added to an invalid choice (a track, an architecture, a
    renderer, ...); every subcommand's parser is one too (argparse makes them of this
    class)."""

    def error(self, message: str):
        found = _INVALID_CHOICE.search(message)
        if found:
            import difflib

            choices = re.findall(r"'([^']*)'", found.group(2))
            close = difflib.get_close_matches(found.group(1), choices, n=3, cutoff=0.6)
            if close:
                message += f"; did you mean {' or '.join(repr(c) for c in close)}?"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="scir",
        description="SciR toolkit: generate, render, verify and evaluate scientific-reasoning "
        "benchmarks.",
        epilog="Example: scir generate deduction --difficulty easy -n 10 --seed 1 -o d.jsonl "
        "&& scir verify d.jsonl\nSee docs/cli.md for every command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"scir {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"scir.commands.{name}").add_parser(sub)
    return parser


def _unknown_command(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """One line for a mistyped command, naming the closest commands; None if it is known."""
    if not argv or argv[0].startswith("-"):
        return None
    choices = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if argv[0] in choices:
        return None
    import difflib

    names = [name.rstrip("_") for name in COMMANDS]
    close = difflib.get_close_matches(argv[0], list(choices), n=3, cutoff=0.6)
    hint = (
        f"; did you mean {' or '.join(repr(c) for c in close)}?"
        if close
        else f"; the commands are {', '.join(names)}"
    )
    return one_line(f"error: unknown command {argv[0]!r}{hint}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``scir`` command line; returns the exit code."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given == ["--version"]:  # no parser: none of the commands' imports
        print(f"scir {__version__}")
        return 0
    try:
        parser = build_parser()  # lists the tracks: a bad SCIR_TRACKS entry fails here
    except ScirError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    unknown = _unknown_command(parser, given)
    if unknown is not None:
        print(unknown, file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return int(args.func(args) or 0)
    except ScirError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `scir stats f.jsonl | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(one_line(f"error: {where}{exc.strerror or exc}"), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
