"""The sr-agent architecture (docs/sr_agent.md): goal schedule, reward, experience buffer, the
text protocol on hostile text, the run store's tool and trajectory tables, settings."""

import math

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from scir.errors import ConfigError, FormalizationError
from scir.runs.store import RunStore
from scir.pipelines.result import PipelineSettings
from scir.pipelines.sr_agent import goals
from scir.pipelines.sr_agent.buffer import ExperienceBuffer, Record
from scir.pipelines.sr_agent.protocol import MAX_CODE_CHARS, parse_action, tool_message
from scir.pipelines.sr_agent.reward import reward
from scir.pipelines.sr_agent.settings import AgentSettings


# ---- goal schedule (fractions: 1e-3 = 0.1 %) ------------------------------------------------
@pytest.mark.parametrize("value, below", [(3.2e-4, 1e-4), (1e-4, 1e-5), (0.5, 0.1),
                                          (9.99e-7, 1e-7), (1.0, 0.1), (12.0, 10.0)])
def test_power_below(value, below):
    assert goals.power_below(value) == pytest.approx(below, rel=1e-12)
    assert goals.power_below(value) < value


def test_goal_tightens_only_when_met():
    assert goals.next_goal(1e-3, 3.2e-4) == pytest.approx(1e-4)     # met: below the best
    assert goals.next_goal(1e-3, 2e-3) == 1e-3                      # not met: stays
    assert goals.next_goal(1e-3, 1e-3) == 1e-3                      # equal is not below
    assert goals.next_goal(1e-3, None) == 1e-3                      # nothing evaluated
    assert goals.next_goal(1e-4, 0.0) == 1e-4                       # exact fit: stays
    assert goals.should_stop(9e-7, 1e-6) and goals.should_stop(0.0, 1e-6)
    assert not goals.should_stop(1e-6, 1e-6) and not goals.should_stop(None, 1e-6)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_power_below_refuses_non_positive(bad):
    with pytest.raises(ValueError):
        goals.power_below(bad)


# ---- reward ---------------------------------------------------------------------------------
def test_reward_values():
    assert reward(1.0, 1e-3, 1.0) == 0.0                        # at s_max
    assert reward(1e-3, 1e-3, 1.0) == 1.0                       # at the goal
    assert reward(10 ** -1.5, 1e-3, 1.0) == pytest.approx(0.5)  # halfway in log scale
    assert reward(1e-2, 1e-3, 1.0) == pytest.approx(2 / 3)
    assert reward(5.0, 1e-3, 1.0) == 0.0                        # above s_max: clipped
    assert reward(1e-9, 1e-3, 1.0) == 1.0                       # below the goal: clipped
    assert reward(0.0, 1e-3, 1.0) == 1.0 and reward(None, 1e-3, 1.0) == 0.0
    assert reward(0.1, 1e-2, 0.5) == pytest.approx((math.log10(0.5) - math.log10(0.1))
                                                   / (math.log10(0.5) - math.log10(0.01)))
    with pytest.raises(ValueError):
        reward(0.1, 1.0, 1.0)


@hsettings(max_examples=30, deadline=None)
@given(st.floats(1e-12, 1e3), st.floats(1e-8, 1e-1))
def test_reward_is_monotone_and_bounded(s, goal):
    r = reward(s, goal, 1.0)
    assert 0.0 <= r <= 1.0
    assert reward(s / 2, goal, 1.0) >= r


# ---- experience buffer ----------------------------------------------------------------------
def rec(canonical, mape, mse, it=0, step=0):
    return Record(canonical, canonical, f"fit({canonical})", mape, mse, it, step)


def test_buffer_top_k_distinct_in_order():
    buf = ExperienceBuffer()
    for r in [rec("a", 0.5, 5.0), rec("b", 0.01, 2.0), rec("a", 0.2, 4.0, 1, 3),
              rec("c", 0.01, 1.0), rec("d", math.inf, math.inf), rec("e", 0.3, 0.5),
              rec("b", 0.4, 0.1)]:
        buf.add(r)
    top = buf.top(3)
    assert [r.canonical for r in top] == ["c", "b", "a"]        # tie on MAPE broken by MSE
    assert top[2].mape == 0.2 and (top[2].iteration, top[2].step) == (1, 3)   # best copy of a
    assert [r.canonical for r in buf.top(10)] == ["c", "b", "a", "e", "d"]
    assert buf.best_mape() == 0.01
    assert buf.lowest_mse().canonical == "b" and buf.lowest_mse().mse == 0.1  # not by MAPE
    assert ExperienceBuffer().top(3) == [] and ExperienceBuffer().lowest_mse() is None


# ---- the text protocol ----------------------------------------------------------------------
def test_protocol_reads_each_action():
    a = parse_action("Let me look.\n```analyze\nprint(data.shape)\n```\nthen more")
    assert (a.kind, a.text, a.note) == ("analyze", "print(data.shape)", "")
    e = parse_action("```Evaluate \n  p0*x**2 +\n  p1*t\n```")
    assert (e.kind, e.text) == ("evaluate", "p0*x**2 + p1*t")
    f = parse_action("I am done.\n**Final answer:** `p0*x*exp(-p1*t)`.")
    assert (f.kind, f.text) == ("final", "p0*x*exp(-p1*t)")
    first = parse_action("```evaluate\np0*x\n```\n```analyze\nprint(1)\n```\nFinal: p0")
    assert (first.kind, first.text) == ("evaluate", "p0*x") and "first action" in first.note
    assert parse_action("Final: p0*x\n```evaluate\np1\n```").kind == "final"


@pytest.mark.parametrize("text, match", [
    ("", "no action"), ("I think y = 2x.", "no action"),
    ("```python\nprint(1)\n```", "no action"),
    ("```analyze\nprint(1)\n", "not closed"),
    ("```evaluate\n\n```", "empty"), ("```analyze\n   \n```", "empty"),
    ("Final:   ", "empty"),
    ("```evaluate\n" + "x+" * 600 + "x\n```", "at most"),
    ("```analyze\n" + "#" * (MAX_CODE_CHARS + 1) + "\n```", "at most"),
    ("```analyze\nprint('\x00')\n```", "control"),
])
def test_protocol_refuses_malformed(text, match):
    with pytest.raises(FormalizationError, match=match):
        parse_action(text)


@hsettings(max_examples=30, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("`\n abcFinal:analyzeevaluate\x00\t*")), max_size=200))
def test_protocol_never_crashes(text):
    try:
        action = parse_action(text)
    except FormalizationError as exc:
        assert exc.message
    else:
        assert action.kind in ("analyze", "evaluate", "final") and action.text.strip()


def test_tool_call_actions():
    from scir.llm.base import ToolCall
    from scir.pipelines.sr_agent.protocol import TOOLS, action_of_call

    assert [t.name for t in TOOLS] == ["analyze", "evaluate", "final"]
    a = action_of_call(ToolCall("c", "evaluate", '{"equation": "p0 * x\\n"}'), others=1)
    assert (a.kind, a.text) == ("evaluate", "p0 * x")
    assert "first tool call" in a.note
    assert action_of_call(ToolCall("c", "analyze", '{"code": "print(1)"}')).text == "print(1)"
    for name, args, match in [("shell", "{}", "no tool"), ("analyze", "{bad", "not JSON"),
                              ("analyze", '{"code": 3}', "one string argument"),
                              ("evaluate", '["p0"]', "one string argument"),
                              ("final", '{"equation": ""}', "empty"),
                              ("analyze", '{"code": "\\u0000"}', "control")]:
        with pytest.raises(FormalizationError, match=match):
            action_of_call(ToolCall("c", name, args))


def test_tool_message():
    msg = tool_message("evaluate", "MAPE 1%\n", note="n", steps_left=3)
    assert msg.splitlines() == ["Result of evaluate:", "MAPE 1%", "Note: n",
                                "Steps left in this iteration: 3."]
    assert "(no output)" in tool_message("analyze", "")


# ---- settings -------------------------------------------------------------------------------
def test_settings_defaults_and_checks():
    s = PipelineSettings().agent
    assert (s.iterations, s.steps, s.top_k, s.goal_start, s.goal_stop, s.s_max,
            s.tool_protocol) == (40, 25, 3, 1e-3, 1e-6, 1.0, "auto")
    for bad in [dict(iterations=0), dict(steps=0), dict(top_k=0), dict(goal_start=2.0),
                dict(goal_stop=1e-2), dict(s_max=math.nan), dict(tool_protocol="xml")]:
        with pytest.raises(ConfigError):
            AgentSettings(**bad)


# ---- the run store's tables -----------------------------------------------------------------
def test_store_keeps_tool_results_and_trajectories(tmp_path):
    with RunStore(tmp_path / "run") as store:
        assert store.get_tool("k") is None
        store.put_tool("k", "analyze", {"input": "print(1)"}, {"text": "1"})
        store.put_tool("k", "analyze", {"input": "print(1)"}, {"text": "other"})  # ignored
        key = {"task_id": "t1", "arch": "sr-agent", "presentation": "nl", "model": "m",
               "seed": 0}
        record = {"goal": 1e-3, "messages": [], "steps": []}
        store.put_trajectory(key, 1, {**record, "index": 1})
        store.put_trajectory(key, 0, {**record, "index": 0})
        store.put_trajectory(key, 0, {**record, "index": 0, "again": True})  # replaced
    with RunStore(tmp_path / "run") as store:                                 # reopened
        assert store.get_tool("k") == {"text": "1"} and store.tool_count("analyze") == 1
        assert store.trajectories("sr-agent") == [{**record, "index": 0, "again": True},
                                                  {**record, "index": 1}]
        assert store.trajectories("cot") == []


# ---- experiment files -----------------------------------------------------------------------
def write_experiment(path, agent_table: str):
    path.write_text('name = "agent"\npresentations = ["nl"]\narchitectures = ["sr-agent"]\n'
                    f'{agent_table}\n[[models]]\nname = "tiny"\n'
                    '[tasks.equation.easy]\nn = 1\nseed = 1\n', encoding="utf-8")
    return path


def test_experiment_agent_table(tmp_path):
    from scir.experiments.eval_run import settings_of
    from scir.experiments.experiment import load_experiment

    exp = load_experiment(write_experiment(tmp_path / "a.toml",
                                           "[agent]\niterations = 3\nsteps = 5\n"
                                           'tool_protocol = "text"\ngoal_start = 0.01\n'))
    (cell,) = list(exp.cells())
    agent = settings_of(exp, cell).agent
    assert (agent.iterations, agent.steps, agent.goal_start, agent.tool_protocol,
            agent.top_k) == (3, 5, 0.01, "text", 3)
    assert exp.fingerprint(cell)["agent"] == {"goal_start": 0.01, "iterations": 3,
                                              "steps": 5, "tool_protocol": "text"}
    assert settings_of(load_experiment(write_experiment(tmp_path / "b.toml", "")), cell).agent \
        == AgentSettings()
    for bad, match in [("[agent]\nsteps = 0\n", "steps must be >= 1"),
                       ("[agent]\nbogus = 1\n", "bogus")]:
        with pytest.raises(ConfigError, match=match):
            load_experiment(write_experiment(tmp_path / "c.toml", bad))
