"""Confirm the ILP feature problems (tests/fixtures/ilp/*/bias.pl with ``% expect`` lines)
with a reference Popper: Popper's answer has the header's size and score and is the expected
program up to renaming; and it is the only one: for each clause of it, a copy of the problem
whose bias.pl bans that clause (every numbering of its body-only variables) must have no
program as good (classic: no exact program of the same size; noisy: none of the same
description length, size + FN + FP). A clause with invented predicates (Popper names them
inv1, inv2, ...) is banned under every argument order of them too. Not a test (it needs
Popper); run by hand after editing a problem:

    PYTHONPATH=$PWD .venv/bin/python tests/ilp_problems_popper.py \\
        --popper /work/ext/popper --popper-python /work/ext/popenv/bin/python [NAME ...]

Exit status 0 when every problem checked is confirmed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import itertools
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from test_ilp_problems import PROBLEMS, ProblemHeader, parse_clause, same_program

from solvers.prolog import Var

SOLUTION = re.compile(r"TP:(\d+) FN:(\d+) TN:(\d+) FP:(\d+) Size:(\d+)(?: MDL:\d+)?\n(.*?)\n\*{10}",
                      re.DOTALL)
MAX_VARS = re.compile(r"^max_vars\((\d+)\)\.", re.MULTILINE)


@dataclass(frozen=True)
class PopperAnswer:
    """Popper's printed solution: score, size, clauses and wall seconds."""

    score: tuple[int, int, int, int]
    size: int
    clauses: tuple[str, ...]
    seconds: float

    def cost(self, noisy: bool) -> tuple[int, ...]:
        """What Popper minimises: size (classic, among exact programs) or size + FN + FP."""
        return (self.size + self.score[1] + self.score[3],) if noisy else (self.size,)


def run_popper(python: str, popper: Path, folder: Path, noisy: bool,
               timeout: float) -> PopperAnswer | None:
    """Popper's answer on ``folder``, or ``None`` when it prints no solution."""
    cmd = [python, str(popper / "popper.py"), str(folder), "--timeout", f"{timeout:g}"]
    start = time.monotonic()
    out = subprocess.run(cmd + (["--noisy"] if noisy else []), capture_output=True,
                         text=True, check=False, timeout=timeout + 30).stdout
    seconds = time.monotonic() - start
    match = SOLUTION.search(out)
    if not match:
        return None
    tp, fn, tn, fp, size = (int(g) for g in match.groups()[:5])
    return PopperAnswer((tp, fn, tn, fp), size, tuple(match.group(6).strip().splitlines()),
                        seconds)


def _tuple(numbers: list[int]) -> str:
    return "(" + ",".join(map(str, numbers)) + ("," if len(numbers) == 1 else "") + ")"


def _arrange(lit: tuple, order: dict[str, tuple[int, ...]]) -> tuple:
    name, args = lit
    return (name, tuple(args[i] for i in order[name])) if name in order else lit


def ban_constraints(clause: str, max_vars: int, invented: frozenset[str] = frozenset()) -> str:
    """ASP constraints over Popper's generator vocabulary banning ``clause`` under every
    numbering of its body-only variables (head variables are 0, 1, ... by position, as Popper
    numbers them) and every argument order of the ``invented`` predicates in it, and no
    bigger clause."""
    head, body = parse_clause(clause)
    names = sorted({name for name, _ in (head, *body) if name in invented})
    arity = {name: len(args) for name, args in (head, *body)}
    lines = []
    for orders in itertools.product(*(itertools.permutations(range(arity[n])) for n in names)):
        order = dict(zip(names, orders))
        (hname, hargs), lits = _arrange(head, order), [_arrange(b, order) for b in body]
        head_vars = [a.name for a in hargs]
        others: list[str] = []
        for _, args in lits:
            others.extend(a.name for a in args if isinstance(a, Var)
                          and a.name not in head_vars and a.name not in others)
        for numbers in itertools.permutations(range(len(head_vars), max_vars), len(others)):
            index = {**{v: i for i, v in enumerate(head_vars)}, **dict(zip(others, numbers))}
            parts = [f"head_literal(C,{hname},{len(hargs)},{_tuple(list(range(len(hargs))))})"]
            parts += [f"body_literal(C,{name},{len(args)},"
                      f"{_tuple([index[a.name] for a in args])})" for name, args in lits]
            lines.append(":- clause(C), " + ", ".join(parts) + f", body_size(C,{len(lits)}).")
    return "\n".join(sorted(set(lines))) + "\n"


def check(folder: Path, header: ProblemHeader, python: str, popper: Path,
          timeout: float) -> list[str]:
    """The problems found with ``folder`` (empty when Popper confirms its header)."""
    target = parse_clause(header.clauses[0])[0][0]
    answer = run_popper(python, popper, folder, header.noisy, timeout)
    if answer is None:
        return ["Popper prints no solution"]
    print(f"{folder.name}: Popper {answer.seconds:.1f} s, size {answer.size}, "
          f"score {answer.score}")
    problems = []
    if answer.size != header.size:
        problems.append(f"Popper's size {answer.size} != expect-size {header.size}")
    if header.score is not None and answer.score != header.score:
        problems.append(f"Popper's score {answer.score} != expect-score {header.score}")
    if not same_program(answer.clauses, header.clauses, target):
        problems.append(f"Popper's program differs: {answer.clauses}")
    match = MAX_VARS.search((folder / "bias.pl").read_text())
    max_vars = int(match.group(1)) if match else 6
    best = answer.cost(header.noisy)
    invented = frozenset({parse_clause(c)[0][0] for c in answer.clauses} - {target})
    for clause in answer.clauses:
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("bk.pl", "exs.pl"):
                shutil.copy(folder / name, tmp)
            bias = (folder / "bias.pl").read_text() + "\n" + ban_constraints(clause, max_vars,
                                                                             invented)
            Path(tmp, "bias.pl").write_text(bias)
            other = run_popper(python, popper, Path(tmp), header.noisy, timeout)
        exact = other is not None and (header.noisy or other.score[1] == other.score[3] == 0)
        print(f"  banned {clause}: {other.clauses if other else 'no solution'} "
              f"{other.score if other else ''}")
        if exact and other.cost(header.noisy) <= best:
            problems.append(f"not unique: with {clause} banned Popper finds {other.clauses}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="problem folders to check (default: all)")
    parser.add_argument("--popper", type=Path, required=True, help="Popper's checkout")
    parser.add_argument("--popper-python", default=sys.executable,
                        help="the Python that runs Popper")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per Popper run")
    args = parser.parse_args(argv)
    chosen = [(f, h) for f, h in PROBLEMS if not args.names or f.name in args.names]
    failed = 0
    for folder, header in chosen:
        problems = check(folder, header, args.popper_python, args.popper, args.timeout)
        for problem in problems:
            print(f"  FAIL {folder.name}: {problem}")
        failed += bool(problems)
    print(f"{len(chosen) - failed} of {len(chosen)} problems confirmed by Popper")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
