"""Deduction track: Hard tasks generated (each double-verified by ASP and Prover9 while it is
generated) and verified again, with the share of time in ASP, Prover9 and Prolog.

Measured side by side in one run:
  1. reference: the first ``--sample`` Hard tasks generated in this process (workers=1),
     with ASP and Prover9 calls timed;
  2. all ``-n`` Hard tasks generated with a process pool (``--workers``), as
     ``scir generate`` does it;
  3. a verify pass over them (as ``scir verify``: ASP, Prover9, Prolog proof-tree check),
     each solver timed.
Target: 200 Hard tasks generated and double-verified in < 60 s on 2 cores (paper
construction), < 180 s (balanced: four trees of depth 6, minimality and existential-import
checks on every candidate).

    python benchmarks/deduction.py [-n 200] [--seed 1] [--workers 2] [--sample 20]
                                   [--construction balanced|paper]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from scir.tracks.deduction import DeductionTrack, checks
from scir.tracks.deduction.logic import Node, parse

TARGET_SECONDS = {"paper": 60.0, "balanced": 180.0}


def timed(table: Counter, key: str, fn):
    """``fn`` wrapped so that its wall time accumulates in ``table[key]``."""
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            table[key] += time.perf_counter() - start
    return wrapper


def reference(sample: int, seed: int, construction: str) -> tuple[float, Counter]:
    """Seconds for ``sample`` Hard tasks in this process, and the time in each solver."""
    spent: Counter = Counter()
    real_asp, real_p9 = checks.asp_label, checks.prover9_label
    checks.asp_label = timed(spent, "asp", real_asp)
    checks.prover9_label = timed(spent, "prover9", real_p9)
    try:
        start = time.perf_counter()
        tasks = list(DeductionTrack(workers=1).generate(sample, seed, "hard",
                                                        {"construction": construction}))
        seconds = time.perf_counter() - start
    finally:
        checks.asp_label, checks.prover9_label = real_asp, real_p9
    assert len(tasks) == sample
    return seconds, spent


def verify_pass(tasks) -> tuple[float, Counter]:
    """A verify pass over ``tasks`` with each solver timed separately."""
    spent: Counter = Counter()
    start = time.perf_counter()
    for task in tasks:
        t = time.perf_counter()
        premises = [parse(p) for p in task.formal["premises"]]
        statement = parse(task.formal["goal"])
        trees = [Node.from_json(task.formal["proof"])]
        trees += [Node.from_json(d) for d in task.formal["distractors"]]
        spent["parse"] += time.perf_counter() - t
        t = time.perf_counter()
        asp = checks.asp_label(premises, statement)
        spent["asp"] += time.perf_counter() - t
        t = time.perf_counter()
        p9 = checks.prover9_label(premises, statement)
        spent["prover9"] += time.perf_counter() - t
        t = time.perf_counter()
        results = checks.check_trees(trees, premises)
        spent["prolog"] += time.perf_counter() - t
        if not (asp.label == p9 == task.answer and all(r.ok for r in results)):
            raise SystemExit(f"verification failed for {task.task_id}")
    return time.perf_counter() - start, spent


def share(spent: Counter, total: float) -> str:
    return ", ".join(f"{k} {v:.2f} s ({100 * v / total:.0f}%)" for k, v in spent.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="Hard tasks to generate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2, help="generation processes")
    ap.add_argument("--sample", type=int, default=20, help="tasks of the serial reference")
    ap.add_argument("--construction", choices=sorted(TARGET_SECONDS), default="balanced")
    args = ap.parse_args()
    params = {"construction": args.construction}

    ref_seconds, ref_spent = reference(args.sample, args.seed, args.construction)
    ref_rate = args.sample / ref_seconds
    print(f"reference: {args.sample} Hard tasks in-process: {ref_seconds:.2f} s "
          f"({ref_rate:.2f} tasks/s); {share(ref_spent, ref_seconds)}")
    print(f"  ASP / Prover9 time during generation: "
          f"{ref_spent['asp'] / max(ref_spent['prover9'], 1e-9):.2f}")

    start = time.perf_counter()
    tasks = list(DeductionTrack(workers=args.workers).generate(args.n, args.seed, "hard",
                                                               params))
    gen_seconds = time.perf_counter() - start
    gen_rate = args.n / gen_seconds
    retries = Counter()
    for task in tasks:
        retries.update(task.provenance["retries"])
    print(f"generate: {args.n} Hard tasks, {args.workers} workers: {gen_seconds:.2f} s "
          f"({gen_rate:.2f} tasks/s, {gen_rate / ref_rate:.2f}x the reference); "
          f"labels {dict(sorted(Counter(t.answer for t in tasks).items()))}; "
          f"retries {dict(retries)}")

    ver_seconds, ver_spent = verify_pass(tasks)
    print(f"verify: {args.n} tasks in-process: {ver_seconds:.2f} s "
          f"({args.n / ver_seconds:.2f} tasks/s); {share(ver_spent, ver_seconds)}")
    print(f"  ASP / Prover9 time when verifying: "
          f"{ver_spent['asp'] / max(ver_spent['prover9'], 1e-9):.2f}")

    total = gen_seconds + ver_seconds
    scaled = TARGET_SECONDS[args.construction] * args.n / 200
    print(f"generate (double-verified) {gen_seconds:.2f} s "
          f"({gen_seconds / scaled:.2f} of the {scaled:.0f} s target: "
          f"{'met' if gen_seconds < scaled else 'NOT met'}); "
          f"generate + verify pass {total:.2f} s ({total / scaled:.2f} of the target)")


if __name__ == "__main__":
    main()
