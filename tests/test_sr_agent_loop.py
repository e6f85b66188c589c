"""The SR agent's loop end to end (docs/sr_agent.md): scripted responses from the local
OpenAI-compatible server (text protocol and tool calls), the real tools (eqtools' analyzer and
BFGS evaluator), the run store (a restarted run repeats no finished call), and the tiny model
(garbage in, a bounded loop and a clear outcome out)."""

import json

import numpy as np
import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.errors import BackendError
from scir.llm import get_backend
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.pipelines.result import Calls, PipelineSettings
from scir.pipelines.sr_agent import goals
from scir.pipelines.sr_agent.dialog import TextDialog, ToolDialog, choose
from scir.pipelines.sr_agent.loop import run_agent
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import AgentProblem, Toolbox

WRONG, PARTIAL, RIGHT = "p0*x + p1", "p0*x**2 + p1*t", "p0*x**2 + p1*t + p2*x**3"


def problem() -> AgentProblem:
    """y = 2.5 x^2 + 0.7 t + 0.001 x^3 on 40 points: PARTIAL misses the small cubic term
    (MAPE between 1e-6 and 1e-3), RIGHT fits exactly."""
    rng = np.random.default_rng(7)
    x, t = rng.uniform(1, 3, 40), rng.uniform(1, 5, 40)
    y = 2.5 * x ** 2 + 0.7 * t + 0.001 * x ** 3
    return AgentProblem("eq-test", "Find how y depends on x and t.", ("x", "t"), "y",
                        tuple(zip(x.tolist(), t.tolist())), tuple(y.tolist()))


def first_user(body) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def scripted(body, index) -> Reply:
    """The model: iteration 1 analyzes, evaluates WRONG then PARTIAL (meets the 0.1 % goal);
    iteration 2 (it sees the buffer) writes prose once, then evaluates RIGHT."""
    turns = sum(m["role"] == "assistant" for m in body["messages"])
    if "No equation has been evaluated yet." in first_user(body):
        text = ["Look first.\n```analyze\nprint(columns, data.shape)\n```",
                f"```evaluate\n{WRONG}\n```", f"Better:\n```evaluate\n{PARTIAL}\n```"][turns]
    else:
        text = ["I think the cubic term matters.", f"```evaluate\n{RIGHT}\n```"][turns]
    return Reply(body=chat_body(text))


def run(url: str, store: RunStore, settings: AgentSettings, provider: str = "vllm"):
    backend = CachingBackend(get_backend(f"{provider}:fake@{url}", timeout=10.0,
                                         max_retries=0), store)
    calls = Calls(backend, PipelineSettings(max_tokens=256, agent=settings))
    toolbox = Toolbox(problem(), settings, store)
    kept = []
    outcome = run_agent(problem(), lambda m, tools: calls.ask(m, tools=tools), toolbox,
                        settings, kept.append, choose(backend, settings))
    return outcome, toolbox, calls, kept


def test_loop_end_to_end_with_scripted_server(tmp_path):
    settings = AgentSettings(iterations=5, steps=4, fit_starts=2)
    with FakeOpenAIServer(scripted) as srv, RunStore(tmp_path / "run") as store:
        outcome, toolbox, calls, kept = run(srv.url, store, settings)
        bodies = srv.bodies()
        stored = (store.call_count(), store.tool_count())
    it1, it2 = outcome.iterations
    assert [s.action for s in it1.steps] == ["analyze", "evaluate", "evaluate"]
    assert "x" in it1.steps[0].output and "(40, 3)" in it1.steps[0].output   # T1 ran the code
    wrong, partial = it1.steps[1].mape, it1.steps[2].mape
    assert wrong > 1e-2 and 1e-6 < partial < 1e-3 and it1.end == "goal"
    # the goal tightens to the next power of ten below the iteration's best
    assert it1.goal == 1e-3 and it2.goal == goals.power_below(partial) < partial
    opening = first_user(bodies[3])                # iteration 2's first request: the top-K
    assert "Best equations so far" in opening and "p0*x**2 + p1*t;" in opening
    assert opening.index("p0*x**2 + p1*t;") < opening.index("p0*x + p1;")   # ordered by MAPE
    assert f"MAPE below {it2.goal * 100:.6g}%" in opening
    assert bodies[3]["messages"][0]["role"] == "system" and len(bodies[3]["messages"]) == 2
    # iteration 2: the prose is a recorded parse failure, then RIGHT stops the run
    assert it2.steps[0].action is None and "no action found" in it2.steps[0].error
    assert "could not be used" in bodies[4]["messages"][-1]["content"]
    assert it2.steps[1].mape < 1e-6 and outcome.stop == "goal_stop"
    assert (outcome.tool_calls, outcome.parse_failures, len(bodies)) == (4, 1, 5)
    # the answer: the lowest training MSE among all evaluated, constants substituted
    assert outcome.answer.canonical == RIGHT
    assert outcome.answer.mse == min(r.mse for r in outcome.buffer.records)
    assert "p" not in outcome.answer.expression.replace("exp", "")
    assert [k.index for k in kept] == [0, 1] and kept[1].reward == 1.0
    assert 0 < it1.reward <= 1 and it1.messages[-1]["content"].startswith("Result of evaluate")
    assert (calls.calls, toolbox.made, *stored) == (5, 4, 5, 4)


def test_restarted_run_repeats_no_finished_call(tmp_path):
    settings = AgentSettings(iterations=5, steps=4, fit_starts=2)

    def dies_at_fourth(body, index):
        if index == 3:                             # iteration 2's first call never finishes
            return Reply(400, {"error": {"message": "server went away"}})
        return scripted(body, index)

    with RunStore(tmp_path / "run") as store:
        with FakeOpenAIServer(dies_at_fourth) as srv, pytest.raises(BackendError):
            run(srv.url, store, settings)
        assert (store.call_count(), store.tool_count()) == (3, 3)
        with FakeOpenAIServer(scripted) as srv:
            outcome, toolbox, calls, _ = run(srv.url, store, settings)
            assert len(srv.requests) == 2          # only the calls that had not finished
    assert (calls.calls, calls.cached) == (5, 3)
    assert (toolbox.made, toolbox.served) == (1, 3)
    assert outcome.stop == "goal_stop" and outcome.answer.canonical == RIGHT


def tool_scripted(body, index) -> Reply:
    """The same model speaking through OpenAI tool calls (two calls in its first response)."""
    msgs = body["messages"]
    turns = sum(m["role"] == "assistant" for m in msgs)
    calls = [[("analyze", {"code": "print(data[:, 0].min() >= 1)"}), ("evaluate", {"equation": WRONG})],
             [("evaluate", {"equation": RIGHT})]][turns]
    message = {"role": "assistant", "content": None,
               "tool_calls": [{"id": f"call{turns}{i}", "type": "function",
                               "function": {"name": n, "arguments": json.dumps(a)}}
                              for i, (n, a) in enumerate(calls)]}
    out = chat_body("")
    out["choices"][0]["message"] = message
    return Reply(body=out)


def test_loop_with_tool_calls(tmp_path):
    settings = AgentSettings(iterations=3, steps=4, fit_starts=2)
    with FakeOpenAIServer(tool_scripted) as srv, RunStore(tmp_path / "run") as store:
        outcome, toolbox, _, _ = run(srv.url, store, settings, provider="openai")
        bodies = srv.bodies()
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == ["analyze", "evaluate",
                                                                    "final"]
    (it,) = outcome.iterations
    assert [s.action for s in it.steps] == ["analyze", "evaluate"]
    assert "True" in it.steps[0].output
    answers = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["call00", "call01"]
    assert "Result of analyze" in answers[0]["content"] and "not run" in answers[1]["content"]
    assert "only the first tool call" in answers[0]["content"]
    assert outcome.stop == "goal_stop" and outcome.answer.canonical == RIGHT
    assert it.messages[2]["tool_calls"][0]["function"]["name"] == "analyze"


def test_protocol_choice():
    class Fake:
        def __init__(self, provider, tools):
            self.provider, self.tool_calls, self.name = provider, tools, provider

    auto, text, tools = (AgentSettings(tool_protocol=p) for p in ("auto", "text", "tools"))
    assert isinstance(choose(Fake("openrouter", True), auto), ToolDialog)
    assert type(choose(Fake("vllm", True), auto)) is TextDialog
    assert type(choose(Fake("tiny", False), auto)) is TextDialog
    assert type(choose(Fake("openai", True), text)) is TextDialog
    assert isinstance(choose(Fake("vllm", True), tools), ToolDialog)
    with pytest.raises(Exception, match="tool calls"):
        choose(Fake("tiny", False), tools)


def test_loop_with_tiny_model_stays_bounded(tiny, tmp_path):
    settings = AgentSettings(iterations=2, steps=2)
    with RunStore(tmp_path / "run") as store:
        backend = CachingBackend(tiny, store)
        calls = Calls(backend, PipelineSettings(max_tokens=24, agent=settings))
        toolbox = Toolbox(problem(), settings, store)
        outcome = run_agent(problem(), lambda m, tools: calls.ask(m, tools=tools), toolbox,
                            settings, dialog=choose(backend, settings))
    assert [len(it.steps) for it in outcome.iterations] == [2, 2]
    assert calls.calls == 4 and outcome.stop == "iterations"
    assert outcome.parse_failures == 4 and outcome.tool_calls == 0
    assert all(s.error for it in outcome.iterations for s in it.steps)
    assert outcome.answer is None and outcome.buffer.best_mape() is None
    assert outcome.extras()["iterations"] == 2 and outcome.iterations[1].goal == 1e-3
