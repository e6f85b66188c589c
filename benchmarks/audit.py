"""Benchmark validity: the artifact audit on freshly generated, template-rendered tasks, and the
paper-vs-ours table of sizes, pool statistics and chance levels.

For each track, ``-n`` Easy and ``-n`` Hard tasks are generated with ``scir generate`` (once per
construction, ``balanced`` and ``paper``, when the track has the ``construction`` parameter),
rendered with ``scir render --renderer template`` and audited (``scir audit``'s baselines, NL and
Obf). Printed: the audit tables with the constructions side by side, and the paper-vs-ours
table with a pass/fail per figure:

* deduction Hard: premises 32.8, NL chars 3.2k, Obf chars 9.4k (SciR Table 2), each +-20%;
  Easy is shown beside them (no paper figure of its own: it should be in proportion);
* induction: single-answer tasks Easy 131/200, Hard 105/200 (+-15 of 200), mean pool 1.43 /
  1.58 (+-0.12), mean chance 3.2% / 3.5% (+-0.12/45, what the pool tolerance allows); the
  constrained chance is shown beside it;
* causal: chance 10% Easy, 5% Hard (exact).

For causal it also prints the sortability of the generated data (Reisach et al. 2021, 2023;
``scir/audit/sortability.py``): per construction and tier, the mean, variance and R²
sortability of the whole true graph (observational rows) and the share of XYZ's edges along
which each statistic increases, with its 95% Wilson interval (0.5: no information).

Generated files are cached in the work folder under a fingerprint of the generator and
renderer sources, so a rerun only audits (and a changed generator regenerates).

    .venv/bin/python benchmarks/audit.py --work /tmp/scir-audit            # 200 per tier
    .venv/bin/python benchmarks/audit.py --work /tmp/scir-audit -n 60      # quick look

Exit code 0 when no leak is flagged for the default construction and every one of its figures
passes (the paper construction's leaks and figures are shown beside it, not judged).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scir.audit.crossval import REFERENCE, GroupAudit  # noqa: E402
from scir.audit.run import audit_files  # noqa: E402
from scir.tasks import Task  # noqa: E402
from scir.tracks.reading import read_tasks  # noqa: E402
from scir.tracks import get_track  # noqa: E402

TRACKS = ("deduction", "induction", "causal")
LEVELS = ("easy", "hard")
DEFAULT = "default"                  # the column of a track without a construction parameter


def fingerprint() -> str:
    """A short hash of every source the generated and rendered files depend on."""
    digest = hashlib.sha1()
    for folder in ("scir/tracks", "scir/text", "prolog", "asp"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json", ".pl", ".lp", ".txt"):
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def constructions(track: str) -> list[str]:
    """``balanced`` and ``paper`` when the track has the parameter, else the default only."""
    for param in get_track(track).parameters():
        if param.name == "construction":
            return list(param.choices or ())
    return [DEFAULT]


def scir(*args: str) -> None:
    """Run a ``scir`` command in a subprocess (this checkout's code), failing loudly."""
    cmd = [sys.executable, "-m", "scir", *args]
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr}")


def task_file(work: Path, track: str, construction: str, level: str, n: int, seed: int) -> Path:
    """The rendered file of one (track, construction, level), generated and rendered once."""
    stem = f"{track}-{construction}-{level}-n{n}-s{seed}"
    clean, rendered = work / f"{stem}.jsonl", work / f"{stem}.obf.jsonl"
    if not rendered.exists():
        start = time.perf_counter()
        extra = [] if construction == DEFAULT else ["--construction", construction]
        scir("generate", track, "--difficulty", level, "-n", str(n), "--seed", str(seed),
             *extra, "-o", str(clean))
        scir("render", str(clean), "--renderer", "template", "-o", str(rendered))
        print(f"generated and rendered {rendered.name} in {time.perf_counter() - start:.0f} s",
              file=sys.stderr, flush=True)
    return rendered


# ---- the audit tables, constructions side by side -------------------------------------------
def audit_table(track: str, audits: dict[str, list[GroupAudit]]) -> str:
    """One Markdown table per track: a row per (difficulty, presentation, baseline), a column
    per construction (accuracy, interval, the baseline's own reference chance when it has
    one, leak)."""
    names = list(audits)
    head = ["difficulty", "presentation", "baseline", "chance (constr.)"]
    head += [f"{c}: accuracy [95% CI]" for c in names]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    index = {c: {(a.difficulty, a.presentation): a for a in groups}
             for c, groups in audits.items()}
    keys = list(dict.fromkeys(k for c in names for k in index[c]))
    for key in keys:
        first = next(index[c][key] for c in names if key in index[c])
        for k, score in enumerate(first.scores):
            cells = [key[0], key[1], score.name,
                     f"{100 * first.chance:.1f}% ({100 * first.chance_constrained:.1f}%)"]
            for c in names:
                audit = index[c].get(key)
                if audit is None:
                    cells.append("-")
                    continue
                s = audit.scores[k]
                reference = (f" (ref. {100 * s.reference:.1f}%)" if s.reference is not None
                             else "")
                cells.append(f"{100 * s.accuracy:.1f}% [{100 * s.low:.1f}-{100 * s.high:.1f}]"
                             + reference + (" **LEAK**" if s.leak else ""))
            rows.append("| " + " | ".join(cells) + " |")
    return f"### {track}\n\n" + "\n".join(rows)


def summary_table(all_audits: dict[str, dict[str, list[GroupAudit]]]) -> str:
    """One row per (track, difficulty, presentation): per construction, the best baseline
    (the furthest above its chance level, or its own reference chance) with its interval and
    the number of baselines flagged."""
    names = list(dict.fromkeys(c for audits in all_audits.values() for c in audits))
    head = ["track", "difficulty", "presentation", "tasks", "chance (constr.)"]
    head += [f"{c}: best baseline [95% CI], leaks" for c in names]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for track, audits in all_audits.items():
        index = {c: {(a.difficulty, a.presentation): a for a in groups}
                 for c, groups in audits.items()}
        for key in dict.fromkeys(k for c in audits for k in index[c]):
            first = next(index[c][key] for c in audits if key in index[c])
            cells = [track, key[0], key[1], str(first.tasks),
                     f"{100 * first.chance:.1f}% ({100 * first.chance_constrained:.1f}%)"]
            for c in names:
                audit = index.get(c, {}).get(key)
                if audit is None:
                    cells.append("-")
                    continue
                # the baseline furthest above its own chance level (a reference, if it has one)
                best = max((s for s in audit.scores if s.family not in REFERENCE),
                           key=lambda s: s.accuracy - max(
                    audit.chance, audit.chance_constrained,
                    s.reference if s.reference is not None else 0.0))
                reference = (f" (ref. {100 * best.reference:.1f}%)"
                             if best.reference is not None else "")
                cells.append(f"{best.name} {100 * best.accuracy:.1f}% "
                             f"[{100 * best.low:.1f}-{100 * best.high:.1f}]{reference}, "
                             f"{len(audit.leaks)} leak(s)")
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


# ---- paper vs ours ---------------------------------------------------------------------------
def _check(value: float, target: float, tolerance: float) -> str:
    return "pass" if abs(value - target) <= tolerance + 1e-12 else "FAIL"


def paper_rows(track: str, construction: str, tasks: dict[str, list[Task]], n: int
               ) -> list[tuple[str, str, str, str, str]]:
    """(figure, ours, paper, tolerance, pass/fail) rows of one track and construction."""
    rows = []
    if track == "deduction":
        targets = {"premises": 32.8, "NL chars": 3200.0, "Obf chars": 9400.0}
        for level in LEVELS:
            ts = tasks[level]
            ours = {"premises": fmean(len(t.formal["premises"]) for t in ts),
                    "NL chars": fmean(len(t.problem_nl) for t in ts),
                    "Obf chars": fmean(len(t.problem_obfuscated) for t in ts)}
            for name, value in ours.items():
                if level == "hard":
                    target = targets[name]
                    rows.append((f"{level} {name}", f"{value:.1f}", f"{target:g}", "+-20%",
                                 _check(value, target, 0.2 * target)))
                else:
                    hard = fmean(_figure(name, t) for t in tasks["hard"])
                    rows.append((f"{level} {name}", f"{value:.1f}",
                                 f"- (ours Easy/Hard {value / hard:.2f})", "-", "-"))
    elif track == "induction":
        paper = {"easy": (131, 1.43, 0.032), "hard": (105, 1.58, 0.035)}
        for level in LEVELS:
            ts = tasks[level]
            single_target, pool_target, chance_target = paper[level]
            single = sum(1 for t in ts if len(t.answer_pool) == 1)
            scale = len(ts) / 200
            pool = fmean(len(t.answer_pool) for t in ts)
            chance = fmean(t.chance for t in ts)
            constrained = fmean(float(t.chance_constrained) for t in ts)
            rows += [
                (f"{level} single-answer", f"{single}/{len(ts)}",
                 f"{single_target * scale:.1f}/{len(ts)}", f"+-{15 * scale:.1f}",
                 _check(single, single_target * scale, 15 * scale)),
                (f"{level} mean pool", f"{pool:.2f}", f"{pool_target:.2f}", "+-0.12",
                 _check(pool, pool_target, 0.12)),
                (f"{level} mean chance", f"{100 * chance:.2f}%", f"{100 * chance_target:.1f}%",
                 f"+-{100 * 0.12 / 45:.2f} pt", _check(chance, chance_target, 0.12 / 45)),
                (f"{level} constrained chance", f"{100 * constrained:.2f}%", "-", "-", "-"),
            ]
    else:
        for level, target in (("easy", 0.10), ("hard", 0.05)):
            chance = fmean(t.chance for t in tasks[level])
            rows.append((f"{level} chance", f"{100 * chance:.2f}%", f"{100 * target:.0f}%",
                         "exact", _check(chance, target, 1e-9)))
    return rows


def _figure(name: str, task: Task) -> float:
    return {"premises": len(task.formal["premises"]), "NL chars": len(task.problem_nl),
            "Obf chars": len(task.problem_obfuscated)}[name]


def sortability_table(files: dict[tuple[str, str], Path]) -> str:
    """Causal sortability per (construction, tier): whole graph and XYZ's edges."""
    from scir.audit.sortability import STATISTICS, summarise

    head = ["construction", "tier", "tasks"]
    head += [f"{s} (graph)" for s in STATISTICS]
    head += [f"{s} (XYZ edges) [95% CI]" for s in STATISTICS]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (construction, level), path in files.items():
        summary = summarise(read_tasks(path))
        cells = [construction, level, str(summary.tasks)]
        cells += [f"{summary.graph[s]:.3f}" for s in STATISTICS]
        cells += [f"{summary.xyz[s][0]:.3f} [{summary.xyz[s][1]:.3f}-{summary.xyz[s][2]:.3f}]"
                  f" of {summary.xyz_edges}" for s in STATISTICS]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def paper_table(rows: dict[tuple[str, str], list]) -> str:
    out = ["| track | construction | figure | ours | paper | tolerance | result |",
           "|---|---|---|---:|---:|---|---|"]
    for (track, construction), items in rows.items():
        for figure, ours, paper, tolerance, result in items:
            out.append(f"| {track} | {construction} | {figure} | {ours} | {paper} | "
                       f"{tolerance} | {result} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--n", type=int, default=200, help="tasks per difficulty")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--work", type=Path, required=True,
                        help="folder for the generated files (reused by a rerun)")
    parser.add_argument("--tracks", default=",".join(TRACKS), help="comma-separated tracks")
    args = parser.parse_args(argv)
    work = args.work / fingerprint()
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder {work}", file=sys.stderr)

    tables, paper, default_leaks, failures, paper_failures = [], {}, 0, 0, 0
    all_audits: dict[str, dict[str, list[GroupAudit]]] = {}
    causal_files: dict[tuple[str, str], Path] = {}
    for track in args.tracks.split(","):
        audits: dict[str, list[GroupAudit]] = {}
        for construction in constructions(track):
            files = {level: task_file(work, track, construction, level, args.n, args.seed)
                     for level in LEVELS}
            audits[construction] = audit_files([str(f) for f in files.values()], ["nl", "obf"],
                                               folds=args.folds, seed=args.seed)
            tasks = {level: read_tasks(f) for level, f in files.items()}
            if track == "causal":
                causal_files.update({(construction, level): f for level, f in files.items()})
            paper[(track, construction)] = paper_rows(track, construction, tasks, args.n)
            failed = sum(1 for row in paper[(track, construction)] if row[-1] == "FAIL")
            if construction in (DEFAULT, "balanced"):
                default_leaks += sum(len(a.leaks) for a in audits[construction])
                failures += failed
            else:      # the paper construction reproduces the paper's build, figures and all
                paper_failures += failed
        tables.append(audit_table(track, audits))
        all_audits[track] = audits

    print(f"# Audit: {args.n} Easy + {args.n} Hard tasks per track, seed {args.seed}, "
          f"template renderer, {args.folds}-fold grouped CV\n")
    print("## Summary: the best baseline per group\n")
    print(summary_table(all_audits))
    print("\n## Every baseline\n")
    print("\n\n".join(tables))
    print("\n## Paper vs ours\n")
    print(paper_table(paper))
    if causal_files:
        print("\n## Causal sortability (observational rows)\n")
        print(sortability_table(causal_files))
    print(f"\nleaks flagged for the default construction: {default_leaks}; its figures "
          f"outside the tolerance: {failures} (the paper construction's: {paper_failures})")
    return 0 if default_leaks == 0 and failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
