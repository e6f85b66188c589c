"""OpenAI tool calls through scir.llm: requests without tools keep their cache keys, the
OpenAI-compatible backend sends tools and reads tool calls, the run store keeps them."""

import json
import sqlite3

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.errors import BackendError, ConfigError
from scir.llm import LLMRequest, Message, Tool, ToolCall, get_backend
from scir.llm.base import Backend, Constraint, request_key
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore

TOOL = Tool("evaluate", "fit an equation", json.dumps(
    {"type": "object", "properties": {"equation": {"type": "string"}},
     "required": ["equation"]}))


class Named(Backend):
    provider, model = "vllm", "m"

    def complete(self, request):
        raise AssertionError("not called")


def test_requests_without_tools_keep_their_keys():
    # computed before tool calls existed (commit 348ae0f)
    chat = LLMRequest.chat([("system", "s"), ("user", "u"), ("assistant", "a")], max_tokens=9,
                           seed=2, stop=("x",))
    assert request_key(Named(), chat) == \
        "554e011b3da800f09326f6b0cce5464c0d232ae73ab811243fcfb5cf74c56056"
    prompt = LLMRequest(prompt="p", constraint=Constraint("regex", "a+"))
    assert request_key(Named(), prompt) == \
        "76b212ba9627b6600460721d560c4e31848744a0bcf5800cf7c22161fdaba99e"
    assert "tools" not in chat.key_dict()
    with_tools = LLMRequest.chat([("system", "s"), ("user", "u"), ("assistant", "a")],
                                 max_tokens=9, seed=2, stop=("x",), tools=(TOOL,))
    assert request_key(Named(), with_tools) != request_key(Named(), chat)
    assert with_tools.key_dict()["tools"][0]["function"]["name"] == "evaluate"


def test_tool_messages_are_checked():
    call = ToolCall("c1", "evaluate", '{"equation": "p0*x"}')
    assert Message("assistant", "", tool_calls=(call,)).to_dict()["tool_calls"] == \
        [{"id": "c1", "type": "function",
          "function": {"name": "evaluate", "arguments": '{"equation": "p0*x"}'}}]
    assert Message("tool", "MAPE 1%", tool_call_id="c1").to_dict() == \
        {"role": "tool", "content": "MAPE 1%", "tool_call_id": "c1"}
    with pytest.raises(ConfigError):
        Message("user", "x", tool_calls=(call,))
    with pytest.raises(ConfigError):
        Message("tool", "x")
    with pytest.raises(ConfigError):
        Tool("t", "d", "not json")


def tool_reply(calls, content=None):
    body = chat_body("unused")
    body["choices"][0]["message"] = {"role": "assistant", "content": content,
                                     "tool_calls": calls}
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def test_backend_sends_tools_and_reads_calls(tmp_path):
    calls = [{"id": "c1", "type": "function",
              "function": {"name": "evaluate", "arguments": '{"equation": "p0*x"}'}}]
    with FakeOpenAIServer(lambda body, i: Reply(body=tool_reply(calls))) as srv:
        backend = get_backend(f"vllm:fake@{srv.url}", timeout=5.0)
        assert backend.tool_calls
        request = LLMRequest.chat([("user", "fit")], tools=(TOOL,))
        with RunStore(tmp_path / "run") as store:
            cached = CachingBackend(backend, store)
            first = cached.complete(request)
            again = cached.complete(request)
        (sent,) = srv.bodies()
    assert sent["tools"] == [TOOL.to_dict()]
    assert first.text == "" and first.tool_calls == (ToolCall("c1", "evaluate",
                                                              '{"equation": "p0*x"}'),)
    assert again.cached and again.tool_calls == first.tool_calls
    with RunStore(tmp_path / "run") as store:                  # read back from disk
        (stored,) = store.calls("vllm", "fake").values()
    assert stored.tool_calls == first.tool_calls


@pytest.mark.parametrize("calls", [{"id": "c"}, [{"id": 1, "function": {}}],
                                   [{"id": "c", "function": {"name": "f"}}], ["x"] * 17])
def test_malformed_tool_calls_are_backend_errors(calls):
    with FakeOpenAIServer(lambda body, i: Reply(body=tool_reply(calls, "t"))) as srv:
        backend = get_backend(f"vllm:fake@{srv.url}", timeout=5.0, max_retries=0)
        with pytest.raises(BackendError, match="tool"):
            backend.complete(LLMRequest.chat([("user", "x")], tools=(TOOL,)))


def test_store_from_before_tool_calls_gains_the_column(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE calls (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL,
            request TEXT NOT NULL, text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL, latency_s REAL NOT NULL,
            cost_usd REAL NOT NULL, finish_reason TEXT, created_at REAL NOT NULL);
        INSERT INTO calls VALUES ('k', 'vllm', 'm', '{}', 'old text', 1, 2, 0.1, 0.0, 'stop', 0);
        PRAGMA user_version=2;""")
    db.commit()
    db.close()
    with RunStore(path) as store:
        old = store.get_call("k")
        assert (old.text, old.tool_calls) == ("old text", ())
        assert store.call_count() == 1
