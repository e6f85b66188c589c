"""docs/api.md runs as written: its ``python`` blocks are executed in order, in one namespace
(as one notebook would run them), in an empty temporary folder holding a link to the
checkout's ``docs/examples`` (the page's own-track example reads the horn track from there),
with the tiny model built once per session. Any exception or failed ``assert`` in a block fails
the test, naming the block. Also: ``import scir`` loads no other module of the toolkit, and the
``scir`` command's generate / verify / solve / report call the API."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.slow
def test_api_page_runs(tmp_path, monkeypatch, tiny_cache_dir):
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "examples").symlink_to(ROOT / "docs" / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCIR_CACHE_DIR", str(tiny_cache_dir))
    monkeypatch.delenv("SCIR_TRACKS", raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))      # the page's sys.path.insert
    namespace: dict = {"__name__": "__api_md__"}
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"docs/api.md block {number}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"docs/api.md, python block {number} failed:\n{block}") from exc
    assert (tmp_path / "runs" / "tiny" / "tasks").is_dir()    # listed tasks kept in the run


def test_import_scir_is_cheap():
    code = ("import sys, scir; "
            "print(sorted(m for m in sys.modules if m.startswith(('scir.', 'solvers'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    assert done.stdout.strip() == "['scir.version']"         # the version, nothing else


def test_api_names_are_exported():
    import scir
    from scir import api

    for name in api.__all__:
        assert getattr(scir, name) is getattr(api, name)
    assert set(api.__all__) <= set(dir(scir))
    with pytest.raises(AttributeError):
        scir.no_such_name  # noqa: B018


def test_commands_call_the_api():
    """The commands do not carry logic of their own beside the API's."""
    from scir import api
    from scir.commands import generate, report, solve, verify

    for module in (generate, verify, solve):
        assert module.api is api
    assert generate.generate_chunk is api.generate_chunk
    assert verify.verify_one is api.verify_one
    text = {m: Path(m.__file__).read_text(encoding="utf-8")
            for m in (generate, verify, solve, report)}
    assert "api.iter_generate(" in text[generate]
    assert "api.verify(" in text[verify]
    assert "api.solve(" in text[solve] and "run_tasks" not in text[solve]
    assert "api.report(" in text[report] and "build_report(" not in text[report]
