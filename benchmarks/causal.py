"""Benchmark: the causal track's generate + verify throughput, its regeneration rate, and the
reference ``gies`` package against our GIES on the generated tasks.

For Easy and Hard (``-n`` tasks each, default 200): tasks/s of generation (which runs GIES on
every draw until one is solved) and of verification (one GIES run per task); the regeneration
rate (draws GIES did not solve / all draws) and its reasons; the share of subset matches; and,
when the ``gies`` package is importable, the median time ratio package / ours over the tasks'
data, with a check that both give the same graph and score. Time ratios of generation and
verification to a bare GIES call (measured in the same run) show the overhead of the track.

    .venv/bin/python benchmarks/causal.py [-n 200] [--seed 1] [--construction balanced|paper]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

import numpy as np

from _reference import best_time, reference_gies       # benchmarks/_reference.py


def _inputs(task):
    f = task.formal
    data = [np.array(e["rows"], dtype=np.float64) for e in f["environments"]]
    targets = [[f["columns"].index(t) for t in e["targets"]] for e in f["environments"]]
    return data, targets


def run_level(track, level: str, n: int, seed: int, package,
              construction: str = "balanced") -> dict:
    """Generate, verify and time one difficulty level."""
    from solvers.gies import fit

    start = time.perf_counter()
    tasks = list(track.generate(n, seed, level, {"construction": construction}))
    t_gen = time.perf_counter() - start
    start = time.perf_counter()
    checks = [track.verify(t) for t in tasks]
    t_ver = time.perf_counter() - start
    regenerated = sum(t.provenance["regenerated"] for t in tasks)
    reasons: Counter = Counter()
    for t in tasks:
        reasons.update(t.provenance["rejected"])
    ours, ref, same = [], [], True
    for t in tasks:
        data, targets = _inputs(t)
        t_ours, res = best_time(lambda: fit(data, targets), 3)
        ours.append(t_ours)
        if package is not None:
            t_ref, (A, s) = best_time(lambda: package.fit_bic(data, targets), 1)
            ref.append(t_ref)
            same &= bool(((A != 0) == (res.adjacency != 0)).all() and abs(s - res.score) < 1e-6)
    return {
        "level": level, "n": n, "t_gen": t_gen, "t_ver": t_ver,
        "verified": sum(c.ok for c in checks), "draws": n + regenerated,
        "regenerated": regenerated, "reasons": dict(sorted(reasons.items())),
        "subset": sum(t.provenance["match"] == "subset" for t in tasks),
        "gies_ours": statistics.median(ours),
        "ratio": statistics.median(r / o for r, o in zip(ref, ours)) if ref else None,
        "same": same if ref else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="tasks per level (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--construction", default="balanced", choices=("balanced", "paper"))
    args = parser.parse_args(argv)
    package = reference_gies()
    from scir.tracks import get_track

    track = get_track("causal")
    rows = [run_level(track, level, args.n, args.seed, package, args.construction)
            for level in ("easy", "hard")]
    print(f"construction {args.construction}")
    print(f"{'level':<6}{'tasks':>6}{'gen/s':>8}{'verify/s':>10}{'verified':>10}{'draws':>7}"
          f"{'regen':>7}{'rate':>7}{'subset':>8}{'gen/GIES':>10}{'ver/GIES':>10}")
    for r in rows:
        gen_per, ver_per = r["t_gen"] / r["n"], r["t_ver"] / r["n"]
        print(f"{r['level']:<6}{r['n']:>6}{1 / gen_per:>8.1f}{1 / ver_per:>10.1f}"
              f"{r['verified']:>6}/{r['n']:<3}{r['draws']:>7}{r['regenerated']:>7}"
              f"{r['regenerated'] / r['draws']:>7.1%}{r['subset']:>8}"
              f"{gen_per / r['gies_ours']:>9.1f}x{ver_per / r['gies_ours']:>9.1f}x")
    for r in rows:
        print(f"{r['level']}: rejected draws by reason {r['reasons']}; "
              f"regenerations per task {r['regenerated'] / r['n']:.2f}")
    if package is None:
        print("gies package not importable: package/ours ratio skipped")
        ok = True
    else:
        for r in rows:
            print(f"{r['level']}: gies package / ours median time ratio {r['ratio']:.1f}x "
                  f"(ours {r['gies_ours'] * 1e3:.2f} ms per task); identical graphs and scores: "
                  f"{'yes' if r['same'] else 'NO'}")
        ok = all(r["same"] for r in rows)
    ok &= all(r["verified"] == r["n"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
