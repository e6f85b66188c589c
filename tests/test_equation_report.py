"""Equation discovery in ``scir.reports``: the metrics stored with each result (oracle, and
scripted cot answers checked by hand with numpy), their aggregation per cell against an
independent computation (Hypothesis), the report's Equation discovery section, CSV and JSON
(checked from the stores by ``tests/report_check.py``), and ``scir eval`` skipping cells whose
architecture the track does not take."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from report_check import check_report, expected_metrics
from scir.cli import main
from scir.reports.aggregate import cell_stats
from scir.experiments.cells import CellKey
from scir.runs.store import RunStore
from scir.pipelines.result import PipelineResult
from scir.tasks import Task, write_tasks
from scir.tracks import get_track
from scir.tracks.equation.numeric import evaluate

TRACK = get_track("equation")
KEYS = ("acc_0.1", "acc_0.01", "acc_0.001", "nmse_id", "nmse_ood", "symbolic")


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return list(TRACK.generate(4, seed=1, difficulty="easy"))


def _perturbed(expression: str) -> str:
    """The ground truth with its first constant 2% larger (right form, wrong constant)."""
    import re

    m = re.search(r"\d+\.\d+", expression)
    value = float(m.group()) * 1.02
    return expression[:m.start()] + f"{value:.6g}" + expression[m.end():]


def _by_hand(task: Task, answer: str) -> dict:
    """Acc_tau and NMSE of an answer with numeric constants, computed here with numpy."""
    formal = TRACK.formal(task)
    out = {}
    for split, key in (("test_id", "nmse_id"), ("test_ood", "nmse_ood")):
        data = formal.splits[split]
        y = np.asarray(data.y, dtype=float)
        yhat = evaluate(answer, formal.inputs, data.X)
        out[key] = float(np.mean((y - yhat) ** 2) / np.var(y))
        if split == "test_id":
            rel = np.abs(yhat - y) / np.abs(y)
            for tau in (0.1, 0.01, 0.001):
                out[f"acc_{tau:g}"] = bool(np.mean(rel < tau) >= 0.95)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tasks) -> dict[str, Path]:
    """An oracle run and a scripted cot run over the same four tasks, and a deduction oracle
    run (a cell without metrics)."""
    base = tmp_path_factory.mktemp("eqreport")
    path = base / "e.jsonl"
    write_tasks(path, tasks)
    answers = {tasks[0].task_id: TRACK.formal(tasks[0]).skeleton,      # free parameters
               tasks[1].task_id: _perturbed(tasks[1].answer),          # a constant 2% off
               tasks[2].task_id: "0.5*" + TRACK.formal(tasks[2]).inputs[0],   # wrong
               tasks[3].task_id: None}                                 # no Answer line

    def script(body, index):
        prompt = body["messages"][-1]["content"]
        (task,) = [t for t in tasks if t.problem_nl in prompt]
        answer = answers[task.task_id]
        text = "I cannot tell." if answer is None else f"Answer: y = {answer}"
        return Reply(body=chat_body(text))

    assert main(["solve", str(path), "--arch", "oracle", "--run", str(base / "oracle")]) == 0
    with FakeOpenAIServer(script) as srv:
        assert main(["solve", str(path), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                     "--run", str(base / "cot"), "--api-retries", "0"]) == 0
    ded = base / "d.jsonl"
    assert main(["generate", "deduction", "-n", "1", "--seed", "1", "-o", str(ded)]) == 0
    assert main(["solve", str(ded), "--arch", "oracle", "--run", str(base / "ded")]) == 0
    return {"oracle": base / "oracle", "cot": base / "cot", "ded": base / "ded",
            "answers": answers}


def _results(run: Path) -> dict[str, dict]:
    with RunStore(run) as store:
        return {r["task_id"]: r for r in store.results()}


def test_oracle_results_carry_passing_metrics(runs, tasks):
    results = _results(runs["oracle"])
    assert len(results) == len(tasks)
    for r in results.values():
        m = r["metrics"]
        assert set(m) == set(KEYS)
        assert m["acc_0.1"] and m["acc_0.01"] and m["acc_0.001"] and m["symbolic"], r
        assert 0 <= m["nmse_id"] < 1e-9 and 0 <= m["nmse_ood"] < 1e-9
        assert r["correct"] is True and r["correct"] == m["acc_0.01"]


def test_scripted_cot_answers_get_the_metrics_computed_by_hand(runs, tasks):
    results = _results(runs["cot"])
    right, off, wrong, none = (results[t.task_id] for t in tasks)
    # the true skeleton with free parameters: fitted on train, then exact; sympy proves it
    assert right["metrics"]["symbolic"] is True and right["metrics"]["acc_0.001"] is True
    assert right["correct"] is True and right["metrics"]["nmse_id"] < 1e-9
    for r, task in ((off, tasks[1]), (wrong, tasks[2])):
        want = _by_hand(task, runs["answers"][task.task_id])
        got = r["metrics"]
        for key in ("acc_0.1", "acc_0.01", "acc_0.001"):
            assert got[key] is want[key], (key, got, want)
        assert math.isclose(got["nmse_id"], want["nmse_id"], rel_tol=1e-9)
        assert math.isclose(got["nmse_ood"], want["nmse_ood"], rel_tol=1e-9)
        assert got["symbolic"] is False          # a 2% constant is not the law; nor is 0.5*x
        assert r["correct"] is got["acc_0.01"]
    # the 2% constant: within 10% everywhere, not within 0.1%
    assert off["metrics"]["acc_0.1"] is True and off["metrics"]["acc_0.001"] is False
    assert wrong["metrics"]["acc_0.1"] is False and wrong["metrics"]["nmse_id"] > 0.1
    assert none["status"] == "no_answer" and none["metrics"] is None


def test_old_results_without_metrics_still_read(runs, tasks):
    stored = next(iter(_results(runs["oracle"]).values()))
    old = {k: v for k, v in stored.items() if k != "metrics"}
    assert PipelineResult.from_dict(old).metrics is None
    cell = CellKey("equation", "easy", "nl", "oracle", "none", True, 0)
    # an answered result stored before metrics is left out of them, not counted as failing
    stats = cell_stats(cell, [old, stored])
    assert stats.n == 2 and stats.metrics.n == 1
    assert stats.metrics.values["acc_0.01"].estimate == 1.0


def test_the_report_shows_the_equation_section_csv_and_json(runs, tmp_path, capsys):
    out = tmp_path / "report"
    dirs = [str(runs["oracle"]), str(runs["cot"]), str(runs["ded"])]
    assert main(["report", *dirs, "-o", str(out), "--no-figures", "--samples"]) == 0
    printed = capsys.readouterr().out
    assert "none oracle" in printed and "cot" in printed       # Table 1 with equation cells
    md = (out / "report.md").read_text()
    section = md.split("## Equation discovery", 1)[1].split("## Failures", 1)[0]
    section, by_discipline = section.split("By discipline", 1)
    lines = [line for line in section.splitlines() if line.startswith("| equation")]
    assert len(lines) == 2 and not any("deduction" in line for line in section.splitlines())
    # the four tasks are of four sciences: each cell broken down into four rows of one
    split = [line.split(" | ")[1] for line in by_discipline.splitlines()
             if line.startswith("| equation")]
    assert sorted(split) == sorted(["biology", "chemistry", "materials", "physics"] * 2)
    oracle = next(line for line in lines if "oracle" in line).split(" | ")
    assert oracle[1:5] == ["4", "1.00 [0.51, 1.00]~", "1.00 [0.51, 1.00]~", "1.00 [0.51, 1.00]~"]
    cot = next(line for line in lines if " cot " in line).split(" | ")
    # 2 of 4 within 10% (the skeleton, the 2% constant), 1 within 1% and 0.1%; 1 proved
    assert cot[2:5] == ["0.50 [0.15, 0.85]~", "0.25 [0.05, 0.70]~", "0.25 [0.05, 0.70]~"]
    assert cot[7].startswith("0.25 [0.05, 0.70]~")
    data = check_report(out, dirs)             # every number again from the stores
    assert {e["cell"]["arch"] for e in data["equation"]} == {"oracle", "cot"}
    rows = list(csv.DictReader((out / "report.csv").open()))
    ded = next(r for r in rows if r["track"] == "deduction")
    assert ded["metrics_n"] == "" and ded["acc_0.01"] == "" and ded["accuracy"] == "1.0"
    cot_row = next(r for r in rows if r["arch"] == "cot")
    assert float(cot_row["acc_0.1"]) == 0.5 and cot_row["nmse_id_high"] == "inf"
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert all((s["metrics"] is None) == (s["cell"]["track"] == "deduction"
                                          or s["answer"] is None) for s in samples)


def _result(i: int, answered: bool, metrics: dict | None) -> dict:
    return {"task_id": f"t{i}", "correct": bool(metrics and metrics["acc_0.01"]),
            "status": "ok" if metrics and metrics["acc_0.01"] else
            ("wrong" if answered else "no_answer"), "chance": 0.0,
            "answer": "x" if answered else None, "metrics": metrics}


METRIC = st.fixed_dictionaries({
    "acc_0.1": st.booleans(), "acc_0.01": st.booleans(), "acc_0.001": st.booleans(),
    "nmse_id": st.none() | st.floats(0, 1e6), "nmse_ood": st.none() | st.floats(0, 1e9),
    "symbolic": st.booleans()})
RESULT = st.one_of(st.tuples(st.just(True), METRIC), st.tuples(st.booleans(), st.none()))


@settings(max_examples=30, deadline=None)
@given(st.lists(RESULT, max_size=25))
def test_cell_metrics_match_an_independent_computation(drawn):
    items = [_result(i, answered, metrics) for i, (answered, metrics) in enumerate(drawn)]
    cell = CellKey("equation", "easy", "nl", "cot", "m", True, 0)
    got = cell_stats(cell, items).to_dict()
    want = expected_metrics(items)
    assert got["metrics_n"] == want["metrics_n"]
    for key, value in want.items():
        seen = got[key]
        if value is None:
            assert seen is None or math.isnan(seen), key
        elif key.startswith(("acc", "symbolic")):
            assert abs(seen - value) < 1e-6, (key, seen, value)      # Wilson: formula vs scipy
        else:
            assert seen == value, (key, seen, value)                 # order statistics: exact


def test_the_grid_skips_cells_the_track_does_not_take(tmp_path, capsys):
    def junk(body, index):
        return Reply(body=chat_body("no idea"))

    with FakeOpenAIServer(junk) as srv:
        path = tmp_path / "exp.toml"
        path.write_text(f"""
presentations = ["nl"]
architectures = ["oracle", "ns", "sr-agent", "gplearn"]
tasks_per_cell = 1
seeds = [0, 1]
[generation]
max_tokens = 16
max_retries = 0
[agent]
iterations = 1
steps = 1
[symreg]
seconds = 0.5
[[models]]
name = "openai:fake@{srv.url}"
[tasks.deduction.easy]
n = 1
seed = 1
[tasks.equation.easy]
n = 1
seed = 1
""")
        assert main(["eval", str(path), "--run", str(tmp_path / "dry"), "--dry-run"]) == 0
        dry = capsys.readouterr().out.splitlines()
        assert "skipped  equation/easy nl ns openai:fake: --arch ns does not apply to the " \
               "equation track (it takes cot, oracle, sr-agent, pyoperon, gplearn, pysr)" in dry
        assert any(line.startswith("skipped  deduction/easy nl sr-agent") for line in dry)
        assert any(line.startswith("skipped  deduction/easy nl gplearn none") for line in dry)
        # oracle once; ns, sr-agent and the model-free gplearn once per seed
        assert dry[-2] == ("8 cells, 8 task runs planned; 6 cells skipped (architecture not "
                           "taken by the track)")
        assert dry[-1].startswith("checks passed")
        run = tmp_path / "run"
        assert main(["eval", str(path), "--run", str(run), "--progress-every", "1"]) == 0
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if line.startswith("skipped  ")]
    assert skipped == ["skipped  6 cells (architecture not taken by the track): deduction: "
                       "gplearn, sr-agent; equation: ns (--dry-run lists them)"], err
    with RunStore(run) as store:
        cells = {(r["domain"], r["arch"], r["model"], r["seed"]) for r in store.results()}
        planned = {(c["track"], c["arch"], c["model"], c["seed"]) for c, _ in store.plan()}
    want = {("deduction", "oracle", "none", 0), ("equation", "oracle", "none", 0)} | {
        (track, arch, "openai:fake", seed) for track, arch in (("deduction", "ns"),
                                                               ("equation", "sr-agent"))
        for seed in (0, 1)} | {("equation", "gplearn", "none", seed) for seed in (0, 1)}
    assert cells == planned == want
    recorded = json.loads((run / "experiment.json").read_text())["cells"]
    assert [v["symreg"] for k, v in recorded.items() if '"gplearn"' in k] == [
        {"seconds": 0.5}] * 2
    assert main(["report", str(run), "-o", str(tmp_path / "rep"), "--no-figures"]) == 0
    check_report(tmp_path / "rep", [str(run)])
