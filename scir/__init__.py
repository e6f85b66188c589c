"""SciR toolkit: controllable, verifiable scientific-reasoning benchmarks.

The Python API (docs/api.md) is importable from here; it is loaded on first use, so that
``import scir`` (and ``scir --version``) imports nothing else::

    import scir
    tasks = scir.generate("deduction", 5, seed=1)
    print(scir.verify(tasks).ok)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scir.version import __version__

__all__ = [
    "__version__",
    "ApiOptions",
    "Run",
    "Solved",
    "Task",
    "Verification",
    "generate",
    "iter_generate",
    "open_run",
    "read_tasks",
    "render",
    "report",
    "solve",
    "track",
    "track_names",
    "verify",
    "write_tasks",
]

# the names of scir.api (which re-exports the task record, its readers and the registry's
# track_names; not "tracks": scir.tracks is the registry's package)
_API = tuple(__all__[1:])

if TYPE_CHECKING:
    from scir.api import (
        ApiOptions,
        Run,
        Solved,
        Task,
        Verification,
        generate,
        iter_generate,
        open_run,
        read_tasks,
        render,
        report,
        solve,
        track,
        track_names,
        verify,
        write_tasks,
    )


def __getattr__(name: str) -> Any:
    """The API's names, imported from :mod:`scir.api` on first use."""
    if name in _API:
        from scir import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scir' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
