"""Induction from the command line: generate/verify (and tampering), export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scir.cli import main
from scir.tracks.reading import read_tasks
from solvers.prolog.terms import quote_atom

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def task_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("induction") / "i.jsonl"
    assert main(["generate", "induction", "--difficulty", "hard", "-n", "3", "--seed", "7",
                 "-o", str(out)]) == 0
    return out


def _rewrite(src: Path, dst: Path, index: int, change) -> str:
    lines = src.read_text().splitlines()
    data = json.loads(lines[index])
    change(data)
    lines[index] = json.dumps(data)
    dst.write_text("\n".join(lines) + "\n")
    return data["task_id"]


def test_same_seed_gives_a_byte_identical_file_across_processes(task_file, tmp_path):
    # a separate process has another string-hash seed: set iteration order must not leak
    out = tmp_path / "again.jsonl"
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run([sys.executable, "-m", "scir", "generate", "induction", "--difficulty",
                    "hard", "-n", "3", "--seed", "7", "-o", str(out)], cwd=ROOT, env=env,
                   check=True, timeout=300, capture_output=True)
    assert out.read_bytes() == task_file.read_bytes()


def test_verify_accepts_the_generated_file(task_file, capsys):
    assert main(["verify", str(task_file)]) == 0
    assert "verified 3/3 tasks (induction 3); 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize("tamper,reason", [
    (lambda d: d["answer_pool"].append("binds,substrate_of"), "stored answer pool"),
    (lambda d: d.update(answer="agonist_of,binds", answer_pool=["agonist_of,binds"])
     if d["answer"] != "agonist_of,binds"
     else d.update(answer="binds,binds", answer_pool=["binds,binds"]), "is not the formal target"),
    (lambda d: d["formal"]["facts"].clear(), "not in the answer pool"),
])
def test_verify_fails_on_a_tampered_task_naming_it(task_file, tmp_path, capsys, tamper, reason):
    bad = tmp_path / "tampered.jsonl"
    task_id = _rewrite(task_file, bad, 1, tamper)
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"FAILED {task_id}:" in out and reason in out
    assert "verified 2/3 tasks" in out


def _task(task_file: Path):
    return read_tasks(task_file)[0]


# check-rule (an alias of `scir check`) is tested in tests/test_check.py


def test_export_popper_from_the_command_line(task_file, tmp_path, capsys):
    out = tmp_path / "popper"
    assert main(["export", str(task_file), "--format", "popper", "-o", str(out)]) == 0
    assert "(9 files)" in capsys.readouterr().out
    task = _task(task_file)
    bias = (out / task.task_id / "bias.pl").read_text()
    for line in ("head_pred(interacts,2).", "type(interacts,(drug,drug)).", "max_vars(3).",
                 "max_body(2).", "max_clauses(1)."):
        assert line in bias
    for rel in sorted({f[0] for f in task.formal["facts"]}):
        assert f"body_pred({rel},2)." in bias and f"type({rel},(drug,protein))." in bias
    bk = (out / task.task_id / "bk.pl").read_text()
    assert sum(1 for line in bk.splitlines() if line.endswith(").")) == len(task.formal["facts"])


@pytest.mark.parametrize("name,quoted", [
    ("velorastat", "velorastat"), ("kx3a1", "kx3a1"), ("KX3A1", "'KX3A1'"),
    ("o'neil", "'o\\'neil'"), ("two words", "'two words'"), ("back\\slash", "'back\\\\slash'"),
    ("_x", "'_x'"), ("", "''"), ("+", "+"), ("tab\there", "'tab\\there'"),
])
def test_export_quotes_atoms_with_quote_atom(name, quoted):
    """The Popper export writes atoms with solvers.prolog.terms.quote_atom (the one writer;
    the ids of a task are plain identifiers, written bare)."""
    assert quote_atom(name) == quoted


def test_quoted_atoms_read_back_in_prolog():
    from solvers.prolog import Engine

    names = ["o'neil", "two words", "back\\slash", "KX3A1", "velorastat", "+", "tab\there"]
    with Engine().module() as module:
        for name in names:
            # the quoted text read by Prolog's own reader is the original atom
            row = module.query_once("term_to_atom(T, Text)", {"Text": quote_atom(name)})
            assert row is not None and row["T"] == name
