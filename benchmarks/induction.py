"""Induction track benchmark: answer pools with clingo (asp/induction.lp) against the Prolog
brute force over the 45 rules, the ILP cross-check per Hard task, and pool statistics beside
the paper's.

    .venv/bin/python benchmarks/induction.py            # 200 Easy + 200 Hard (a few minutes)
    .venv/bin/python benchmarks/induction.py -n 20      # quick look
    .venv/bin/python benchmarks/induction.py --construction paper

Targets: clingo pool < 50 ms per task. Ratios are measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scir.tracks import get_track  # noqa: E402
from scir.tracks.induction.ilp_check import ilp_cross_check  # noqa: E402
from scir.tracks.induction.semantics import asp_pool, brute_force_pool, problem_from_formal  # noqa: E402
from scir.tracks.induction.stats import format_pool_statistics, pool_statistics  # noqa: E402

POOL_TARGET_MS = 50.0


def _ms(values: list[float]) -> str:
    return (f"mean {1000 * statistics.fmean(values):7.1f} ms, median "
            f"{1000 * statistics.median(values):7.1f} ms, max {1000 * max(values):7.1f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=200, help="tasks per difficulty")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--construction", default="balanced", choices=("balanced", "paper"))
    args = parser.parse_args(argv)
    track = get_track("induction")

    tasks = {}
    for level in ("easy", "hard"):
        start = time.perf_counter()
        tasks[level] = list(track.generate(args.n, seed=args.seed, difficulty=level,
                                           overrides={"construction": args.construction}))
        spent = time.perf_counter() - start
        print(f"generated {args.n} {level} tasks in {spent:.1f} s "
              f"({1000 * spent / args.n:.0f} ms per task, ILP cross-check included)")

    print("\n== answer pool per task: clingo vs Prolog brute force (45 rules) ==")
    all_asp, all_brute, mismatches = [], [], 0
    for level, items in tasks.items():
        asp_t, brute_t = [], []
        for task in items:
            problem = problem_from_formal(task.formal)
            t0 = time.perf_counter()
            asp = asp_pool(problem)
            t1 = time.perf_counter()
            brute = brute_force_pool(problem)
            t2 = time.perf_counter()
            asp_t.append(t1 - t0)
            brute_t.append(t2 - t1)
            if (asp.valid, asp.pool) != (brute.valid, brute.pool):
                mismatches += 1
        all_asp += asp_t
        all_brute += brute_t
        print(f"{level:5s} clingo pool: {_ms(asp_t)}")
        print(f"{level:5s} Prolog 45x : {_ms(brute_t)}")
        print(f"{level:5s} ratio Prolog/clingo (means): "
              f"{statistics.fmean(brute_t) / statistics.fmean(asp_t):.2f}")
    mean_asp = 1000 * statistics.fmean(all_asp)
    print(f"clingo pool mean {mean_asp:.1f} ms per task: "
          f"{'meets' if mean_asp < POOL_TARGET_MS else 'MISSES'} the < {POOL_TARGET_MS:.0f} ms "
          f"target; pools identical on {len(all_asp) - mismatches}/{len(all_asp)} tasks")

    print("\n== ILP cross-check per Hard task (45 restricted learning runs) ==")
    seconds, per_pair, disagreements = [], [], 0
    for task in tasks["hard"]:
        problem = problem_from_formal(task.formal)
        check = ilp_cross_check(problem, asp_pool(problem))
        seconds.append(check.seconds)
        per_pair += list(check.per_pair_seconds.values())
        disagreements += not check.agrees
    print(f"learner per Hard task: median {statistics.median(seconds):.3f} s, max "
          f"{max(seconds):.3f} s; per pair median {1000 * statistics.median(per_pair):.1f} ms, "
          f"max {1000 * max(per_pair):.1f} ms; disagreements {disagreements}")
    print(f"ratio learner (45 pairs) / clingo pool, Hard medians: "
          f"{statistics.median(seconds) / statistics.median(all_asp[len(tasks['easy']):]):.0f}")

    print(f"\n== answer pools beside the paper (construction {args.construction}) ==")
    print(format_pool_statistics({level: pool_statistics(items)
                                  for level, items in tasks.items()}))
    return 1 if mismatches or disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
