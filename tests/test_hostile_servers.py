"""Server faults against the OpenAI-compatible backend: one scenario per file in
tests/hostile/servers/*.json, each stating its replies, the backend's settings and what must
come out (a typed error and its message, or the answer), how many requests the server sees,
the waits between attempts, and the wall-time bounds of the whole call. The server is local
(127.0.0.1) and every fault loop in it is bounded (tests/fake_openai_server.py)."""

from __future__ import annotations

import gzip
import json
import re
import time
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.errors import BackendError, ScirError
from scir.llm import LLMRequest, get_backend
from scir.llm.base import request_key
from scir.llm.cache import cached_complete
from scir.runs.store import RunStore

SCENARIOS = sorted((Path(__file__).parent / "hostile" / "servers").glob("*.json"))
ERRORS = {"BackendError": BackendError}
REPLY_FIELDS = {"status", "delay", "content_type", "headers", "trickle", "trickle_body_only",
                "reset"}


def reply_of(spec: dict) -> Reply:
    """A scenario's reply description as a Reply."""
    reply = Reply(**{k: v for k, v in spec.items() if k in REPLY_FIELDS})
    if "chat" in spec:
        reply.body = chat_body(spec["chat"])
    elif "huge" in spec:
        reply.body = json.dumps(chat_body("x" * spec["huge"]))
    elif "gzip_huge" in spec:                      # a small body that decodes to a big one
        reply.body = gzip.compress(json.dumps(chat_body("x" * spec["gzip_huge"])).encode())
        reply.headers = {**reply.headers, "Content-Encoding": "gzip"}
    elif "body" in spec:
        reply.body = spec["body"]
    if "raw" in spec:
        reply.raw = spec["raw"].encode()
    return reply


def test_the_corpus_describes_itself():
    assert len(SCENARIOS) >= 10
    for path in SCENARIOS:
        spec = json.loads(path.read_text())
        assert spec["description"] and spec["replies"], path.name
        expect = spec["expect"]
        assert ("error" in expect) != ("text" in expect), path.name
        assert expect["max_seconds"] <= 5, path.name      # every scenario is bounded and short


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_server_fault(path, tmp_path):
    spec = json.loads(path.read_text())
    replies = [reply_of(r) for r in spec["replies"]]
    expect = spec["expect"]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        time.sleep(seconds)

    options = {"backoff": 0.05, **spec["backend"]}
    with FakeOpenAIServer(lambda body, i: replies[min(i, len(replies) - 1)]) as srv, \
            RunStore(tmp_path / "run") as store:
        backend = get_backend(f"vllm:fake@{srv.url}", sleep=sleep, **options)
        request = LLMRequest(prompt="Is 2 + 3 even or odd?")
        start = time.monotonic()
        try:
            if "error" in expect:
                with pytest.raises(ScirError) as info:
                    cached_complete(backend, request, store)
                assert type(info.value) is ERRORS[expect["error"]], repr(info.value)
                assert re.search(expect["match"], str(info.value)), str(info.value)
                assert store.call_count() == 0          # a failure is never stored
            else:
                response = cached_complete(backend, request, store)
                assert response.text == expect["text"]
                assert store.call_count() == 1
                assert store.get_call(request_key(backend, request)).text == expect["text"]
        finally:
            seconds = time.monotonic() - start
            backend.close()
        assert len(srv.requests) == expect["requests"]
    assert expect.get("min_seconds", 0) <= seconds <= expect["max_seconds"], seconds
    if "sleeps" in expect:
        assert sleeps == expect["sleeps"]
    assert len(sleeps) == expect["requests"] - 1 or "error" in expect
