"""Obfuscation depth of the template renderer (issue 29): per track and tier, the share of
premises (deduction premises, causal known edges and data rows) that the generic extractor of
``scir.text.depth`` -- the clean-NL templates and the vocabulary, no genre knowledge --
recovers from the NL and the Obf text, the share stated literally in one clause, the share
needing a cross-document link and the sentence-skeleton diversity, with the mean Obf/NL length
ratio. Every rendered task is checked by the track's reference extractor (``scir render``'s
verification), so the table is over tasks recovered exactly.

    .venv/bin/python benchmarks/obfuscation_depth.py -n 200            # generate and render
    .venv/bin/python benchmarks/obfuscation_depth.py d.obf.jsonl ...   # rendered task files

Exit code 0 when the Obf generic extractor recovers at most 30% of deduction premises and of
causal edges and 100% of them from NL.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scir.tasks import Task  # noqa: E402
from scir.tracks.reading import read_tasks  # noqa: E402
from scir.text.depth import Depth, format_depth, group_depth  # noqa: E402
from scir.text.extractors import recovery_problems  # noqa: E402
from scir.text.template import render_task  # noqa: E402
from scir.tracks import get_track  # noqa: E402

TRACKS = ("deduction", "causal")
GOAL = {"deduction": "premise", "causal": "edge"}
LIMIT = 0.30


def generated(tracks: list[str], n: int, seed: int) -> list[Task]:
    """``n`` Easy and ``n`` Hard tasks per track, rendered with the template renderer."""
    out = []
    for track in tracks:
        for tier in ("easy", "hard"):
            out += [render_task(t, seed) for t in get_track(track).generate(n, seed, tier)]
    return out


def goal_problems(nl: dict[tuple[str, str], Depth], obf: dict[tuple[str, str], Depth]
                  ) -> list[str]:
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
    nl, obf = group_depth(tasks, "nl"), group_depth(tasks, "obf")
    print(f"{len(tasks)} rendered tasks, {len(tasks) - len(unrecovered)} recovered exactly by "
          "the reference extractors")
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
    problems = goal_problems(nl, obf) + [f"not recovered: {i}" for i in unrecovered]
    for p in problems:
        print(f"GOAL MISSED: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
