"""Equation track benchmark: the symbolic-regression baselines without a model (pyoperon,
gplearn) side by side on generated Easy problems and, with ``--llmsr DIR``, on LLM-SR-layout
problem folders (read by ``scir import llmsr``'s reader).

    .venv/bin/python benchmarks/equation.py                      # 20 Easy problems, 10 s each
    .venv/bin/python benchmarks/equation.py --n 5 --seconds 3    # quick look
    .venv/bin/python benchmarks/equation.py --llmsr data/lsr_synth --seconds 30

Each baseline fits a problem's train split (seed ``--seed``) within ``--seconds``; its
expression is judged by the metrics the pipelines store with each result
(scir.evaluate.scoring.assess_equation, scir.evaluate.regression.answer_metrics):
Acc_0.1 / Acc_0.01 / Acc_0.001 on test_id (share of problems passing), the median NMSE on
test_id and test_ood, the symbolic accuracy (equivalent to the ground truth up to fitted
constants, proved by sympy; attempted only for answers passing Acc_0.1, since an equivalent
answer reproduces the noise-free test targets), the median fitting seconds and generations
run; the last line is the ratio of pyoperon's median time to gplearn's (both stop at the
time limit unless their generation budget ends first: compare the generations too). Prints
one Markdown table per problem set.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scir.errors import ScirError  # noqa: E402
from scir.evaluate.regression import TAUS, acc_name  # noqa: E402
from scir.evaluate.scoring import assess_equation  # noqa: E402
from scir.tasks import Task  # noqa: E402
from scir.tracks import get_track  # noqa: E402
from scir.tracks.equation.llmsr import import_llmsr  # noqa: E402
from solvers.symreg import RegressorUnavailable, get_regressor  # noqa: E402

BASELINES = ("pyoperon", "gplearn")


@dataclass
class Scores:
    """One baseline's outcomes over a problem set."""

    passed: dict[float, int] = field(default_factory=lambda: {tau: 0 for tau in TAUS})
    nmse_id: list[float] = field(default_factory=list)
    nmse_ood: list[float] = field(default_factory=list)
    symbolic: int = 0
    seconds: list[float] = field(default_factory=list)
    generations: list[float] = field(default_factory=list)
    failed: int = 0              # fits that raised a solver error (counted as wrong)
    problems: int = 0


def judge(task: Task, expression: str, scores: Scores) -> None:
    """Add one answer's metrics (test_id accuracies, NMSE ID/OOD, symbolic equivalence), as
    the pipelines store them with a result (scir.evaluate.scoring.assess_equation)."""
    metrics = assess_equation(get_track("equation"), task, expression).metrics
    for tau in TAUS:
        scores.passed[tau] += int(metrics[acc_name(tau)])
    for key, values in (("nmse_id", scores.nmse_id), ("nmse_ood", scores.nmse_ood)):
        values.append(float("inf") if metrics[key] is None else metrics[key])
    scores.symbolic += int(metrics["symbolic"])


def run(tasks: list[Task], baselines: tuple[str, ...], seconds: float, seed: int,
        verbose: bool) -> dict[str, Scores]:
    """Fit every baseline on every task's train split and judge the answers."""
    track = get_track("equation")
    out = {name: Scores() for name in baselines}
    for task in tasks:
        data = track.regression_data(task, "train")
        for name in list(out):
            scores = out[name]
            scores.problems += 1
            try:
                fit = get_regressor(name).fit(data.X, data.y, data.inputs, seconds=seconds,
                                              seed=seed)
            except RegressorUnavailable as exc:         # e.g. PySR without Julia: skipped
                print(f"skipping {name}: {exc}", file=sys.stderr)
                del out[name]
                continue
            except ScirError as exc:
                scores.failed += 1
                scores.nmse_id.append(float("inf"))
                scores.nmse_ood.append(float("inf"))
                if verbose:
                    print(f"  {task.task_id} {name}: error {exc}", file=sys.stderr)
                continue
            scores.seconds.append(fit.seconds)
            if "generations" in fit.extra:
                scores.generations.append(fit.extra["generations"])
            judge(task, fit.expression, scores)
            if verbose:
                print(f"  {task.task_id} {name} ({fit.seconds:.1f} s): {fit.expression}",
                      file=sys.stderr)
    return out


def _median(values: list[float], fmt: str = ".3g") -> str:
    if not values:
        return "-"
    m = statistics.median(values)
    return "inf" if not np.isfinite(m) else format(m, fmt)


def table(title: str, scores: dict[str, Scores]) -> str:
    """The Markdown table of one problem set (and the pyoperon/gplearn time ratio)."""
    head = ["baseline", *[f"Acc_{tau:g}" for tau in TAUS], "NMSE ID (median)",
            "NMSE OOD (median)", "symbolic acc.", "median s", "median generations", "errors"]
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for name, s in scores.items():
        n = max(s.problems, 1)
        cells = [name, *[f"{s.passed[tau] / n:.2f}" for tau in TAUS], _median(s.nmse_id),
                 _median(s.nmse_ood), f"{s.symbolic / n:.2f}",
                 _median(s.seconds), _median(s.generations, ".4g"), str(s.failed)]
        lines.append("| " + " | ".join(cells) + " |")
    if {"pyoperon", "gplearn"} <= set(scores) and scores["gplearn"].seconds \
            and scores["pyoperon"].seconds:
        ratio = (statistics.median(scores["pyoperon"].seconds)
                 / statistics.median(scores["gplearn"].seconds))
        lines += ["", f"time ratio pyoperon/gplearn (median seconds): {ratio:.2f}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20,
                        help="generated Easy problems (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="generation seed and every baseline's seed (default: %(default)s)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="time limit of one fit, seconds (default: %(default)s)")
    parser.add_argument("--llmsr", default=None,
                        help="also a folder of LLM-SR-layout problems (train.csv, test_id.csv, "
                             "test_ood.csv, target last; see `scir import llmsr`)")
    parser.add_argument("--science", default=None,
                        help="--llmsr: the science of every folder (default: from the path, "
                             "as `scir import llmsr` reads it)")
    parser.add_argument("--baselines", default=",".join(BASELINES),
                        help="comma-separated baselines (default: %(default)s)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every answer on stderr")
    args = parser.parse_args(argv)
    baselines = tuple(b for b in args.baselines.split(",") if b)
    try:
        sets = []
        if args.n > 0:
            easy = list(get_track("equation").generate(args.n, seed=args.seed,
                                                       difficulty="easy"))
            sets.append((f"{args.n} generated Easy problems (seed {args.seed}), "
                         f"{args.seconds:g} s per fit", easy))
        if args.llmsr:
            imported = import_llmsr(args.llmsr, science=args.science)
            for source, reason in imported.skipped:
                print(f"skipped {source}: {reason}", file=sys.stderr)
            sets.append((f"{len(imported.tasks)} LLM-SR problems from {args.llmsr}, "
                         f"{args.seconds:g} s per fit", imported.tasks))
        for title, tasks in sets:
            scores = run(tasks, baselines, args.seconds, args.seed, args.verbose)
            print(table(title, scores))
            print()
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
