"""``scir eval EXPERIMENT.toml --run RUNDIR``: run an experiment grid (docs/experiments.md)
into a run directory; resumable and idempotent (finished results are kept, finished calls are
served from the run's store), with one progress display for the whole grid.

Exit codes: 0 the grid is done; 1 every task run now failed with a backend error; 2 bad input
or configuration (a changed experiment that would change finished cells, a run held by another
writer); 3 a budget of the experiment was reached (finished work kept; rerun, with the budget
raised, to continue); 130 Ctrl-C (finished work kept)."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError

EXIT_BUDGET = 3


def add_parser(sub) -> None:
    p = sub.add_parser(
        "eval",
        help="run an experiment grid (experiment TOML file; resumable)",
        formatter_class=HelpFormatter,
        description=__doc__.split("\n\n", 1)[1],
        epilog="Examples:\n"
        "  scir eval experiments/demo.toml --run runs/demo\n"
        "  scir eval experiments/demo.toml --run runs/demo --dry-run\n"
        "  OPENROUTER_API_KEY=... scir eval experiments/demo.toml --run runs/real "
        "--models openrouter:openai/gpt-4o-mini\n"
        "  scir eval experiments/table1.toml --run runs/table1 --progress-every 50,60s\n"
        "  scir eval experiments/demo.toml --run runs/demo --executor ray --workers 2\n"
        "Rerunning the same command continues an interrupted or budget-stopped run.",
    )
    p.add_argument("experiment", help="experiment file (TOML; see docs/experiments.md)")
    p.add_argument(
        "--run",
        required=True,
        help="run directory (created; holds run.sqlite, tasks/, experiment.toml)",
    )
    p.add_argument(
        "--models",
        default=None,
        help="comma-separated model names replacing the experiment's models "
        "(default settings each: concurrency 1, no rate limit)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the cells and their planned task counts, and the cells skipped "
        "because their track does not take their architecture; run nothing",
    )
    from scir import executors

    executors.add_arguments(p)
    p.add_argument(
        "--progress-every",
        default="30s",
        help="without a terminal: a progress line every N tasks, Ns seconds, or both (e.g. 25,30s)",
    )
    p.set_defaults(func=run)


def _load(args):
    from scir.experiments.experiment import load_experiment

    exp = load_experiment(args.experiment)
    if args.models is not None:
        names = [n.strip() for n in args.models.split(",") if n.strip()]
        if not names:
            raise ConfigError("--models needs at least one model name", field="models")
        exp = exp.with_models(names)
    return exp


def run(args) -> int:
    from scir.experiments.progress import parse_every

    every = parse_every(args.progress_every)
    exp = _load(args)
    run_dir = Path(args.run)
    from scir.experiments.eval_run import preflight

    if args.dry_run:
        return _dry_run(exp, run_dir)
    preflight(exp)  # keys, servers, model files, solvers: before any work
    from scir.llm.run_lock import RunLock

    command = " ".join(shlex.quote(a) for a in ["scir", "eval", args.experiment, "--run", args.run])
    with RunLock(run_dir, command):
        return _eval(args, exp, run_dir, every)


def _dry_run(exp, run_dir: Path) -> int:
    from scir.experiments.eval_run import preflight
    from scir.experiments.eval_tasks import planned_count, prepare_tasks
    from scir.experiments.progress import skip_line

    tasks = prepare_tasks(exp, run_dir, dry_run=True)
    total = 0
    for cell in exp.cells():
        n = planned_count(exp, tasks, cell.track, cell.difficulty)
        total += n
        print(f"{n:5d}  {cell.label()}")
    skipped = exp.skipped()
    for cell, reason in skipped:
        print(skip_line(cell, reason))
    print(
        f"{len(exp.cells())} cells, {total} task runs planned"
        + (
            f"; {len(skipped)} cells skipped (architecture not taken by the track)"
            if skipped
            else ""
        )
    )
    preflight(exp)  # the same checks as a real run: an error exits 2
    print("checks passed: keys, servers, model files and solvers are there")
    return 0


def _eval(args, exp, run_dir: Path, every) -> int:
    from scir.experiments.eval_run import key_routes, provenance, record_experiment, run_grid
    from scir.experiments.eval_tasks import prepare_tasks
    from scir.experiments.progress import GridProgress
    from scir.llm.keys import announce
    from scir.runs.store import RunStore

    with RunStore(run_dir) as store:
        record_experiment(exp, run_dir, store)
        groups = prepare_tasks(exp, run_dir)
        plan = []
        progress = GridProgress(0, every_tasks=every[0], every_seconds=every[1])
        progress.skipped(exp.skipped())
        for cell in exp.cells():
            tasks = groups[(cell.track, cell.difficulty)]
            store.put_plan(cell.plan_dict(), len(tasks))
            if exp.backup_of(cell):  # the report's NS-with-backup view
                store.put_plan(
                    dataclasses.replace(cell, backup=exp.backup_of(cell)).plan_dict(), len(tasks)
                )
            plan.append((cell, tasks))
            progress.planned += len(tasks)
            for task in tasks:
                stored = store.get_result(
                    task.task_id,
                    cell.arch,
                    cell.presentation,
                    cell.model,
                    cell.constrained,
                    cell.seed,
                )
                if stored is not None:
                    progress.record(cell, task.task_id, stored["status"], stored["correct"])
        store.log_invocation(
            {
                "command": "eval",
                "experiment": str(Path(exp.path).resolve()),
                "cells": len(plan),
                "executor": args.executor or "local",
                **exp.generation.model_dump(),
            },
            provenance(exp),
        )
        from scir import executors

        announce(key_routes(exp))  # which key goes where, before any call
        executor = executors.from_arguments(args)
        try:
            outcome = run_grid(exp, plan, store, progress, executor=executor)
        except KeyboardInterrupt:
            print(
                f"interrupted: calls in flight cancelled; finished results kept in "
                f"{store.path}; run the same command to continue",
                file=sys.stderr,
            )
            return 130
        finally:
            if executor is not None:
                executor.close()
        done = len(progress.status)
    print(
        f"cells: {outcome.cells}; results: {done}/{progress.planned}; accuracy "
        f"{progress.correct}/{done}; tasks run now: {outcome.ran}"
    )
    if exp.backup:
        used = sum(s.backup_used for s in outcome.summaries.values())
        print(
            f"ns tasks answered by the {exp.backup} backup: {used} (accuracy above is "
            f"without backup; scir report shows both)"
        )
    print(
        f"LLM calls made: {outcome.made}, served from the run store: {outcome.served}; "
        f"spent: {outcome.spent}"
    )
    print(f"results in {store.path}; report: scir report {run_dir} -o REPORT_DIR")
    if outcome.stopped:
        print(
            f"stopped: {outcome.stopped}; finished work is kept: rerun the same command "
            f"(with the budget raised in {exp.path}) to continue",
            file=sys.stderr,
        )
        return EXIT_BUDGET
    if outcome.ran and outcome.backend_failed == outcome.ran:
        print(
            f"error: all {outcome.ran} tasks run now failed with a backend error", file=sys.stderr
        )
        return 1
    return 0
