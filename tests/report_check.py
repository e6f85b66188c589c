"""Recompute a ``scir report`` from the run stores themselves and compare.

:func:`check_report` reads the run directories with plain ``sqlite3`` and ``json`` (not the
aggregation under test), merges them first-run-wins, groups results into cells, and checks
``report.json`` and ``report.csv``: per cell n, correct, accuracy and its Wilson interval (by
the formula), mean chances and both normalised accuracies, status counts, completeness against
the plan table; the probes; every paired difference's task count and mean (and its bootstrap
interval against an independent percentile bootstrap, within a tolerance); the conflicts;
the with-backup view of ns cells run with a backup (a result whose ``backup_used`` is true
counts its ``backup_correct`` and ``backup_status``) and the count of backup uses per cell;
every Table-1 entry; the equation metrics of every cell of a track whose results carry
metrics (the equation track): the share of problems passing each Acc_tau and the symbolic
check with Wilson intervals, the NMSE medians ID / OOD with their order-statistic intervals
(binomial ranks computed here with exact fractions), in ``cells``, ``equation`` and the CSV.
Usable on any report, e.g. one made from a ``scir eval`` run.

The stored verdicts are not trusted here either (a report recomputes them): each result's
verdict is recomputed from its answer and its task record, read with plain ``json`` from the
task files the run records (``RUNDIR/tasks/*.jsonl``, the experiment's ``file`` entries, the
``file`` of each ``scir solve`` invocation) or given (``tasks``): an answer is correct when it
is in the record's ``answer_pool`` (the label, pool and option-letter rules); only the equation
rule and a causal answer stating an edge set go through the toolkit's scorer
(the track's scorer's ``assess``: a fit, sympy). The chances, the track and the difficulty
come from the record too. A result whose task no file holds keeps its stored verdict (the
report must then list it as unverified). The report's ``verdicts.disagreements`` must name
every result whose stored ``correct`` or ``status`` differs from the recomputed one.
"""

from __future__ import annotations

import csv
import json
import math
from fractions import Fraction
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

Z95 = 1.959963984540054
STATUSES = ("ok", "wrong", "parse_error", "solver_error", "timeout", "backend_error",
            "no_answer")
AXES = ("track", "difficulty", "presentation", "arch", "model", "constrained", "seed",
        "backup")
KEY_FIELDS = ("task_id", "arch", "presentation", "model", "constrained", "seed")


def wilson_formula(k: int, n: int) -> tuple[float, float, float]:
    """(estimate, low, high) of the 95% Wilson score interval, by its formula."""
    p = k / n
    denom = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def read_store(run_dir: str | Path) -> tuple[list[dict[str, Any]], list[tuple[dict, int]]]:
    """(results, plan) of one run directory, read with sqlite3."""
    db = sqlite3.connect(str(Path(run_dir) / "run.sqlite"))
    try:
        results = [json.loads(r[0]) for r in db.execute(
            "SELECT result FROM results ORDER BY task_id, arch, presentation, model, "
            "constrained, seed")]
        plan = [(json.loads(c), n) for c, n in db.execute("SELECT cell, planned FROM plan")]
    finally:
        db.close()
    return results, plan


def task_records(run_dir: str | Path, extra: list[str] = ()) -> dict[str, dict[str, Any]]:
    """Task id -> task record (plain JSON) of the files ``extra``, then those the run records
    (the first record of an id is used)."""
    import tomllib

    run = Path(run_dir)
    files = [Path(f) for f in extra] + sorted((run / "tasks").glob("*.jsonl"))
    if (run / "experiment.toml").is_file():
        base = Path(json.loads((run / "experiment.json").read_text())["source"]).parent
        exp = tomllib.loads((run / "experiment.toml").read_text())
        files += [base / spec["file"] for tiers in exp["tasks"].values()
                  for spec in tiers.values() if "file" in spec]
    db = sqlite3.connect(str(run / "run.sqlite"))
    try:
        files += [Path(json.loads(c)["file"]) for (c,) in db.execute(
            "SELECT config FROM invocations") if json.loads(c).get("file")]
    finally:
        db.close()
    records: dict[str, dict[str, Any]] = {}
    for path in files:
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    records.setdefault(record["task_id"], record)
    return records


def _toolkit(record: dict[str, Any], answer: str) -> tuple[bool, dict[str, Any] | None]:
    """The equation rule (a fit) and a causal edge set (subset matching): the toolkit's
    scorer."""
    from scir.tracks.reading import task_from_dict
    from scir.tracks import track_of

    task = task_from_dict(record)
    got = track_of(task).scorer().assess(task, answer)
    return got.correct, got.metrics


def _judge(record: dict[str, Any], answer: Any) -> tuple[bool, str | None, Any]:
    """(correct, status, metrics) of an answer (status None: no answer)."""
    if not isinstance(answer, str):
        return False, None, None
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:len(record.get("options") or [])]
    if record["domain"] in METRIC_TRACKS or (record["domain"] == "causal"
                                             and answer not in letters):
        ok, metrics = _toolkit(record, answer)
    else:
        ok, metrics = answer in record["answer_pool"], None
    return ok, "ok" if ok else "wrong", metrics


def _failed(status: Any) -> str:
    return "no_answer" if status in ("ok", "wrong") or status not in STATUSES else status


def true_result(r: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    """The result with its verdict, its backup's and its task fields recomputed from its
    answer and ``record`` (the stored result when there is no record)."""
    if record is None:
        return r
    out = dict(r)
    ok, status, metrics = _judge(record, r.get("answer"))
    out.update(correct=ok, status=status or _failed(r.get("status")), metrics=metrics)
    if status is None:
        out["answer"] = None
    if r.get("backup_used"):
        ok, status, _ = _judge(record, r.get("backup_answer"))
        out.update(backup_correct=ok, backup_status=status or _failed(r.get("backup_status")))
        if status is None:
            out["backup_answer"] = None
    chance = float(record["chance"])
    constrained = record.get("chance_constrained")
    out.update(domain=record["domain"], difficulty=record["difficulty"], tier=record["tier"],
               gold=record["answer"], answer_pool=list(record["answer_pool"]), chance=chance,
               chance_constrained=chance if constrained is None else constrained)
    return out


def cell_tuple(r: dict[str, Any]) -> tuple:
    return (r["domain"], r.get("difficulty") or "?", r["presentation"], r["arch"], r["model"],
            bool(r.get("constrained", True)), int(r.get("seed", 0)), None)


def backup_view(r: dict[str, Any]) -> dict[str, Any]:
    """A result as NS with backup counts it (Logic-LM: the backup's answer where the solver
    gave none)."""
    if not r.get("backup_used"):
        return r
    return {**r, "correct": r["backup_correct"], "status": r["backup_status"]}


METRIC_TRACKS = ("equation",)          # tracks whose scoring rule stores per-answer metrics
SHARES = ("acc_0.1", "acc_0.01", "acc_0.001", "symbolic")
MEDIANS = ("nmse_id", "nmse_ood")


def median_ranks(n: int, level: float = 0.95) -> tuple[int | None, int | None]:
    """0-based ranks of the order-statistic interval of the median, B ~ binomial(n, 1/2):
    lower = (the smallest k with P(B <= k) >= alpha/2) - 1, upper = the smallest k with
    P(B > k) <= alpha/2; None for a bound the sample cannot give (a rank outside 0..n-1)."""
    q = Fraction(1 - level).limit_denominator(10 ** 6) / 2
    pmf = [Fraction(math.comb(n, i), 2 ** n) for i in range(n + 1)]
    cdf = [sum(pmf[:i + 1]) for i in range(n + 1)]
    low = next(k for k in range(n + 1) if cdf[k] >= q) - 1
    high = next(k for k in range(n + 1) if 1 - cdf[k] <= q)
    return (low if low >= 0 else None), (high if high < n else None)


def expected_metrics(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A cell's metric columns recomputed: results with metrics count by them, results
    without an answer fail (NMSE infinite), answered results without metrics are left out."""
    counted = []
    for r in items:
        if r.get("metrics"):
            counted.append(r["metrics"])
        elif r.get("answer") is None:
            counted.append({**{m: False for m in SHARES}, **{m: None for m in MEDIANS}})
    n = len(counted)
    out: dict[str, Any] = {"metrics_n": n}
    for m in SHARES:
        k = sum(bool(c[m]) for c in counted)
        p, low, high = wilson_formula(k, n) if n else (None, None, None)
        out.update({m: p, f"{m}_low": low, f"{m}_high": high})
    for m in MEDIANS:
        x = sorted(math.inf if c[m] is None else float(c[m]) for c in counted)
        if not x:
            out.update({m: None, f"{m}_low": None, f"{m}_high": None})
            continue
        mid = len(x) // 2
        med = x[mid] if len(x) % 2 else (x[mid - 1] + x[mid]) / 2
        lo, hi = median_ranks(len(x))
        out.update({m: med, f"{m}_low": 0.0 if lo is None else x[lo],
                    f"{m}_high": math.inf if hi is None else x[hi]})
    return out


def _same(seen: float | None, value: float | None, absolute: float) -> bool:
    """A reported number against the recomputed one (JSON: None for a value that is not
    finite)."""
    if value is None or not math.isfinite(value):
        return seen is None
    return seen is not None and (abs(seen - value) <= absolute
                                 or math.isclose(seen, value, rel_tol=1e-9))


def _check_metrics(key: tuple, items: list[dict[str, Any]], got: dict[str, Any],
                   row: dict[str, str], equation: dict[tuple, dict]) -> None:
    """One cell's metric columns in ``cells``, ``equation`` and the CSV row."""
    if not (key[0] in METRIC_TRACKS or any(r.get("metrics") for r in items)):
        assert got["metrics_n"] is None and key not in equation, key
        assert all(got[m] is None for m in SHARES + MEDIANS) and row["metrics_n"] == "", key
        return
    want = expected_metrics(items)
    entry = equation[key]
    assert got["metrics_n"] == want["metrics_n"] == entry["n"] == int(row["metrics_n"]), key
    for m in SHARES + MEDIANS:
        absolute = 1e-6 if m in SHARES else 0.0          # Wilson bounds: formula vs scipy
        for suffix, part in (("", "estimate"), ("_low", "low"), ("_high", "high")):
            value = want[m + suffix]
            for seen in (got[m + suffix], entry[m][part]):
                assert _same(seen, value, absolute), (key, m + suffix, seen, value)
            cell = row[m + suffix]
            assert (cell == "") if value is None else (
                math.isclose(float(cell), value, rel_tol=1e-9)
                or abs(float(cell) - value) <= absolute), (key, m + suffix, cell, value)


def key_tuple(r: dict[str, Any]) -> tuple:
    return (r["task_id"], r["arch"], r["presentation"], r["model"],
            bool(r.get("constrained", True)), int(r.get("seed", 0)))


def merged(run_dirs: list[str], tasks: list[str] = ()
           ) -> tuple[dict[tuple, dict[str, dict]], dict[tuple, int], int, set[tuple], set[tuple]]:
    """Cells -> task id -> result with its verdict recomputed (first run wins), planned
    counts, conflict count, the (run, key) whose stored correct or status differ from the
    recomputed ones, and the (run, key) without a task record."""
    cells: dict[tuple, dict[str, dict]] = {}
    plan: dict[tuple, int] = {}
    seen: dict[tuple, dict] = {}
    conflicts = 0
    wrong_stored: set[tuple] = set()
    unverified: set[tuple] = set()
    for run in run_dirs:
        stored, planned = read_store(run)
        records = task_records(run, list(tasks))
        results = []
        for r in stored:
            record = records.get(r["task_id"])
            true = true_result(r, record)
            if record is None:
                unverified.add((run, key_tuple(r)))
            elif (bool(r["correct"]), r["status"]) != (true["correct"], true["status"]):
                wrong_stored.add((run, key_tuple(r)))
            results.append(true)
        for cell, n in planned:
            t = (cell["track"], cell["difficulty"], cell["presentation"], cell["arch"],
                 cell["model"], bool(cell.get("constrained", True)), int(cell.get("seed", 0)),
                 cell.get("backup") or None)
            plan[t] = max(n, plan.get(t, 0))
        for r in results:
            k = key_tuple(r)
            if k in seen:
                strip = lambda d: {x: v for x, v in d.items()  # noqa: E731
                                   if x not in ("seconds", "cached_calls")}
                conflicts += strip(seen[k]) != strip(r)
                continue
            seen[k] = r
            cells.setdefault(cell_tuple(r), {})[r["task_id"]] = r
            if r.get("backup"):
                view = cell_tuple(r)[:-1] + (r["backup"],)
                cells.setdefault(view, {})[r["task_id"]] = backup_view(r)
    return cells, plan, conflicts, wrong_stored, unverified


def _close(a: float | None, b: float | None, tol: float = 1e-9) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol


def _bootstrap(diff: np.ndarray, resamples: int = 4000, seed: int = 12345) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def check_report(report_dir: str | Path, run_dirs: list[str], tasks: list[str] = ()
                 ) -> dict[str, Any]:
    """Assert that the report in ``report_dir`` matches the run stores, every verdict
    recomputed from the task files (those the runs record, ``tasks`` first); returns
    report.json."""
    report_dir = Path(report_dir)
    data = json.loads((report_dir / "report.json").read_text())
    rows = list(csv.DictReader((report_dir / "report.csv").open()))
    cells, plan, conflicts, wrong_stored, unverified = merged([str(d) for d in run_dirs],
                                                              [str(t) for t in tasks])
    assert len(data["conflicts"]) == conflicts
    said = {(d["run"], tuple(d["key"][k] for k in KEY_FIELDS))
            for d in data["verdicts"]["disagreements"]}
    assert wrong_stored <= said, wrong_stored - said       # every tampered verdict is named
    assert {(u["run"], tuple(u["key"][k] for k in KEY_FIELDS))
            for u in data["verdicts"]["unverified"]} == unverified
    by_key = {tuple(c[a] for a in AXES): c for c in data["cells"]}
    equation = {tuple(e["cell"][a] for a in AXES): e for e in data["equation"]}
    csv_by_key = {tuple(r[a] for a in AXES): r for r in rows}
    assert set(by_key) == set(cells) | set(plan), (set(by_key) ^ (set(cells) | set(plan)))
    for key, tasks in cells.items():
        got = by_key[key]
        items = list(tasks.values())
        n, k = len(items), sum(bool(r["correct"]) for r in items)
        assert (got["n"], got["correct"]) == (n, k), key
        p, low, high = wilson_formula(k, n)
        assert _close(got["accuracy"], p) and abs(got["accuracy_low"] - low) < 1e-6 \
            and abs(got["accuracy_high"] - high) < 1e-6, (key, got, low, high)
        chance = sum(float(r["chance"]) for r in items) / n
        cc = sum(float(r["chance"] if r.get("chance_constrained") is None
                       else r["chance_constrained"]) for r in items) / n
        assert _close(got["chance"], chance) and _close(got["chance_constrained"], cc)
        norm = 0.0 if chance >= 1 else max(0.0, (p - chance) / (1 - chance))
        normc = 0.0 if cc >= 1 else max(0.0, (p - cc) / (1 - cc))
        assert _close(got["normalised"], norm) and _close(got["normalised_constrained"], normc)
        for s in STATUSES:
            assert got[f"status_{s}"] == sum(r["status"] == s for r in items), (key, s)
        done = n - sum(r["status"] == "backend_error" for r in items)
        assert got["done"] == done and got["planned"] == plan.get(key)
        assert got["complete"] == (None if key not in plan else done >= plan[key])
        ran_with_backup = any(r.get("backup") for r in items)
        assert got["backup_used"] == (sum(bool(r.get("backup_used")) for r in items)
                                      if ran_with_backup else None), key
        row = csv_by_key[tuple("" if x is None else str(x) for x in key)]
        assert int(row["n"]) == n and float(row["accuracy"]) == got["accuracy"]
        assert float(row["accuracy_low"]) == got["accuracy_low"]
        _check_metrics(key, items, got, row, equation)
    for key in set(plan) - set(cells):
        assert by_key[key]["n"] == 0 and by_key[key]["complete"] is (plan[key] == 0)

    def acc(key: tuple) -> float | None:
        tasks = cells.get(key)
        return None if not tasks else sum(bool(r["correct"]) for r in tasks.values()) / len(tasks)

    probe_names = (("reasoning", "nl", "cot"), ("extraction", "obf", "ns"), ("joint", "obf", "cot"))
    expected = {(t, d, m, s) for (t, d, _, a, m, _, s, _) in set(cells) | set(plan)
                if a in ("cot", "ns")}
    assert {(p["track"], p["difficulty"], p["model"], p["seed"]) for p in data["probes"]} \
        == expected
    for probe in data["probes"]:
        for name, pres, arch in probe_names:
            want = acc((probe["track"], probe["difficulty"], pres, arch, probe["model"], True,
                        probe["seed"], None))
            got = probe[name]
            assert (got is None) if want is None else _close(got["estimate"], want), (probe, name)
    contrasts = {"nl_vs_obf": (2, "nl", "obf"), "ns_vs_cot": (3, "ns", "cot"),
                 "constrained_vs_unconstrained": (5, True, False),
                 "backup_vs_none": (7, "cot", None)}
    want_pairs = set()
    for name, (axis, first, second) in contrasts.items():
        for key in cells:
            if key[axis] == first:
                other = key[:axis] + (second,) + key[axis + 1:]
                if other in cells:
                    want_pairs.add((name, key, other))
    got_pairs = {(d["contrast"], tuple(d["first"][a] for a in AXES),
                  tuple(d["second"][a] for a in AXES)): d for d in data["differences"]}
    assert set(got_pairs) == want_pairs
    for (name, first, second), d in got_pairs.items():
        common = sorted(set(cells[first]) & set(cells[second]))
        a = np.array([int(bool(cells[first][t]["correct"])) for t in common], dtype=float)
        b = np.array([int(bool(cells[second][t]["correct"])) for t in common], dtype=float)
        assert d["tasks"] == len(common)
        if not common:
            assert d["difference"] == {"estimate": None, "low": None, "high": None}
            continue
        diff = a - b
        est = d["difference"]
        assert _close(est["estimate"], float(diff.mean()))
        assert est["low"] <= est["estimate"] + 1e-12 <= est["high"] + 2e-12
        if np.all(diff == diff[0]):
            assert est["low"] == est["high"] == est["estimate"]
        else:
            lo, hi = _bootstrap(diff)
            tol = 1.5 / len(diff) + 0.02
            assert abs(est["low"] - lo) <= tol and abs(est["high"] - hi) <= tol, (est, lo, hi)
    for row in data["table1"]:
        r = row["row"]
        for col in row["columns"]:
            for pres in ("nl", "obf"):
                key = (col["track"], col["difficulty"], pres, r["arch"], r["model"],
                       r["constrained"], r["seed"], r["backup"])
                entry = col[pres]
                assert (entry is None) == (key not in cells and key not in plan), key
                if entry is not None:
                    assert _close(entry["accuracy"], acc(key)) or (acc(key) is None
                                                                    and entry["n"] == 0), key
                    assert entry["backup_used"] == by_key[key]["backup_used"]
    return data
