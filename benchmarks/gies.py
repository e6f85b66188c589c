"""Benchmark: our GIES (solvers.gies.fit) against the reference package (gies.fit_bic 0.0.3).

On the same seeded random linear-Gaussian instances (3 environments, 200 rows each, expected
degree 2) for 6, 8, 12 and 20 nodes, and on the real Sachs data when its folder is found,
prints the median time ratio package / ours and checks that both return the same graph and
the same score (1e-6). Exit code 1 if any result differs or the 12-node target (>= 5x) is
missed.

Before the timing table it runs the reference check of the causal-track issue on
``--reference`` (default 100) random instances -- 5-12 nodes, 1-4 environments, four sample
sizes, three densities, the same family as ``tests/test_gies.py`` (which runs 32 of them) --
and asserts the same graph and the same score (1e-6) on every one.

    .venv/bin/python benchmarks/gies.py [--instances K] [--seed S] [--reference N]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from solvers.gies import fit
from solvers.gies.simulate import random_instance

from _reference import best_time, reference_gies       # benchmarks/_reference.py

SIZES = (6, 8, 12, 20)
TARGET_NODES, TARGET_RATIO = 12, 5.0


def _reference_package():
    """The ``gies`` package (SystemExit when it is not installed)."""
    module = reference_gies()
    if module is None:
        raise SystemExit("the reference package gies is not installed (pip install gies==0.0.3)")
    return module


def _compare(data, targets, repeat: int) -> tuple[float, float, bool, int]:
    gies = _reference_package()
    t_ref, (A, s) = best_time(lambda: gies.fit_bic(data, targets), repeat)
    t_ours, res = best_time(lambda: fit(data, targets), repeat)
    same = bool(((A != 0) == (res.adjacency != 0)).all() and abs(s - res.score) < 1e-6)
    return t_ref, t_ours, same, res.n_edges


def _reference_params(i: int) -> tuple[int, int, int, float]:
    """Instance i of the reference check: every node count 5..12 with every environment count
    1..4, four sample sizes, three densities (as in tests/test_gies.py)."""
    return (5 + i % 8, 1 + (i // 8) % 4, (25, 60, 150, 400)[(i * 3) % 4],
            (1.5, 2.5, 3.5)[(i // 2) % 3])


def reference_check(n: int) -> bool:
    """Ours vs the package on ``n`` random instances; prints a summary, True if all agree."""
    gies = _reference_package()
    mismatches = []
    for i in range(n):
        p, n_envs, rows, degree = _reference_params(i)
        inst = random_instance(p, n_envs, rows, seed=i, expected_degree=degree)
        A, score = gies.fit_bic(inst.data, inst.targets)
        res = fit(inst.data, inst.targets)
        if not (((A != 0) == (res.adjacency != 0)).all() and abs(score - res.score) < 1e-6):
            mismatches.append(i)
    print(f"reference check: {n - len(mismatches)}/{n} random instances (5-12 nodes, 1-4 "
          f"environments) give the same graph and score as gies.fit_bic"
          + (f"; MISMATCH on {mismatches}" if mismatches else ""))
    return not mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=4, help="instances per size (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--reference", type=int, default=100,
                        help="instances of the reference check (default 100; 0 skips it)")
    args = parser.parse_args(argv)
    reference_ok = reference_check(args.reference) if args.reference > 0 else True

    rows, all_same, ratio_at_target = [], True, None
    for p in SIZES:
        ratios, t_refs, t_ours_l, edges = [], [], [], []
        for k in range(args.instances):
            inst = random_instance(p, 3, 200, seed=args.seed + 1000 * p + k)
            repeat = 1 if p >= 20 else 3
            t_ref, t_ours, same, n_edges = _compare(inst.data, inst.targets, repeat)
            all_same &= same
            ratios.append(t_ref / t_ours)
            t_refs.append(t_ref)
            t_ours_l.append(t_ours)
            edges.append(n_edges)
            if not same:
                print(f"MISMATCH: p={p} seed={args.seed + 1000 * p + k}", file=sys.stderr)
        med = statistics.median(ratios)
        if p == TARGET_NODES:
            ratio_at_target = med
        rows.append((f"random p={p}", args.instances, statistics.median(t_refs),
                     statistics.median(t_ours_l), med, statistics.median(edges)))

    try:
        from scir.data.sachs import load_sachs
        from scir.errors import ConfigError

        sachs = load_sachs()
    except (ImportError, ConfigError) as exc:
        print(f"(Sachs row skipped: {exc})")
    else:
        data, targets = sachs.arrays()
        t_ref, t_ours, same, n_edges = _compare(data, targets, 3)
        all_same &= same
        rows.append(("sachs 9 envs", 1, t_ref, t_ours, t_ref / t_ours, n_edges))

    print(f"{'instances':<16}{'n':>3}{'gies [s]':>11}{'ours [s]':>11}{'ratio':>9}{'edges':>7}")
    for name, n, t_ref, t_ours, ratio, n_edges in rows:
        print(f"{name:<16}{n:>3}{t_ref:>11.4f}{t_ours:>11.4f}{ratio:>8.1f}x{n_edges:>7.0f}")
    print(f"identical graphs and scores: {'yes' if all_same else 'NO'}")
    met = ratio_at_target is not None and ratio_at_target >= TARGET_RATIO
    print(f"target >= {TARGET_RATIO:.0f}x at {TARGET_NODES} nodes: {'met' if met else 'MISSED'} "
          f"({ratio_at_target:.1f}x median)")
    return 0 if all_same and met and reference_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
