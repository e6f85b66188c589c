"""The SR agent's storage is bounded and hostile responses never stop a run (issue 25):

- each step's new text is stored once (a conversation's messages in ``texts``, the request
  row holding their digests): a store grows linearly with the steps, with the old cache keys;
- a response is kept cut to ``max_response_chars`` (stored and put back into the
  conversation, with a note) and an iteration ends when its conversation passes
  ``max_conversation_chars``;
- lone surrogates and 100,000-level nesting from the server: no traceback, nothing that makes
  an offline rerun crash;
- a tool call that kills its process: started twice without finishing, it gets a stored
  ``crashed`` result, so the run finishes (``scir solve`` in real processes, SIGKILL).

Everything runs against the scripted OpenAI-compatible server on 127.0.0.1, with the real
run store, the real loop and the real tools.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.llm import LLMRequest, get_backend, request_key
from scir.llm.base import Backend
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.pipelines.result import Calls, PipelineSettings
from scir.pipelines.sr_agent.dialog import choose
from scir.pipelines.sr_agent.loop import run_agent
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import CRASHED, MAX_STARTS, AgentProblem, Toolbox
from scir.tracks.reading import read_tasks
from scir.tracks import track_of

ROOT = Path(__file__).resolve().parents[1]
RIGHT = "p0*x**2 + p1*t"


def problem() -> AgentProblem:
    rng = np.random.default_rng(3)
    x, t = rng.uniform(1, 3, 30), rng.uniform(1, 5, 30)
    return AgentProblem("eq-store", "Find y(x, t).", ("x", "t"), "y",
                        tuple(zip(x.tolist(), t.tolist())), tuple((2 * x ** 2 + t).tolist()))


def run(url: str, store: RunStore, settings: AgentSettings, provider: str = "vllm"):
    """The sr-agent pipeline's loop: cached calls with the response cap, cached tools, the
    iterations stored."""
    backend = CachingBackend(get_backend(f"{provider}:fake@{url}", timeout=10.0,
                                         max_retries=0), store)
    calls = Calls(backend, PipelineSettings(max_tokens=256, agent=settings))
    toolbox = Toolbox(problem(), settings, store)
    key = {"task_id": "eq-store", "arch": "sr-agent", "presentation": "nl",
           "model": backend.name, "seed": 0}

    def keep(it):
        store.put_trajectory(key, it.index, {**key, **it.to_dict()})

    outcome = run_agent(problem(), lambda m, tools: calls.ask(
        m, tools=tools, max_response_chars=settings.max_response_chars), toolbox, settings,
        keep, choose(backend, settings))
    return outcome


def store_bytes(folder: Path) -> int:
    """The size of a closed store (its WAL checkpointed into the file)."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.name.startswith("run.sqlite"))


# ---------------------------------------------------------------- storage grows linearly

def test_store_grows_linearly_with_the_steps(tmp_path):
    """One iteration of k steps, each reply 100,000 characters without an action: the
    request rows hold digests, the messages are stored once, so 16 steps take about 4 times
    what 4 steps take (each call storing its whole conversation took k^2/2 replies: 9 times)."""
    reply = "no action here. " * 6250                             # 100,000 characters
    sizes = {}
    for k in (4, 16):
        settings = AgentSettings(iterations=1, steps=k, max_response_chars=200_000,
                                 max_conversation_chars=10_000_000)
        with FakeOpenAIServer(lambda body, i: Reply(body=chat_body(reply))) as srv:
            with RunStore(tmp_path / f"k{k}") as store:
                outcome = run(srv.url, store, settings)
                requests = store.call_requests()
                assert store.call_count() == k and len(srv.requests) == k
            # every request reads back whole, as the server received it
            sent = sorted(json.dumps(b["messages"], sort_keys=True) for b in srv.bodies())
            assert sorted(json.dumps(r["messages"], sort_keys=True) for r in requests) == sent
        assert len(outcome.iterations[0].steps) == k
        sizes[k] = store_bytes(tmp_path / f"k{k}")
        # calls.text, the message in texts, the trajectory's messages and steps: 4 copies
        assert sizes[k] < 4.5 * k * len(reply), sizes
    assert sizes[16] < 4.5 * sizes[4], sizes


def test_requests_keep_their_cache_keys_and_old_stores_read(tmp_path):
    """The response cap is not part of the key; a request row stored before ``texts``
    (messages inline) still reads."""
    class Named(Backend):
        provider, model = "vllm", "m"

        def complete(self, request):
            raise AssertionError("not called")

    chat = LLMRequest.chat([("system", "s"), ("user", "u"), ("assistant", "a")], max_tokens=9,
                           seed=2, stop=("x",))
    capped = LLMRequest.chat([("system", "s"), ("user", "u"), ("assistant", "a")],
                             max_tokens=9, seed=2, stop=("x",), max_response_chars=1000)
    # the key pinned in tests/test_llm_tools.py (computed before tool calls existed)
    assert request_key(Named(), capped) == request_key(Named(), chat) == \
        "554e011b3da800f09326f6b0cce5464c0d232ae73ab811243fcfb5cf74c56056"
    RunStore(tmp_path).close()
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        db.execute("INSERT INTO calls (key, backend, model, request, text, prompt_tokens, "
                   "completion_tokens, latency_s, cost_usd, created_at) VALUES "
                   "('old', 'vllm', 'm', ?, 'x', 1, 1, 0.1, 0.0, 0)",
                   (json.dumps(chat.key_dict()),))
    db.close()
    with RunStore(tmp_path, readonly=True) as store:
        assert store.call_requests() == [chat.key_dict()]


# ---------------------------------------------------------------- the caps

def test_responses_are_cut_and_a_long_conversation_ends_its_iteration(tmp_path):
    """Replies of 1,000,000 characters: stored, sent back and recorded cut to 100,000 with the
    note; the conversation passes 250,000 characters after three steps and the iteration
    ends there (``size``, with a note in its record) instead of running its ten steps."""
    big = "x" * 1_000_000
    settings = AgentSettings(iterations=2, steps=10, max_conversation_chars=250_000)
    assert settings.max_response_chars == 100_000                   # the default
    note = "\n[response cut at 100000 of 1000000 characters]"
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body(big))) as srv:
        with RunStore(tmp_path / "run") as store:
            outcome = run(srv.url, store, settings)
            texts = [store.get_call(key).text for key in store.calls("vllm", "fake")]
            (record, _) = store.trajectories()
        bodies = srv.bodies()
    assert len(bodies) == 6                                          # 3 steps x 2 iterations
    assert all(len(t) == 100_000 and t.endswith(note) for t in texts)
    assistant = [m for m in bodies[2]["messages"] if m["role"] == "assistant"]
    assert [len(m["content"]) for m in assistant] == [100_000, 100_000]
    assert assistant[0]["content"].endswith(note)
    it = outcome.iterations[0]
    assert (it.end, len(it.steps)) == ("size", 3)
    assert it.note.startswith("[conversation cut at 250000 characters: ")
    assert record["end"] == "size" and record["note"] == it.note
    assert all(len(s["response"]) == 100_000 for s in record["steps"])
    assert store_bytes(tmp_path / "run") < 3_000_000                # 6 MB of replies received


# ---------------------------------------------------------------- hostile responses

def tool_reply(name: str, arguments: str, content=None) -> Reply:
    body = chat_body("")
    body["choices"][0]["message"] = {"role": "assistant", "content": content, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}]}
    return Reply(body=body)


DEEP = "[" * 100_000 + "]" * 100_000


def hostile(body, index) -> Reply:
    """Tool calls: 100,000-level nested arguments; code holding a lone surrogate (inside the
    arguments' JSON) and content and arguments holding raw ones (JSON escapes of the body);
    then the right equation."""
    return [tool_reply("analyze", DEEP, content="thinking \ud800"),
            tool_reply("analyze", json.dumps({"code": "print('\ud800')"})),
            tool_reply("analyze", '{"code": "print(1)\ud800"}'),
            tool_reply("evaluate", json.dumps({"equation": RIGHT}))][index]


def test_surrogates_and_deep_nesting_from_the_server_are_stored_and_rerun_offline(tmp_path):
    settings = AgentSettings(iterations=1, steps=4, fit_starts=2, max_response_chars=200_000)
    with FakeOpenAIServer(hostile) as srv, RunStore(tmp_path / "run") as store:
        first = run(srv.url, store, settings, provider="openai")
        assert len(srv.requests) == 4
    steps = first.iterations[0].steps
    assert "nested too deeply" in steps[0].error
    assert steps[0].response == "thinking \ufffd"                   # replaced where it enters
    assert "lone surrogate" in steps[1].error
    assert steps[2].action == "analyze" and steps[2].input == "print(1)\ufffd"
    assert steps[3].mape is not None and first.answer.canonical == RIGHT
    # offline: every call is served from the store and nothing crashes
    def offline(body, index):
        return Reply(500, {"error": {"message": "offline"}})

    with FakeOpenAIServer(offline) as srv, RunStore(tmp_path / "run") as store:
        again = run(srv.url, store, settings, provider="openai")
        assert len(srv.requests) == 0
        stored = json.dumps(store.call_requests(), ensure_ascii=False)
        (record,) = store.trajectories()
    assert [s.error for s in again.iterations[0].steps] == [s.error for s in steps]
    assert "\ufffd" in stored and "thinking \ufffd" in json.dumps(record, ensure_ascii=False)


def test_the_store_takes_lone_surrogates_anywhere(tmp_path):
    bad = "a\ud800b\udfff"
    request = LLMRequest.chat([("user", bad)], max_tokens=5)
    response = chat_response(bad)
    with RunStore(tmp_path) as store:
        store.put_call("k", request, response)
        store.put_result({"task_id": "t", "arch": "cot", "presentation": "nl", "model": bad,
                          "status": "wrong", "correct": False, "answer": bad})
        store.put_tool("tk", "analyze", {"input": bad}, {"text": bad})
        store.put_trajectory({"task_id": "t", "arch": "sr-agent", "presentation": "nl",
                              "model": "m", "seed": 0}, 0,
                             {"index": 0, "goal": 1e-3, "messages": [bad], "steps": []})
    with RunStore(tmp_path, readonly=True) as store:
        fixed = "a\ufffdb\ufffd"
        assert store.get_call("k").text == fixed
        assert store.call_requests()[0]["messages"][0]["content"] == fixed
        assert store.results()[0]["answer"] == fixed and store.results()[0]["model"] == fixed
        assert store.get_tool("tk") == {"text": fixed}
        assert store.trajectories()[0]["messages"] == [fixed]


def chat_response(text):
    from scir.llm.base import LLMResponse

    return LLMResponse(text=text, prompt_tokens=1, completion_tokens=1, latency_s=0.1,
                       cost_usd=0.0, raw_finish_reason="stop", backend="vllm", model="m")


# ---------------------------------------------------------------- a tool that kills its process

KILLER = """
import os, signal, sys
from scir.pipelines.sr_agent import tools

real = tools.Toolbox._analyze


def analyze(self, code):
    if "KILL" in code:                 # the analysis takes the whole process down
        os.kill(os.getpid(), signal.SIGKILL)
    return real(self, code)


tools.Toolbox._analyze = analyze
from scir.cli import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow                                  # four scir processes (~15 s)
def test_a_tool_that_kills_the_process_twice_gets_a_crashed_result(tmp_path):
    """``scir solve --arch sr-agent`` whose analysis SIGKILLs the process: the first two runs
    die in the tool (its model call was cached before it); the third finds the call started
    twice without a result, stores ``crashed`` for it without running it, tells the model,
    and finishes; a fourth run is served everything from the store."""
    path = tmp_path / "eq.jsonl"
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "1", "--seed", "1",
                 "-o", str(path)]) == 0
    (task,) = read_tasks(path)
    gold = track_of(task).formal(task).skeleton

    def script(body, index):
        turns = sum(m["role"] == "assistant" for m in body["messages"])
        return Reply(body=chat_body(["```analyze\nKILL\n```", f"```evaluate\n{gold}\n```"]
                                    [min(turns, 1)]))

    run_dir = tmp_path / "run"
    codes = []
    with FakeOpenAIServer(script) as srv:
        argv = [sys.executable, "-c", KILLER, "solve", str(path), "--arch", "sr-agent",
                "--model", f"vllm:fake@{srv.url}", "--run", str(run_dir), "--iterations", "1",
                "--agent-steps", "3", "--max-tokens", "100"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for _ in range(4):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
            codes.append(done.returncode)
        bodies = srv.bodies()
    assert codes == [-signal.SIGKILL, -signal.SIGKILL, 0, 0], done.stderr
    assert "accuracy: 1/1" in done.stdout
    assert len(bodies) == 2                        # the analyze call once, then the evaluate
    told = bodies[1]["messages"][-1]["content"]
    assert CRASHED.format(n=MAX_STARTS) in told and told.startswith("Result of analyze:")
    with RunStore(run_dir, readonly=True) as store:
        (result,) = store.results()
        assert store.tool_count("analyze") == 1 and store.tool_count("evaluate") == 1
    assert result["extras"]["tool_calls_crashed"] == 1        # stored by the third run
    assert result["status"] == "ok"


def test_toolbox_in_a_killed_child_process(tmp_path):
    """The Toolbox itself: a child process killed (SIGKILL) in the middle of an analysis,
    twice; the parent then gets the stored crashed result without running anything, and the
    result is stored only now (never before a tool has run or been given up)."""
    script = f"""
import os, signal, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_sr_agent_storage import problem
from scir.runs.store import RunStore
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import Toolbox


class Dying(Toolbox):
    def _analyze(self, code):
        os.kill(os.getpid(), signal.SIGKILL)


with RunStore(sys.argv[1]) as store:
    Dying(problem(), AgentSettings(), store).analyze("print(data.shape)")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for attempt in (1, 2):
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == -signal.SIGKILL, done.stderr
        with RunStore(tmp_path, readonly=True) as store:
            assert store.tool_count() == 0            # nothing cached before the tool ran
    with RunStore(tmp_path) as store:
        box = Toolbox(problem(), AgentSettings(), store)
        assert box.analyze("print(data.shape)") == CRASHED.format(n=2)
        assert (box.made, box.crashed, store.tool_count("analyze")) == (0, 1, 1)
        assert box.analyze("print(data.shape)") == CRASHED.format(n=2)   # served
        assert box.served == 1
        # another call runs as usual, its start recorded and its result stored after it ran
        assert "(30, 3)" in box.analyze("print(data.shape)\n")
        assert (box.made, store.tool_count("analyze")) == (1, 2)


def test_a_tool_stopped_by_the_user_takes_its_start_back(tmp_path):
    """Ctrl-C during a tool (KeyboardInterrupt) is the user, not the tool: the start is taken
    back, so two interrupted runs do not make the call ``crashed``."""
    class Interrupted(Toolbox):
        def _analyze(self, code):
            raise KeyboardInterrupt

    with RunStore(tmp_path) as store:
        for _ in range(3):
            with pytest.raises(KeyboardInterrupt):
                Interrupted(problem(), AgentSettings(), store).analyze("print(1)")
        box = Toolbox(problem(), AgentSettings(), store)
        assert box.analyze("print(1)").strip().endswith("1") and box.crashed == 0


def test_a_run_started_before_the_caps_resumes(tmp_path):
    """An sr-agent invocation recorded without the two cap settings is the same run."""
    path = tmp_path / "eq.jsonl"
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "1", "--seed", "1",
                 "-o", str(path)]) == 0
    argv = ["solve", str(path), "--arch", "sr-agent", "--run", str(tmp_path / "run"),
            "--iterations", "1", "--agent-steps", "1"]
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("nothing"))) as srv:
        assert main([*argv, "--model", f"vllm:fake@{srv.url}"]) == 0
        with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
            db.execute("UPDATE invocations SET config = json_remove(config, "
                       "'$.agent.max_response_chars', '$.agent.max_conversation_chars')")
        db.close()
        assert main([*argv, "--model", f"vllm:fake@{srv.url}", "--redo"]) == 0
        assert len(srv.requests) == 1                  # the redo was served from the store
