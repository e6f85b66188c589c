"""The analyzer's kernel boundary (issue 25), attacked: every script in
``tests/hostile/analyzer/`` tries one escape (its docstring says which) and prints
``ESCAPED: ...`` when it gets through. Each runs twice: as plain Python inside the analyzer's
sandbox with no audit hook at all (the boundary alone), and as analysis code through
:func:`analyze` (both walls). Besides what the script prints, the host checks what it can
see: the run folder and the store unchanged, no process left, no connection made, the
secret never in any output.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from solvers.equation.analyzer import analyze, isolated
from solvers.isolation import isolation

HOSTILE = Path(__file__).resolve().parent / "hostile" / "analyzer"
CHECKOUT = Path(__file__).resolve().parents[1]
ATTACKS = sorted(HOSTILE.glob("*.py"))

pytestmark = pytest.mark.skipif(not isolation().available,
                                reason=f"no isolation here: {isolation().missing}")


@pytest.fixture()
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A run folder with a gold file and a run store holding one wrong verdict, a secret API
    key in this process's environment, a listening socket and a process token."""
    canary = tmp_path / "run"
    canary.mkdir()
    (canary / "gold.txt").write_text("answer: B\n")
    store = canary / "run.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("CREATE TABLE results (task_id TEXT, correct INTEGER)")
        db.execute("INSERT INTO results VALUES ('t1', 0)")
    held = sqlite3.connect(store)                   # open in this process, as scir holds it
    secret = "sk-" + uuid.uuid4().hex
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    values = {"SECRET": secret, "CANARY": str(canary), "STORE": str(store),
              "HOST_PID": str(os.getpid()), "CHECKOUT": str(CHECKOUT),
              "PORT": str(server.getsockname()[1]), "TOKEN": "scir-token-" + uuid.uuid4().hex}
    before = snapshot(canary)
    yield values, before, server
    held.close()
    server.close()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def script(path: Path, values: dict[str, str]) -> str:
    text = path.read_text()
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def alive_with(token: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


def check_host(values, before, server, output: str) -> None:
    assert "ESCAPED" not in output, output
    assert values["SECRET"] not in output
    assert snapshot(Path(values["CANARY"])) == before
    assert not (CHECKOUT / "pwned").exists()
    with sqlite3.connect(values["STORE"]) as db:
        assert db.execute("SELECT correct FROM results").fetchall() == [(0,)]
    assert alive_with(values["TOKEN"]) == []
    assert select.select([server], [], [], 0.2)[0] == []       # nobody connected


@pytest.mark.parametrize("attack", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_the_boundary_alone_holds(attack: Path, world) -> None:
    values, before, server = world
    argv = isolated([sys.executable, "-I", "-"])        # the script on stdin, not in argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin"}, input=script(attack, values))
    check_host(values, before, server, done.stdout + done.stderr)


@pytest.mark.parametrize("attack", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_analysis_code_cannot_escape(attack: Path, world) -> None:
    values, before, server = world
    res = analyze(script(attack, values), [[1.0, 2.0]], ["x", "y"], seconds=30)
    check_host(values, before, server, res.text())


def test_the_sandbox_is_what_the_docs_say() -> None:
    probe = ("import os\n"
             "print(os.getuid(), os.getgid(), os.getcwd())\n"
             "print(sorted(os.listdir('/')))\n"
             "print(sorted(p for p in os.listdir('/proc') if p.isdigit()))\n"
             "print(open('/proc/self/status').read())\n")
    out = subprocess.run(isolated([sys.executable, "-I", "-c", probe]), capture_output=True,
                         text=True, timeout=60, env={"PATH": "/usr/bin:/bin"}).stdout
    ids, top, pids, status = out.split("\n", 3)
    assert ids == "65534 65534 /tmp"
    assert "etc" not in top and "home" not in top and "tmp" in top
    assert len(eval(pids)) <= 4                         # bwrap's init, setpriv/bwrap, python
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    assert int(fields["CapEff"], 16) == int(fields["CapBnd"], 16) == 0
    assert fields["NoNewPrivs"].strip() == "1"
    assert fields["Uid"].split()[0] == "65534"


LEAK = """import os
print(sorted(os.environ.items()))
try:
    pids = [p for p in os.listdir('/proc') if p.isdigit()]
except OSError:
    pids = [str(p) for p in range(1, 50)] + ['self', '..']
for pid in pids + [str(os.getppid())]:
    for name in ('environ', 'cmdline'):
        try:
            print(pid, name, open(f'/proc/{pid}/{name}', 'rb').read())
        except OSError as exc:
            print(pid, name, exc)
"""
TAMPER = """import os, signal, sqlite3
for path in ({store!r}, {store!r} + '-wal'):
    try:
        db = sqlite3.connect(path)
        print('updated', db.execute('UPDATE results SET correct = 1').rowcount)
        db.commit()
    except sqlite3.Error as exc:
        print('store:', exc)
for pid in list(range(1, 20)) + [os.getppid(), {pid}]:
    if pid != os.getpid():
        for how in (lambda: os.kill(pid, signal.SIGKILL),
                    lambda: signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGKILL)):
            try:
                how()
                print('signalled', pid)
            except (OSError, AttributeError) as exc:
                print('no signal', pid, exc)
"""


@pytest.mark.slow                                  # a scir process, real fits (~15 s)
def test_sr_agent_end_to_end_against_a_hostile_model(tmp_path: Path, monkeypatch) -> None:
    """``scir solve --arch sr-agent`` with a scripted model whose analysis steps try to read
    the process's keys, rewrite the run store's verdicts and kill the run: the keys never
    reach the server, the stored and reported verdicts are the true ones, the run finishes."""
    from fake_openai_server import FakeOpenAIServer, Reply, chat_body
    from scir.cli import main
    from scir.runs.store import RunStore
    from scir.tracks.reading import read_tasks
    from scir.tracks import track_of

    eq = tmp_path / "eq.jsonl"
    assert main(["generate", "equation", "-n", "1", "--seed", "3", "-o", str(eq)]) == 0
    (task,) = read_tasks(eq)
    formal = track_of(task).formal(task)
    wrong = f"p0 + p1*{formal.inputs[0]}"
    run = tmp_path / "run"
    secrets = {name: "sk-" + uuid.uuid4().hex for name in
               ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "SCIR_API_KEY", "VLLM_API_KEY")}
    procs: list[subprocess.Popen] = []

    def script(body, index):
        turns = sum(m["role"] == "assistant" for m in body["messages"])
        pid = procs[0].pid if procs else 0
        text = [f"```analyze\n{LEAK}```",
                f"```analyze\n{TAMPER.format(store=str(run / 'run.sqlite'), pid=pid)}```",
                f"```evaluate\n{wrong}\n```", f"Final: {wrong}"][min(turns, 3)]
        return Reply(body=chat_body(text))

    with FakeOpenAIServer(script) as srv:
        argv = [sys.executable, "-m", "scir", "solve", str(eq), "--arch", "sr-agent",
                "--model", f"vllm:fake@{srv.url}", "--run", str(run), "--iterations", "1",
                "--agent-steps", "4", "--max-tokens", "400"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env={**os.environ, **secrets})
        procs.append(proc)
        out, err = proc.communicate(timeout=300)
        bodies = [json.dumps(b) for b in srv.bodies()]
        replies = [b["messages"][-1]["content"] for b in srv.bodies()]
    assert proc.returncode == 0, err
    assert len(bodies) == 4                                # every step asked, the run finished
    for name, secret in secrets.items():
        assert not any(secret in b for b in bodies), name
    # the store was out of reach; what a signal reached was the sandbox's own processes (its
    # pid 2 is the inner bwrap: killing it ends the analysis), never scir: the run finished
    assert "updated" not in replies[2] and "unable to open database" in replies[2]
    with RunStore(run) as store:
        (result,) = store.results()
    assert result["correct"] is False and result["answer"]
    assert out.splitlines()[0] == "accuracy: 0/1"
    assert main(["report", str(run), "-o", str(tmp_path / "report")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    (cell,) = [c for c in report["cells"] if c["arch"] == "sr-agent"]
    assert (cell["n"], cell["accuracy"]) == (1, 0.0), cell


def test_without_isolation_sr_agent_refuses_unless_told_it_is_unsafe(tmp_path: Path,
                                                                     monkeypatch, capsys):
    """No bwrap: one line naming the missing piece, exit 2, no model call; the flag whose
    name says it is unsafe runs the analyzer with the process-level walls only."""
    from fake_openai_server import FakeOpenAIServer, Reply, chat_body
    from scir.cli import main

    eq = tmp_path / "eq.jsonl"
    assert main(["generate", "equation", "-n", "1", "--seed", "3", "-o", str(eq)]) == 0
    monkeypatch.setenv("SCIR_BWRAP", str(tmp_path / "no-bwrap"))
    with pytest.raises(Exception, match="bubblewrap"):
        analyze("print(1)", [[1.0]], ["x"])
    assert analyze("print(1)", [[1.0]], ["x"], isolate=False).stdout == "1\n"
    capsys.readouterr()
    reply = Reply(body=chat_body("```analyze\nprint(data.shape)\n```"))
    with FakeOpenAIServer(lambda body, i: reply) as srv:
        argv = ["solve", str(eq), "--arch", "sr-agent", "--model", f"vllm:fake@{srv.url}",
                "--iterations", "1", "--agent-steps", "1"]
        assert main([*argv, "--run", str(tmp_path / "a")]) == 2
        assert srv.requests == []
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "bubblewrap (bwrap) was not found" in err[0]
        assert "--unsafe-unisolated-analyzer" in err[0]
        assert main([*argv, "--run", str(tmp_path / "b"), "--unsafe-unisolated-analyzer"]) == 0
        assert len(srv.requests) == 1


def test_visible_paths_under_tmp_are_not_hidden_by_the_private_tmp(tmp_path: Path) -> None:
    """A checkout (and its .venv) cloned under /tmp stays visible inside the sandbox, whose
    own /tmp is mounted first."""
    from solvers.isolation import sandboxed

    shown = tmp_path / "visible.txt"
    shown.write_text("seen\n")
    hidden = tmp_path / "hidden.txt"
    hidden.write_text("secret\n")
    code = (f"print(open({str(shown)!r}).read().strip())\n"
            f"try:\n    open({str(hidden)!r})\n    print('ESCAPED')\n"
            "except OSError:\n    print('hidden')\n")
    out = subprocess.run(sandboxed([sys.executable, "-I", "-c", code], visible=[shown]),
                         capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["seen", "hidden"], out.stderr
