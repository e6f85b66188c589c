"""``scir report RUN [RUN ...] -o DIR``: the paper's tables and figures over run directories.

Writes into DIR: ``report.md`` (Table 1: rows model x architecture, columns track x
difficulty, entries ``NL -> Obf`` accuracy with 95% Wilson intervals; the chance-normalised
summary; the probes; Table 2 (with the obfuscation depth of the tasks); equation discovery
(Acc_tau, NMSE, symbolic accuracy);
failures; cost and tokens; completeness; conflicts; paired
differences; versions: what produced the runs, and whether they differ in it),
``report.csv`` (one row per cell, full precision), ``report.json`` (everything
the Markdown shows; keys in docs/evaluation.md) and PNG figures in ``DIR/figures/``.
``--samples`` adds ``samples.jsonl`` (one line per task result); ``--compare`` (two runs A B)
adds A against B per cell with the paired difference. The numbers come from
:mod:`scir.reports`; this command only formats them. Table 1 is also printed.

Runs are merged; the same result in two runs with different content is a conflict: the run
listed first is used, the cell is marked ``!`` and the conflict is listed. A cell whose plan
(``scir eval``) is not finished is marked ``*``.

Every verdict is recomputed from the stored answer and the task file (``--tasks`` files first,
then those the runs record; :mod:`scir.reports.verdicts`): a stored ``correct``, ``status`` or
metric cannot change a number. Stored verdicts that disagree are counted and listed (section
Verdicts); ``scir rescore RUN`` stores the recomputed ones. A run with results whose task no
file holds is refused (exit 2), unless ``--unverified``: their stored verdicts are then used,
listed and their cells marked ``?``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scir.commands._common import HelpFormatter
from scir.outcomes.regression import METRICS
from scir.outcomes.status import FAILURES, Status
from scir.pipelines.registry import FORMALIZING
from scir.reports.aggregate import CellStats
from scir.reports.compare import PROBES, Difference
from scir.reports.metric_stats import NMSE, NOT_APPLICABLE, SYMBOLIC
from scir.reports.report import MEASUREMENTS, Pair, Report
from scir.reports.stats import NO_VALUE, SMALL_MARK, SMALL_N, format_general
from scir.reports.stats import format_interval as _interval
from scir.reports.stats import format_number as _num
from scir.reports.verdicts import Rescorer

INCOMPLETE, CONFLICT, UNVERIFIED = "*", "!", "?"
SHOWN_KEYS = 5  # disagreeing results named in the printed summary


def _arrow(
    pair: Pair, value: Callable[[CellStats], float | None], digits: int, with_ctl: bool = False
) -> str:
    """``NL -> Obf`` (``NL -> Ctl -> Obf`` with ``with_ctl``) for one figure of a pair's cells
    (a missing cell shows no value)."""
    return " -> ".join(_num(None if c is None else value(c), digits) for c in pair.cells(with_ctl))


def _marks(c: CellStats | None) -> str:
    if c is None:
        return ""
    return (
        (INCOMPLETE if c.complete is False else "")
        + (CONFLICT if c.conflicts else "")
        + (UNVERIFIED if c.unverified else "")
    )


def _acc(c: CellStats | None) -> str:
    return NO_VALUE if c is None or c.n == 0 else _interval(c.accuracy) + _marks(c)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _grid_table(report: Report, entry: Callable[[CellStats | None], str]) -> list[str]:
    """A Table-1-shaped table whose entries are ``entry`` of each cell, NL -> (Ctl ->) Obf."""
    g = report.grid
    head = ["model / arch"] + [f"{t} {d}" for t, d in g.columns]
    rows = [
        [r.label()]
        + [" -> ".join(entry(c) for c in g.get(r, col).cells(g.has_ctl)) for col in g.columns]
        for r in g.rows
    ]
    return _table(head, rows) if rows else ["(no results)"]


def table1(report: Report) -> list[str]:
    """Table 1: ``NL -> Obf`` (or ``NL -> Ctl -> Obf``) accuracy with intervals."""
    return _grid_table(report, _acc)


def _normalised(c: CellStats | None, constrained: bool) -> str:
    if c is None or c.n == 0:
        return NO_VALUE
    return _num(c.normalised_constrained if constrained else c.normalised) + _marks(c)


def _label(key) -> str:
    return key.label()


def _diff_rows(diffs: list[Difference]) -> list[list[str]]:
    return [
        [
            d.contrast,
            _label(d.first),
            _label(d.second),
            str(d.tasks),
            _num(d.first_accuracy),
            _num(d.second_accuracy),
            _interval(d.difference),
        ]
        for d in diffs
    ]


def _backup_table(cells: list[CellStats]) -> list[str]:
    """Per with-backup view: its ns cell, the backup's uses and correct answers, both
    accuracies."""
    base = {c.cell: c for c in cells if not c.cell.backup}
    rows = []
    for view in (c for c in cells if c.cell.backup):
        ns = base.get(dataclasses.replace(view.cell, backup=""))
        rows.append(
            [
                view.cell.label(),
                str(view.n),
                str(view.backup_used or 0),
                NO_VALUE if ns is None else str(view.correct - ns.correct),
                _acc(ns),
                _acc(view),
            ]
        )
    return (
        _table(["cell", "n", "backup used", "backup correct", "ns", "ns+backup"], rows)
        if rows
        else ["(no cell was run with a backup)"]
    )


def _metrics_table(report: Report) -> list[str]:
    """The Equation discovery table: per cell with metrics, n and each metric."""

    def shown(name: str, i) -> str:
        if name in NMSE:
            return format_general(i)
        if name == SYMBOLIC and math.isnan(i.estimate):
            return NOT_APPLICABLE  # no problem of the cell has a ground truth
        return _interval(i)

    rows = [
        [
            c.cell.label(),
            str(c.metrics.n),
            *(shown(name, c.metrics.values[name]) for name in METRICS),
        ]
        for c in report.metric_cells
        if c.metrics is not None
    ]
    names = [
        name.replace("acc_", "Acc_").replace("nmse_id", "NMSE ID").replace("nmse_ood", "NMSE OOD")
        for name in METRICS
    ]
    if not rows:
        return ["(no equation cells)"]
    out = _table(["cell", "n", *names], rows)
    if report.disciplines:
        out += [
            "",
            "By discipline (the problems' science, as SR-Scientist's table breaks LSR-Synth down):",
            "",
        ]
        out += _table(
            ["cell", "discipline", "n", *names],
            [
                [c.cell.label(), d, str(m.n), *(shown(name, m.values[name]) for name in METRICS)]
                for c, d, m in report.disciplines
            ],
        )
    return out


def depth_section(report: Report) -> list[str]:
    """Table 2's obfuscation depth: per track, tier and premise kind of the rendered tasks
    the results are over (docs/rendering.md; the figures ``scir stats`` prints); the Ctl
    recovery only in a report with ctl results."""
    rows = report.depth
    with_ctl = report.grid.has_ctl and any(r.recovered_ctl is not None for r in rows)
    head = ["track", "tier", "premises", "count", "generic extractor NL -> Obf"]
    head += ["Ctl"] if with_ctl else []
    head += ["one clause, literal names (Obf)", "needs another document (Obf)", "Obf/NL length"]

    def pct(value: float | None) -> str:
        return NO_VALUE if value is None else f"{value:.1%}"

    lines = [
        "Obfuscation depth of the tasks the results are over: the share of premises a "
        "generic extractor (clean-NL templates and vocabulary, no genre) recovers from the "
        "NL and the Obf text"
        + (" (and the Ctl text)" if with_ctl else "")
        + ", the share of Obf premises stated literally in one clause, the share needing a "
        "link to another document, and the mean Obf/NL length (docs/rendering.md).",
        "",
    ]
    if not rows:
        return lines + ["(no task with an obf rendering)"]
    body = [
        [
            r.domain,
            r.tier,
            r.premises,
            str(r.count),
            f"{pct(r.recovered_nl)} -> {pct(r.recovered_obf)}",
            *([pct(r.recovered_ctl)] if with_ctl else []),
            pct(r.literal),
            pct(r.cross_document),
            _num(r.ratio, 2),
        ]
        for r in rows
    ]
    return lines + _table(head, body)


def constrained_vs_free(report: Report) -> list[str]:
    """The grammar's effect, per (track, difficulty, presentation, arch, model) run both
    ways: executable rate and accuracy of constrained and free formalizations."""
    pairs: dict[tuple, dict[bool, CellStats]] = {}
    for c in report.cells:
        k = c.cell
        if k.arch in FORMALIZING and not k.backup:
            pairs.setdefault((k.track, k.difficulty, k.presentation, k.arch, k.model, k.seed), {})[
                k.constrained
            ] = c
    rows = [
        [
            *(str(x) for x in key[:5]),
            f"{_num(both[True].executable)} vs {_num(both[False].executable)}",
            f"{_acc(both[True])} vs {_acc(both[False])}",
        ]
        for key, both in sorted(pairs.items())
        if True in both and False in both and both[True].n and both[False].n
    ]
    return (
        _table(
            [
                "track",
                "difficulty",
                "presentation",
                "arch",
                "model",
                "executable: constrained vs free",
                "accuracy: constrained vs free",
            ],
            rows,
        )
        if rows
        else []
    )


def to_markdown(report: Report) -> str:
    """The report as Markdown (sections in the order of docs/evaluation.md)."""
    cells = [c for c in report.cells]
    out = [
        "# SciR report",
        "",
        "Runs: " + ", ".join(f"`{d}`" for d in report.runs.dirs),
        "",
        verdict_summary(report),
        "",
        *([report.versions.summary(), ""] if report.versions is not None else []),
        f"## Table 1: accuracy, {report.grid.arrow}",
        "",
        "Accuracy with its 95% Wilson interval; `-` not run (missing, not zero); "
        f"`{SMALL_MARK}` a small sample (fewer than {SMALL_N} tasks: read the interval as "
        "rough, see docs/evaluation.md); `*` incomplete (fewer tasks "
        "done than planned); `!` conflicting results between runs (the first run's "
        "used); `?` results with unverified (stored) verdicts; an `ns+backup` row counts "
        "the backup's answers where the solver gave none (Backup answers).",
        "",
        *table1(report),
        "",
        "## Constrained vs free formalizations",
        "",
        "Cells run both with the task's grammar constraining the model and without: the "
        "share of executable formalizations (the solver answered: ns; parsed: symbcot) "
        "and the accuracy.",
        "",
        *(constrained_vs_free(report) or ["(no cell run both ways)"]),
        "",
        f"## Chance-normalised accuracy, {report.grid.arrow}",
        "",
        "`max(0, (A - c) / (1 - c))`; c = the mean chance of the cell's tasks (the "
        "paper's definition).",
        "",
        *_grid_table(report, lambda c: _normalised(c, False)),
        "",
        "With c = the mean constrained chance (among the answers the question allows):",
        "",
        *_grid_table(report, lambda c: _normalised(c, True)),
        "",
        "## Probes",
        "",
        "reasoning = NL.CoT, extraction = Obf.NS, joint = Obf.CoT (grammar-constrained "
        "cells); `-` missing.",
        "",
    ]
    out += (
        _table(
            ["track", "difficulty", "model", "seed", *(n for n, _, _ in PROBES)],
            [
                [
                    p.track,
                    p.difficulty,
                    p.model,
                    str(p.seed),
                    *(_interval(getattr(p, n)) for n, _, _ in PROBES),
                ]
                for p in report.probes
            ],
        )
        if report.probes
        else ["(no CoT or NS cells)"]
    )
    g = report.grid
    t2 = []
    for r in g.rows:
        for col in g.columns:
            pair = g.get(r, col)
            if all(c is None for c in pair.cells(g.has_ctl)):
                continue
            ref = next(
                (
                    c.reference_items
                    for c in pair.cells(g.has_ctl)
                    if c is not None and c.reference_items is not None
                ),
                None,
            )
            t2.append(
                [
                    col[0],
                    col[1],
                    r.label(),
                    _arrow(pair, lambda c: c.input_chars, 1, g.has_ctl),
                    _num(ref, 1),
                    _arrow(pair, lambda c: c.extracted_items, 1, g.has_ctl),
                    _arrow(pair, lambda c: c.extraction_precision, 2, g.has_ctl),
                    _arrow(pair, lambda c: c.extraction_recall, 2, g.has_ctl),
                ]
            )
    out += [
        "",
        f"## Table 2: input and items, {g.arrow}",
        "",
        "Mean input characters the solver sees, mean reference items of the gold formal "
        "object, mean extracted items of parsed formalizations, and their mean precision "
        "(items that match a gold item) and recall (gold items that follow from them) "
        "against the gold, per track's `extraction` check (`-`: none).",
        "",
        *(
            _table(
                [
                    "track",
                    "difficulty",
                    "model / arch",
                    "input chars",
                    "reference items",
                    "extracted items",
                    "precision",
                    "recall",
                ],
                t2,
            )
            if t2
            else ["(no results)"]
        ),
    ]
    out += ["", *depth_section(report)]
    out += [
        "",
        "## Equation discovery",
        "",
        "Per cell over its problems: Acc_tau = share of problems with at least 95% of the "
        "in-domain test points within relative error tau (Wilson 95% interval); NMSE on "
        "the in-domain (ID) and out-of-domain (OOD) test splits: median over problems "
        "with its order-statistic 95% interval (`inf`: not finite or not bounded by so "
        "few problems); symbolic = share equivalent to the ground truth up to fitted "
        "constants (sympy), over the problems that have one (`n/a`: none has, e.g. "
        "LLM-SR's data folders). Constants fitted on the train split once per answer.",
        "",
        *_metrics_table(report),
    ]
    open_cells = [c for c in report.cells if c.edges is not None]
    if open_cells:
        out += [
            "",
            "## Open causal tasks",
            "",
            "Cells of open causal tasks (the answer is the exact set of XYZ's directed "
            "edges): exact = share answered exactly (the accuracy); edge precision, "
            "recall, F1 and SHD (structural Hamming distance: missing, extra or reversed "
            "edges) are means over the cell's problems, an unanswered task counting as "
            "the empty set.",
            "",
            *_table(
                ["cell", "n", "exact", "precision", "recall", "F1", "SHD"],
                [
                    [
                        c.cell.label(),
                        str(c.edges.n),
                        _num(c.edges.exact, 2),
                        *(
                            _num(c.edges.values[name], 2)
                            for name in ("edge_precision", "edge_recall", "edge_f1", "shd")
                        ),
                    ]
                    for c in open_cells
                    if c.edges is not None
                ],
            ),
        ]
    out += [
        "",
        "## Failures",
        "",
        "Tasks per status; executable = share of formalizations "
        "the solver answered (ns) or that parsed (symbcot).",
        "",
        *(
            _table(
                ["cell", "n", "ok", *FAILURES, "executable"],
                [
                    [
                        c.cell.label(),
                        str(c.n),
                        str(c.statuses[Status.OK.value]),
                        *(str(c.statuses[f]) for f in FAILURES),
                        _num(c.executable),
                    ]
                    for c in cells
                ],
            )
            if cells
            else ["(no results)"]
        ),
    ]
    out += [
        "",
        "## Failure analysis",
        "",
        "Every failed task attributed to a kind "
        "(docs/evaluation.md, Failure analysis): format = no usable output (parse error, no "
        "answer line); extraction = a parsed formalization that is not the gold one; "
        "solver = ns with a formalization equivalent to the gold one and no right answer; "
        "reasoning = symbcot wrong over an equivalent formalization, or cot wrong in NL "
        "(and in Obf when also wrong in NL); obfuscation = cot wrong in Obf on a task right "
        "in NL (the paired control); backend; unknown = nothing stored tells. Examples: "
        "task ids of the largest kind.",
        "",
        *_failure_table(report, cells),
    ]
    out += [
        "",
        "## Backup answers",
        "",
        "NS cells run with a backup: when no formalization "
        "attempt got an answer from the solver, the backup's (CoT) answer counts in the "
        "`ns+backup` row; `ns` is the solver alone.",
        "",
        *_backup_table(cells),
    ]
    out += [
        "",
        "## Cost and tokens",
        "",
        (
            f"Latency (seconds per task, mean and median): in {MEASUREMENTS} (a reproducible "
            "report leaves wall-clock measurements out)."
            if report.reproducible
            else "Latency: seconds per task (mean, median)."
        ),
        "",
        *(
            _table(
                ["cell", "prompt tokens", "completion tokens", "cost USD"]
                + ([] if report.reproducible else ["latency mean", "latency median"]),
                [
                    [
                        c.cell.label(),
                        str(c.prompt_tokens),
                        str(c.completion_tokens),
                        f"{c.cost_usd:.4f}",
                    ]
                    + (
                        []
                        if report.reproducible
                        else [_num(c.latency_mean, 3), _num(c.latency_median, 3)]
                    )
                    for c in cells
                ],
            )
            if cells
            else ["(no results)"]
        ),
    ]
    out += [
        "",
        "## Completeness",
        "",
        "done = results other than backend_error (a rerun "
        "retries those); planned from the run's plan (`scir eval`), `?` when no plan "
        "names the cell.",
        "",
        *(
            _table(
                ["cell", "done", "planned", "state"],
                [
                    [
                        c.cell.label(),
                        str(c.done),
                        "?" if c.planned is None else str(c.planned),
                        {None: "unknown", True: "complete", False: "INCOMPLETE"}[c.complete],
                    ]
                    for c in cells
                ],
            )
            if cells
            else ["(no results)"]
        ),
    ]
    out += [
        "",
        "## Conflicts",
        "",
        "The same result (task, arch, presentation, model, "
        "constrained, seed) with different content in two runs; the first run's result "
        "is used.",
        "",
    ]
    out += (
        _table(
            ["cell", "task", "used (run)", "other (run)", "fields that differ"],
            [
                [c.cell.label(), str(c.key[0]), f"`{c.used}`", f"`{c.other}`", ", ".join(c.fields)]
                for c in report.conflicts
            ],
        )
        if report.conflicts
        else ["(none)"]
    )
    out += ["", "## Verdicts", "", verdict_summary(report), ""]
    out += verdict_tables(report)
    out += [
        "",
        "## Paired differences",
        "",
        "first - second over the tasks present in both "
        f"cells, with a paired bootstrap 95% interval; `{SMALL_MARK}`: fewer than {SMALL_N} "
        "paired tasks, where a bootstrap interval is unreliable (over one task it is "
        "`[d, d]`, which says nothing).",
        "",
    ]
    head = ["contrast", "first", "second", "tasks", "first acc", "second acc", "difference"]
    out += (
        _table(head, _diff_rows(report.differences))
        if report.differences
        else ["(no pairs of cells)"]
    )
    if report.versions is not None and report.reproducible:
        out += [
            "",
            "## Versions",
            "",
            report.versions.summary(),
            "",
            f"The versions themselves (commit, libraries, model files) are in {MEASUREMENTS}: "
            "a reproducible report leaves them out, so that it compares byte for byte with "
            "another run of the same experiment.",
        ]
    elif report.versions is not None:
        out += [
            "",
            "## Versions",
            "",
            "What produced the runs, as each invocation recorded it "
            "(toolkit version and git commit, Python, platform, solvers, libraries, each "
            "model's file digest or served revision).",
            "",
            *report.versions.markdown(),
        ]
    if report.comparison is not None:
        # compare_runs sets comparison and compared together
        assert report.compared is not None
        a, b = report.compared
        out += [
            "",
            "## Comparison: A vs B",
            "",
            f"A = `{a}`, B = `{b}`; cells matched on every "
            "axis but the model; A - B over the tasks present in both.",
            "",
        ]
        out += (
            _table(
                ["A", "B", "tasks", "A acc", "B acc", "A - B"],
                [r[1:] for r in _diff_rows(report.comparison)],
            )
            if report.comparison
            else ["(no matching cells)"]
        )
    return "\n".join(out) + "\n"


def verdict_summary(report: Report) -> str:
    """One sentence: how many verdicts were recomputed from how many task files, how many
    stored ones disagreed, how many are unverified."""
    v = report.verdicts
    if v is None:
        return "Verdicts as stored."
    text = (
        f"Every verdict recomputed from the stored answer and the task file: "
        f"{len(v.verified)} results, {len(v.files)} task files; "
        f"{len(v.disagreements)} stored verdicts disagreed (the recomputed ones are used)"
    )
    if v.unverified:
        text += (
            f"; {len(v.unverified)} results unverified (no task record: stored verdicts "
            f"used, cells marked `{UNVERIFIED}`)"
        )
    return text + "."


def verdict_tables(report: Report) -> list[str]:
    """The Verdicts section's tables: each disagreement (run, result, fields, stored and
    recomputed values) and each unverified result."""
    v = report.verdicts
    if v is None or not (v.disagreements or v.unverified):
        return ["(no stored verdict disagreed)"]
    out: list[str] = []
    if v.disagreements:
        out += _table(
            ["run", "result", "fields", "stored", "recomputed"],
            [
                [
                    f"`{d.run}`",
                    d.label(),
                    ", ".join(d.fields),
                    _values(d.stored),
                    _values(d.recomputed),
                ]
                for d in v.disagreeing()
            ],
        )
    if v.unverified:
        out += ["", "Unverified (no task file holds the task; the stored verdict is used):", ""]
        out += _table(
            ["run", "task", "arch", "presentation", "model"],
            [[f"`{run}`", *(str(k) for k in key[:4])] for run, key in v.unverified_keys()],
        )
    return out


def _values(values: dict[str, Any]) -> str:
    """Field values for a table cell (metrics summarised by their verdict fields)."""
    shown = []
    for name, value in values.items():
        if isinstance(value, dict):
            value = (
                "{"
                + ", ".join(
                    f"{k}: {_num(v) if isinstance(v, float) else v}" for k, v in value.items()
                )
                + "}"
            )
        shown.append(f"{name}={value}")
    return "; ".join(shown).replace("|", "\\|")


def printed_verdicts(v: Rescorer | None) -> list[str]:
    """What ``scir report`` and ``scir explore`` print about verdicts: the disagreements
    (count and the first keys) and the unverified results."""
    lines = []
    if v is not None and v.disagreements:
        shown = [f"{d.label()} ({', '.join(d.fields)})" for d in v.disagreeing()[:SHOWN_KEYS]]
        more = (
            f" and {len(v.disagreements) - SHOWN_KEYS} more"
            if len(v.disagreements) > SHOWN_KEYS
            else ""
        )
        lines.append(
            f"{len(v.disagreements)} stored verdicts disagree with the recomputed "
            f"ones, which are used (see the Verdicts section; scir rescore RUN "
            f"stores them): {'; '.join(shown)}{more}"
        )
    if v is not None and v.unverified:
        lines.append(
            f"{len(v.unverified)} results unverified: no task file holds their task "
            f"(stored verdicts used, cells marked {UNVERIFIED})"
        )
    return lines


def to_csv(report: Report) -> str:
    """One row per cell, full precision (columns: :meth:`CellStats.to_dict`)."""
    rows = [report.cell_row(c) for c in report.cells]
    buf = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                k: ("" if v is None or (isinstance(v, float) and math.isnan(v)) else v)
                for k, v in row.items()
            }
        )
    return buf.getvalue()


SAMPLE_FIELDS = (
    "formalization",
    "solver_status",
    "solver_log",
    "response",
    "answer",
    "gold",
    "answer_pool",
    "correct",
    "status",
    "error",
    "backup",
    "backup_used",
    "backup_status",
    "backup_answer",
    "backup_correct",
    "backup_response",
    "metrics",
    "items",
    "extraction",
)


def _failure_table(report: Report, cells: list) -> list[str]:
    from scir.reports.attribution import KINDS

    rows = []
    for c in cells:
        f = report.failures.get(c.cell)
        if f is None:
            continue
        top = max(KINDS, key=lambda k: f.kinds.get(k, 0))
        rows.append(
            [
                c.cell.label(),
                str(c.n),
                str(f.failed),
                *(str(f.kinds.get(k, 0)) for k in KINDS),
                f"{top}: " + ", ".join(f.examples.get(top, [])),
            ]
        )
    return _table(["cell", "n", "failed", *KINDS, "examples"], rows) if rows else ["(no failures)"]


def samples(report: Report) -> str:
    """One JSON line per task result: task, cell, run directory, formalization, solver status
    and log, response, answer, gold answer and pool, verdict (``correct``), status, the
    scoring rule's metrics, the extracted items and their extraction check against the gold
    (precision, recall, missing, extra)."""
    lines = []
    for item in report.runs.results:
        r = item.result
        lines.append(
            json.dumps(
                {
                    "task_id": r["task_id"],
                    "cell": item.cell.to_dict(),
                    "run": item.run,
                    **{k: r.get(k) for k in SAMPLE_FIELDS},
                },
                ensure_ascii=False,
                sort_keys=True,
            )
        )
    return "".join(line + "\n" for line in lines)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "report",
        help="the paper's tables and figures over run directories",
        formatter_class=HelpFormatter,
        description=__doc__.split(": ", 1)[1],
        epilog="Examples:\n"
        "  scir report runs/table1 -o reports/table1\n"
        "  scir report runs/oracle runs/tiny -o reports/ --samples\n"
        "  scir report runs/gpt4o runs/llama -o reports/ab --compare\n"
        "  scir report runs/old -o reports/old --tasks d.jsonl d.obf.jsonl\n"
        "  scir report runs/table1 -o reports/table1 --reproducible\n"
        "Writes report.md, report.csv, report.json and figures/*.png into -o\n"
        "(--reproducible: also measurements.json).",
    )
    p.add_argument("runs", nargs="+", help="run directories (scir solve, scir eval)")
    p.add_argument(
        "-o", "--output", default=None, help="output folder (default: the first run directory)"
    )
    p.add_argument(
        "--samples", action="store_true", help="also write samples.jsonl: one line per task result"
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="two runs A B: also A against B per cell, with the paired difference",
    )
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    p.add_argument(
        "--reproducible",
        action="store_true",
        help="leave the wall-clock latency and the versions (commit, libraries, model files) "
        f"out of report.md, .csv and .json and write them to {MEASUREMENTS}: two runs of one "
        "experiment that gave the same answers then write byte-identical reports",
    )
    add_verdict_arguments(p)
    p.set_defaults(func=run)


def add_verdict_arguments(p) -> None:
    """``--tasks`` and ``--unverified`` (scir report, scir explore)."""
    p.add_argument(
        "--tasks",
        nargs="+",
        action="extend",
        default=None,
        metavar="FILE",
        help="task files (JSONL) holding the runs' tasks, read before the files the "
        "runs record; every verdict is recomputed from them (give it after "
        "the run directories)",
    )
    p.add_argument(
        "--unverified",
        action="store_true",
        help="when no task file holds a result's task, use its stored verdict "
        "(listed, cells marked ?) instead of refusing the run",
    )


def run(args) -> int:
    from scir import api
    from scir.reports.figures import write_figures

    report = api.report(
        args.runs,
        compare=args.compare,
        tasks=args.tasks,
        unverified=args.unverified,
        reproducible=args.reproducible,
    )
    out = Path(args.output) if args.output else Path(args.runs[0])
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "report.md", out / "report.csv", out / "report.json"]
    written[0].write_text(to_markdown(report), encoding="utf-8")
    written[1].write_text(to_csv(report), encoding="utf-8")
    written[2].write_text(
        json.dumps(report.to_dict(), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        encoding="utf-8",
    )
    if report.reproducible:
        written.append(out / MEASUREMENTS)
        written[-1].write_text(
            json.dumps(report.measurements(), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
            encoding="utf-8",
        )
    if args.samples:
        written.append(out / "samples.jsonl")
        written[-1].write_text(samples(report), encoding="utf-8")
    figures = [] if args.no_figures else write_figures(report, out / "figures")
    print("\n".join(table1(report)))
    both = constrained_vs_free(report)
    if both:
        print("\nconstrained vs free formalizations:")
        print("\n".join(both))
    if report.conflicts:
        print(
            f"{len(report.conflicts)} conflicting results between runs (first run's used; "
            "see the Conflicts section)"
        )
    if report.incomplete:
        print(f"{len(report.incomplete)} incomplete cells (marked {INCOMPLETE})")
    small = [c for c in report.cells if c.accuracy.small]
    if small:
        print(
            f"{len(small)} of {len(report.cells)} cells have fewer than {SMALL_N} tasks "
            f"(intervals marked {SMALL_MARK}: too few tasks to trust them)"
        )
    for line in printed_verdicts(report.verdicts):
        print(line)
    if report.versions is not None:
        print("\n".join(report.versions.lines()))
    print(
        "wrote "
        + ", ".join(str(p) for p in written)
        + (f" and {len(figures)} figures in {out / 'figures'}" if figures else "")
    )
    return 0
