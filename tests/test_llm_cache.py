"""The run store: cached calls, stored results, persistence."""

import json

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.errors import BackendError
from scir.llm import Constraint, LLMRequest, get_backend, request_key
from scir.llm.cache import CachingBackend, cached_complete
from scir.runs.store import RunStore


def make(url):
    return get_backend(f"vllm:fake@{url}", timeout=5.0, max_retries=0, sleep=lambda s: None)


def test_second_identical_call_is_served_from_the_store(tmp_path):
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body(f"reply {i}", cost=0.5))) as srv:
        b = make(srv.url)
        with RunStore(tmp_path / "run") as store:
            req = LLMRequest(prompt="same prompt", max_tokens=20)
            first = cached_complete(b, req, store)
            second = cached_complete(b, req, store)
            assert len(srv.requests) == 1
            assert (first.cached, second.cached) == (False, True)
            assert second.text == first.text == "reply 0"
            assert (second.prompt_tokens, second.completion_tokens, second.cost_usd) == (7, 3, 0.5)
            # every parameter is part of the key
            cached_complete(b, LLMRequest(prompt="same prompt", max_tokens=21), store)
            cached_complete(b, LLMRequest(prompt="same prompt", max_tokens=20,
                                          constraint=Constraint("regex", "[a-z]+")), store)
            assert len(srv.requests) == 3
        # a reopened store still has every call
        with RunStore(tmp_path / "run") as store:
            assert store.call_count() == 3
            assert cached_complete(b, req, store).cached
        assert len(srv.requests) == 3


def test_failed_calls_are_not_stored(tmp_path):
    def script(body, i):
        return Reply(500, {"error": {"message": "down"}}) if i == 0 else Reply(body=chat_body("up"))

    with FakeOpenAIServer(script) as srv, RunStore(tmp_path) as store:
        b = CachingBackend(make(srv.url), store)
        with pytest.raises(BackendError, match="HTTP 500"):
            b.complete(LLMRequest(prompt="p"))
        assert store.call_count() == 0
        assert b.complete(LLMRequest(prompt="p")).text == "up"
        assert b.complete(LLMRequest(prompt="p")).cached
        assert (b.made, b.served, len(srv.requests)) == (1, 1, 2)


def test_request_key_depends_on_backend_model_and_params():
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("x"))) as srv:
        a = get_backend(f"vllm:m1@{srv.url}")
        b = get_backend(f"vllm:m2@{srv.url}")
        c = get_backend(f"sglang:m1@{srv.url}")
    req = LLMRequest(prompt="p")
    keys = {request_key(x, req) for x in (a, b, c)}
    assert len(keys) == 3
    assert request_key(a, req) == request_key(a, LLMRequest.chat([("user", "p")]))
    assert request_key(a, req) != request_key(a, LLMRequest(prompt="p", seed=1))
    assert len(request_key(a, req)) == 64


def test_results_are_stored_and_replaced(tmp_path):
    row = {"task_id": "t1", "arch": "cot", "presentation": "nl", "model": "m", "status": "ok",
           "correct": True, "answer": "even"}
    with RunStore(tmp_path) as store:
        store.put_result(row)
        store.put_result({**row, "task_id": "t2", "correct": False, "status": "parse_error"})
        store.put_result({**row, "answer": "odd", "correct": False})
    with RunStore(tmp_path) as store:
        assert store.get_result("t1", "cot", "nl", "m")["answer"] == "odd"
        assert store.get_result("t1", "ns", "nl", "m") is None
        assert [r["task_id"] for r in store.results(arch="cot")] == ["t1", "t2"]
        assert store.results(model="other") == []


def test_a_schema_1_store_is_migrated_with_its_results_and_old_statuses_read_anew(tmp_path):
    import json
    import sqlite3

    db = sqlite3.connect(str(tmp_path / "run.sqlite"))
    db.executescript("""
        CREATE TABLE results (task_id TEXT NOT NULL, arch TEXT NOT NULL,
            presentation TEXT NOT NULL, model TEXT NOT NULL, status TEXT NOT NULL,
            correct INTEGER NOT NULL, result TEXT NOT NULL, created_at REAL NOT NULL,
            PRIMARY KEY (task_id, arch, presentation, model));
        PRAGMA user_version=1;""")
    rows = [("t1", "cot", "ok", 1, ""), ("t2", "cot", "ok", 0, ""),
            ("t3", "cot", "parse_error", 0, "no answer found in the response"),
            ("t4", "ns", "parse_error", 0, "line 1: bad")]
    for task_id, arch, status, correct, error in rows:
        body = {"task_id": task_id, "arch": arch, "presentation": "nl", "model": "m",
                "status": status, "correct": bool(correct), "error": error}
        db.execute("INSERT INTO results VALUES (?, ?, 'nl', 'm', ?, ?, ?, 0)",
                   (task_id, arch, status, correct, json.dumps(body)))
    db.commit()
    db.close()
    with RunStore(tmp_path) as store:
        got = {r["task_id"]: (r["status"], r["constrained"], r["seed"]) for r in store.results()}
        assert got == {"t1": ("ok", True, 0), "t2": ("wrong", True, 0),
                       "t3": ("no_answer", True, 0), "t4": ("parse_error", True, 0)}
        assert store.get_result("t1", "cot", "nl", "m", True, 0)["status"] == "ok"
        # the new key: the same task under an unconstrained formalization is a second result
        store.put_result({"task_id": "t4", "arch": "ns", "presentation": "nl", "model": "m",
                          "status": "wrong", "correct": False, "constrained": False,
                          "seed": 0})
        assert len(store.results(arch="ns")) == 2
        assert [r["status"] for r in store.results(arch="ns", constrained=False)] == ["wrong"]
        store.put_plan({"track": "x", "arch": "ns"}, 5)
        store.put_plan({"track": "x", "arch": "ns"}, 7)
        assert store.plan() == [({"arch": "ns", "track": "x"}, 7)]
    with RunStore(tmp_path) as store:                       # reopening does not migrate again
        assert len(store.results()) == 5


@pytest.mark.parametrize("tail,why", [
    ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),     # RecursionError once
    ("1" * 5000, "Exceeds the limit"),                             # ValueError once
])
def test_a_body_json_cannot_parse_is_a_backend_error_and_not_stored(tail, why, tmp_path):
    body = json.dumps(chat_body("fine"))[:-1] + ', "x": ' + tail + "}"
    with FakeOpenAIServer(lambda b, i: Reply(body=body)) as srv, RunStore(tmp_path) as store:
        with pytest.raises(BackendError, match=why):
            cached_complete(make(srv.url), LLMRequest(prompt="p"), store)
        assert store.call_count() == 0 and len(srv.requests) == 1      # not retried


def test_results_read_back_as_typed_records(tmp_path):
    """The run store gives a stored result back as the dict and as a PipelineResult record
    (fields the record does not know left out; an old status in the current vocabulary)."""
    from scir.pipelines.result import PipelineResult

    data = {"task_id": "t1", "domain": "deduction", "tier": "e", "arch": "cot",
            "presentation": "nl", "model": "m", "answer": "A", "correct": False,
            "status": "ok", "chance": 0.5, "future_field": 1}
    with RunStore(tmp_path) as store:
        store.put_result(data)
        record = store.get_record("t1", "cot", "nl", "m")
        assert isinstance(record, PipelineResult)
        assert (record.status, record.answer, record.seed) == ("wrong", "A", 0)
        assert store.records(arch="cot") == [record]
        assert store.records(arch="ns") == []
        assert store.get_record("t2", "cot", "nl", "m") is None
        assert store.results()[0]["future_field"] == 1
