"""``python -m solvers.ilp DIR``: learn a program from a Popper-format folder.

Exit status: 0 solution, 1 no solution, 3 timeout, 2 bad input or solver error.
"""

from __future__ import annotations

import argparse
import sys

from solvers.errors import ScirError
from solvers.ilp.bias import MODES
from solvers.ilp.tester import RECURSIVE_TIME_LIMIT

EXIT = {"solution": 0, "no_solution": 1, "timeout": 3}


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m solvers.ilp",
        description="Learn a logic program from a Popper-format folder (bk.pl, exs.pl, "
        "bias.pl) by learning from failures.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: python -m solvers.ilp tests/fixtures/ilp/grandparent --timeout 30\n"
        "exit status: 0 solution, 1 no solution, 3 timeout, 2 error",
    )
    parser.add_argument("folder", help="folder holding bk.pl, exs.pl and bias.pl")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds for the whole run (default: 60)"
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="classic: cover all positives and no negative; partial: the "
        "clause covering most positives and no negative (default: the "
        "bias file's mode(...), else classic)",
    )
    parser.add_argument(
        "--noisy",
        action="store_true",
        help="noisy data: learn the program of least FN + FP + size (minimum "
        "description length, as Popper's --noisy)",
    )
    parser.add_argument(
        "--example-time-limit",
        type=float,
        default=0.05,
        help="seconds allowed to test one clause on one example; a "
        "candidate running longer does not cover it (default: 0.05)",
    )
    parser.add_argument(
        "--recursive-time-limit",
        type=float,
        default=RECURSIVE_TIME_LIMIT,
        help="the same for a recursive program, at most the above (default: "
        f"{RECURSIVE_TIME_LIMIT}; Popper's is 1 ms)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    learn = _learner_with_prolog_started()
    try:
        result = learn(
            args.folder,
            mode=args.mode,
            timeout=args.timeout,
            example_time_limit=args.example_time_limit,
            noisy=args.noisy,
            recursive_time_limit=args.recursive_time_limit,
        )
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"% status: {result.status} ({'noisy' if result.noisy else result.mode} mode)")
    for clause in result.program:
        print(clause)
    checked = (
        ""
        if result.rechecked or not result.program
        else " (the search's counts: no time left to score the program again)"
    )
    print(f"% TP={result.tp} FN={result.fn} TN={result.tn} FP={result.fp}{checked}")
    print(f"% {result.candidates_tested} candidates tested in {result.seconds:.3f} s")
    return EXIT[result.status]


def _learner_with_prolog_started():
    """:func:`solvers.ilp.learner.learn`, imported in a thread (clingo and the search: some
    40 ms of Python) while this thread starts SWI-Prolog (C code, which releases the GIL:
    50-60 ms); a failure to start it is reported by ``learn``, which needs it."""
    import threading

    helper = threading.Thread(target=_import_learner, name="ilp-import", daemon=True)
    helper.start()
    try:
        from solvers.ilp.problem import default_engine

        default_engine()
    except ScirError:
        pass
    helper.join()
    from solvers.ilp.learner import learn  # raises here what the thread's import raised

    return learn


def _import_learner() -> None:
    try:
        import solvers.ilp.learner  # noqa: F401
    except BaseException:  # imported again (and raised) by the caller
        pass


def run() -> None:
    """The command itself: :func:`main`, then an immediate exit once the output is flushed.
    Tearing down a long search's data (clingo's grounding, the Prolog database, millions of
    Python objects) took 1-2 s after a 40-60 s run, all of it after the answer was out;
    nothing is left to clean up (the clingo worker process ends when its pipe closes)."""
    import os

    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
