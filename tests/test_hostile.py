"""The hostile corpus (issue 16): self-describing fixtures, one parametrized test per family.

- ``tests/hostile/task_files/``: bad task files. Each ``NAME.expect`` (JSON) states the error
  class, a message pattern and the line; the data is ``NAME.jsonl`` beside it, or, for files
  that cannot live in the repository (a FIFO, /dev/zero, a 16 MiB line, an unreadable file),
  the ``build`` the test makes at run time.
- ``tests/hostile/records/``: records that pass the JSON schema but are malformed inside, per
  track. Each ``NAME.json`` names a base record (``tests/hostile/base/TRACK.jsonl``, a real
  generated task), the changes (``set`` dotted paths, ``delete``) and the error expected.
- ``tests/hostile/exports/``: export traversal and injection. Each ``NAME.json`` gives the
  change to a base record, the format, the error reading must give (``read``) and the error
  the exporter itself must give when handed the unvalidated record (``export``); nothing may
  appear outside ``-o`` and a failed export leaves the output as it was. ``prover9_*.json``
  runs a Prover9 file whose own ``assign(max_seconds, ...)`` must not set our kill timer.

Every case runs the real reader, the real exporters and real Prover9, in milliseconds to a few
seconds, and checks the one-line ``file:line, task, field: message`` form of the error.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import scir.errors as errors
from scir.cli import main
from scir.outputs import staged
from scir.jsonl import MAX_LINE_BYTES
from scir.tasks import Document, Task
from scir.tracks.reading import read_tasks
from scir.tracks import get_track

HOSTILE = Path(__file__).resolve().parent / "hostile"
ROOT = HOSTILE.parents[1]


def cases(folder: str, pattern: str) -> list[Path]:
    return sorted((HOSTILE / folder).glob(pattern))


def base_record(track: str) -> dict[str, Any]:
    return json.loads((HOSTILE / "base" / f"{track}.jsonl").read_text(encoding="utf-8"))


def _value(value: Any) -> Any:
    if isinstance(value, dict) and "$repeat" in value:
        return value["$repeat"] * value["times"]
    return value


def _walk(data: Any, dotted: str) -> tuple[Any, Any]:
    *parents, last = dotted.split(".")
    for key in parents:
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data, int(last) if isinstance(data, list) else last


def hostile_record(spec: dict[str, Any]) -> dict[str, Any]:
    """The base record of ``spec`` with its ``set`` and ``delete`` changes applied."""
    data = copy.deepcopy(base_record(spec["base"]))
    for dotted, value in spec.get("set", {}).items():
        parent, key = _walk(data, dotted)
        parent[key] = _value(value)
    for dotted in spec.get("delete", []):
        parent, key = _walk(data, dotted)
        del parent[key]
    return data


def write_records(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return path


def check_error(exc: BaseException, expect: dict[str, Any], file: str | None) -> None:
    """``exc`` is the expected class, matches the pattern, names the file first, the line and
    the field, and prints as one line."""
    assert type(exc).__name__ == expect["error"], repr(exc)
    assert isinstance(exc, getattr(errors, expect["error"]))
    text = str(exc)
    assert re.search(expect["match"], text), text
    assert "\n" not in text and "\r" not in text and "\x00" not in text, text
    if file is not None:
        assert exc.file == file and text.startswith(file), text
    if "line" in expect:
        assert exc.line == expect["line"], text
    if "field" in expect:
        assert exc.field == expect["field"], text


# ---------------------------------------------------------------- bad task files

@contextlib.contextmanager
def as_nobody():
    """Drop the effective uid to nobody for the block when running as root (so permission
    bits apply), else do nothing."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)


def build_task_file(kind: str, tmp: Path) -> str:
    """Make the file a ``build`` case describes; returns its path."""
    path = tmp / f"{kind}.jsonl"
    good = (HOSTILE / "base" / "causal.jsonl").read_bytes()
    if kind == "deep_nesting":
        path.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    elif kind == "long_line":
        with path.open("wb") as handle:
            handle.write(good)
            handle.write(b'{"task_id": "' + b"x" * MAX_LINE_BYTES + b'"}\n')
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        return "/dev/zero"
    elif kind == "directory":
        path.mkdir()
    elif kind == "missing":
        pass
    elif kind == "unreadable":
        path.write_bytes(good)
        path.chmod(0)
    elif kind == "read_error":
        return "/proc/self/mem"     # a regular file whose first read fails with EIO
    elif kind == "nul_in_path":
        return str(tmp / "a\x00b.jsonl")
    else:
        raise AssertionError(f"unknown build {kind!r}")
    return str(path)


@pytest.mark.parametrize("expect_file", cases("task_files", "*.expect"), ids=lambda p: p.stem)
def test_bad_task_file(expect_file: Path, tmp_path: Path):
    expect = json.loads(expect_file.read_text(encoding="utf-8"))
    data = expect_file.with_suffix(".jsonl")
    path = build_task_file(expect["build"], tmp_path) if "build" in expect else str(data)
    with as_nobody() if expect.get("build") == "unreadable" else contextlib.nullcontext():
        with pytest.raises(errors.ScirError) as info:
            read_tasks(path)
    check_error(info.value, expect, path if "\x00" not in path else None)


# ---------------------------------------------------------------- hostile records

@pytest.mark.parametrize("spec_file", cases("records", "*.json"), ids=lambda p: p.stem)
def test_hostile_record(spec_file: Path, tmp_path: Path):
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    good = base_record(spec["base"])
    path = write_records(tmp_path / "tasks.jsonl", good, hostile_record(spec))
    with pytest.raises(errors.ScirError) as info:
        read_tasks(path)
    check_error(info.value, {**spec["expect"], "line": 2}, str(path))
    assert info.value.task_id in (None, hostile_record(spec)["task_id"])
    assert len(read_tasks(write_records(tmp_path / "good.jsonl", good))) == 1  # base is fine


# ---------------------------------------------------------------- exports

def unvalidated_task(data: dict[str, Any]) -> Task:
    """A Task built without the reader's checks (as Python code calling an exporter might)."""
    fields = {k: v for k, v in data.items() if k not in ("schema_version", "documents")}
    return Task(documents=[Document(**d) for d in data.get("documents", [])], **fields)


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (not following links) with its content."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        out[rel] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return out


def exporter(track: str, fmt: str):
    return get_track(track).exporters()[fmt]


def run_prover9_case(spec: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from solvers import prover9

    monkeypatch.setattr(prover9, "FILE_MAX_SECONDS", spec["file_max_seconds"])
    path = HOSTILE / "exports" / spec["prover9_file"]
    assert "assign(max_seconds, 100000)" in path.read_text()
    result = prover9.run_file(path)
    expect = spec["expect"]
    assert result.status.value == expect["status"]
    assert result.exit_code == expect["exit_code"]     # Prover9 stopped itself (-t), not killed
    assert result.seconds < expect["max_seconds_wall"]


@pytest.mark.parametrize("spec_file", cases("exports", "*.json"), ids=lambda p: p.stem)
def test_hostile_export(spec_file: Path, tmp_path: Path, capsys, monkeypatch):
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    if "prover9_file" in spec:
        run_prover9_case(spec, monkeypatch)
        return
    work = tmp_path / "work"
    out = work / "a" / "b" / "out"                  # ../../X from out lands in work/
    out.mkdir(parents=True)
    (out / "keep.txt").write_text("an earlier export\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    good = base_record(spec["base"])
    hostile = hostile_record(spec)
    if spec.get("symlink_task_folder"):             # out/<task_id> -> a folder outside
        hostile = dict(good, task_id=good["task_id"] + ".2")
        os.symlink(outside, out / hostile["task_id"])
    source = write_records(tmp_path / "tasks.jsonl", good, hostile)
    before_work, before_outside = tree(work), tree(outside)

    # 1. the reader refuses the record, so no command starts on it
    if spec["read"] is not None:
        with pytest.raises(errors.ScirError) as info:
            read_tasks(source)
        check_error(info.value, {**spec["read"], "line": 2}, str(source))

    # 2. the exporter itself refuses the unvalidated record; staged, the good task before it
    #    leaves nothing behind and the existing output is untouched
    with pytest.raises(errors.ScirError) as info:
        with staged(out) as stage:
            exporter(spec["base"], spec["format"])(
                [unvalidated_task(good), unvalidated_task(hostile)], stage)
    check_error(info.value, spec["export"], None)
    assert tree(work) == before_work and tree(outside) == before_outside

    # 3. the command: exit 2, one line naming the file first, nothing written anywhere
    capsys.readouterr()
    assert main(["export", str(source), "--format", spec["format"], "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    if spec["read"] is not None:
        assert err.startswith(f"error: {source}:2"), err
    assert tree(work) == before_work and tree(outside) == before_outside


def test_export_of_good_tasks_writes_inside_the_output_only(tmp_path: Path):
    """The counterpart of the hostile exports: the same base records export, into ``-o``."""
    for track, fmt, names in (("deduction", "prover9", {".goal.in", ".negated.in"}),
                              ("induction", "popper", {"/bk.pl", "/exs.pl", "/bias.pl"}),
                              ("causal", "csv", {".csv", ".json", ".targets.json"})):
        out = tmp_path / track / "out"
        record = base_record(track)
        source = write_records(tmp_path / f"{track}.jsonl", record)
        assert main(["export", str(source), "--format", fmt, "-o", str(out)]) == 0
        files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
        assert files == {record["task_id"] + suffix for suffix in names}
        assert sorted(p.name for p in out.parent.iterdir()) == ["out"]   # no temporary left


# ---------------------------------------------------------------- the command line

CLI_CASES = [
    # (command, fixture family, fixture): a crash of the issue, now exit 2 and one line
    (["solve", "{file}", "--arch", "oracle", "--run", "{tmp}/run"], "records",
     "induction_pos_int"),
    (["render", "{file}", "-o", "{tmp}/r.jsonl"], "records", "deduction_premise_int"),
    (["export", "{file}", "--format", "csv", "-o", "{tmp}/csv"], "exports", "nul_task_id_csv"),
    (["verify", "{file}"], "records", "causal_row_string"),
    (["stats", "{file}"], "records", "generic_unknown_domain"),
]


@pytest.mark.parametrize("argv,family,name", CLI_CASES, ids=[c[2] for c in CLI_CASES])
def test_cli_bad_input_is_exit_2_one_line_file_first(argv, family, name, tmp_path, capsys):
    spec = json.loads((HOSTILE / family / f"{name}.json").read_text(encoding="utf-8"))
    source = write_records(tmp_path / "tasks.jsonl", base_record(spec["base"]),
                           hostile_record(spec))
    argv = [a.format(file=source, tmp=tmp_path) for a in argv]
    capsys.readouterr()
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {source}:2, "), captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tasks.jsonl"]  # nothing written


@pytest.mark.parametrize("argv,named", [
    (["render", "{good}", "-o", "/dev/null/x/r.jsonl"], "/dev/null/x/r.jsonl"),
    (["export", "{good}", "--format", "prover9", "-o", "/dev/null/x"], "/dev/null"),
    (["export", "{good}", "--format", "scir", "-o", "/dev/null/x.json"], "/dev/null"),
    (["generate", "deduction", "-n", "1", "-o", "/dev/null/x.jsonl"], "/dev/null/x.jsonl"),
], ids=["render", "export-folder", "export-file", "generate"])
def test_cli_output_that_cannot_be_written_is_one_line(argv, named, capsys):
    good = HOSTILE / "base" / "deduction.jsonl"
    capsys.readouterr()
    assert main([a.format(good=good) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {named}") and err.count("\n") == 1, err


def test_cli_process_prints_no_traceback(tmp_path: Path):
    """The real entry point, as a process: each bad input gives exit 2 and one stderr line
    that starts with the file."""
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    script = ("import sys\nfrom scir.cli import main\n"
              "codes = [main(['stats', f]) for f in sys.argv[1:]]\n"
              "sys.exit(0 if codes == [2] * len(codes) else 1)\n")
    files = [str(deep), str(fifo), "/dev/zero", str(HOSTILE / "task_files" / "huge_int.jsonl")]
    proc = subprocess.run([sys.executable, "-c", script, *files], capture_output=True,
                          text=True, timeout=60, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == len(files) and "Traceback" not in proc.stderr, proc.stderr
    for line, name in zip(lines, files):
        assert line.startswith(f"error: {name}"), line


# ---------------------------------------------------------------- property: no crash anywhere

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**30) | st.floats(allow_nan=False)
    | st.sampled_from(["", "x", "A", "True", "../x", "a\nb", "p(a)", "substrate_of,binds",
                       "XYZ -> Akt", "all x (p(x) -> q(x))"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["conclusion", "rule", "premises", "name", "rows", "targets", "a"]),
        inner, max_size=3),
    max_leaves=6)
EXPORT_FORMAT = {"deduction": "prover9", "induction": "popper", "causal": "csv"}


def record_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Paths into a record (the first three items of each list), for mutations."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += record_paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            out += record_paths(item, prefix + (index,))
    return out


PATHS = {track: record_paths(base_record(track)) for track in EXPORT_FORMAT}


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(track=st.sampled_from(sorted(EXPORT_FORMAT)), data=st.data())
def test_any_change_is_refused_in_one_line_or_survives_every_command(track, data, tmp_path):
    """A record changed at any place to any JSON value is either refused when read (one line,
    file first) or handled by stats, export and render without a traceback."""
    record = copy.deepcopy(base_record(track))
    path = data.draw(st.sampled_from(PATHS[track]))
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = data.draw(JSON_VALUES)
    case = Path(tempfile.mkdtemp(dir=tmp_path))
    source = write_records(case / "tasks.jsonl", record)
    try:
        read_tasks(source)
    except errors.TaskFormatError as exc:
        text = str(exc)
        assert text.startswith(str(source)) and "\n" not in text, text
        return
    for argv in (["stats", str(source)],
                 ["export", str(source), "--format", EXPORT_FORMAT[track], "-o", str(case / "x")],
                 ["export", str(source), "--format", "hf", "-o", str(case / "hf")],
                 ["render", str(source), "-o", str(case / "r.jsonl")]):
        assert main(argv) in (0, 2), argv
