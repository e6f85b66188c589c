"""Benchmark: loading a Popper-format problem's examples for the ILP tester.

Ours: ``load_problem`` reads ``exs.pl`` inside Prolog (``prolog/ilp_read.pl``, an
ExampleStore) and the Tester copies the ``ilp_example/3`` facts inside Prolog; only counts
cross to Python. The old path, measured in the same run: every example fetched into Python
tuples and sent back with ``add_facts`` (an in-memory IlpProblem). Also times consulting
``bk.pl`` and checks that both paths give the same coverage for one clause.

The folder defaults to Popper's imdb3 (121,801 examples) when /work/ext/popper is there --
read from that path, never copied; otherwise (or with ``--generate N``) a generated exs.pl
with N examples in a temporary folder.

    .venv/bin/python benchmarks/ilp_load.py [--folder DIR | --generate N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from solvers.ilp import IlpProblem, load_problem
from solvers.ilp.clauses import Clause, Literal
from solvers.ilp.problem import default_engine
from solvers.ilp.tester import Tester

POPPER_IMDB3 = Path("/work/ext/popper/examples/imdb3")
TARGET_SECONDS = 5.0


def generate(folder: Path, n: int) -> Path:
    """A problem folder with ``n`` examples of ``f/2`` (one in ten positive)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bias.pl").write_text("head_pred(f,2).\nbody_pred(edge,2).\n")
    (folder / "bk.pl").write_text("".join(f"edge(p{i}, q{i}).\n" for i in range(0, n, 7)))
    (folder / "exs.pl").write_text("".join(
        f"{'pos' if i % 10 == 0 else 'neg'}(f(p{i}, q{i})).\n" for i in range(n)))
    return folder


def _probe_clause(problem: IlpProblem) -> Clause:
    head, arity = problem.bias.head_pred
    body_name, body_arity = problem.bias.body_preds[0]
    args = tuple(range(min(arity, body_arity))) + tuple(range(arity, arity + max(
        0, body_arity - arity)))
    return Clause(Literal(head, tuple(range(arity))), (Literal(body_name, args),))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--generate", type=int, default=None, metavar="N")
    args = parser.parse_args(argv)
    default_engine()                                # start Prolog outside the timings
    with tempfile.TemporaryDirectory() as tmp:
        if args.generate is not None or (args.folder is None and not POPPER_IMDB3.is_dir()):
            folder = generate(Path(tmp) / "generated", args.generate or 121_801)
        else:
            folder = args.folder or POPPER_IMDB3
        return _run(folder)


def _run(folder: Path) -> int:
    start = time.monotonic()
    problem = load_problem(folder)
    t_store = time.monotonic() - start
    start = time.monotonic()
    tester = Tester(problem, time.monotonic() + 600)
    t_tester = time.monotonic() - start
    clause = _probe_clause(problem)
    ours = tester.test(clause, problem.bias.directions, time.monotonic() + 600, stop_at_neg=False)
    tester.close()

    start = time.monotonic()
    module = default_engine().module()
    module.consult_path(problem.bk_files[0])
    t_bk = time.monotonic() - start
    module.close()

    start = time.monotonic()
    rows_pos, rows_neg = problem.examples.rows("pos"), problem.examples.rows("neg")
    old = IlpProblem(bias=problem.bias, pos=rows_pos, neg=rows_neg, bk_files=problem.bk_files,
                     name=problem.name)
    old_tester = Tester(old, time.monotonic() + 600)
    t_old = time.monotonic() - start + t_store      # the old path read the file too
    theirs = old_tester.test(clause, problem.bias.directions, time.monotonic() + 600,
                             stop_at_neg=False)
    old_tester.close()
    problem.examples.close()

    ours_total = t_store + t_tester
    print(f"{folder}: {problem.n_pos} positive, {problem.n_neg} negative examples")
    print(f"  ours: read exs.pl in Prolog {t_store:.2f} s + Tester (bk, copy) {t_tester:.2f} s "
          f"= {ours_total:.2f} s")
    print(f"  old path (examples through Python): {t_old:.2f} s; ratio old/ours "
          f"{t_old / ours_total:.1f}x")
    print(f"  consult bk.pl alone: {t_bk:.2f} s")
    same = (ours.pos, ours.neg_covered) == (theirs.pos, theirs.neg_covered)
    print(f"  coverage of {clause.head.pred}/{len(clause.head.args)} :- "
          f"{clause.body[0].pred}: {len(ours.pos)} pos, {len(ours.neg_covered)} neg; "
          f"both paths agree: {same}")
    return 0 if same and ours_total <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
