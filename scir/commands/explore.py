"""``scir explore RUN [RUN ...] -o SITE``: a static, offline HTML site for browsing run
directories (docs/explorer.md).

``SITE/index.html`` lists the cells (accuracy with its 95% Wilson interval, as ``scir report``
computes them) and every task result, with filters by track, model, architecture,
presentation and outcome and a search by task id; ``SITE/tasks/<task id>.html`` shows a task's
NL and Obf documents side by side, its gold formal object in the track's formalization syntax,
and per result the formalization diffed against it, the solver's status and log, the answer
and the verdict. Open ``SITE/index.html`` in a browser: no server, no network.

Runs are merged as ``scir report`` merges them (the run listed first wins a conflict, which is
shown), and every verdict is recomputed from the stored answer and the task file, as ``scir
report`` does (a stored verdict that disagrees is listed and flagged on its result). The run
store holds results, not tasks: the task records come from ``--tasks`` files, then from the
files each run records (``RUNDIR/tasks/`` of ``scir eval``, the experiment's task files, the
file ``scir solve`` was given); a run with a result whose task no file holds is refused
(exit 2), unless ``--unverified``: such a task is then shown with its results only, their
stored verdicts marked unverified.
"""

from __future__ import annotations

from pathlib import Path

from scir.commands._common import HelpFormatter

DEFAULT_SITE = "site"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "explore",
        help="a static HTML site for browsing run directories (offline)",
        formatter_class=HelpFormatter,
        description=__doc__.split(": ", 1)[1],
        epilog="Examples:\n"
        "  scir explore runs/demo -o site/\n"
        "  scir explore runs/oracle runs/gpt4o -o site/ --tasks d.jsonl d.obf.jsonl\n"
        "Then open site/index.html in a browser.",
    )
    p.add_argument("runs", nargs="+", help="run directories (scir solve, scir eval)")
    p.add_argument(
        "-o",
        "--output",
        default=None,
        help=f"site folder (default: {DEFAULT_SITE}/ inside the first run directory)",
    )
    from scir.commands.report import add_verdict_arguments

    add_verdict_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from scir.commands.report import printed_verdicts
    from scir.explore.gather import gather
    from scir.explore.write import write_site

    site = gather(args.runs, args.tasks or [], unverified=args.unverified)
    out = Path(args.output) if args.output else Path(args.runs[0]) / DEFAULT_SITE
    index = write_site(site, out)
    missing = sum(p.task is None for p in site.pages)
    for note in site.sources.notes:
        print(f"note: {note}")
    print(
        f"{len(site.cells)} cells, {len(site.runs.results)} results, {len(site.pages)} tasks"
        + (f" ({missing} without a task record)" if missing else "")
        + (f", {len(site.runs.conflicts)} conflicting results" if site.runs.conflicts else "")
    )
    for line in printed_verdicts(site.verdicts):
        print(line)
    if site.versions.differences():
        print(site.versions.summary())
    print(f"wrote {index}; open file://{index.resolve()}")
    return 0
