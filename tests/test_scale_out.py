"""Scale-out (scir.executors, scir.runs.remote, ``--executor`` of generate and verify): a
small grid run with the local runner and on a local Ray instance (2 CPUs) gives the same
stored results in the same order; generate and verify give the same bytes and output on
every executor. Ray is started once for the module (one instance, reused by every
``get_executor("ray")`` while it runs)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.commands.generate import generate_chunk
from scir.errors import ConfigError, TaskFormatError
from scir.executors import LocalExecutor, SerialExecutor, get_executor
from scir.llm import get_backend
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.runs.remote import ModelSpec, run_tasks_remote
from scir.pipelines.result import PipelineSettings
from scir.runs.runner import run_tasks
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track

ray = pytest.importorskip("ray")

TIMING = ("seconds",)                      # the only fields that may differ between runs


@pytest.fixture(scope="module")
def ray_local(tiny_cache_dir):
    """A local Ray instance with 2 CPUs for the module; its workers inherit this process's
    environment as it is now (PYTHONPATH, and SCIR_CACHE_DIR: the session's tiny model)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
        mp.setenv("SCIR_CACHE_DIR", str(tiny_cache_dir))
        started = not ray.is_initialized()
        if started:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def grid_tasks(tmp_path_factory) -> Path:
    """Two tasks of each built-in track, easy, in one file."""
    tasks = []
    for name in ("deduction", "induction", "causal"):
        tasks += list(get_track(name).generate(2, seed=5, difficulty="easy"))
    path = tmp_path_factory.mktemp("grid") / "tasks.jsonl"
    write_tasks(path, tasks)
    return path


def varied_script(body, index):
    """Replies that depend only on the request: an answer line, or text no parser takes
    (so ns retries), chosen by a hash of the conversation."""
    text = "".join(m["content"] for m in body["messages"])
    pick = hashlib.sha256(text.encode()).digest()[0] % 4
    reply = ["Reasoning.\nAnswer: True", "Answer: A", "no formalization here ((",
             "Answer: Unknown"][pick]
    return Reply(body=chat_body(reply, prompt_tokens=len(text) % 97 + 1))


CELLS = [("oracle", False, True), ("cot", True, True), ("ns", True, True), ("ns", True, False)]


def run_grid(tasks, store, url, *, executor=None):
    """Every cell of CELLS over ``tasks``; with ``executor`` through run_tasks_remote."""
    summaries = []
    for arch, needs_model, constrained in CELLS:
        settings = PipelineSettings(presentation="nl", max_tokens=64, max_retries=1,
                                    constrained=constrained)
        model = f"openai:fake@{url}" if needs_model else None
        if executor is None:
            backend = CachingBackend(get_backend(model), store) if model else None
            summaries.append(run_tasks(tasks, arch, backend, store, settings))
        else:
            spec = ModelSpec(model, {"max_retries": 0}) if model else None
            summaries.append(run_tasks_remote(tasks, arch, spec, store, settings,
                                              executor=executor, chunk_size=2))
    return summaries


def stored(store):
    """The stored results without timing fields, in the store's order, and the calls."""
    results = [{k: v for k, v in r.items() if k not in TIMING} for r in store.results()]
    return results, store.call_requests()


@pytest.mark.slow
def test_a_grid_on_local_ray_stores_what_the_local_runner_stores(ray_local, grid_tasks,
                                                                  tmp_path):
    tasks = read_tasks(grid_tasks)
    with FakeOpenAIServer(varied_script) as srv:
        with RunStore(tmp_path / "local") as store:
            local = run_grid(tasks, store, srv.url)
            want = stored(store)
        made_locally = len(srv.requests)
        with get_executor("ray") as executor, RunStore(tmp_path / "ray") as store:
            assert executor.name == "ray" and executor.workers == 2
            remote = run_grid(tasks, store, srv.url, executor=executor)
            assert stored(store) == want
            assert len(srv.requests) == 2 * made_locally
            # run again: everything is stored, nothing is run, no call is made
            again = run_grid(tasks, store, srv.url, executor=executor)
            assert [s.ran for s in again] == [0] * len(CELLS)
            assert [s.skipped for s in again] == [len(tasks)] * len(CELLS)
            assert len(srv.requests) == 2 * made_locally
    assert [s.lines()[:-1] for s in remote] == [s.lines()[:-1] for s in local]
    results, calls = want
    assert len(results) == len(CELLS) * len(tasks) and calls
    statuses = {r["status"] for r in results}
    assert "ok" in statuses and "parse_error" in statuses      # the grid is not all alike
    assert any(r["retries"] for r in results if r["arch"] == "ns")


def test_a_redo_on_ray_is_served_the_stored_calls(ray_local, grid_tasks, tmp_path):
    tasks = read_tasks(grid_tasks)
    settings = PipelineSettings(max_tokens=64, max_retries=1)
    with FakeOpenAIServer(varied_script) as srv, get_executor("ray") as executor, \
            RunStore(tmp_path / "run") as store:
        spec = ModelSpec(f"openai:fake@{srv.url}")
        first = run_tasks_remote(tasks, "ns", spec, store, settings, executor=executor,
                                 chunk_size=3)
        made = len(srv.requests)
        before = {r["task_id"]: r for r in store.results()}
        redo = run_tasks_remote(tasks, "ns", spec, store, settings, executor=executor,
                                redo=True)
        assert len(srv.requests) == made and redo.ran == first.ran == len(tasks)
        after = {r["task_id"]: r for r in store.results()}
        for task_id, result in after.items():
            assert result["cached_calls"] == result["calls"] == before[task_id]["calls"]
            assert result["status"] == before[task_id]["status"]


def test_a_task_error_comes_back_from_ray_as_itself(ray_local, grid_tasks, tmp_path):
    tasks = read_tasks(grid_tasks)
    settings = PipelineSettings(presentation="obf")
    with get_executor("ray") as executor, RunStore(tmp_path / "run") as store:
        with pytest.raises(ConfigError, match="has not been rendered"):
            run_tasks_remote(tasks, "oracle", None, store, settings, executor=executor)
        with pytest.raises(ConfigError, match="needs a --model"):
            run_tasks_remote(tasks, "cot", None, store, PipelineSettings(), executor=executor)
        # a worker entry point of scir (this test module is not importable on Ray's workers)
        jobs = [("causal", "easy", {}, 0, [0]), ("causal", "medium", {}, 0, [1])]
        with pytest.raises(ConfigError, match="field 'difficulty': difficulty must be easy or "
                                              "hard, got 'medium'"):
            list(executor.map(generate_chunk, jobs))


def _raise_task_format_error(item):
    if item == 2:
        raise TaskFormatError("boom", task_id="t-2", field="answer")
    return item


def _square(x):
    return x * x


def test_the_local_pool_keeps_input_order_and_errors():
    with get_executor("local", workers=2) as executor:
        assert isinstance(executor, LocalExecutor) and executor.workers == 2
        assert list(executor.map(_square, range(20))) == [x * x for x in range(20)]
        with pytest.raises(TaskFormatError, match="task t-2, field 'answer': boom"):
            list(executor.map(_raise_task_format_error, [1, 2, 3]))
    assert isinstance(get_executor("local", workers=1), SerialExecutor)
    with pytest.raises(ConfigError, match="executor must be one of local, ray"):
        get_executor("dask")
    with pytest.raises(ConfigError, match="--workers must be >= 1"):
        get_executor("local", workers=0)


@pytest.mark.slow
def test_generate_and_verify_give_the_same_bytes_and_output_on_every_executor(
        ray_local, tmp_path, capsys):
    files = {}
    for name, flags in (("serial", []), ("local", ["--executor", "local", "--workers", "2"]),
                        ("ray", ["--executor", "ray"])):
        out = tmp_path / f"{name}.jsonl"
        assert main(["generate", "causal", "-n", "7", "--seed", "4", "-o", str(out)]
                    + flags) == 0
        files[name] = out.read_bytes()
    assert files["local"] == files["serial"] == files["ray"]
    # a file mixing tracks, one task broken: verify reports the same on every executor
    tasks = read_tasks(tmp_path / "serial.jsonl") + list(
        get_track("deduction").generate(3, seed=2))
    tasks[1].answer = "A" if tasks[1].answer != "A" else "B"
    tasks[1].answer_pool = [tasks[1].answer]
    mixed = tmp_path / "mixed.jsonl"
    write_tasks(mixed, tasks)
    capsys.readouterr()
    outputs = {}
    for name, flags in (("serial", []), ("local", ["--executor", "local", "--workers", "2"]),
                        ("ray", ["--executor", "ray"])):
        assert main(["verify", str(mixed)] + flags) == 1
        outputs[name] = capsys.readouterr().out
    assert outputs["serial"] == outputs["local"] == outputs["ray"]
    assert f"FAILED {tasks[1].task_id}" in outputs["serial"]
    assert "verified 9/10 tasks (causal 7, deduction 3); 1 failed" in outputs["serial"]


def test_executor_flags_need_an_executor(tmp_path, capsys):
    assert main(["generate", "causal", "-n", "2", "-o", str(tmp_path / "x.jsonl"),
                 "--workers", "2"]) == 2
    assert "--workers and --ray-address need --executor" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.slow
def test_tiny_cells_on_ray_store_what_the_local_runner_stores(ray_local, tiny, grid_tasks,
                                                               tmp_path):
    """The workers load the tiny model themselves (from the session's cache folder)."""
    tasks = [t for t in read_tasks(grid_tasks) if t.domain == "deduction"]
    settings = PipelineSettings(max_tokens=24, max_retries=0)
    with RunStore(tmp_path / "local") as store:
        for arch in ("cot", "ns"):
            run_tasks(tasks, arch, CachingBackend(tiny, store), store, settings)
        want = stored(store)
    with get_executor("ray") as executor, RunStore(tmp_path / "ray") as store:
        for arch in ("cot", "ns"):
            run_tasks_remote(tasks, arch, ModelSpec("tiny"), store, settings,
                             executor=executor, chunk_size=1)
        assert stored(store) == want
    results, calls = want
    assert {r["model"] for r in results} == {tiny.name} and len(calls) == 2 * len(tasks)
