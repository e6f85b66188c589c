"""Runs that stay safe: one writer per run directory, Ctrl-C with calls in flight, a full disk,
and the exit code when every task failed for the same reason outside the tasks."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from parity_track import ParityTrack, install, parity, taskfile, uninstall  # noqa: F401 (fixtures)
from scir.cli import main
from scir.errors import StoreError
from scir.llm import LLMRequest, LLMResponse
from scir.runs.store import RunStore

RUNNER = Path(__file__).with_name("parity_track.py")
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def answer(body, index):
    return Reply(body=chat_body("Answer: even"))


def solve_argv(taskfile, url, run, *extra):
    return ["solve", str(taskfile), "--arch", "cot", "--model", f"vllm:fake@{url}",
            "--run", str(run), "--max-tokens", "40", *extra]


def subprocess_solve(taskfile, url, run, *extra):
    return subprocess.Popen([sys.executable, str(RUNNER), *solve_argv(taskfile, url, run, *extra)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def error_lines(err: str) -> str:
    """stderr without the ``key: VAR -> URL`` line a run prints before its first call
    (scir.llm.keys), which must be there once."""
    lines = err.strip().splitlines()
    assert sum(line.startswith("key: ") for line in lines) <= 1, err
    return "\n".join(line for line in lines if not line.startswith("key: "))


def test_second_writer_is_refused_with_the_holder(taskfile, tmp_path, capsys):
    run = tmp_path / "run"
    held = threading.Event()

    def hold(body, index):
        held.set()
        return Reply(body=chat_body("Answer: odd"), delay=30.0)

    with FakeOpenAIServer(hold) as srv:
        first = subprocess_solve(taskfile, srv.url, run)
        try:
            assert held.wait(timeout=30), first.communicate(timeout=5)
            start = time.monotonic()
            assert main(solve_argv(taskfile, srv.url, run)) == 2
            assert time.monotonic() - start < 5            # refused, not waiting for the
                                                           # holder's 30 s call
            err = error_lines(capsys.readouterr().err)
            assert err.count("\n") == 0                    # one line
            assert f"the run is in use by pid {first.pid} on " in err
            assert "(scir solve " in err and str(run) in err
            assert len(srv.requests) == 1                  # the second writer made no call
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
        # the kernel dropped the dead holder's lock: the same run can go on at once
        srv.script = answer
        assert main(solve_argv(taskfile, srv.url, run)) == 0
    with RunStore(run) as store:
        assert len(store.results()) == 8


def test_ctrl_c_cancels_calls_in_flight_and_keeps_finished_work(taskfile, tmp_path, capsys):
    run = tmp_path / "run"
    slow_seen = threading.Semaphore(0)

    def script(body, index):
        if index < 3:                                      # three quick answers ...
            return Reply(body=chat_body("Answer: even"))
        slow_seen.release()                                # ... then calls that hang 30 s
        return Reply(body=chat_body("Answer: odd"), delay=30.0)

    with FakeOpenAIServer(script) as srv:
        proc = subprocess_solve(taskfile, srv.url, run, "--concurrency", "4")
        try:
            for _ in range(4):                             # four calls in flight
                assert slow_seen.acquire(timeout=30), proc.communicate(timeout=5)
            time.sleep(0.3)                                # the quick results get stored
            start = time.monotonic()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=28)
            elapsed = time.monotonic() - start
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, err
        # the calls in flight would answer after 30 s: cancelled, the process ends well before
        # (measured 0.3-0.5 s; 2.4 s on a 2-core machine running three test suites): what the
        # code controls is that it does not wait for the hung calls, so the bound is theirs,
        # not the machine's speed. (The >10 s and 28 s failures of 2026-12-04 were a suite
        # started with SIGINT ignored, inherited by this child; parity_track.py resets it.)
        assert elapsed < 25.0, elapsed
        assert "calls in flight cancelled; 3 results kept" in err
        assert "Traceback" not in err
        with RunStore(run) as store:
            before = {r["task_id"]: r for r in store.results()}
            assert len(before) == 3 and store.call_count() == 3
            assert sqlite3.connect(store.path).execute("PRAGMA integrity_check").fetchone() \
                == ("ok",)
        calls_first = len(srv.requests)
        assert calls_first == 7                            # 3 finished + 4 cancelled

        srv.script = answer                                # restart: resumes, repeats none
        assert main(solve_argv(taskfile, srv.url, run)) == 0
        assert "tasks run now: 5, already stored: 3" in capsys.readouterr().out
        assert len(srv.requests) - calls_first == 5
    with RunStore(run) as store:
        after = {r["task_id"]: r for r in store.results()}
    assert len(after) == 8
    assert all(after[t] == r for t, r in before.items())


def big_response(i: int, size: int = 20_000) -> LLMResponse:
    return LLMResponse(text=f"{i}:" + "x" * size, prompt_tokens=1, completion_tokens=1,
                       latency_s=0.0, cost_usd=0.0, raw_finish_reason="stop",
                       backend="vllm", model="m")


def test_full_database_is_one_store_error_and_the_store_stays_consistent(tmp_path):
    """SQLite's own limit on the file (max_page_count) gives the real SQLITE_FULL."""
    with RunStore(tmp_path / "run") as store:
        for i in range(3):
            store.put_call(f"k{i}", LLMRequest(prompt=str(i)), big_response(i))
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages + 10}")
        with pytest.raises(StoreError, match=r"run\.sqlite: cannot write the run store: "
                                             r"database or disk is full \(free some space"):
            for i in range(3, 50):
                store.put_call(f"k{i}", LLMRequest(prompt=str(i)), big_response(i))
        written = store.call_count()
    with RunStore(tmp_path / "run") as store:              # reopened: intact, nothing partial
        assert store._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert store.call_count() == written >= 3
        for (key,) in store._db.execute("SELECT key FROM calls").fetchall():
            i = int(key[1:])
            assert store.get_call(key).text == big_response(i).text


@pytest.fixture()
def tiny_disk(tmp_path):
    """A real 320 KiB tmpfs (needs root, as on the project's machines and CI)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=320k", "tmpfs", str(disk)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


def test_full_disk_during_solve_is_one_line_and_resumable(taskfile, tmp_path, tiny_disk,
                                                           capsys):
    run = tiny_disk / "run"
    big = "Answer: even\n" + "y" * 60_000

    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body(big))) as srv:
        code = main(solve_argv(taskfile, srv.url, run, "--concurrency", "2"))
        err = error_lines(capsys.readouterr().err)
        assert code == 2, err
        assert err.count("\n") == 0 and err.startswith("error: ")
        assert "cannot write the run store:" in err and ("full" in err or "I/O" in err), err
    db = sqlite3.connect(run / "run.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    results = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    db.close()
    with RunStore(run, readonly=True) as store:
        calls = {r["messages"][0]["content"] for r in store.call_requests()}
    assert 0 < len(calls) < 8 and results <= len(calls)   # stopped part-way, nothing partial

    subprocess.run(["mount", "-o", "remount,size=8m", str(tiny_disk)], check=True)
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body(big))) as srv:
        assert main(solve_argv(taskfile, srv.url, run)) == 0   # space freed: the run goes on
        assert len(srv.requests) == 8 - len(calls)       # stored calls are not made again
    with RunStore(run) as store:
        assert len(store.results()) == 8 and store.call_count() == 8


def test_every_task_failing_on_the_backend_exits_1_with_the_first_error(taskfile, tmp_path,
                                                                       capsys):
    # a server down from the start is found before any work (tests/test_preflight.py): one
    # line, exit 2, no run directory
    down = solve_argv(taskfile, "http://127.0.0.1:9/v1", tmp_path / "down", "--api-retries",
                      "0", "--concurrency", "2")
    assert main(down) == 2
    err = error_lines(capsys.readouterr().err)
    assert "cannot reach http://127.0.0.1:9/v1" in err and err.count("\n") == 0
    assert not (tmp_path / "down").exists()
    # a server that accepts connections and then drops every request: each task fails alike
    with FakeOpenAIServer(lambda b, i: Reply(reset=True)) as srv:
        dropped = solve_argv(taskfile, srv.url, tmp_path / "dropped", "--api-retries", "0",
                             "--concurrency", "2")
        assert main(dropped) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "accuracy: 0/8"
    assert "backend errors: 8" in captured.out
    err = error_lines(captured.err)
    assert err.startswith("error: all 8 tasks run now failed with a backend error; the first: ")
    assert err.count("\n") == 0

    with FakeOpenAIServer(lambda b, i: Reply(400, {"error": {"message": "bad model"}})) as srv:
        assert main(solve_argv(taskfile, srv.url, tmp_path / "rejected")) == 1
        err = capsys.readouterr().err
        assert "request rejected, HTTP 400" in err and "bad model" in err
        assert len(srv.requests) == 8                      # 400 is not retried

    def half(body, index):                                 # some tasks fine: not this case
        if index % 2:
            return Reply(400, {"error": {"message": "bad"}})
        return Reply(body=chat_body("Answer: even"))

    with FakeOpenAIServer(half) as srv:
        assert main(solve_argv(taskfile, srv.url, tmp_path / "mixed")) == 0
        assert "backend errors: 4" in capsys.readouterr().out


def test_the_issues_trickling_server_is_cut_off_at_timeout(taskfile, tmp_path, capsys):
    """The issue's case end to end (there: one byte every 2 s with --timeout 3 kept a call
    alive 274.7 s). Here one byte every 1.5 s with --timeout 2: each attempt ends at 2 s;
    every task fails on the backend: exit 1."""
    trickle = Reply(body=chat_body("Answer: even"), trickle=1.5)
    with FakeOpenAIServer(lambda body, i: trickle) as srv:
        start = time.monotonic()
        code = main(solve_argv(taskfile, srv.url, tmp_path / "run", "--timeout", "2",
                               "--api-retries", "0", "--concurrency", "8"))
        elapsed = time.monotonic() - start
        assert len(srv.requests) == 8
    assert code == 1
    assert 2.0 <= elapsed < 6.0, elapsed
    err = capsys.readouterr().err
    assert "all 8 tasks run now failed with a backend error" in err
    assert "no complete answer within 2 s" in err
