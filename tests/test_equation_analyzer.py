"""solvers.equation.analyzer: untrusted analysis code in a sandboxed subprocess (tool T1).

Every hostile snippet must end with the named status, leave no trace outside its folder and
leave the host process (this one) running; after each test no sandbox folder remains.
"""

from __future__ import annotations

import os
import select
import socket
import tempfile
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from solvers.equation.analyzer import AnalysisStatus, analyze
from solvers.errors import ConfigError, SandboxViolation, SolverResourceLimit, SolverTimeout

DATA = np.column_stack([np.arange(1.0, 11.0), np.arange(10.0, 0.0, -1.0),
                        np.arange(1.0, 11.0) ** 2])
COLUMNS = ["x", "t", "y"]


@pytest.fixture(autouse=True)
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory analyze() makes its folders in; empty again afterwards."""
    root = tmp_path / "scratch"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    pid = os.getpid()
    yield root
    assert os.getpid() == pid
    assert list(root.iterdir()) == []


def run(code: str, **kw):
    kw.setdefault("seconds", 20.0)
    return analyze(code, DATA, COLUMNS, **kw)


def test_statistics_are_printed() -> None:
    res = run("print(df['y'].mean()); print(data.shape, columns)\n"
              "print(np.corrcoef(df.x, df.y)[0, 1].round(6))")
    assert res.status is AnalysisStatus.OK, res.text()
    lines = res.stdout.splitlines()
    assert float(lines[0]) == pytest.approx(DATA[:, 2].mean())
    assert lines[1] == "(10, 3) ['x', 't', 'y']"
    assert float(lines[2]) == pytest.approx(np.corrcoef(DATA[:, 0], DATA[:, 2])[0, 1], abs=1e-6)
    assert res.stderr == "" and res.message == "" and res.seconds > 0


def test_dataframe_input_and_writes_inside_the_folder() -> None:
    frame = pd.DataFrame(DATA, columns=COLUMNS)
    res = analyze("df.to_csv('copy.csv', index=False)\nimport os\nos.mkdir('sub')\n"
                  "open('sub/n.txt', 'w').write('7')\n"
                  "print(pd.read_csv('copy.csv').shape, open('sub/n.txt').read())", frame)
    assert res.status is AnalysisStatus.OK, res.text()
    assert res.stdout.strip() == "(10, 3) 7"


def test_the_code_raising_is_an_error_with_its_traceback() -> None:
    res = run("x = 1\nprint('before')\nraise ValueError('no fit here')")
    assert res.status is AnalysisStatus.ERROR
    assert res.stdout == "before\n"
    assert 'File "<analysis>", line 3' in res.stderr and "raise ValueError" in res.stderr
    assert res.message == "ValueError: no fit here"
    assert run("def f(:").status is AnalysisStatus.ERROR


def test_infinite_loop_times_out() -> None:
    res = run("print('started', flush=True)\nwhile True:\n    pass", seconds=2.0)
    assert res.status is AnalysisStatus.TIMEOUT and "time limit" in res.message
    assert res.stdout == "started\n"
    with pytest.raises(SolverTimeout):
        res.raise_for_status()


@pytest.mark.parametrize("code, event", [
    ("import os\nwhile True:\n    os.fork()", "os.fork"),
    ("import subprocess\nwhile True:\n    subprocess.Popen(['sleep', '100'])",
     "subprocess.Popen"),
    ("import os\nos.system('touch /tmp/pwned')", "os.system"),
    ("import os\nos.execv('/bin/true', ['true'])", "os.exec"),
    ("import multiprocessing\nmultiprocessing.Process(target=print).start()", "os.fork"),
    ("import _posixsubprocess", "_posixsubprocess"),
    ("import ctypes\nctypes.CDLL(None).fork()", "ctypes"),
    ("import os\nos.kill(os.getppid(), 9)", "os.kill"),
])
def test_processes_are_refused(code: str, event: str) -> None:
    res = run(code)
    assert res.status is AnalysisStatus.VIOLATION and event in res.message, res.text()
    assert "SandboxRefusal" in res.stderr and "_analyzer_worker" not in res.stderr
    with pytest.raises(SandboxViolation):
        res.raise_for_status()


def test_a_caught_refusal_is_listed() -> None:
    res = run("import os\nn = 0\nfor _ in range(50):\n    try:\n        os.fork()\n"
              "    except PermissionError:\n        n += 1\nprint(n)")
    assert res.status is AnalysisStatus.OK and res.stdout == "50\n"
    assert len(res.refused) == 20 and all("os.fork" in r for r in res.refused)
    assert "[refused 20x: os.fork" in res.text()


@pytest.mark.parametrize("memory_bomb", [
    "x = bytearray(4 * 2**30)",
    "a = []\nwhile True:\n    a.append(np.ones(2**20))",
])
def test_memory_bomb(memory_bomb: str) -> None:
    res = run(memory_bomb, memory_mb=256)
    assert res.status is AnalysisStatus.MEMORY, res.text()
    with pytest.raises(SolverResourceLimit):
        res.raise_for_status()


@pytest.mark.parametrize("template", [
    "open({abs!r}, 'w').write('x')",
    "open('../' + {name!r}, 'w').write('x')",
    "import os\nos.open({abs!r}, os.O_WRONLY | os.O_CREAT)",
    "import os\nos.symlink({abs!r}, 'link')\nopen('link', 'w').write('x')",
    "import os\nfd = os.open('..', os.O_RDONLY)\n"
    "os.open({name!r}, os.O_WRONLY | os.O_CREAT, dir_fd=fd)",
    "import pathlib\npathlib.Path({abs!r}).write_text('x')",
    "import shutil\nopen('a', 'w').write('x')\nshutil.copy('a', {abs!r})",
    "import os\nopen('a', 'w').write('x')\nos.rename('a', {abs!r})",
])
def test_writes_outside_the_folder_are_refused(template: str, scratch: Path) -> None:
    name = f"scir-analyzer-test-{uuid.uuid4().hex}"
    target = scratch.parent / name          # a host folder (the sandbox's /tmp is its own)
    res = run(template.format(abs=str(target), name=name))
    # refused by the hook, or (a host path under /tmp) not there in the sandbox's own /tmp
    assert res.status in (AnalysisStatus.VIOLATION, AnalysisStatus.ERROR), res.text()
    assert not target.exists() and not (scratch / name).exists()


def test_reads_outside_are_refused() -> None:
    res = run("print(open('/etc/passwd').read())")
    assert res.status is AnalysisStatus.VIOLATION and "/etc/passwd" in res.message
    assert res.stdout == ""


def test_network_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        port = server.getsockname()[1]
        res = run(f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), 2)\n"
                  "s.sendall(b'data')")
        readable, _, _ = select.select([server], [], [], 0.5)
        assert not readable                     # no connection ever reached the listener
    assert res.status is AnalysisStatus.VIOLATION and "socket" in res.message


def test_the_hook_cannot_be_rewired() -> None:
    name = f"scir-analyzer-test-{uuid.uuid4().hex}"
    target = Path("/var") / name                    # outside /tmp (the checkout may be in it)
    added = run("import sys\nsys.addaudithook(lambda e, a: None)\nprint('on')")
    assert added.stdout == "on\n"            # Python drops a refused hook silently
    assert added.refused and "sys.addaudithook" in added.refused[0]
    attempts = [
        "import sys\nsys.settrace(lambda *a: None)",
        "import gc\ngc.get_objects()",
        # the worker module's normaliser is not the hook's private copy
        "import sys\nm = sys.modules['__main__']\n"
        "m._normal.__code__ = (lambda p, c: ('/', False)).__code__\n"
        f"open({str(target)!r}, 'w')",
    ]
    for code in attempts:
        res = run(code)
        assert res.status is AnalysisStatus.VIOLATION and res.refused, code
    assert not target.exists()


def test_huge_output_is_truncated() -> None:
    res = run("print('a' * 100000)\nimport os\nos.write(1, b'b' * 100000)\n"
              "import sys\nprint('e' * 50000, file=sys.stderr)", max_output=1000)
    assert res.status is AnalysisStatus.OK
    assert res.stdout == "a" * 1000 and res.stderr == "e" * 1000 and res.truncated
    assert "[output truncated]" in res.text()


def test_environment_is_cleared() -> None:
    os.environ["SCIR_ANALYZER_SECRET"] = "s3cret"
    try:
        res = run("import os\nprint(sorted(os.environ))\nprint(os.environ['OMP_NUM_THREADS'])")
    finally:
        del os.environ["SCIR_ANALYZER_SECRET"]
    assert res.status is AnalysisStatus.OK
    assert "SCIR_ANALYZER_SECRET" not in res.stdout and res.stdout.splitlines()[1] == "1"


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="one distinct column name"):
        analyze("print(1)", DATA, ["x", "t"])
    with pytest.raises(ConfigError):
        analyze(b"print(1)", DATA, COLUMNS)                     # type: ignore[arg-type]
    assert analyze("x" * 200_000, DATA, COLUMNS).status is AnalysisStatus.ERROR


def test_scipy_is_importable() -> None:
    res = run("from scipy.optimize import curve_fit\n"
              "p, _ = curve_fit(lambda x, a: a * x**2, data[:, 0], data[:, 2])\n"
              "print(round(float(p[0]), 6))", seconds=60.0)
    assert res.status is AnalysisStatus.OK, res.text()
    assert res.stdout.strip() == "1.0"
