"""Where chunks of work run: in this process, in a local process pool, or on a Ray cluster.

``get_executor("local", workers=4)`` or ``get_executor("ray", address=...)`` gives an
:class:`Executor` whose ``map(fn, items)`` yields ``fn(item)`` in input order, each as soon as
it and every earlier one are ready. ``fn`` must be a module-level function and items and
results picklable (they cross process and machine boundaries). A :class:`~scir.errors.ScirError`
raised by ``fn`` is raised again by ``map`` as the same error (its message and location), not
wrapped in a pool's or Ray's traceback. The callers (``scir generate``, ``scir verify``,
:mod:`scir.runs.remote`) cut their work into chunks so that the output does not depend on
the executor or the number of workers.
"""

from __future__ import annotations

import argparse
import logging
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, TypeVar

from scir.errors import ConfigError, ScirError

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("local", "ray")
RAY_ADDRESS_ENV = "RAY_ADDRESS"


class ExecutorError(ScirError):
    """A worker that died or a cluster that cannot be reached (not an error of the work)."""


class Executor(ABC):
    """Runs ``fn`` over items somewhere; results come back in input order."""

    name: str = ""
    workers: int = 1

    @abstractmethod
    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn(item)`` for every item, in input order (all items are submitted at once)."""

    # a no-op by default, not abstract: an executor without workers has nothing to release
    def close(self) -> None:  # noqa: B027
        """Release the workers (cancels work not started)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class SerialExecutor(Executor):
    """Everything in this process, one item after the other (``local`` with one worker)."""

    name = "local"
    workers = 1

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        for item in items:
            yield fn(item)


class LocalExecutor(Executor):
    """A pool of ``workers`` processes on this machine (spawned: no solver state is forked)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
        futures = [self._pool.submit(fn, item) for item in items]
        try:
            for future in futures:
                try:
                    yield future.result()
                except BrokenProcessPool as exc:
                    raise ExecutorError(f"a worker process died: {exc}") from None
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class RayExecutor(Executor):
    """Ray tasks (one CPU each) on the cluster at ``address`` (or ``$RAY_ADDRESS``), else on a
    Ray instance started here with ``workers`` CPUs. A Ray already initialised in this process
    (e.g. by a test session) is used as it is and left running on ``close``."""

    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise ConfigError(
                "--executor ray needs Ray: pip install 'scir-toolkit[ray]' (or pip install ray)",
                field="executor",
            ) from exc
        self._ray = ray
        self._owned = False
        if not ray.is_initialized():
            address = address or os.environ.get(RAY_ADDRESS_ENV) or None
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            # Ray's own log handlers stay off (they print at INFO whatever the level asked)
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if address is None:
                options["num_cpus"] = workers or os.cpu_count() or 1
            logging.getLogger("ray").setLevel(logging.ERROR)  # "Started a local Ray ..."
            try:
                ray.init(address=address, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = address or "a local instance"
                raise ExecutorError(
                    f"cannot start or reach Ray at {where}: {exc}", field="ray_address"
                ) from exc
            self._owned = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._remote: dict[Callable, Any] = {}

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        ray = self._ray
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = ray.remote(num_cpus=1, max_retries=0)(fn)
        refs = [remote.remote(item) for item in items]
        done = 0  # refs fetched (or being fetched)
        try:
            for ref in refs:
                done += 1
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    cause = exc.cause
                    if isinstance(cause, ScirError):
                        raise cause.with_traceback(None) from None
                    raise ExecutorError(
                        f"a Ray task failed: {type(cause).__name__}: {cause}"
                    ) from cause
                except ray.exceptions.RayError as exc:  # a worker or node that died
                    raise ExecutorError(
                        f"a Ray worker failed: {type(exc).__name__}: "
                        f"{str(exc).splitlines()[0] if str(exc) else ''}"
                    ) from None
        finally:
            # left early (an error, Ctrl-C, the caller stopped): cancel what was not fetched
            # (only those: cancelling a finished task trips a check in Ray's core worker)
            for ref in refs[done:]:
                try:
                    ray.cancel(ref)
                except (TypeError, ValueError, ray.exceptions.RayError):
                    pass

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


def get_executor(
    name: str = "local", *, workers: int | None = None, address: str | None = None
) -> Executor:
    """The executor called ``name`` (``local`` or ``ray``). ``workers``: local processes
    (default: the CPU count; 1 runs in this process) or the CPUs of a Ray instance started
    here; ``address``: a Ray cluster (default ``$RAY_ADDRESS``; ``local`` ignores it)."""
    if name not in EXECUTORS:
        raise ConfigError(
            f"executor must be one of {', '.join(EXECUTORS)}, got {name!r}", field="executor"
        )
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {workers}", field="workers")
    if name == "ray":
        return RayExecutor(workers, address)
    count = workers or os.cpu_count() or 1
    return SerialExecutor() if count == 1 else LocalExecutor(count)


def chunks(items: list[T], size: int) -> list[list[T]]:
    """``items`` cut into consecutive lists of ``size`` (the last may be shorter)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def chunk_size(count: int, workers: int, per_worker: int = 4) -> int:
    """A chunk size giving each worker about ``per_worker`` chunks of ``count`` items."""
    return max(1, -(-count // (workers * per_worker)))


# ---- command-line flags (scir generate, scir verify, scir eval) ---------------------------
def add_arguments(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """Add ``--executor``, ``--workers`` and ``--ray-address`` to a subcommand."""
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=default,
        help="where chunks run: local (a process pool on this machine) or ray "
        "(a Ray cluster); the output is the same either way"
        + ("" if default else "; default: in this process as before"),
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local: processes (default: CPU count; 1 = in this process); "
        "ray: CPUs of a Ray instance started here",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        help=f"Ray cluster to use (default ${RAY_ADDRESS_ENV}; none: start a local instance)",
    )


def from_arguments(args: argparse.Namespace) -> Executor | None:
    """The executor the flags ask for, or None when ``--executor`` was not given."""
    if args.executor is None:
        if args.workers is not None or args.ray_address is not None:
            raise ConfigError("--workers and --ray-address need --executor", field="executor")
        return None
    return get_executor(args.executor, workers=args.workers, address=args.ray_address)
