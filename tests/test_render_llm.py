"""The LLM renderer against a scripted OpenAI-compatible server (exact, lossy, malformed and
retried rewrites; separate inverse model; the cache) and with the tiny local model."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.llm import get_backend
from scir.runs.store import RunStore
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.rendering.blocks import block_contents
from scir.rendering.extractors import recovery_problems
from scir.rendering.inverse import format_block
from scir.rendering.llm_renderer import LLMRenderer
from scir.rendering.template import render_task
from scir.tracks import get_track

TRACKS = ("deduction", "induction", "causal")
MARK = re.compile(r"\[rewrite of block (\d+), attempt (\d+)\]")


@pytest.fixture(scope="module")
def samples():
    return {t: list(get_track(t).generate(2, 3, "easy")) for t in TRACKS}


def _reworded(task, index: int) -> str:
    """A faithful formalization, reworded where it can be (deduction: 'no' the other way round,
    which only a proof shows equivalent)."""
    text = format_block(task, index, block_contents(task)[index])
    if task.domain == "deduction":
        text = re.sub(r"all x \((\w+)\(x\) -> -(\w+)\(x\)\)", r"all x (\2(x) -> -\1(x))", text)
    return text


class Script:
    """Answers render calls with a marked template document, inverse calls per ``mode``:
    exact, lossy, garbage, bad_body, lossy_once (lossy on the first attempt only)."""

    def __init__(self, tasks, mode="exact", lossy_ids=()):
        self.tasks = tasks
        self.mode = mode
        self.lossy_ids = set(lossy_ids)

    def _task(self, text):
        return next((t, i) for t in self.tasks for i, b in enumerate(t.blocks) if b in text)

    def __call__(self, body, index):
        system = body["messages"][0]["content"]
        if system.startswith("You rewrite"):
            task, i = self._task(body["messages"][1]["content"])
            doc = render_task(task, 0).documents[i].text
            return Reply(body=chat_body(f"[rewrite of block {i}, attempt {body['seed']}]\n{doc}"))
        user = body["messages"][1]["content"]
        i, attempt = (int(g) for g in MARK.search(user).groups())
        context_task = next(t for t in self.tasks
                            if all(b in user for k, b in enumerate(t.blocks) if k != i))
        mode = "lossy" if context_task.task_id in self.lossy_ids else self.mode
        if mode == "lossy_once":
            mode = "lossy" if attempt == 0 else "exact"
        if mode == "bad_body":
            return Reply(body="<html>upstream hiccup</html>", content_type="text/html")
        if mode == "garbage":
            return Reply(body=chat_body("I am not sure what this document says."))
        text = _reworded(context_task, i)
        if mode == "lossy":
            lines = text.splitlines(keepends=True)
            text = "".join(lines[:-1]) if len(lines) > 1 else "none.\n"
        return Reply(body=chat_body(text))


def _backend(url):
    return get_backend(f"vllm:fake@{url}", timeout=10.0, backoff=0.0, max_retries=0)


@pytest.mark.parametrize("track", TRACKS)
def test_exact_rewrite_is_accepted(tmp_path, samples, track):
    task = samples[track][0]
    with FakeOpenAIServer(Script([task])) as srv, RunStore(tmp_path / "run") as store:
        outcome = LLMRenderer(_backend(srv.url), store, max_retries=2, seed=0).render(task)
        bodies = srv.bodies()
    assert not outcome.dropped, outcome.reason
    rendered = outcome.task
    n = len(task.blocks)
    assert len(bodies) == 2 * n and outcome.calls == 2 * n and outcome.retries == 0
    record = rendered.provenance["render"]
    assert record["renderer"] == "llm" and record["model"] == "vllm:fake"
    assert record["inverse_model"] == "vllm:fake" and record["block_retries"] == [0] * n
    assert record["genres"] == render_task(task, 0).provenance["render"]["genres"]
    assert rendered.problem_obfuscated == "\n\n".join(d.text for d in rendered.documents)
    assert recovery_problems(rendered) == []   # the scripted rewrites are the template's docs
    inverse = [b for b in bodies if b["messages"][0]["content"].startswith("You formalize")]
    assert len(inverse) == n
    for k, body in enumerate(inverse):
        grammar = body["structured_outputs"]["grammar"]
        assert "start:" in grammar
        user = body["messages"][1]["content"]
        others = [b for i, b in enumerate(task.blocks) if i != k]
        assert all(b in user for b in others) and task.blocks[k] not in user


@pytest.mark.parametrize("mode, reason", [("lossy", "not recovered|missing"),
                                          ("garbage", "does not parse"),
                                          ("bad_body", "backend error")])
def test_failing_inverse_is_retried_then_dropped(tmp_path, samples, mode, reason):
    task = samples["deduction"][0]
    with FakeOpenAIServer(Script([task], mode)) as srv, RunStore(tmp_path / "run") as store:
        outcome = LLMRenderer(_backend(srv.url), store, max_retries=2).render(task)
        bodies = srv.bodies()
    assert outcome.dropped and outcome.task is None
    assert re.search(reason, outcome.reason), outcome.reason
    assert len(outcome.attempts) == 3 and not any(a.accepted for a in outcome.attempts)
    renders = [b for b in bodies if b["messages"][0]["content"].startswith("You rewrite")]
    assert len(renders) == 3 and len(bodies) == 6      # block 1 only: the task stops there
    assert [b["seed"] for b in renders] == [0, 1, 2]
    assert "did not hold the original information" in renders[-1]["messages"][-1]["content"]


def test_lossy_then_exact_is_accepted_after_a_retry(tmp_path, samples):
    task = samples["induction"][0]
    with FakeOpenAIServer(Script([task], "lossy_once")) as srv, \
            RunStore(tmp_path / "run") as store:
        outcome = LLMRenderer(_backend(srv.url), store, max_retries=2).render(task)
    assert not outcome.dropped
    assert outcome.task.provenance["render"]["block_retries"] == [1, 1, 1]
    assert outcome.retries == 3


def test_calls_are_cached_and_inverse_model_is_separate(tmp_path, samples):
    task = samples["causal"][0]
    script = Script([task])
    with FakeOpenAIServer(script) as renders, FakeOpenAIServer(script) as inverses:
        with RunStore(tmp_path / "run") as store:
            first = LLMRenderer(_backend(renders.url), store,
                                get_backend(f"sglang:inv@{inverses.url}", timeout=10.0,
                                            max_retries=0)).render(task)
        made = (len(renders.requests), len(inverses.requests))
        with RunStore(tmp_path / "run") as store:
            again = LLMRenderer(_backend(renders.url), store,
                                get_backend(f"sglang:inv@{inverses.url}", timeout=10.0,
                                            max_retries=0)).render(task)
        assert (len(renders.requests), len(inverses.requests)) == made == (2, 2)
    assert first.task.provenance["render"]["inverse_model"] == "sglang:inv"
    assert (first.calls, first.cached_calls) == (4, 0)
    assert (again.calls, again.cached_calls) == (0, 4)
    assert again.task.documents == first.task.documents


@pytest.mark.slow
def test_render_command_drops_and_reports(tmp_path, samples):
    good, bad = samples["deduction"]
    source = tmp_path / "d.jsonl"
    write_tasks(source, [good, bad])
    out = tmp_path / "d.llm.jsonl"
    with FakeOpenAIServer(Script([good, bad], lossy_ids=[bad.task_id])) as srv:
        cmd = [sys.executable, "-m", "scir", "render", str(source), "--renderer", "llm",
               "--model", f"vllm:fake@{srv.url}", "--max-retries", "1", "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        again = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert len(srv.requests) == 2 * 2 + 2 * 2        # second run: all from the cache
    assert f"DROPPED {bad.task_id}" in proc.stdout
    assert "rendered 1/2 tasks (1 dropped" in proc.stdout
    assert "0 calls made" in again.stdout
    assert [t.task_id for t in read_tasks(out)] == [good.task_id]
    report = json.loads(out.with_suffix(".render.json").read_text())
    assert [d["task_id"] for d in report["dropped"]] == [bad.task_id]
    assert report["groups"][0]["dropped"] == 1
    assert out.with_suffix(".render-cache.sqlite").is_file()


@pytest.mark.llm
def test_tiny_model_is_dropped_and_cached(tmp_path, samples, monkeypatch):
    monkeypatch.setenv("SCIR_CACHE_DIR", str(tmp_path / "models"))
    task = samples["deduction"][0]
    tiny = get_backend("tiny")
    with RunStore(tmp_path / "run") as store:
        outcome = LLMRenderer(tiny, store, max_retries=1).render(task)
        assert outcome.dropped and len(outcome.attempts) == 2
        assert outcome.calls == 4 and outcome.cached_calls == 0
        assert store.call_count() == 4
        requests = store.call_requests()
        assert sum(r["constraint"] is not None for r in requests) == 2
        again = LLMRenderer(tiny, store, max_retries=1).render(task)
        assert (again.calls, again.cached_calls) == (0, 4)
        assert again.reason == outcome.reason
