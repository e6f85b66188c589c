"""Chunks of an evaluation cell run on an executor (a local process pool or a Ray cluster).

:func:`run_chunk` runs a few tasks (as task dicts) through one architecture in a worker
process, which builds its own backend from a :class:`ModelSpec` (the ``--model`` string and
plain backend options: ``tiny``, ``openai:M@URL``, ``vllm:M@URL``, ...). Every LLM call goes
through :class:`~scir.llm.cache.CachingBackend` over a :class:`CallRecorder`: calls the run
store already held (shipped with the chunk) are served, new ones are recorded and come back
with the results. :func:`run_tasks_remote` is :func:`scir.runs.runner.run_tasks` on an
executor: it skips stored results, fans the pending tasks out in chunks, writes each chunk's
calls and then its results into the store in task order, and returns the same
:class:`~scir.runs.runner.RunSummary`.

A run stopped midway keeps every chunk that came back; the calls of chunks still in flight
were not stored, so the rerun makes them again (smaller chunks, less repeated).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError
from scir.executors import Executor, chunks
from scir.executors import chunk_size as default_chunk_size
from scir.llm.base import Backend, LLMRequest, LLMResponse
from scir.llm.cache import CachingBackend
from scir.pipelines.registry import MODEL_FREE_ARCHS
from scir.pipelines.result import NO_MODEL, PipelineResult, PipelineSettings
from scir.pipelines.runner import run_task
from scir.runs.runner import RunSummary, count_stored, pending_tasks
from scir.runs.store import RunStore
from scir.tasks import Task
from scir.tracks.reading import task_from_dict

Call = tuple[str, LLMRequest, LLMResponse]  # (key, request, response)


@dataclass(frozen=True)
class ModelSpec:
    """A model as a worker builds it: the ``--model`` name and the backend's plain options
    (``timeout``, ``max_retries``, ``max_response_bytes``, ``api_key``, ``base_url``, ...)."""

    model: str
    options: dict[str, Any] = field(default_factory=dict, hash=False)

    def key(self) -> str:
        """What identifies the backend a worker builds (its cache key in that process)."""
        return json.dumps([self.model, self.options], sort_keys=True, default=str)


@dataclass
class CellChunk:
    """The work of one remote call: tasks of one cell and the calls already stored."""

    tasks: list[dict[str, Any]]
    arch: str
    model: ModelSpec | None
    settings: PipelineSettings
    known: dict[str, LLMResponse] = field(default_factory=dict)


class CallRecorder:
    """The part of a :class:`RunStore` that :class:`CachingBackend` uses, in memory: serves
    the calls it was given and records the new ones (also served to later tasks)."""

    def __init__(self, known: dict[str, LLMResponse]) -> None:
        self.known = dict(known)
        self.made: list[Call] = []

    def get_call(self, key: str) -> LLMResponse | None:
        return self.known.get(key)

    def put_call(self, key: str, request: LLMRequest, response: LLMResponse) -> None:
        self.made.append((key, request, response))
        self.known[key] = dataclasses.replace(response, cached=True)


_backends: dict[str, Backend] = {}  # built in this worker process


def worker_backend(spec: ModelSpec) -> Backend:
    """The backend of ``spec``, built once per process (a local model is loaded once)."""
    backend = _backends.get(spec.key())
    if backend is None:
        from scir.llm import get_backend

        backend = _backends[spec.key()] = get_backend(spec.model, **spec.options)
    return backend


def close_backends() -> None:
    """Close and forget the backends built in this process."""
    while _backends:
        _backends.popitem()[1].close()


def backend_identity(spec: ModelSpec) -> tuple[str, str, str]:
    """Worker entry point: (provider, model, name) of the backend ``spec`` builds -- the
    name is the model column of results, provider and model are those of its calls."""
    backend = worker_backend(spec)
    return backend.provider, backend.model, backend.name


def run_chunk(chunk: CellChunk) -> tuple[list[dict[str, Any]], list[Call]]:
    """Worker entry point: the chunk's tasks through its architecture, in order; returns
    the results (as dicts) and the calls made that were not shipped with the chunk."""
    recorder = CallRecorder(chunk.known)
    backend = None
    if chunk.model is not None and chunk.arch not in MODEL_FREE_ARCHS:
        backend = CachingBackend(worker_backend(chunk.model), recorder)  # type: ignore[arg-type]
    results = [
        run_task(chunk.arch, task_from_dict(data), backend, chunk.settings).to_dict()
        for data in chunk.tasks
    ]
    return results, recorder.made


def run_tasks_remote(
    tasks: list[Task],
    arch: str,
    model: ModelSpec | None,
    store: RunStore,
    settings: PipelineSettings,
    *,
    executor: Executor,
    chunk_size: int | None = None,
    redo: bool = False,
    progress: Callable[[Iterable[PipelineResult], int], Iterable[PipelineResult]] | None = None,
) -> RunSummary:
    """:func:`scir.runs.runner.run_tasks` with the tasks run in chunks on ``executor``
    (``chunk_size`` tasks each; default: about four chunks per worker). Stored results are
    skipped (``redo``: run again); each finished chunk's calls, then its results, are written
    to ``store`` in task order."""
    if arch not in MODEL_FREE_ARCHS and model is None:
        raise ConfigError(f"--arch {arch} needs a --model", field="model")
    if chunk_size is not None and chunk_size < 1:
        raise ConfigError("chunk size must be >= 1", field="chunk_size")
    known: dict[str, LLMResponse] = {}
    label = NO_MODEL
    if arch not in MODEL_FREE_ARCHS and model is not None:
        provider, model_id, label = next(iter(executor.map(backend_identity, [model])))
        known = store.calls(provider, model_id)
    summary = RunSummary()
    pending = pending_tasks(tasks, arch, label, store, settings, redo, summary)
    size = chunk_size or default_chunk_size(len(pending), executor.workers)
    jobs = [
        CellChunk(
            [t.to_dict() for t in part],
            arch,
            model if arch not in MODEL_FREE_ARCHS else None,
            settings,
            known,
        )
        for part in chunks(pending, size)
    ]

    def finished() -> Iterator[PipelineResult]:
        for results, calls in executor.map(run_chunk, jobs):
            for key, request, response in calls:
                store.put_call(key, request, response)
            for data in results:
                yield PipelineResult.from_dict(data)

    shown: Iterable[PipelineResult] = finished()
    if progress is not None:
        shown = progress(shown, len(pending))
    for result in shown:
        store.put_result(result.to_dict())
        summary.count_run(result.status, result.error)
    count_stored(tasks, arch, label, store, settings, summary)
    return summary
