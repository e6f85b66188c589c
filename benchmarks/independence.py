"""Answer-blind heuristics on induction and causal task files: do the facts' or the options'
surface statistics single out the answer? (A development check for the ``balanced``
construction; the formal audit is ``scir audit``.)

    .venv/bin/python benchmarks/independence.py FILE.jsonl [FILE.jsonl ...]
    .venv/bin/python benchmarks/independence.py --generate -n 200      # both constructions

Induction heuristics pick a same-category pair from the facts alone (ties are split evenly, so
each task contributes its expected hit); they are compared with the constrained chance
(|pool| / 18, the same-category pairs the question allows). Causal: how often true XYZ partners
are intervened on versus other subgraph nodes, the share of true edges into XYZ, and option
pickers that maximise or minimise one option feature (partners intervened, partners' mentions,
edges into XYZ, text length, partners' known degree), against chance 1/options; and the
sortability of the observational rows (``scir/audit/sortability.py``: mean, variance and R²
over the whole true graph and over XYZ's edges).

A heuristic is flagged (LEAK) when the 95% Wilson lower bound of its hit rate is above the
file's mean (constrained) chance + 0.03.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scir.tasks import Task  # noqa: E402
from scir.tracks.reading import read_tasks  # noqa: E402
from scir.tracks.causal.graph import NEW_PROTEIN  # noqa: E402
from scir.tracks.causal.options import parse_option  # noqa: E402
from scir.tracks.induction.world import load_world, rule_key  # noqa: E402

MARGIN = 0.03


def wilson(hits: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of ``hits`` successes in ``n`` trials (hits may be fractional:
    an expected count)."""
    if n == 0:
        return (0.0, 1.0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _line(name: str, hits: float, n: int, chance: float) -> str:
    lo, hi = wilson(hits, n)
    flag = "LEAK" if lo > chance + MARGIN else "ok"
    return (f"  {name:38s} {hits / n:6.1%}  [{lo:5.1%}, {hi:5.1%}]  chance {chance:5.1%}  "
            f"{flag}")


def _argbest(scores: dict, pool: Iterable[str], maximise: bool = True) -> float:
    """Expected hit of picking the best-scoring key (ties split evenly)."""
    if not scores:
        return 0.0
    best = max(scores.values()) if maximise else min(scores.values())
    top = [k for k, v in scores.items() if v == best]
    pool = set(pool)
    return sum(1 for k in top if k in pool) / len(top)


# ---- induction --------------------------------------------------------------------------------
def induction_heuristics(labels: bool = False) -> dict[str, Callable[[Task], float]]:
    """Name -> function(task) giving the expected hit of one answer-blind picker that ignores
    which examples are positive and which negative; with ``labels``, instead the pickers that
    also read the labels: shallow approximations of the task's own reasoning (a pool rule
    covers a positive and no negative), shown beside the others but not gated."""
    world = load_world()
    rules = [(a, b) for a in world.relation_names for b in world.relation_names
             if a <= b and world.rule_category((a, b)) is not None]

    def cooccur(facts, drugs=None) -> dict[str, int]:
        by_protein: dict[str, list[tuple[str, str]]] = {}
        for rel, drug, prot in facts:
            if drugs is None or drug in drugs:
                by_protein.setdefault(prot, []).append((rel, drug))
        out = {}
        for r1, r2 in rules:
            out[rule_key((r1, r2))] = sum(
                1 for items in by_protein.values()
                if any(a == r1 and b == r2 and d1 != d2
                       for a, d1 in items for b, d2 in items))
        return out

    def type_counts(facts, drugs=None) -> Counter:
        return Counter(f[0] for f in facts if drugs is None or f[1] in drugs)

    def ex_drugs(t: Task) -> set[str]:
        return {d for p in t.formal["pos"] + t.formal["neg"] for d in p}

    def pos_drugs(t: Task) -> set[str]:
        return {d for p in t.formal["pos"] for d in p}

    def pos_minus_neg(t: Task) -> float:
        pos = type_counts(t.formal["facts"], pos_drugs(t))
        neg = type_counts(t.formal["facts"], {d for p in t.formal["neg"] for d in p})
        return _argbest({rule_key(r): pos[r[0]] + pos[r[1]] - neg[r[0]] - neg[r[1]]
                         for r in rules}, t.answer_pool)

    def present(t: Task) -> float:
        types = {f[0] for f in t.formal["facts"]}
        cands = [rule_key(r) for r in rules if r[0] in types and r[1] in types]
        return sum(1 for c in cands if c in t.answer_pool) / len(cands) if cands else 0.0

    def freq(drugs_of=None, maximise=True):
        def h(t: Task) -> float:
            c = type_counts(t.formal["facts"], drugs_of(t) if drugs_of else None)
            return _argbest({rule_key(r): c[r[0]] + c[r[1]] for r in rules}, t.answer_pool,
                            maximise)
        return h

    def freq_min(drugs_of=None):
        def h(t: Task) -> float:
            c = type_counts(t.formal["facts"], drugs_of(t) if drugs_of else None)
            return _argbest({rule_key(r): min(c[r[0]], c[r[1]]) for r in rules}, t.answer_pool)
        return h

    def co(drugs_of=None, maximise=True):
        def h(t: Task) -> float:
            return _argbest(cooccur(t.formal["facts"], drugs_of(t) if drugs_of else None),
                            t.answer_pool, maximise)
        return h

    def examples_covered(t: Task) -> dict[str, int]:
        """Per same-category rule, the examples it covers, labels ignored."""
        facts = t.formal["facts"]
        by = {}
        for rel, drug, prot in facts:
            by.setdefault((drug, prot), set()).add(rel)
        prots = {f[2] for f in facts}
        return {rule_key((r1, r2)): sum(
            1 for a, b in t.formal["pos"] + t.formal["neg"]
            if any((r1 in by.get((a, p), ()) and r2 in by.get((b, p), ()))
                   or (r2 in by.get((a, p), ()) and r1 in by.get((b, p), ())) for p in prots))
            for r1, r2 in rules}

    def covers_example(t: Task) -> float:
        cands = [k for k, n in examples_covered(t).items() if n > 0]
        return sum(1 for c in cands if c in t.answer_pool) / len(cands) if cands else 0.0

    def covers_two(t: Task) -> float:
        """A random same-category rule covering exactly two examples (the target covers its
        two positives), labels ignored."""
        cands = [k for k, n in examples_covered(t).items() if n == 2]
        return sum(1 for c in cands if c in t.answer_pool) / len(cands) if cands else 0.0

    if labels:
        return {
            "positive drugs' types (sum)": freq(pos_drugs),
            "positive minus negative drugs' types": pos_minus_neg,
            "most co-occurring, positive drugs": co(pos_drugs),
        }
    return {
        "random pair over present types": present,
        "most frequent types (sum)": freq(),
        "least frequent types (sum)": freq(maximise=False),
        "most frequent types (min)": freq_min(),
        "example drugs' types (sum)": freq(ex_drugs),
        "example drugs' types (min)": freq_min(ex_drugs),
        "least example drugs' types (sum)": freq(ex_drugs, maximise=False),
        "most co-occurring pair": co(),
        "least co-occurring pair": co(maximise=False),
        "most co-occurring, example drugs": co(ex_drugs),
        "random pair covering an example": covers_example,
        "random pair covering two examples": covers_two,
    }


def induction_label_heuristics() -> dict[str, Callable[[Task], float]]:
    """The pickers that also read the pos/neg labels (``induction_heuristics(labels=True)``)."""
    return induction_heuristics(labels=True)


def report_induction(tasks: list[Task]) -> list[str]:
    n = len(tasks)
    chance = sum(t.chance_constrained for t in tasks) / n
    from scir.tracks.induction.stats import pool_statistics

    stats = pool_statistics(tasks)
    out = [f"induction: {n} tasks, mean chance {sum(t.chance for t in tasks) / n:.1%}, "
           f"constrained chance {chance:.1%}; single-answer {stats.single}/{n}, mean pool "
           f"{stats.mean_size:.2f}, max {stats.max_size}"]
    for name, h in induction_heuristics().items():
        out.append(_line(name, sum(h(t) for t in tasks), n, chance))
    out.append("  reading the pos/neg labels (partial solving, not gated):")
    for name, h in induction_label_heuristics().items():
        out.append(_line(name, sum(h(t) for t in tasks), n, chance).replace("LEAK", "above"))
    return out


# ---- causal -----------------------------------------------------------------------------------
def _causal_features(t: Task) -> list[dict[str, float]]:
    """Per option: answer-blind features of its edges."""
    targets = Counter(x for e in t.formal["environments"] for x in e["targets"])
    text = t.problem_nl or "\n\n".join(t.blocks)
    degree = Counter(v for e in t.formal["known_edges"] for v in e)
    feats = []
    for opt in t.options:
        edges = parse_option(opt)
        partners = [a if b == NEW_PROTEIN else b for a, b in edges]
        feats.append({
            "partners intervened": sum(targets[p] for p in partners),
            "partners' mentions": sum(len(re.findall(rf"\b{re.escape(p)}\b", text))
                                      for p in partners),
            "edges into XYZ": sum(1 for a, b in edges if b == NEW_PROTEIN),
            "option text length": len(opt),
            "partners' known degree": sum(degree[p] for p in partners),
        })
    return feats


def partner_counts(tasks: list[Task]) -> tuple[int, int, int, int]:
    """(true partners intervened on, true partners, other subgraph nodes intervened on,
    other subgraph nodes), summed over ``tasks``."""
    ph = pn = oh = on = 0
    for t in tasks:
        targets = {x for e in t.formal["environments"] for x in e["targets"]}
        partners = {a if b == NEW_PROTEIN else b for a, b in t.formal["xyz_edges"]}
        for v in t.domain_metadata["subgraph_nodes"]:
            if v in partners:
                pn += 1
                ph += v in targets
            else:
                on += 1
                oh += v in targets
    return ph, pn, oh, on


def report_causal(tasks: list[Task]) -> list[str]:
    n = len(tasks)
    chance = sum(t.chance for t in tasks) / n
    out = [f"causal: {n} tasks, mean chance {chance:.1%}"]
    part_hit, part_n, other_hit, other_n = partner_counts(tasks)
    into = sum(1 for t in tasks for a, b in t.formal["xyz_edges"] if b == NEW_PROTEIN)
    edges = sum(len(t.formal["xyz_edges"]) for t in tasks)
    lo, hi = wilson(part_hit, part_n)
    out.append(f"  true partners intervened on {part_hit / part_n:6.1%} [{lo:.1%}, {hi:.1%}]"
               f"  other subgraph nodes {other_hit / other_n:6.1%}")
    lo, hi = wilson(into, edges)
    out.append(f"  true edges into XYZ          {into / edges:6.1%} [{lo:.1%}, {hi:.1%}]")
    regen = [t.provenance.get("regenerated", 0) for t in tasks]
    structures = sum(t.provenance.get("rejected", {}).get("new_structure", 0) for t in tasks)
    out.append(f"  regenerated draws per task   {sum(regen) / n:.2f} (max {max(regen)}; "
               f"{sum(regen)} GIES failures in {sum(regen) + n} runs, "
               f"{sum(regen) / (sum(regen) + n):.1%}; {structures} structures redrawn)")
    from scir.audit.sortability import STATISTICS, summarise

    summary = summarise(tasks)
    for stat in STATISTICS:
        share, lo, hi = summary.xyz[stat]
        out.append(f"  {stat + '-sortability':12s} graph {summary.graph[stat]:.3f}; XYZ's edges "
                   f"{share:.3f} [{lo:.3f}, {hi:.3f}] of {summary.xyz_edges}")
    feats = [_causal_features(t) for t in tasks]
    for name in feats[0][0]:
        for maximise in (True, False):
            hits = 0.0
            for t, f in zip(tasks, feats):
                scores = {chr(65 + i): row[name] for i, row in enumerate(f)}
                hits += _argbest(scores, [t.answer], maximise)
            out.append(_line(f"{'max' if maximise else 'min'} {name}", hits, n, chance))
    return out


def report(tasks: list[Task]) -> list[str]:
    """The heuristics' lines for one file's tasks (one track per file)."""
    if not tasks:
        return ["(no tasks)"]
    if tasks[0].domain == "induction":
        return report_induction(tasks)
    if tasks[0].domain == "causal":
        return report_causal(tasks)
    return [f"{tasks[0].domain}: no heuristics here"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="task files (JSONL)")
    parser.add_argument("--generate", action="store_true",
                        help="generate induction and causal files for both constructions")
    parser.add_argument("-n", type=int, default=200, help="tasks per tier with --generate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tracks", default="induction,causal")
    args = parser.parse_args(argv)
    leaks = 0
    for path in args.files:
        lines = report(list(read_tasks(path)))
        print(f"== {path}")
        print("\n".join(lines))
        leaks += sum(1 for line in lines if line.endswith("LEAK"))
    if args.generate:
        from scir.tracks import get_track

        for name in args.tracks.split(","):
            track = get_track(name)
            for construction in ("balanced", "paper"):
                for level in ("easy", "hard"):
                    start = time.perf_counter()
                    tasks = list(track.generate(args.n, args.seed, level,
                                                {"construction": construction}))
                    spent = time.perf_counter() - start
                    lines = report(tasks)
                    print(f"== {name} {level} construction={construction} "
                          f"({1000 * spent / max(1, args.n):.0f} ms per task)")
                    print("\n".join(lines))
                    if construction == "balanced":
                        leaks += sum(1 for line in lines if line.endswith("LEAK"))
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
