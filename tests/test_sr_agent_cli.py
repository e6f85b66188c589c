"""``scir solve --arch sr-agent`` on a generated equation task against the scripted server:
killed (SIGKILL) mid-run and restarted, it repeats no finished model or tool call; the answer
is scored by the track; ``scir trajectories`` exports the stored iterations with rewards."""

import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.runs.store import RunStore
from scir.pipelines.sr_agent.reward import reward
from scir.tracks.reading import read_tasks
from scir.tracks import track_of


@pytest.fixture(scope="module")
def eqfile(tmp_path_factory):
    path = tmp_path_factory.mktemp("eq") / "eq.jsonl"
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "1", "--seed", "1",
                 "-o", str(path)]) == 0
    return path


def agent_script(skeleton: str, linear: str):
    """Iteration 1: prose (a parse failure), a linear skeleton, the gold skeleton (meets the
    0.1 % goal); iteration 2: ``Final:`` with the gold skeleton."""
    def script(body, index):
        msgs = body["messages"]
        turns = sum(m["role"] == "assistant" for m in msgs)
        if "Iteration 1 of" in msgs[1]["content"]:
            text = ["Let me think about the data.", f"```evaluate\n{linear}\n```",
                    f"```evaluate\n{skeleton}\n```"][turns]
        else:
            text = f"Final: {skeleton}"
        return Reply(body=chat_body(text))
    return script


@pytest.mark.slow                                  # two scir processes, real BFGS fits (~25 s)
def test_sr_agent_solve_killed_and_restarted(eqfile, tmp_path):
    (task,) = read_tasks(eqfile)
    formal = track_of(task).formal(task)
    linear = " + ".join(f"p{i}*{name}" for i, name in enumerate(formal.inputs))
    script = agent_script(formal.skeleton, linear)
    in_flight = threading.Event()

    def held(body, index):
        if index == 2:                             # the gold evaluation: hold it, then kill
            in_flight.set()
            return Reply(body=script(body, index).body, delay=5.0)
        return script(body, index)

    run = tmp_path / "run"
    with FakeOpenAIServer(held) as srv:
        argv = [sys.executable, "-m", "scir", "solve", str(eqfile), "--arch", "sr-agent",
                "--model", f"vllm:fake@{srv.url}", "--run", str(run), "--iterations", "2",
                "--agent-steps", "4", "--max-tokens", "200"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            assert in_flight.wait(timeout=90), proc.communicate(timeout=5)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        with RunStore(run) as store:
            assert (store.call_count(), store.tool_count("evaluate")) == (2, 1)
            assert store.results() == [] and store.trajectories() == []
            before = {json.dumps(r["messages"]) for r in store.call_requests()}
        first = len(srv.requests)
        srv.script = script
        done = subprocess.run(argv, capture_output=True, text=True, timeout=180,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert done.returncode == 0, done.stderr
        again = [json.dumps(b["messages"]) for b in srv.bodies()[first:]]
    assert first == 3 and len(again) == 2          # the held call and iteration 2's one
    assert not set(again) & before                 # no finished call repeated
    assert done.stdout.splitlines()[0] == "accuracy: 1/1"
    with RunStore(run) as store:
        (result,) = store.results()
        trajectories = store.trajectories()
        assert store.tool_count("evaluate") == 2   # linear, gold (Final's served from cache)
    extras = result["extras"]
    assert (result["status"], result["formalization"]) == ("ok", formal.skeleton)
    assert (extras["iterations"], extras["steps"], extras["parse_failures"]) == (2, 4, 1)
    assert (extras["tool_calls_made"], extras["tool_calls_served"]) == (1, 2)
    assert extras["stop"] == "iterations" and extras["protocol"] == "text"
    assert 1e-6 < extras["best_mape"] < 1e-3       # the noise-free gold skeleton, rounded data
    assert [t["end"] for t in trajectories] == ["goal", "final"]
    assert trajectories[1]["goal"] < 1e-3          # tightened
    assert formal.skeleton.split("*")[0] in trajectories[1]["messages"][1]["content"]

    out = tmp_path / "traj.jsonl"
    assert main(["trajectories", str(run), "-o", str(out), "--s-max", "0.5"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["index"] for line in lines] == [0, 1]
    assert lines[0]["reward"] == pytest.approx(reward(lines[0]["best_mape"], 1e-3, 0.5))
    assert lines[0]["reward"] == 1.0 and lines[0]["s_max"] == 0.5
    assert lines[0]["steps"][0]["error"].startswith("no action found")
    assert main(["trajectories", str(tmp_path / "nowhere"), "-o", str(out)]) == 2


@pytest.mark.slow                                  # loads the tiny model (built once a session)
def test_sr_agent_refused_on_other_tracks_and_bad_protocol(eqfile, tmp_path, capsys,
                                                            tiny_cache):
    assert main(["solve", str(eqfile), "--arch", "sr-agent", "--model", "tiny", "--run",
                 str(tmp_path / "r"), "--tool-protocol", "tools"]) == 2
    assert "does not take tool calls" in capsys.readouterr().err
    # the tiny model writes noise: the run stays within its budget and ends in no_answer
    assert main(["solve", str(eqfile), "--arch", "sr-agent", "--model", "tiny", "--run",
                 str(tmp_path / "t"), "--iterations", "2", "--agent-steps", "2",
                 "--max-tokens", "16"]) == 0
    assert "no answer: 1" in capsys.readouterr().out
    with RunStore(tmp_path / "t") as store:
        (result,) = store.results()
        assert store.call_count() == 4 and len(store.trajectories()) == 2
    assert result["status"] == "no_answer" and "4 responses without a usable" in result["error"]
    assert (result["extras"]["parse_failures"], result["extras"]["stop"]) == (4, "iterations")
    deduction = tmp_path / "d.jsonl"
    assert main(["generate", "deduction", "-n", "1", "--seed", "1", "-o", str(deduction)]) == 0
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("never asked"))) as srv:
        assert main(["solve", str(deduction), "--arch", "sr-agent", "--model",
                     f"vllm:fake@{srv.url}", "--run", str(tmp_path / "d")]) == 2
        assert srv.requests == []
    assert "--arch sr-agent does not apply to the deduction track" in capsys.readouterr().err
