"""``scir eval``: experiment files, the grid, the plain progress lines, budgets, and a run
SIGKILLed mid-grid and rerun (identical results, no finished call repeated)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.errors import ConfigError
from scir.experiments.cells import CellKey
from scir.experiments.experiment import load_experiment
from scir.experiments.progress import GridProgress, parse_every
from scir.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
TIMING = {"seconds", "latency_s", "created_at"}


def experiment(tmp_path, url, *, budget="", n=3, name="exp.toml"):
    path = tmp_path / name
    path.write_text(f"""
presentations = ["nl", "obf"]
architectures = ["cot"]
seeds = [0]
tasks_per_cell = {n}
[generation]
max_tokens = 40
max_retries = 0
[budget]
{budget}
[[models]]
name = "openai:fake@{url}"
[tasks.deduction.easy]
n = {n}
seed = 1
render = {{ renderer = "template", seed = 1 }}
""")
    return path


def answer(body, index):
    """A deterministic answer per prompt: 10 tokens, $0.001 a call."""
    digest = hashlib.sha256(json.dumps(body["messages"]).encode()).digest()
    return Reply(body=chat_body(f"Answer: {'True' if digest[0] % 2 else 'False'}",
                                cost=0.001, prompt_tokens=7, completion_tokens=3))


def untimed(data):
    if isinstance(data, dict):
        return {k: untimed(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [untimed(v) for v in data]
    return data


def stored(run):
    with RunStore(run) as store:
        return [untimed(r) for r in store.results()], store.call_count()


def eval_cmd(exp, run):
    return [sys.executable, "-m", "scir.cli", "eval", str(exp), "--run", str(run),
            "--progress-every", "1"]


ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def test_experiment_errors_name_field_and_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('architectures = ["cot", "magic"]\n[tasks.deduction.easy]\nn = 2\n'
                   '[[models]]\nname = "tiny"\n')
    with pytest.raises(ConfigError, match=r"architectures\.1: Input should be") as err:
        load_experiment(bad)
    assert err.value.file == str(bad)
    bad.write_text('architectures = ["oracle"]\npresentations = ["nl"]\ntasks_per_cell = 0\n'
                   '[tasks.deduction.easy]\nn = 2\n')
    with pytest.raises(ConfigError, match="tasks_per_cell"):
        load_experiment(bad)
    bad.write_text('architectures = ["oracle"]\n[tasks.deduction.easy]\nn = 2\n')
    with pytest.raises(ConfigError, match="obf presentation needs a render spec"):
        load_experiment(bad)
    assert main(["eval", str(bad), "--run", str(tmp_path / "r")]) == 2


def test_grid_expansion_constrained_only_for_formalizing(tmp_path):
    path = tmp_path / "e.toml"
    path.write_text('architectures = ["oracle", "cot", "ns"]\npresentations = ["nl"]\n'
                    'constrained = [true, false]\nrepeats = 2\n[[models]]\nname = "tiny"\n'
                    '[tasks.causal.hard]\nn = 2\n')
    cells = load_experiment(path).cells()
    labels = [c.label() for c in cells]
    assert labels == ["causal/hard nl oracle none", "causal/hard nl cot tiny-v1",
                      "causal/hard nl cot tiny-v1 seed=1", "causal/hard nl ns tiny-v1",
                      "causal/hard nl ns tiny-v1 seed=1", "causal/hard nl ns tiny-v1 free",
                      "causal/hard nl ns tiny-v1 free seed=1"]


def test_plain_progress_lines():
    out = io.StringIO()
    grid = GridProgress(4, stream=out, bar=False, every_tasks=2, every_seconds=None)
    cell = CellKey("deduction", "easy", "nl", "cot", "tiny")
    grid.record(cell, "t0", "ok", True)            # stored before this invocation
    grid.start()

    class R:
        def __init__(self, task_id, status, correct):
            self.task_id, self.status, self.correct = task_id, status, correct

    list(grid.wrap(cell, [R("t1", "parse_error", False), R("t2", "ok", True),
                          R("t3", "timeout", False)]))
    grid.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3                         # start, after 2 tasks, close
    assert "1/4 done, accuracy 1/1 = 100.0%" in lines[0]
    assert "3/4 done, accuracy 2/3 = 66.7%; errors: parse 1, solver 0, timeout 0" in lines[1]
    assert "timeout 1, backend 0, no answer 0; cell deduction/easy nl cot tiny; took " in lines[2]
    assert "ETA " in lines[1] or "ETA" in lines[0]
    assert parse_every("25,30s") == (25, 30.0)
    with pytest.raises(ConfigError, match="progress-every"):
        parse_every("soon")


@pytest.mark.slow
def test_killed_mid_grid_rerun_is_identical_and_repeats_no_call(tmp_path):
    held = threading.Event()

    def holding(body, index):
        if index == 3:                             # the 4th call: hold it until the kill
            held.set()
            return Reply(body=answer(body, index).body, delay=10.0)
        return answer(body, index)

    with FakeOpenAIServer(holding) as srv:
        exp = experiment(tmp_path, srv.url)
        run = tmp_path / "killed"
        proc = subprocess.Popen(eval_cmd(exp, run), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=ENV, cwd=tmp_path)
        try:
            assert held.wait(timeout=120), proc.communicate(timeout=5)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        with RunStore(run) as store:
            finished = {json.dumps(r["messages"]) for r in store.call_requests()}
            assert len(store.results()) == 3 and len(finished) == 3
        first = len(srv.requests)
        srv.script = answer
        done = subprocess.run(eval_cmd(exp, run), capture_output=True, text=True, env=ENV,
                              cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr
        again = [json.dumps(b["messages"]) for b in srv.bodies()[first:]]
        assert len(again) == 3 and not set(again) & finished
        assert "6/6 done" in done.stderr           # plain progress lines (no terminal)
        whole = subprocess.run(eval_cmd(exp, tmp_path / "whole"), capture_output=True,
                               text=True, env=ENV, cwd=tmp_path, timeout=300)
        assert whole.returncode == 0, whole.stderr
    assert stored(run) == stored(tmp_path / "whole")
    with RunStore(run) as store:
        assert sorted(n for _, n in store.plan()) == [3, 3]


def test_budget_stops_cleanly_and_rerun_finishes_identically(tmp_path, capsys):
    with FakeOpenAIServer(answer) as srv:
        exp = experiment(tmp_path, srv.url, budget="max_tokens = 25")
        run = tmp_path / "budget"
        assert main(["eval", str(exp), "--run", str(run)]) == 3
        err = capsys.readouterr().err
        assert "budget reached: max_tokens = 25 (spent 30 tokens" in err
        assert "rerun the same command" in err
        assert len(srv.requests) == 3 and stored(run)[1] == 3
        experiment(tmp_path, srv.url, budget="max_cost_usd = 0.0045")
        assert main(["eval", str(exp), "--run", str(run)]) == 3
        assert "max_cost_usd = 0.0045" in capsys.readouterr().err
        assert len(srv.requests) == 5
        experiment(tmp_path, srv.url, budget="max_cost_usd = 1.0")
        assert main(["eval", str(exp), "--run", str(run)]) == 0
        assert len(srv.requests) == 6
        whole = experiment(tmp_path, srv.url, name="whole.toml")
        assert main(["eval", str(whole), "--run", str(tmp_path / "whole")]) == 0
    assert stored(run) == stored(tmp_path / "whole")


def test_changed_experiment_refused_for_finished_cells(tmp_path, capsys):
    path = tmp_path / "e.toml"
    text = ('architectures = ["oracle"]\npresentations = ["nl"]\n'
            '[tasks.deduction.easy]\nn = 2\nseed = 1\n')
    path.write_text(text)
    run = tmp_path / "run"
    assert main(["eval", str(path), "--run", str(run), "--dry-run"]) == 0
    assert "2  deduction/easy nl oracle none" in capsys.readouterr().out
    assert main(["eval", str(path), "--run", str(run)]) == 0
    assert main(["eval", str(path), "--run", str(run)]) == 0        # rerun: nothing to do
    assert "tasks run now: 0" in capsys.readouterr().out
    path.write_text(text.replace("seed = 1", "seed = 2"))
    assert main(["eval", str(path), "--run", str(run)]) == 2
    assert "tasks.seed (1 -> 2)" in capsys.readouterr().err


BACKUP_EXPERIMENT = ('architectures = ["cot", "ns"]\npresentations = ["nl"]\n'
                     'backup = "cot"\ntasks_per_cell = 3\n[generation]\nmax_tokens = 40\n'
                     'max_retries = 0\n[[models]]\nname = "openai:fake@URL"\n')


def test_an_ns_backup_experiment_runs_plans_and_reports_both_views(tmp_path, capsys):
    """``backup = "cot"``: every ns formalization fails to parse here, so each ns task gets
    the CoT answer -- served from the store, as the cot cell asked the same question first."""
    from report_check import check_report

    text = BACKUP_EXPERIMENT + '[tasks.deduction.easy]\nn = 3\nseed = 1\n'
    path = tmp_path / "e.toml"
    with FakeOpenAIServer(answer) as srv:
        path.write_text(text.replace("URL", srv.url))
        run = tmp_path / "run"
        assert main(["eval", str(path), "--run", str(run)]) == 0
        out = capsys.readouterr().out
        assert len(srv.requests) == 6 and "ns tasks answered by the cot backup: 3" in out
        with RunStore(run) as store:
            cot = {r["task_id"]: r for r in store.results(arch="cot")}
            ns = store.results(arch="ns")
            plan = dict((json.dumps(c, sort_keys=True), n) for c, n in store.plan())
        assert all(r["status"] == "parse_error" and r["backup_used"] for r in ns)
        assert [r["backup_answer"] for r in ns] == [cot[r["task_id"]]["answer"] for r in ns]
        backup_cell = CellKey("deduction", "easy", "nl", "ns", "openai:fake", backup="cot")
        assert plan[json.dumps(backup_cell.plan_dict(), sort_keys=True)] == 3
        assert main(["report", str(run), "-o", str(tmp_path / "rep"), "--no-figures"]) == 0
        data = check_report(tmp_path / "rep", [str(run)])
        cells = {(c["arch"], c["backup"]): c for c in data["cells"]}
        assert cells[("ns", "cot")]["correct"] == cells[("cot", None)]["correct"]
        assert cells[("ns", None)]["correct"] == 0 and cells[("ns", "cot")]["complete"]
        assert cells[("ns", "cot")]["backup_used"] == cells[("ns", None)]["backup_used"] == 3
        # the backup setting is part of what the ns cells' results depend on
        path.write_text(text.replace("URL", srv.url).replace('backup = "cot"\n', ""))
        assert main(["eval", str(path), "--run", str(run)]) == 2
        assert "ns openai:fake, which has stored results: backup ('cot' -> None)" in \
            capsys.readouterr().err
    for bad, message in [(text.replace('["cot", "ns"]', '["cot"]'),
                          "applies to the ns architecture"),
                         (text.replace('backup = "cot"', 'backup = "symbcot"'),
                          "backup: Input should be 'cot'")]:
        path.write_text(bad)
        with pytest.raises(ConfigError, match=message) as err:
            load_experiment(path)
        assert err.value.file == str(path)


@pytest.mark.slow
def test_an_ns_backup_grid_in_worker_processes_is_stored_identically(tmp_path):
    """The backup on the executor path (scir.runs.remote, a local process pool)."""
    text = (BACKUP_EXPERIMENT + '[tasks.deduction.easy]\nn = 2\nseed = 1\n')
    path = tmp_path / "e.toml"
    with FakeOpenAIServer(answer) as srv:
        path.write_text(text.replace("URL", srv.url))
        assert main(["eval", str(path), "--run", str(tmp_path / "here")]) == 0
        assert main(["eval", str(path), "--run", str(tmp_path / "pool"), "--executor", "local",
                     "--workers", "1"]) == 0
    results, calls = stored(tmp_path / "pool")
    assert (results, calls) == stored(tmp_path / "here")
    assert sum(bool(r["backup_used"]) for r in results) == 2 and calls == 4


@pytest.mark.llm
def test_the_plan_names_models_as_their_backends_name_their_results(tiny):
    """The plan's model column is the results' (else a report shows every cell of the model
    as planned and empty, beside a second row of its results)."""
    from scir.experiments.experiment import model_label
    from scir.llm import get_backend

    assert model_label("tiny") == tiny.name
    for name in ("openai:m@http://127.0.0.1:9/v1", "vllm:Qwen/Qwen3-8B@http://gpu:8000/v1"):
        assert model_label(name) == get_backend(name, api_key="k").name


def test_the_rate_limit_holds_a_call_over_the_window_until_cancelled():
    """requests_per_minute = 3: three calls go through at once, the fourth waits for the
    moving window (and a cancellation ends the wait, as Ctrl-C does)."""
    from formalize_helpers import ScriptedBackend
    from scir.experiments.budget import RateLimitedBackend
    from scir.llm.base import LLMRequest, Message
    from scir.llm.http_limits import CallCancelled, allow_calls, cancel_calls

    inner = ScriptedBackend(lambda prompt: "Answer: True")
    limited = RateLimitedBackend(inner, 3)
    request = LLMRequest(messages=(Message("user", "q"),))
    for _ in range(3):
        limited.complete(request)
    outcome = []

    def fourth():
        try:
            limited.complete(request)
            outcome.append("done")
        except CallCancelled:
            outcome.append("cancelled")

    allow_calls()
    thread = threading.Thread(target=fourth)
    thread.start()
    thread.join(0.6)
    assert thread.is_alive() and inner.calls == 3          # held by the window
    cancel_calls()
    thread.join(5)
    allow_calls()
    assert outcome == ["cancelled"] and inner.calls == 3


@pytest.mark.parametrize("name", ["demo.toml", "table1.toml"])
def test_the_shipped_experiments_load_and_plan_their_grids(name, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    exp = load_experiment(ROOT / "experiments" / name)
    cells = exp.cells()
    tracks = {(c.track, c.difficulty) for c in cells}
    logic = ("deduction", "induction", "causal")
    extra = ("equation",) if name == "demo.toml" else ()
    assert tracks == {(t, d) for t in logic + extra for d in ("easy", "hard")}
    assert {c.presentation for c in cells} == {"nl", "obf"}
    if name == "demo.toml":                  # the offline demo: every architecture, both ways
        assert {c.arch for c in cells if c.track in logic} == {"oracle", "cot", "ns", "symbcot"}
        assert {c.arch for c in cells if c.track == "equation"} == {
            "oracle", "cot", "sr-agent", "pyoperon", "gplearn"}
        assert {c.constrained for c in cells if c.arch in ("ns", "symbcot")} == {True, False}
        skipped = {(c.track, c.arch) for c, _ in exp.skipped()}
        assert skipped == {("equation", "ns"), ("equation", "symbcot")} | {
            (t, a) for t in logic for a in ("sr-agent", "pyoperon", "gplearn")}
        assert len(cells) + len(exp.skipped()) == len(exp.grid_cells())
    else:                                    # the paper's Table 1: six models, 200 per cell
        assert len({c.model for c in cells}) == 6 and exp.tasks_per_cell == 200
    # the dry run plans, then makes the checks of a real run: table1's OpenRouter models need
    # a key, which is not set here (one error line, exit 2, nothing written)
    assert main(["eval", str(ROOT / "experiments" / name), "--run", str(tmp_path / "run"),
                 "--dry-run"]) == (0 if name == "demo.toml" else 2)
    out, err = capsys.readouterr()
    assert f"{len(cells)} cells" in out
    if name == "table1.toml":
        assert err.count("\n") == 1 and "set the environment variable OPENROUTER_API_KEY" in err
    assert not (tmp_path / "run").exists()
