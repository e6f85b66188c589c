"""``scir report RUN [RUN ...]``: accuracy tables over one or more run directories.

One row per (domain, arch, presentation, model): tasks, accuracy with its 95% Wilson interval
(``scir.evaluate.stats``), mean chance c (the paper's
definition), mean constrained chance (among the answers the question allows),
chance-normalised accuracy ``max(0, (A - c) / (1 - c))``, failure counts (parse error, solver
error, timeout, backend error, wrong answer), the executable rate of formalizations (ns),
input characters, reference and extracted items, tokens and cost. Printed, and written as
``report.md`` and ``report.csv`` into the first run directory (or ``-o DIR``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError
from scir.evaluate.stats import normalised_accuracy, wilson
from scir.llm.cache import STORE_NAME, RunStore

@dataclass
class Row:
    """One cell of the report."""

    domain: str
    arch: str
    presentation: str
    model: str
    n: int
    correct: int
    accuracy: float
    accuracy_low: float            # 95% Wilson interval of the accuracy
    accuracy_high: float
    chance: float
    chance_constrained: float
    normalised: float
    parse_error: int
    solver_error: int
    timeout: int
    backend_error: int
    wrong: int
    executable: float | None       # ns: share of formalizations the solver answered
    input_chars: float
    reference_items: float | None
    extracted_items: float | None
    tokens: int
    cost_usd: float


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(results: Iterable[dict[str, Any]]) -> list[Row]:
    """Aggregate result dicts into report rows, sorted by (domain, arch, presentation, model)."""
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for r in results:
        key = (r["domain"], r["arch"], r["presentation"], r["model"])
        groups.setdefault(key, []).append(r)
    rows = []
    for key in sorted(groups):
        items = groups[key]
        n = len(items)
        correct = sum(bool(r["correct"]) for r in items)
        status = [r["status"] for r in items]
        interval = wilson(correct, n)
        accuracy = interval.estimate
        chance = sum(float(r["chance"]) for r in items) / n
        constrained = sum(float(r["chance"] if r.get("chance_constrained") is None
                                else r["chance_constrained"]) for r in items) / n
        extracted = [r["items"] for r in items if r.get("items") is not None]
        refs = [r["reference_items"] for r in items if r.get("reference_items") is not None]
        rows.append(Row(
            *key, n=n, correct=correct, accuracy=accuracy, accuracy_low=interval.low,
            accuracy_high=interval.high, chance=chance,
            chance_constrained=constrained,
            normalised=normalised_accuracy(accuracy, chance),
            parse_error=status.count("parse_error"), solver_error=status.count("solver_error"),
            timeout=status.count("timeout"), backend_error=status.count("backend_error"),
            wrong=status.count("wrong"),
            executable=(sum(bool(r.get("executable")) for r in items) / n
                        if key[1] in ("ns", "symbcot") else None),
            input_chars=sum(r.get("input_chars", 0) for r in items) / n,
            reference_items=_mean(refs), extracted_items=_mean(extracted),
            tokens=sum(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in items),
            cost_usd=sum(r.get("cost_usd", 0.0) for r in items)))
    return rows


def load_results(run_dirs: list[str]) -> list[dict[str, Any]]:
    """Every result of the runs; a task solved in two runs under one cell counts once (first)."""
    seen: set[tuple] = set()
    out = []
    for run in run_dirs:
        path = Path(run)
        if not (path / STORE_NAME).is_file():
            raise ConfigError(f"not a run directory (no {STORE_NAME})", file=str(path))
        with RunStore(path) as store:
            for r in store.results():
                key = (r["task_id"], r["arch"], r["presentation"], r["model"],
                       r["constrained"], r["seed"])
                if key not in seen:
                    seen.add(key)
                    out.append(r)
    return out


COLUMNS = ["domain", "arch", "presentation", "model", "n", "correct", "accuracy", "accuracy_low",
           "accuracy_high", "chance", "chance_constrained", "normalised", "parse_error", "solver_error", "timeout",
           "backend_error", "wrong", "executable", "input_chars", "reference_items",
           "extracted_items", "tokens", "cost_usd"]


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def to_markdown(rows: list[Row]) -> str:
    """The report as a Markdown table."""
    head = "| " + " | ".join(COLUMNS) + " |"
    rule = "|" + "|".join("---" for _ in COLUMNS) + "|"
    body = ["| " + " | ".join(_fmt(getattr(r, c)) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(["# SciR report", "", head, rule, *body, "",
                      "accuracy_low and accuracy_high bound the 95% Wilson interval of the accuracy. "
                      "normalised = max(0, (accuracy - chance) / (1 - chance)); chance is the "
                      "mean chance of the cell's tasks (the paper's definition), "
                      "chance_constrained the mean chance among the answers the question "
                      "allows (induction: the same-category pairs).", ""])


def to_csv(rows: list[Row]) -> str:
    """The report as CSV (full precision)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow(["" if getattr(r, c) is None else getattr(r, c) for c in COLUMNS])
    return buf.getvalue()


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="accuracy tables over run directories",
                       formatter_class=HelpFormatter,
                       epilog="Example: scir report runs/oracle runs/tiny -o reports/\n"
                              "Writes report.md and report.csv into -o (default: the first "
                              "run directory).")
    p.add_argument("runs", nargs="+", help="run directories made by scir solve")
    p.add_argument("-o", "--output", default=None, help="output folder")
    p.set_defaults(func=run)


def run(args) -> int:
    rows = summarize(load_results(args.runs))
    out = Path(args.output) if args.output else Path(args.runs[0])
    out.mkdir(parents=True, exist_ok=True)
    markdown = to_markdown(rows)
    (out / "report.md").write_text(markdown, encoding="utf-8")
    (out / "report.csv").write_text(to_csv(rows), encoding="utf-8")
    short = ["domain", "arch", "presentation", "model", "n", "accuracy", "chance",
             "chance_constrained", "normalised",
             "parse_error", "solver_error", "timeout", "backend_error", "wrong"]
    widths = {c: max(len(c), *(len(_fmt(getattr(r, c))) for r in rows)) if rows else len(c)
              for c in short}
    print("  ".join(c.ljust(widths[c]) for c in short))
    for r in rows:
        print("  ".join(_fmt(getattr(r, c)).ljust(widths[c]) for c in short))
    if not rows:
        print("(no results)")
    print(f"wrote {out / 'report.md'} and {out / 'report.csv'}")
    return 0
