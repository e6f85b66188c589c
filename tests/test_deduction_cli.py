"""The deduction track through the ``scir`` command line: generate, verify (and a tampered
answer), export to Prover9 files run with the bare binary, and a golden file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scir.cli import main
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from solvers.prover9 import ProverStatus, run_file

GOLDEN = Path(__file__).parent / "fixtures" / "deduction" / "easy-seed3.jsonl"


@pytest.fixture(scope="module")
def hard_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("deduction") / "hard.jsonl"
    assert main(["generate", "deduction", "--difficulty", "hard", "-n", "6", "--seed", "21",
                 "-o", str(path)]) == 0
    return path


def test_generate_and_verify_hard(hard_file, capsys):
    tasks = read_tasks(hard_file)
    assert [t.task_id for t in tasks] == [f"deduction-e6d1-21-{i}" for i in range(6)]
    assert sorted(t.answer for t in tasks) == ["False", "False", "True", "True", "Unknown",
                                               "Unknown"]
    capsys.readouterr()
    assert main(["verify", str(hard_file)]) == 0
    assert "verified 6/6 tasks (deduction 6); 0 failed" in capsys.readouterr().out


def test_custom_depth_and_width(tmp_path):
    out = tmp_path / "custom.jsonl"
    assert main(["generate", "deduction", "--depth", "3", "--width", "3", "-n", "3",
                 "--seed", "4", "-o", str(out)]) == 0
    tasks = read_tasks(out)
    assert {t.tier for t in tasks} == {"e3d3"} and {t.difficulty for t in tasks} == {"custom"}
    assert all(len(t.formal["distractors"]) == 3 for t in tasks)


def test_tampered_answer_is_named(hard_file, tmp_path, capsys):
    tasks = read_tasks(hard_file)
    victim = tasks[4]
    wrong = "False" if victim.answer != "False" else "True"
    victim.answer, victim.answer_pool = wrong, [wrong]
    path = tmp_path / "tampered.jsonl"
    write_tasks(path, tasks)
    capsys.readouterr()
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert re.findall(r"(?m)^FAILED (\S+):", out) == [victim.task_id]
    assert f"stored answer {wrong!r}, the solvers establish" in out
    assert "verified 5/6 tasks" in out


def test_export_prover9_files_run_with_the_bare_binary(hard_file, tmp_path, capsys):
    out = tmp_path / "p9"
    assert main(["export", str(hard_file), "--format", "prover9", "-o", str(out)]) == 0
    assert "(12 files)" in capsys.readouterr().out
    for task in read_tasks(hard_file):
        goal, negated = out / f"{task.task_id}.goal.in", out / f"{task.task_id}.negated.in"
        text = goal.read_text(encoding="utf-8")
        assert "assign(max_seconds, 10)." in text and "clear(auto_denials)." in text
        assert all(f"{p}." in text for p in task.formal["premises"])
        expected = {"True": (ProverStatus.PROVED, ProverStatus.NOT_PROVED),
                    "False": (ProverStatus.NOT_PROVED, ProverStatus.PROVED),
                    "Unknown": (ProverStatus.NOT_PROVED, ProverStatus.NOT_PROVED)}[task.answer]
        results = [run_file(goal), run_file(negated)]
        assert tuple(r.status for r in results) == expected, task.task_id
        assert [r.exit_code for r in results] == \
            [0 if s is ProverStatus.PROVED else 2 for s in expected]


def test_export_scir_subset(hard_file, tmp_path):
    out = tmp_path / "release.json"
    assert main(["export", str(hard_file), "--format", "scir", "-o", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert [r["tier"] for r in rows] == ["e6d1"] * 6
    assert rows[0]["domain_metadata"]["context"]
    assert all(r["problem_nl"].count("\n\n") == 1 for r in rows)


def test_golden_file(tmp_path):
    """Three Easy tasks, seed 3, byte for byte. After an intended change of the generator or
    the vocabulary, regenerate with ``scir generate deduction --difficulty easy -n 3
    --seed 3 -o tests/fixtures/deduction/easy-seed3.jsonl``.
    """
    out = tmp_path / "easy.jsonl"
    assert main(["generate", "deduction", "--difficulty", "easy", "-n", "3", "--seed", "3",
                 "-o", str(out)]) == 0
    assert out.read_bytes() == GOLDEN.read_bytes()


@pytest.mark.slow
def test_docs_examples_are_real_output(tmp_path):
    """The three examples of docs/tracks/deduction.md are what the generator writes."""
    doc = (Path(__file__).parent.parent / "docs" / "tracks" / "deduction.md").read_text(
        encoding="utf-8")
    quoted = " ".join(line[1:].strip() for line in doc.splitlines() if line.startswith(">"))
    found = 0
    for level in ("easy", "hard"):
        out = tmp_path / f"{level}.jsonl"
        assert main(["generate", "deduction", "--difficulty", level, "-n", "6", "--seed",
                     "2026", "-o", str(out)]) == 0
        for task in read_tasks(out):
            if f"`{task.task_id}`" not in doc:
                continue
            found += 1
            heading = next(line for line in doc.splitlines() if f"`{task.task_id}`" in line)
            assert f"answer {task.answer}" in heading
            for text in (*task.blocks, task.question):
                assert " ".join(text.split()) in quoted, task.task_id
    assert found == 3
