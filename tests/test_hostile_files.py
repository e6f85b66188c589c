"""Hostile experiment files and imports (issue 25): self-describing fixtures, one parametrized
test per folder.

- ``tests/hostile/experiments/NAME.toml``: an experiment file whose header comments state the
  story, the ``Command`` (``{file}`` the fixture, ``{run}`` a run folder that must not be
  created), the ``Exit`` code, the ``Match`` pattern of the one stderr line and, where there
  is one, the ``Field`` the error names.
- ``tests/hostile/imports/NAME.json``: a ``scir import llmsr`` case: the problem folder the test
  builds (``build``), the exit code, the pattern of the one stderr line and the output file
  that must not be written.

Every case runs the real command through ``scir.cli.main``; the error must be one line starting
with ``error: `` (and the file, where the case names one), with no traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scir.cli import main

HOSTILE = Path(__file__).resolve().parent / "hostile"
ROOT = HOSTILE.parents[1]


def header(path: Path) -> dict[str, str]:
    """The ``# Key: value`` lines at the top of a fixture."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(": ")
        if sep and key in ("Command", "Exit", "Match", "Field"):
            out[key] = value
    return out


def one_error_line(err: str, pattern: str, starts: str) -> None:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {starts}"), err
    assert re.search(pattern, err), (pattern, err)


# ---------------------------------------------------------------- experiment files

@pytest.mark.parametrize("path", sorted((HOSTILE / "experiments").glob("*.toml")),
                         ids=lambda p: p.stem)
def test_hostile_experiment(path: Path, tmp_path: Path, capsys):
    head = header(path)
    run = tmp_path / "run"
    argv = [a.format(file=path, run=run) for a in head["Command"].split()]
    capsys.readouterr()
    assert main(argv) == int(head["Exit"])
    err = capsys.readouterr().err
    one_error_line(err, head["Match"], argv[1])
    if "Field" in head:
        assert f"field {head['Field']!r}" in err, err
    assert not run.exists()                 # refused before the run folder is made


def test_experiment_errors_name_the_field():
    """The fixtures that state a field get a ConfigError whose ``field`` is that field."""
    from scir.errors import ConfigError
    from scir.experiments.experiment import load_experiment

    checked = 0
    for path in sorted((HOSTILE / "experiments").glob("*.toml")):
        head = header(path)
        if "Field" not in head:
            continue
        with pytest.raises(ConfigError) as info:
            load_experiment(path)
        assert info.value.field == head["Field"] and info.value.file == str(path)
        checked += 1
    assert checked >= 10


def test_repeats_billion_dry_run_in_bounded_memory():
    """The process itself, under a 1 GiB address-space limit: ``repeats = 1000000000`` with
    ``--dry-run`` is refused at once (it used to exhaust memory building the seed list)."""
    import resource

    path = HOSTILE / "experiments" / "repeats_billion.toml"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = subprocess.run([sys.executable, "-m", "scir", "eval", str(path), "--run",
                           "/nonexistent/run", "--dry-run"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, preexec_fn=limit,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 2, proc.stderr
    one_error_line(proc.stderr, "repeats: Input should be less than or equal to 1000",
                   str(path))


# ---------------------------------------------------------------- imports

DATA = "x,y\n1,2\n2,4\n3,6\n"


def make_chain(base: Path, count: int) -> None:
    """``count`` folders ``d`` inside each other under ``base`` (made through directory
    descriptors: the path outgrows PATH_MAX)."""
    fd = os.open(base, os.O_RDONLY)
    try:
        for _ in range(count):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def remove_chain(base: Path) -> None:
    """Empty a chain of folders ``d`` under ``base`` bottom-up without recursion
    (shutil.rmtree recurses once per level)."""
    fds = [os.open(base, os.O_RDONLY)]
    try:
        while True:
            try:
                fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        while fds:
            fd = fds.pop()
            for name in os.listdir(fd):
                (os.rmdir if name == "d" else os.unlink)(name, dir_fd=fd)
            os.close(fd)
    finally:
        for fd in fds:
            os.close(fd)


def build_import(spec: dict, root: Path) -> Path:
    """The problem tree an import case describes, under ``root/physics``; returns the folder
    of the problem (or the root)."""
    base = root / "physics"
    base.mkdir(parents=True)
    if "folders" in spec:
        make_chain(base, spec["folders"])
        return base
    folder = base
    if spec["nesting"]:
        make_chain(base, spec["nesting"])
        folder = base.joinpath(*["d"] * spec["nesting"])
    for name in ("train.csv", "test_id.csv", "test_ood.csv"):
        (folder / name).write_text(DATA)
    text = spec.get("equation.json")
    if text is not None:
        (folder / "equation.json").write_text(
            text.get("before", "") + text["open"] * text["times"] + text.get("inner", "")
            + text["close"] * text["times"] + text.get("after", ""))
    return folder


@pytest.mark.parametrize("path", sorted((HOSTILE / "imports").glob("*.json")),
                         ids=lambda p: p.stem)
def test_hostile_import(path: Path, tmp_path: Path, capsys):
    spec = json.loads(path.read_text(encoding="utf-8"))
    root = tmp_path / "lsr"
    folder = build_import(spec["build"], root)
    out = tmp_path / "out.jsonl"
    try:
        capsys.readouterr()
        assert main(["import", "llmsr", str(root), "-o", str(out)]) == spec["exit"]
        err = capsys.readouterr().err
        named = str(root) if spec["names"] == "{root}" else str(folder / spec["names"])
        one_error_line(err, spec["match"], named)
        assert not out.exists()
    finally:
        remove_chain(root / "physics")


# ---------------------------------------------------------------- a run folder's own records

def test_deep_records_in_a_run_folder_are_one_line(tmp_path: Path, capsys):
    """``experiment.json``, a generated task list's ``.spec.json`` and the lock file of a run
    folder nested 50,000 levels deep: ``scir eval`` refuses in one line naming the file,
    ``scir explore`` notes it, and a refused second writer still says the run is in use
    (each was a RecursionError traceback)."""
    import fcntl

    exp = tmp_path / "e.toml"
    exp.write_text('architectures = ["oracle"]\npresentations = ["nl"]\ntasks_per_cell = 1\n'
                   '[tasks.deduction.easy]\nn = 1\nseed = 1\n')
    run = tmp_path / "run"
    assert main(["eval", str(exp), "--run", str(run)]) == 0
    deep = "[" * 50_000 + "]" * 50_000
    for name in ("experiment.json", "tasks/deduction-easy.spec.json"):
        saved = (run / name).read_text()
        (run / name).write_text(deep)
        capsys.readouterr()
        assert main(["eval", str(exp), "--run", str(run)]) == 2
        one_error_line(capsys.readouterr().err, "JSON nested more than 64 levels deep",
                       str(run / name))
        if name == "experiment.json":
            assert main(["explore", str(run), "-o", str(tmp_path / "site")]) == 0
            assert "cannot read its experiment" in capsys.readouterr().out
        (run / name).write_text(saved)
    lock = run / ".lock"
    with open(lock, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        holder.write("[" * 30_000)
        holder.flush()
        capsys.readouterr()
        assert main(["eval", str(exp), "--run", str(run)]) == 2
        one_error_line(capsys.readouterr().err, "the run is in use by another process",
                       str(run))
