"""Obfuscation depth of the template renderer (issue 29): per track and tier, the share of
premises (deduction premises, induction facts and pairs, causal known edges and data rows,
equation data rows) that the generic extractor of
``scir.text.depth`` -- the clean-NL templates and the vocabulary, no genre knowledge --
recovers from the NL and the Obf text, the share stated literally in one clause, the share
needing a cross-document link and the sentence-skeleton diversity, with the mean Obf/NL length
ratio; and the register check of the control presentation: science words per task
(:mod:`scir.rendering.register`: words of the scientific genre file that ``ctl.json`` never uses,
the task's own clean-NL words excepted) in the Ctl and the Obf text. Every rendered task is
checked by the track's reference extractor (``scir render``'s verification), so the table is
over tasks recovered exactly.

    .venv/bin/python benchmarks/obfuscation_depth.py -n 200            # generate and render
    .venv/bin/python benchmarks/obfuscation_depth.py d.obf.jsonl ...   # rendered task files

Exit code 0 when the Obf generic extractor recovers at most 30% of deduction premises and of
causal edges and 100% of them from NL, and the Ctl texts hold at most 0.5 science words per
task.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scir.rendering.control import as_control, render_control  # noqa: E402
from scir.rendering.extractors import recovery_problems  # noqa: E402
from scir.rendering.register import science_words  # noqa: E402
from scir.rendering.template import render_task  # noqa: E402
from scir.tasks import Task  # noqa: E402
from scir.rendering.depth import group_depth  # noqa: E402
from scir.text.depth import Depth, format_depth  # noqa: E402
from scir.tracks import get_track  # noqa: E402
from scir.tracks.reading import read_tasks  # noqa: E402

TRACKS = ("deduction", "induction", "causal", "equation")
GOAL = {"deduction": "premise", "causal": "edge"}
LIMIT = 0.30
SCIENCE_LIMIT = 0.5  # science words per ctl task


def generated(tracks: list[str], n: int, seed: int) -> list[Task]:
    """``n`` Easy and ``n`` Hard tasks per track, rendered with the template renderer in
    ``obf`` and ``ctl``."""
    out = []
    for track in tracks:
        for tier in ("easy", "hard"):
            out += [
                render_control(render_task(t, seed), seed)
                for t in get_track(track).generate(n, seed, tier)
            ]
    return out


def register_table(tasks: list[Task]) -> tuple[str, list[str]]:
    """Science words per task in the Ctl and the Obf text, per track and tier (tasks with a
    ctl rendering), as Markdown; and where the Ctl limit is missed."""
    counts: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for t in tasks:
        if t.problem_control:
            ctl, obf = (sum(science_words(t, p).values()) for p in ("ctl", "obf"))
            counts.setdefault((t.domain, t.tier), []).append((ctl, obf))
    lines = [
        "| domain | tier | tasks | science words per task, ctl | obf |",
        "|---|---|---:|---:|---:|",
    ]
    problems = []
    for (track, tier), pairs in sorted(counts.items()):
        ctl, obf = fmean(c for c, _ in pairs), fmean(o for _, o in pairs)
        lines.append(f"| {track} | {tier} | {len(pairs)} | {ctl:.2f} | {obf:.1f} |")
        if ctl > SCIENCE_LIMIT:
            problems.append(f"{track} {tier}: {ctl:.2f} science words per ctl task")
    return "\n".join(lines), problems


def goal_problems(nl: dict[tuple[str, str], Depth], obf: dict[tuple[str, str], Depth]) -> list[str]:
    """Where the goal is missed (empty: met)."""
    problems = []
    for (track, tier), d in obf.items():
        kind = GOAL.get(track)
        if kind is None or not d.items[kind]:
            continue
        share = d.share("recovered", kind) or 0.0
        if share > LIMIT:
            problems.append(f"{track} {tier}: Obf recovery {share:.1%} > {LIMIT:.0%}")
        clean = nl[(track, tier)].share("recovered", kind)
        if clean != 1.0:
            problems.append(f"{track} {tier}: NL recovery {clean} is not 100%")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="rendered task files (default: generate)")
    parser.add_argument("-n", type=int, default=200, help="tasks per tier when generating")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tracks", default=",".join(TRACKS))
    args = parser.parse_args(argv)
    tracks = [t for t in args.tracks.split(",") if t]
    if args.files:
        tasks = [t for f in args.files for t in read_tasks(f) if t.documents]
    else:
        tasks = generated(tracks, args.n, args.seed)
    unrecovered = [t.task_id for t in tasks if recovery_problems(t)]
    unrecovered += [
        f"{t.task_id} (ctl)"
        for t in tasks
        if t.documents_control and recovery_problems(as_control(t))
    ]
    nl, obf = group_depth(tasks, "nl"), group_depth(tasks, "obf")
    print(
        f"{len(tasks)} rendered tasks, {len(tasks) - len(unrecovered)} recovered exactly by "
        "the reference extractors"
    )
    ratios: dict[tuple[str, str], list[float]] = {}
    for t in tasks:
        ratio = (t.provenance.get("render") or {}).get("ratio")
        if ratio is not None:
            ratios.setdefault((t.domain, t.tier), []).append(float(ratio))
    for (track, tier), values in sorted(ratios.items()):
        print(f"  {track} {tier}: mean Obf/NL {fmean(values):.2f} over {len(values)} tasks")
    print()
    print(format_depth(nl, "nl"))
    print()
    print(format_depth(obf, "obf"))
    ctl = group_depth([as_control(t) for t in tasks if t.documents_control], "obf")
    if ctl:
        print()
        print(format_depth(ctl, "ctl"))
    register, register_problems = register_table(tasks)
    print()
    print(register)
    problems = goal_problems(nl, obf) + register_problems
    problems += [f"not recovered: {i}" for i in unrecovered]
    for p in problems:
        print(f"GOAL MISSED: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
