"""Fixtures shared by the whole suite.

Markers (``slow``, ``llm``, ``network``) are registered in pyproject.toml. The environment
variables below are set at import, before any test imports torch or tokenizers: no
torch.compile at the first masked token, no tokenizer thread pools fighting over two cores.
The tiny model is built and loaded once per session (``tiny``, ``tiny_cache``); the helper
module ``formalize_helpers`` gets pytest's assertion rewriting like a test module.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

os.environ["TORCHDYNAMO_DISABLE"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

# Property tests draw their examples from a fixed seed: a run in CI is reproducible, and a
# failure found once is found again. Set SCIR_HYPOTHESIS_RANDOM=1 to explore new examples.
# No per-example deadline: the properties check results, not speed (a loaded machine made
# them fail with DeadlineExceeded); pytest-timeout still bounds every test.
settings.register_profile("scir", derandomize=not os.environ.get("SCIR_HYPOTHESIS_RANDOM"),
                          print_blob=True, deadline=None)
settings.load_profile("scir")
pytest.register_assert_rewrite("formalize_helpers")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"


@pytest.fixture(scope="session")
def python() -> str:
    """The interpreter running the tests (for ``python -m ...`` subprocesses)."""
    return sys.executable


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder shared by every test of the session (use sub-folders per test)."""
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="session")
def tiny_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``SCIR_CACHE_DIR`` of the session's tiny-model tests (the model is built into it
    once; see :mod:`scir.llm.tiny`)."""
    return tmp_path_factory.mktemp("scir-cache")


@pytest.fixture(scope="session")
def tiny(tiny_cache_dir: Path):
    """The tiny model as a backend, built into ``tiny_cache_dir`` and loaded once per session."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCIR_CACHE_DIR", str(tiny_cache_dir))
        from scir.llm import get_backend

        return get_backend("tiny")


@pytest.fixture
def tiny_cache(tiny_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``SCIR_CACHE_DIR`` set to the session's cache folder for one test, so that a
    ``--model tiny`` command loads the model built there (or builds it there once)."""
    monkeypatch.setenv("SCIR_CACHE_DIR", str(tiny_cache_dir))
    return tiny_cache_dir


@pytest.fixture(scope="session")
def horn_track_class():
    """The example track class of docs/examples/horn_track.py (imported from that folder)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(EXAMPLES))
        import horn_track

        yield horn_track.HornTrack


@pytest.fixture
def horn_registered(horn_track_class):
    """The example track registered as ``horn`` for the duration of one test."""
    from scir.tracks import register, unregister

    register("horn", horn_track_class)
    yield horn_track_class
    unregister("horn")


def write_dist_info(folder: Path, dist: str, group: str, entries: dict[str, str]) -> Path:
    """A minimal installed distribution (``*.dist-info`` with ``entry_points.txt``) in
    ``folder``, which makes ``folder`` on sys.path / PYTHONPATH announce the entry points."""
    info = folder / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
                                   encoding="utf-8")
    lines = [f"[{group}]"] + [f"{name} = {target}" for name, target in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return info


@pytest.fixture(scope="session")
def make_dist_info():
    """:func:`write_dist_info`, for tests that announce entry points of their own."""
    return write_dist_info


@pytest.fixture(scope="session")
def horn_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for a ``python -m scir`` subprocess that finds the horn example through
    its entry point (a dist-info folder plus docs/examples on PYTHONPATH)."""
    folder = tmp_path_factory.mktemp("horn-dist")
    write_dist_info(folder, "horn_example", "scir.tracks", {"horn": "horn_track:HornTrack"})
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(folder), str(EXAMPLES), str(ROOT)]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


@pytest.fixture(scope="module")
def sandboxes():
    """``get(**settings)``: one Sandbox per distinct settings for a test module, closed after it."""
    from solvers.sandbox import Sandbox

    pool: dict[tuple, Sandbox] = {}

    def get(**settings) -> Sandbox:
        key = tuple(sorted(settings.items()))
        if key not in pool:
            pool[key] = Sandbox(**settings)
        return pool[key]

    yield get
    for sb in pool.values():
        sb.close()
