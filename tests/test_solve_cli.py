"""``scir solve`` and ``scir report`` end to end, including a SIGKILL in the middle of a run."""

import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from parity_track import ParityTrack, install, parity, taskfile, uninstall  # noqa: F401 (fixtures)
from scir.cli import main
from scir.runs.store import RunStore
from scir.tracks.reading import read_tasks

RUNNER = Path(__file__).with_name("parity_track.py")


def numbers_in(body):
    """The numbers of the task a request is about (from the prompt text)."""
    prompt = body["messages"][0]["content"]
    return [int(n) for n in re.findall(r"[0-9]+", re.search(r"are ([0-9, ]+)\.", prompt)[1])]


def answer_script(wrong_when_first_is_even=True):
    """Answers correctly, except for tasks whose first number is even (answered wrongly)."""
    def script(body, index):
        nums = numbers_in(body)
        parity = "even" if sum(nums) % 2 == 0 else "odd"
        if wrong_when_first_is_even and nums[0] % 2 == 0:
            parity = {"even": "odd", "odd": "even"}[parity]
        return Reply(body=chat_body(f"Let me add them.\nAnswer: {parity}"))
    return script


def expected_correct(path):
    return sum(1 for t in read_tasks(path) if t.formal["numbers"][0] % 2 == 1)


def test_oracle_run_and_rerun(taskfile, tmp_path, capsys):
    run = tmp_path / "run-oracle"
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "accuracy: 8/8"
    assert out[1:5] == ["parse failures: 0", "solver errors: 0", "timeouts: 0",
                        "backend errors: 0"]
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "accuracy: 8/8" and "tasks run now: 0, already stored: 8" in out


def test_cot_run_through_a_local_server_and_report(taskfile, tmp_path, capsys):
    run = tmp_path / "run-cot"
    good = expected_correct(taskfile)
    with FakeOpenAIServer(answer_script()) as srv:
        argv = ["solve", str(taskfile), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                "--run", str(run), "--concurrency", "2", "--max-tokens", "50"]
        assert main(argv) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"accuracy: {good}/8"
        assert "LLM calls made: 8, served from the run store: 0" in out
        assert len(srv.requests) == 8 and srv.requests[0].body["max_tokens"] == 50
        assert main(argv + ["--redo"]) == 0       # every task again, every call from the store
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"accuracy: {good}/8"
        assert "LLM calls made: 0, served from the run store: 8" in out
        assert len(srv.requests) == 8
        assert main(argv[:-1] + ["60"]) == 2     # other settings need another run directory
        assert "use a new --run directory" in capsys.readouterr().err

    oracle = tmp_path / "run-oracle"
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(oracle)]) == 0
    capsys.readouterr()
    assert main(["report", str(run), str(oracle), "-o", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    assert "parity" in printed and "report.md" in printed
    rows = list(csv.DictReader((tmp_path / "rep" / "report.csv").open()))
    assert {r["track"] for r in rows} == {"parity"}
    cot = next(r for r in rows if r["arch"] == "cot")
    assert (cot["n"], cot["correct"], cot["model"]) == ("8", str(good), "vllm:fake")
    acc = good / 8
    assert float(cot["accuracy"]) == pytest.approx(acc)
    assert float(cot["normalised"]) == pytest.approx(max(0.0, (acc - 0.5) / 0.5))
    assert int(cot["status_wrong"]) == 8 - good
    orc = next(r for r in rows if r["arch"] == "oracle")
    assert float(orc["normalised"]) == 1.0 and orc["reference_items"] == "3.0"
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| vllm:fake cot |" in md and "| none oracle |" in md


def test_bad_invocations_exit_2_with_one_message(taskfile, tmp_path, capsys):
    assert main(["solve", str(taskfile), "--arch", "cot", "--run", str(tmp_path / "r")]) == 2
    assert "--arch cot needs --model" in capsys.readouterr().err
    assert main(["solve", str(taskfile), "--arch", "cot", "--model", "vllm:x@nope",
                 "--run", str(tmp_path / "r")]) == 2
    assert "bad model name" in capsys.readouterr().err
    assert main(["solve", str(taskfile), "--arch", "oracle", "--presentation", "obf",
                 "--run", str(tmp_path / "r2")]) == 2
    err = capsys.readouterr().err
    assert "task parity-c3-5-0" in err and "has not been rendered" in err
    with RunStore(tmp_path / "r2") as store:
        assert store.results() == []
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "not a run directory" in capsys.readouterr().err


@pytest.mark.llm
def test_ns_with_the_tiny_model(taskfile, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCIR_CACHE_DIR", str(tmp_path / "cache"))
    run = tmp_path / "run-tiny"
    argv = ["solve", str(taskfile), "--arch", "ns", "--model", "tiny", "--run", str(run),
            "--limit", "4", "--max-tokens", "64"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"accuracy: [0-4]/4", out[0])
    assert out[1] == "parse failures: 0"           # constrained: every formalization parses
    with RunStore(run) as store:
        results = store.results()
        assert len(results) == 4 and store.call_count() == 4
    for r in results:
        assert r["model"] == "tiny-v1" and r["retries"] == 0 and r["items"] >= 1
        assert re.fullmatch(r"numbers: [0-9]{1,3}(, [0-9]{1,3}){0,8}", r["formalization"])


@pytest.mark.slow
def test_sigkill_mid_run_loses_nothing_and_repeats_no_finished_call(taskfile, tmp_path):
    run = tmp_path / "run-kill"
    in_flight = threading.Event()
    script = answer_script()

    def slow_script(body, index):
        if index == 3:                             # the 4th call: hold it until we kill
            in_flight.set()
            return Reply(body=chat_body("Answer: even"), delay=5.0)
        return Reply(body=script(body, index).body, delay=0.1)

    with FakeOpenAIServer(slow_script) as srv:
        argv = [sys.executable, str(RUNNER), "solve", str(taskfile), "--arch", "cot",
                "--model", f"vllm:fake@{srv.url}", "--run", str(run), "--max-tokens", "40"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            assert in_flight.wait(timeout=60), proc.communicate(timeout=5)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with RunStore(run) as store:
            before = {r["task_id"]: r for r in store.results()}
            calls_before = {json.dumps(req["messages"]) for req in store.call_requests()}
        assert len(before) == 3 and len(calls_before) == 3
        first_run = len(srv.requests)
        assert first_run == 4

        srv.script = script
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        good = expected_correct(taskfile)
        assert done.stdout.splitlines()[0] == f"accuracy: {good}/8"
        second = [json.dumps(b["messages"]) for b in srv.bodies()[first_run:]]

    assert len(second) == 5                        # tasks 4-8; the killed call is redone
    assert not set(second) & calls_before          # no finished call repeated
    with RunStore(run) as store:
        after = {r["task_id"]: r for r in store.results()}
        assert store.call_count() == 8
    assert len(after) == 8
    for task_id, result in before.items():         # no finished result lost or changed
        assert after[task_id] == result
