"""Benchmark: the ILP learner (solvers.ilp) on the induction cross-check and on the fixtures.

Cross-check: for synthetic Hard-like induction tasks (9 relation types, 4 used, ~140 facts,
examples in both orientations) the learner runs once per pair of relation types (45 pairs,
one IlpSession per task, partial mode, max_vars 3, max_body 2). The reference, measured in
the same run, tests each pair's two directed clauses directly (no search). Prints the median
seconds per task (45 pairs), the ratio learner / direct, and whether every pair's verdict
matched a pure-Python coverage check (exit code 1 otherwise, or when the median exceeds 1 s).
Fixtures: seconds per folder of tests/fixtures/ilp.

    .venv/bin/python benchmarks/ilp.py [--tasks N] [--seed S]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

from solvers.errors import SolverInputError
from solvers.ilp import IlpBias, IlpProblem, IlpSession, learn
from solvers.ilp.clauses import Clause, Literal
from solvers.ilp.tester import Tester

RELATIONS = ["agonist_of", "antagonist_of", "binds", "induces_enzyme", "induces_transporter",
             "inhibits_enzyme", "inhibits_transporter", "substrate_of", "transported_by"]
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ilp"
TARGET_SECONDS = 1.0


def synthetic_task(rng: random.Random, n_facts: int = 140):
    """Facts, positives, negatives and a coverage function of one induction-like task."""
    drugs = [f"d{i}" for i in range(40)]
    proteins = [f"p{i}" for i in range(24)]
    used = rng.sample(RELATIONS, 4)
    facts: set[tuple[str, str, str]] = set()
    while len(facts) < n_facts:
        facts.add((rng.choice(used), rng.choice(drugs), rng.choice(proteins)))

    def covers(r1: str, r2: str, a: str, b: str) -> bool:
        return any(((r1, a, p) in facts and (r2, b, p) in facts)
                   or ((r2, a, p) in facts and (r1, b, p) in facts) for p in proteins)

    pairs = list(itertools.combinations(drugs, 2))
    target = tuple(sorted(used[:2]))
    pos = [e for e in pairs if covers(*target, *e)][:4]
    neg = [e for e in pairs if not covers(*target, *e)
           and any(covers(r1, r2, *e) for r1, r2 in itertools.combinations(used, 2))][:3]
    return facts, pos, neg, covers


def problem_of(facts, pos, neg) -> IlpProblem:
    rows: dict[str, list] = {r: [] for r in RELATIONS}
    for rel, drug, protein in sorted(facts):
        rows[rel].append((drug, protein))
    both = lambda ex: sorted({*ex, *[(b, a) for a, b in ex]})  # noqa: E731
    bias = IlpBias(head_pred=("interacts", 2), body_preds=tuple((r, 2) for r in RELATIONS),
                   types={"interacts": ("drug", "drug"),
                          **{r: ("drug", "protein") for r in RELATIONS}},
                   max_vars=3, max_body=2, mode="partial")
    return IlpProblem(bias=bias, pos=both(pos), neg=both(neg), bk_facts=rows)


def run_learner(problem: IlpProblem) -> tuple[float, set]:
    start = time.perf_counter()
    found = set()
    with IlpSession(problem) as session:
        for r1, r2 in itertools.combinations_with_replacement(RELATIONS, 2):
            bias = problem.bias.restricted(sorted({(r1, 2), (r2, 2)}), required_preds=(r1, r2))
            if session.learn(bias, timeout=30).found:
                found.add((r1, r2))
    return time.perf_counter() - start, found


def run_direct(problem: IlpProblem) -> tuple[float, set]:
    start = time.perf_counter()
    found = set()
    tester = Tester(problem, time.monotonic() + 60)
    try:
        tester.declare([(r, 2) for r in RELATIONS], time.monotonic() + 60)
        head = Literal("interacts", (0, 1))
        for r1, r2 in itertools.combinations_with_replacement(RELATIONS, 2):
            for a, b in ((r1, r2), (r2, r1)):
                clause = Clause(head, (Literal(a, (0, 2)), Literal(b, (1, 2))))
                outcome = tester.test(clause, {}, time.monotonic() + 60)
                if outcome.neg is None and outcome.pos:
                    found.add((r1, r2))
    finally:
        tester.close()
    return time.perf_counter() - start, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    learner_times, direct_times, mismatches = [], [], 0
    for _ in range(args.tasks):
        facts, pos, neg, covers = synthetic_task(rng)
        if not pos or not neg:
            continue
        problem = problem_of(facts, pos, neg)
        direct_s, direct = run_direct(problem)
        learner_s, found = run_learner(problem)
        truth = {(r1, r2) for r1, r2 in itertools.combinations_with_replacement(RELATIONS, 2)
                 if any(covers(r1, r2, *e) for e in pos)
                 and not any(covers(r1, r2, *e) for e in neg)}
        mismatches += (found != truth) + (direct != truth)
        learner_times.append(learner_s)
        direct_times.append(direct_s)
    med_l, med_d = statistics.median(learner_times), statistics.median(direct_times)
    print(f"cross-check, {len(learner_times)} tasks x 45 pairs")
    print(f"  learner median {med_l:.3f} s/task (max {max(learner_times):.3f} s)")
    print(f"  direct  median {med_d:.3f} s/task   ratio learner/direct {med_l / med_d:.1f}x")
    print(f"  verdict mismatches: {mismatches}")
    print("fixtures (seconds, status):")
    for folder in sorted(p for p in FIXTURES.iterdir() if (p / "exs.pl").is_file()):
        start = time.perf_counter()
        try:
            status = learn(folder, timeout=30 if folder.name != "timeout" else 1.5).status
        except SolverInputError:
            status = "SolverInputError"
        print(f"  {folder.name:20s} {time.perf_counter() - start:7.3f}  {status}")
    return 1 if mismatches or med_l > TARGET_SECONDS else 0


if __name__ == "__main__":
    sys.exit(main())
