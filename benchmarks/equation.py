"""Equation track benchmark: the symbolic-regression baselines without a model (pyoperon,
gplearn) side by side on generated Easy problems and, with ``--llmsr``, on public problems:
LLM-SR's data folders, LSR-Synth copies (``<domain>/<problem>/{train,test_id,test_ood}.csv``
at any depth) or LLM-SRBench's HDF5 file (with ``--table``), read by ``scir import llmsr``'s
reader.

    .venv/bin/python benchmarks/equation.py                      # 20 Easy problems, 10 s each
    .venv/bin/python benchmarks/equation.py --n 5 --seconds 3    # quick look
    .venv/bin/python benchmarks/equation.py --n 0 --llmsr LLM-SR/ --seconds 30
    .venv/bin/python benchmarks/equation.py --n 0 --llmsr lsr_bench_data.hdf5 --table data/

Each baseline fits a problem's train split (seed ``--seed``) within ``--seconds``; its
expression is judged by the metrics the pipelines store with each result
(the equation track's scorer: scir.tracks.equation.scoring.EquationScorer.assess) plus the same
Acc_tau on test_ood: per baseline and per discipline (the science: Chemistry, Biology,
Physics, Material Science, as SR-Scientist's table breaks LSR-Synth down) and over all
problems, the percentage of problems passing Acc_0.1 / Acc_0.01 / Acc_0.001 on test_id and on
test_ood (a problem passes when at least 95% of its points are within relative error tau),
the median NMSE on test_id and test_ood, the symbolic accuracy (equivalent to the ground
truth up to fitted constants, proved by sympy; attempted only for answers passing Acc_0.1;
``n/a`` when no problem of the row has a ground truth, as LLM-SR's folders have none), the
median fitting seconds and the errors. Below the LLM-SR tables, SR-Scientist's published
LSR-Synth rows (Acc_0.01 / Acc_0.001 over its 129 problems), marked as published and not
re-run here. The last line of each set is the ratio of pyoperon's median time to gplearn's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scir.errors import ConfigError, ScirError  # noqa: E402
from scir.outcomes.regression import TAUS, acc_name, acc_tau  # noqa: E402
from scir.tasks import Task  # noqa: E402
from scir.tracks import get_track  # noqa: E402
from scir.tracks.equation.llmsr import import_llmsr  # noqa: E402
from solvers.equation.expression import parse_equation  # noqa: E402
from solvers.symreg import RegressorUnavailable, get_regressor  # noqa: E402

BASELINES = ("pyoperon", "gplearn")


DISCIPLINES = {"chemistry": "Chemistry", "biology": "Biology", "physics": "Physics",
               "materials": "Material Science"}
ALL = "all"
# SR-Scientist (ICLR 2026), LSR-Synth, 129 problems: Acc_0.01 / Acc_0.001 in % (in-domain),
# as the paper reports them -- published numbers, not re-run here
PUBLISHED = (("PySR", "-", 29.46, 14.47),
             ("LLM-SR", "Qwen-480B", 41.08, 18.09),
             ("SR-Scientist", "GPT-OSS-120B", 63.57, 49.35))
PUBLISHED_PROBLEMS = 129


@dataclass
class Scores:
    """One baseline's outcomes over a set of problems (one discipline or all)."""

    passed: dict[float, int] = field(default_factory=lambda: {tau: 0 for tau in TAUS})
    passed_ood: dict[float, int] = field(default_factory=lambda: {tau: 0 for tau in TAUS})
    nmse_id: list[float] = field(default_factory=list)
    nmse_ood: list[float] = field(default_factory=list)
    symbolic: int = 0
    symbolic_known: int = 0      # problems with a ground truth (the symbolic accuracy's base)
    seconds: list[float] = field(default_factory=list)
    generations: list[float] = field(default_factory=list)
    failed: int = 0              # fits that raised a solver error (counted as wrong)
    problems: int = 0


def ood_passes(task: Task, expression: str) -> dict[float, bool]:
    """Acc_tau on test_ood of an answer without free parameters (a baseline's): the same
    rule as on test_id (scir.outcomes.regression.acc_tau)."""
    formal = get_track("equation").formal(task)
    data = formal.splits["test_ood"]
    try:
        predicted = parse_equation(expression, list(formal.inputs)).evaluate(data.X)
    except ScirError:
        return {tau: False for tau in TAUS}
    return {tau: acc_tau(np.asarray(data.y), predicted, tau) for tau in TAUS}


def judge(task: Task, expression: str, scores: Scores) -> None:
    """Add one answer's metrics (test_id and test_ood accuracies, NMSE ID/OOD, symbolic
    equivalence when the problem has a ground truth), as the pipelines store them with a
    result (the track's scorer's ``assess``)."""
    metrics = get_track("equation").scorer().assess(task, expression).metrics
    for tau in TAUS:
        scores.passed[tau] += int(metrics[acc_name(tau)])
    for tau, ok in ood_passes(task, expression).items():
        scores.passed_ood[tau] += int(ok)
    for key, values in (("nmse_id", scores.nmse_id), ("nmse_ood", scores.nmse_ood)):
        values.append(float("inf") if metrics[key] is None else metrics[key])
    if metrics["symbolic"] is not None:
        scores.symbolic_known += 1
        scores.symbolic += int(metrics["symbolic"])


def discipline(task: Task) -> str:
    """A problem's discipline as SR-Scientist names it (from its science)."""
    science = task.domain_metadata.get("science", "")
    return DISCIPLINES.get(science, science or "?")


def run(tasks: list[Task], baselines: tuple[str, ...], seconds: float, seed: int,
        verbose: bool) -> dict[str, dict[str, Scores]]:
    """Fit every baseline on every task's train split and judge the answers: baseline ->
    discipline (and :data:`ALL`) -> scores."""
    track = get_track("equation")
    out: dict[str, dict[str, Scores]] = {name: {ALL: Scores()} for name in baselines}
    for task in tasks:
        data = track.regression_data(task, "train")
        for name in list(out):
            rows = [out[name][ALL], out[name].setdefault(discipline(task), Scores())]
            try:
                fit = get_regressor(name).fit(data.X, data.y, data.inputs, seconds=seconds,
                                              seed=seed)
            except RegressorUnavailable as exc:         # e.g. PySR without Julia: skipped
                print(f"skipping {name}: {exc}", file=sys.stderr)
                del out[name]
                continue
            except ScirError as exc:
                for scores in rows:
                    scores.problems += 1
                    scores.failed += 1
                    scores.nmse_id.append(float("inf"))
                    scores.nmse_ood.append(float("inf"))
                    if task.answer:
                        scores.symbolic_known += 1
                print(f"  {task.task_id} {name}: error {exc}", file=sys.stderr)
                continue
            for scores in rows:
                scores.problems += 1
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


def _percent(count: int, n: int) -> str:
    return f"{100 * count / n:.2f}" if n else "-"


HEAD = ["baseline", "discipline", "problems",
        *[f"Acc_{tau:g} ID %" for tau in TAUS], *[f"Acc_{tau:g} OOD %" for tau in TAUS],
        "NMSE ID (median)", "NMSE OOD (median)", "symbolic %", "median s",
        "median generations", "errors"]


def table(title: str, scores: dict[str, dict[str, Scores]], published: bool = False) -> str:
    """The Markdown table of one problem set: per baseline its disciplines (in
    SR-Scientist's order) then all problems; with ``published``, SR-Scientist's rows below;
    then the pyoperon/gplearn time ratio."""
    lines = [f"### {title}", "", "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    order = list(DISCIPLINES.values())
    for name, by in scores.items():
        keys = sorted((k for k in by if k != ALL),
                      key=lambda k: (order.index(k) if k in order else len(order), k))
        for key in keys + [ALL]:
            s = by[key]
            symbolic = ("n/a" if not s.symbolic_known
                        else _percent(s.symbolic, s.symbolic_known))
            cells = [name, key, str(s.problems),
                     *[_percent(s.passed[tau], s.problems) for tau in TAUS],
                     *[_percent(s.passed_ood[tau], s.problems) for tau in TAUS],
                     _median(s.nmse_id), _median(s.nmse_ood), symbolic, _median(s.seconds),
                     _median(s.generations, ".4g"), str(s.failed)]
            lines.append("| " + " | ".join(cells) + " |")
    if published:
        lines += ["", f"Published (SR-Scientist's LSR-Synth table, {PUBLISHED_PROBLEMS} "
                  "problems, in-domain; not re-run here):", "",
                  "| method | model | problems | Acc_0.01 ID % | Acc_0.001 ID % |",
                  "|---|---|---|---|---|"]
        lines += [f"| {m} (published) | {model} | {PUBLISHED_PROBLEMS} | {a:.2f} | {b:.2f} |"
                  for m, model, a, b in PUBLISHED]
    if {"pyoperon", "gplearn"} <= set(scores) and scores["gplearn"][ALL].seconds \
            and scores["pyoperon"][ALL].seconds:
        ratio = (statistics.median(scores["pyoperon"][ALL].seconds)
                 / statistics.median(scores["gplearn"][ALL].seconds))
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
                        help="also public problems: a folder of LLM-SR / LSR-Synth problem "
                             "folders (train.csv, test_id.csv, test_ood.csv, target last, any "
                             "depth) or LLM-SRBench's HDF5 file; see `scir import llmsr`")
    parser.add_argument("--table", default=None,
                        help="--llmsr: LLM-SRBench's problem table (names, descriptions, "
                             "ground truths), as `scir import llmsr --table`")
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
        for name in baselines:
            get_regressor(name)                  # an unknown name: one clear error, exit 2
        if not (args.seconds > 0 and np.isfinite(args.seconds)):
            raise ConfigError(f"--seconds must be a positive number, got {args.seconds:g}",
                              field="seconds")
        sets = []
        if args.n > 0:
            easy = list(get_track("equation").generate(args.n, seed=args.seed,
                                                       difficulty="easy"))
            sets.append((f"{args.n} generated Easy problems (seed {args.seed}), "
                         f"{args.seconds:g} s per fit", easy, False))
        if args.llmsr:
            imported = import_llmsr(args.llmsr, science=args.science, table=args.table)
            for source, reason in imported.skipped:
                print(f"skipped {source or '.'}: {reason}", file=sys.stderr)
            for source, note in imported.notes:
                print(f"note {source or '.'}: {note}", file=sys.stderr)
            if not imported.tasks:
                raise ConfigError("no complete problem found (train.csv, test_id.csv and "
                                  "test_ood.csv in one folder, or an HDF5 file's problem "
                                  "groups)", file=str(args.llmsr))
            sets.append((f"{len(imported.tasks)} LLM-SR problems from {args.llmsr}, "
                         f"{args.seconds:g} s per fit", imported.tasks, True))
        for title, tasks, published in sets:
            scores = run(tasks, baselines, args.seconds, args.seed, args.verbose)
            print(table(title, scores, published))
            print(flush=True)
    except ScirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
