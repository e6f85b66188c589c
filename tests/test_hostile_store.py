"""Hostile run stores (issue 25): damaged rows and read-only runs.

- ``tests/hostile/store/*.json``: one damaged-row case per file -- ``damage`` (what it is),
  ``sql`` (the statements that damage a real run store: an ``scir solve --arch sr-agent`` run
  against the scripted server, with results, calls, tool results, tool attempts, iterations
  and an invocation), and ``commands``: for each command run on the damaged store (``report``,
  ``explore``, ``solve`` -- the same command resumed --, ``trajectories``) its exit code and
  the patterns its ``stderr`` / ``stdout`` must match (``{store}`` stands for the store's
  path). An error is one line naming the store, the table and the row, exit 2; a skipped row
  is a warning line. Every row the damaged store held is still there, unchanged, afterwards.
- Read-only runs: ``scir report``, ``scir explore`` and ``scir trajectories`` on a run folder
  mounted read-only (a bind mount in a private mount namespace: tests run as root, whom
  permissions do not stop; ``chmod -R a-w`` otherwise) work, and leave every file of the
  folder as it was, byte for byte, with no file added.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.tracks.reading import read_tasks
from scir.tracks import track_of

HOSTILE = Path(__file__).resolve().parent / "hostile" / "store"
ROOT = HOSTILE.parents[2]
CASES = sorted(HOSTILE.glob("*.json"))
COMMANDS = {
    "report": ["report", "{run}", "-o", "{tmp}/report", "--no-figures"],
    "explore": ["explore", "{run}", "-o", "{tmp}/site"],
    "explore-unverified": ["explore", "{run}", "-o", "{tmp}/site", "--unverified"],
    "trajectories": ["trajectories", "{run}", "-o", "{tmp}/t.jsonl"],
    "solve": ["solve", "{tasks}", "--arch", "sr-agent", "--model", "vllm:fake@{url}", "--run",
              "{run}", "--iterations", "2", "--agent-steps", "3", "--max-tokens", "200"],
}


def agent_script(skeleton: str):
    """Iteration 1 analyzes, then evaluates the gold skeleton (meets the goal); iteration 2
    writes ``Final:``."""
    def script(body, index):
        msgs = body["messages"]
        turns = sum(m["role"] == "assistant" for m in msgs)
        if "Iteration 1 of" in msgs[1]["content"]:
            text = ["```analyze\nprint(columns)\n```", f"```evaluate\n{skeleton}\n```"][turns]
        else:
            text = f"Final: {skeleton}"
        return Reply(body=chat_body(text))
    return script


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """A real sr-agent run: (its folder, the task file, the scripted model)."""
    folder = tmp_path_factory.mktemp("base")
    tasks = folder / "eq.jsonl"
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "1", "--seed", "1",
                 "-o", str(tasks)]) == 0
    (task,) = read_tasks(tasks)
    script = agent_script(track_of(task).formal(task).skeleton)
    with FakeOpenAIServer(script) as srv:
        argv = [a.format(tasks=tasks, url=srv.url, run=folder / "run")
                for a in COMMANDS["solve"]]
        assert main(argv) == 0
    return folder / "run", tasks, script


def rows(store: Path) -> dict[str, list[tuple]]:
    """Every row of every table."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "AND name NOT LIKE 'sqlite_%'")]
        db.text_factory = bytes
        return {n: db.execute(f"SELECT * FROM {n}").fetchall() for n in names}
    finally:
        db.close()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_damaged_store_row(case, base_run, tmp_path, capsys):
    spec = json.loads(case.read_text(encoding="utf-8"))
    source, tasks, script = base_run
    run = tmp_path / "run"
    shutil.copytree(source, run)
    store = run / "run.sqlite"
    db = sqlite3.connect(store)
    for statement in spec["sql"]:
        db.execute(statement)
    db.commit()
    db.close()
    for command, expect in spec["commands"].items():
        before = rows(store)
        with FakeOpenAIServer(script) as srv:
            argv = [a.format(run=run, tmp=tmp_path, tasks=tasks, url=srv.url)
                    for a in COMMANDS[command]]
            capsys.readouterr()
            code = main(argv)
        out, err = capsys.readouterr()
        # the line a run prints before its first model call (which key goes where,
        # scir.llm.keys) is not part of the error
        err = "".join(line for line in err.splitlines(True) if not line.startswith("key: "))
        assert code == expect["exit"], (command, out, err)
        assert "Traceback" not in err
        for stream, text in (("stderr", err), ("stdout", out)):
            if stream in expect:
                pattern = expect[stream].replace("{store}", re.escape(str(store)))
                assert re.search(pattern, text.rstrip("\n")), (command, stream, text)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("error: "), err
        else:
            assert all(line.startswith("warning: ") for line in err.splitlines()), err
        after = rows(store)                         # nothing stored is changed or lost
        for table, held in before.items():
            assert set(held) <= set(after[table]), (command, table)


# ---------------------------------------------------------------- read-only runs

READERS = """
import json, sys
from scir.cli import main
run, out = sys.argv[1], sys.argv[2]
codes = [main(["report", run, "-o", out + "/report", "--no-figures"]),
         main(["explore", run, "-o", out + "/site"]),
         main(["trajectories", run, "-o", out + "/t.jsonl"])]
print(json.dumps(codes))
"""


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Each file of the folder: (sha256, mtime in ns)."""
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.iterdir())}


def run_read_only(folder: Path, out: Path) -> subprocess.CompletedProcess:
    """The three readers in a process that sees ``folder`` read-only."""
    cmd = [sys.executable, "-c", READERS, str(folder), str(out)]
    if os.geteuid() == 0:
        mount = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
        probe = subprocess.run(["unshare", "-m", "sh", "-c", mount, "sh", str(folder), "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip(f"no read-only bind mount here: {probe.stderr.strip()}")
        cmd = ["unshare", "-m", "sh", "-c", mount, "sh", str(folder), *cmd]
    else:
        for path in [folder, *folder.iterdir()]:
            path.chmod(path.stat().st_mode & ~0o222)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def leave_wal(store: Path, shm: bool) -> None:
    """Make the store look like its writer was killed: changes in its ``-wal`` (with the
    ``-shm`` index, or without it)."""
    code = ("import os, sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute('PRAGMA wal_autocheckpoint=0')\n"
            "db.execute(\"INSERT INTO invocations (started_at, config) VALUES (1, '{}')\")\n"
            "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, str(store)], check=True, timeout=60)
    assert Path(f"{store}-wal").stat().st_size > 0
    if not shm:
        Path(f"{store}-shm").unlink()


@pytest.mark.slow
@pytest.mark.parametrize("state", ["closed", "killed_writer", "wal_without_index"])
def test_readers_on_a_read_only_run(state, base_run, tmp_path):
    """``closed``: a finished run (no -wal: opened immutable); ``killed_writer``: a -wal with
    changes and its -shm (read with them); ``wal_without_index``: a -wal with changes whose
    -shm is gone, which SQLite cannot read without writing: one line saying so, exit 2."""
    source, _, _ = base_run
    run = tmp_path / "run"
    shutil.copytree(source, run)
    if state != "closed":
        leave_wal(run / "run.sqlite", shm=state == "killed_writer")
    before = snapshot(run)
    out = tmp_path / "out"
    done = run_read_only(run, out)
    assert snapshot(run) == before, done.stderr                 # not a byte, not a file
    if state == "wal_without_index":
        assert json.loads(done.stdout.splitlines()[-1]) == [2, 2, 2], done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 3 and all("holds changes SQLite reads only with its "
                                       "run.sqlite-shm" in line for line in lines), lines
        return
    assert json.loads(done.stdout.splitlines()[-1]) == [0, 0, 0], done.stderr
    assert done.stderr == ""
    assert (out / "report" / "report.md").is_file() and (out / "site" / "index.html").is_file()
    assert len((out / "t.jsonl").read_text().splitlines()) == 2


def test_an_old_store_reads_read_only_without_being_migrated(tmp_path):
    """A schema-1 store from before tool calls, plans, tool results, iterations and texts:
    read-only, its results read with the new key fields (TEMP views and tables in memory),
    and its file is not changed."""
    from scir.runs.store import RunStore

    db = sqlite3.connect(tmp_path / "run.sqlite")
    db.executescript("""
        CREATE TABLE results (task_id TEXT NOT NULL, arch TEXT NOT NULL,
            presentation TEXT NOT NULL, model TEXT NOT NULL, status TEXT NOT NULL,
            correct INTEGER NOT NULL, result TEXT NOT NULL, created_at REAL NOT NULL,
            PRIMARY KEY (task_id, arch, presentation, model));
        CREATE TABLE calls (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL,
            request TEXT NOT NULL, text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL, latency_s REAL NOT NULL,
            cost_usd REAL NOT NULL, finish_reason TEXT, created_at REAL NOT NULL);
        INSERT INTO calls VALUES ('k', 'vllm', 'm', '{}', 'old text', 1, 2, 0.1, 0.0, 'stop', 0);
        PRAGMA user_version=1;""")
    body = {"task_id": "t1", "arch": "cot", "presentation": "nl", "model": "m",
            "status": "ok", "correct": True}
    db.execute("INSERT INTO results VALUES ('t1', 'cot', 'nl', 'm', 'ok', 1, ?, 0)",
               (json.dumps(body),))
    db.commit()
    db.close()
    before = snapshot(tmp_path)
    with RunStore(tmp_path, readonly=True) as store:
        assert store.results() == [{**body, "constrained": True, "seed": 0}]
        assert store.get_result("t1", "cot", "nl", "m", True, 0)["status"] == "ok"
        assert (store.get_call("k").text, store.get_call("k").tool_calls) == ("old text", ())
        assert store.plan() == [] and store.trajectories() == [] and store.invocations() == []
        assert store.call_requests() == [{}]
    assert snapshot(tmp_path) == before
