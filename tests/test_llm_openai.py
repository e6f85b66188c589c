"""The OpenAI-compatible backend against a local scripted HTTP server."""

import json

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.errors import BackendError, ConfigError
from scir.llm import Constraint, LLMRequest, get_backend

GRAMMAR = 'start: "numbers: " NUM (", " NUM)~0..2\nNUM: /[0-9]{1,3}/\n'


def backend(url: str, provider: str = "vllm", sleeps: list | None = None, **options):
    record = sleeps if sleeps is not None else []
    options.setdefault("timeout", 5.0)
    options.setdefault("backoff", 0.01)
    return get_backend(f"{provider}:fake@{url}", sleep=record.append, **options)


def test_normal_response_and_request_fields():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("hello", cost=0.0025))) as srv:
        b = backend(srv.url)
        r = b.complete(LLMRequest(prompt="Say hello", max_tokens=17, seed=3, stop=("\n\n",)))
        assert (r.text, r.prompt_tokens, r.completion_tokens) == ("hello", 7, 3)
        assert r.cost_usd == pytest.approx(0.0025)
        assert (r.raw_finish_reason, r.backend, r.model, r.cached) == ("stop", "vllm", "fake",
                                                                       False)
        assert r.latency_s >= 0
        (req,) = srv.requests
        assert req.path == "/v1/chat/completions"
        assert req.body["model"] == "fake"
        assert req.body["messages"] == [{"role": "user", "content": "Say hello"}]
        assert (req.body["max_tokens"], req.body["temperature"], req.body["seed"]) == (17, 0.0, 3)
        assert req.body["stop"] == ["\n\n"]
        assert req.body.get("stream") is False
        assert "structured_outputs" not in req.body
        assert req.headers["authorization"] == "Bearer scir-no-key"   # local server: dummy key
        assert req.headers["accept-encoding"] == "identity"   # the byte cap bounds the body


def test_no_cost_reported_means_zero():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("x"))) as srv:
        assert backend(srv.url).complete(LLMRequest(prompt="p")).cost_usd == 0.0


def test_429_then_success_backs_off_and_retries():
    def script(body, i):
        if i == 0:
            return Reply(429, {"error": {"message": "rate limited"}})
        return Reply(body=chat_body("after retry"))

    sleeps = []
    with FakeOpenAIServer(script) as srv:
        r = backend(srv.url, sleeps=sleeps, backoff=0.5).complete(LLMRequest(prompt="p"))
        assert r.text == "after retry"
        assert len(srv.requests) == 2
    (wait,) = sleeps                               # full jitter: random in [0, backoff]
    assert 0 <= wait <= 0.5


def test_5xx_backoff_doubles_then_backend_error():
    sleeps = []
    with FakeOpenAIServer(lambda body, i: Reply(503, {"error": {"message": "busy"}})) as srv:
        b = backend(srv.url, sleeps=sleeps, backoff=0.25, max_retries=3)
        with pytest.raises(BackendError, match="failed after 4 attempts; last error: HTTP 503"):
            b.complete(LLMRequest(prompt="p"))
        assert len(srv.requests) == 4
    assert len(sleeps) == 3                        # full jitter under a doubling ceiling
    assert all(0 <= w <= bound for w, bound in zip(sleeps, [0.25, 0.5, 1.0]))


def test_timeout_retries_then_backend_error():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("late"), delay=1.5)) as srv:
        b = backend(srv.url, timeout=0.3, max_retries=1)
        with pytest.raises(BackendError, match=r"failed after 2 attempts; last error: no "
                                               r"complete answer within 0.3 s"):
            b.complete(LLMRequest(prompt="p"))
        assert len(srv.requests) == 2


def test_client_error_is_not_retried():
    with FakeOpenAIServer(lambda body, i: Reply(400, {"error": {"message": "bad grammar"}})) as srv:
        with pytest.raises(BackendError, match="request rejected, HTTP 400"):
            backend(srv.url).complete(LLMRequest(prompt="p"))
        assert len(srv.requests) == 1


@pytest.mark.parametrize("body, content_type, why", [
    ('{"choices": [ oops', "application/json", "not JSON"),
    ("<html>gateway</html>", "text/html", "not JSON"),
    ({"id": "x"}, "application/json", "no choices"),
    ({"choices": [{"index": 0}]}, "application/json", "choice has no message"),
    ({"choices": [{"message": {"content": 5}}]}, "application/json", "not a string"),
    ([1, 2], "application/json", "not a JSON object"),
])
def test_malformed_body_is_backend_error(body, content_type, why):
    with FakeOpenAIServer(lambda b, i: Reply(body=body, content_type=content_type)) as srv:
        with pytest.raises(BackendError, match=f"malformed response body.*{why}"):
            backend(srv.url).complete(LLMRequest(prompt="p"))
        assert len(srv.requests) == 1


def test_connection_refused_is_backend_error():
    b = get_backend("vllm:fake@http://127.0.0.1:9/v1", timeout=1.0, max_retries=1,
                    backoff=0.0, sleep=lambda s: None)
    with pytest.raises(BackendError, match="connection failed"):
        b.complete(LLMRequest(prompt="p"))


def test_grammar_goes_in_extra_body_for_vllm():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("numbers: 1"))) as srv:
        b = backend(srv.url, provider="vllm")
        assert b.enforces(Constraint("lark", GRAMMAR))
        b.complete(LLMRequest(prompt="p", constraint=Constraint("lark", GRAMMAR)))
        b.complete(LLMRequest(prompt="p", constraint=Constraint("regex", "[0-9]+")))
        lark_body, regex_body = srv.bodies()
        assert lark_body["structured_outputs"] == {"grammar": GRAMMAR}
        assert regex_body["structured_outputs"] == {"regex": "[0-9]+"}


def test_grammar_fields_per_provider():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("{}"))) as srv:
        backend(srv.url, provider="sglang").complete(
            LLMRequest(prompt="p", constraint=Constraint("lark", GRAMMAR)))
        plain = backend(srv.url, provider="openai")
        assert not plain.enforces(Constraint("lark", GRAMMAR))
        plain.complete(LLMRequest(prompt="p", constraint=Constraint("lark", GRAMMAR)))
        plain.complete(LLMRequest(prompt="p", constraint=Constraint("json_schema",
                                                                     json.dumps(schema))))
        sglang, openai_lark, openai_json = srv.bodies()
    assert sglang["ebnf"] == "%llguidance {}\n" + GRAMMAR
    assert not {"structured_outputs", "ebnf", "grammar", "response_format"} & set(openai_lark)
    assert openai_json["response_format"]["json_schema"]["schema"] == schema


def test_api_keys(monkeypatch):
    for var in ("OPENROUTER_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SCIR_API_KEY", "sk-for-no-provider")   # read by none
    with pytest.raises(ConfigError, match="openrouter needs an API key: set OPENROUTER_API_KEY"):
        get_backend("openrouter:openai/gpt-4o")
    with pytest.raises(ConfigError, match="openai needs an API key"):
        get_backend("openai:gpt-4o")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-test-123")
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("ok", cost=0.01))) as srv:
        # OpenRouter's key goes to openrouter.ai only (scir.llm.keys): a base_url elsewhere
        # gets none unless a key is given
        get_backend("openrouter:openai/gpt-4o", base_url=srv.url).complete(
            LLMRequest(prompt="p"))
        b = get_backend("openrouter:openai/gpt-4o", base_url=srv.url, api_key="sk-given")
        assert b.complete(LLMRequest(prompt="p")).cost_usd == pytest.approx(0.01)
        moved, req = srv.requests
        assert moved.headers["authorization"] == "Bearer scir-no-key"
        assert req.headers["authorization"] == "Bearer sk-given"
        assert req.body["usage"] == {"include": True}
        assert req.body["model"] == "openai/gpt-4o"


def test_bad_grammar_is_rejected_before_it_is_sent():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("x"))) as srv:
        with pytest.raises(ConfigError, match="invalid lark grammar.*unknown name"):
            backend(srv.url).complete(LLMRequest(prompt="p",
                                                 constraint=Constraint("lark", "start: foo")))
        assert srv.requests == []
