"""Induction from the command line: generate/verify (and tampering), check-rule, export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scir.cli import main
from scir.errors import FormalizationError
from scir.tasks import read_tasks
from scir.tracks.induction.export import prolog_atom
from scir.tracks.induction.rules import check_rule, parse_rule
from scir.tracks.induction.semantics import coverage, problem_from_formal, prolog_module
from scir.tracks.induction.world import all_rules, load_world, rule_key

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


def test_check_rule_accepts_the_target_in_any_orientation(task_file, capsys):
    task = _task(task_file)
    r1, r2 = task.formal["target"]
    rule = f"interacts(Drug2, Drug1) :- {r2}(Drug1, Prot), {r1}(Drug2, Prot)."
    assert main(["check-rule", str(task_file), "--task", task.task_id, rule]) == 0
    out = capsys.readouterr().out
    assert "valid:      yes" in out and "in pool:    yes" in out
    assert f"answer:     {task.answer} " in out


def test_check_rule_reports_a_distractor_as_invalid(task_file, capsys):
    task = _task(task_file)
    d1, d2 = task.formal["distractors"][0]
    rule = f"interacts(A,B) :- {d1}(A,P), {d2}(B,P)."
    assert main(["check-rule", str(task_file), "--task", task.task_id, rule]) == 1
    out = capsys.readouterr().out
    assert "valid:      no (wrongly covers a non-interacting pair)" in out
    result = check_rule(problem_from_formal(task.formal), rule)
    negative = "+".join(result.covered_negatives[0])
    assert negative in out and result.covered_positives


def test_check_rule_parse_error_gives_the_column(task_file, capsys):
    task = _task(task_file)
    rc = main(["check-rule", str(task_file), "--task", task.task_id,
               "interacts(A,B) :- binds(A,P) binds(B,P)."])
    assert rc == 2
    err = capsys.readouterr().err
    assert "line 1, column 30: rule does not parse: unexpected 'binds'" in err


def test_check_rule_unknown_predicate_gives_the_column(task_file, capsys):
    task = _task(task_file)
    rc = main(["check-rule", str(task_file), "--task", task.task_id,
               "interacts(A,B) :- binds(A,P), metabolises(B,P)."])
    assert rc == 2
    assert "column 31: unknown predicate 'metabolises'" in capsys.readouterr().err


def test_check_rule_unknown_task(task_file, capsys):
    assert main(["check-rule", str(task_file), "--task", "nope",
                 "interacts(A,B) :- binds(A,P), binds(B,P)."]) == 2
    assert "no task 'nope' in the file" in capsys.readouterr().err


@pytest.mark.parametrize("text,message", [
    ("interacts(A,B) :- binds(A,P), binds(B,Q).", "share the protein variable"),
    ("interacts(A,B) :- binds(A,P), binds(A,P).", "about different drugs"),
    ("interacts(A,B) :- binds(A,B), binds(B,P).", "must be the protein variable"),
    ("interacts(A,B) :- binds(C,P), binds(B,P).", "must be a drug of the head"),
    ("interacts(A,A) :- binds(A,P), binds(B,P).", "two different drug variables"),
    ("similar(A,B) :- binds(A,P), binds(B,P).", "the head must be interacts"),
    ("interacts(A,B) :- binds(A,P), ", "rule ends too early"),
    ("interacts(A,B) :- binds(A,P); binds(B,P).", "unexpected character ';'"),
])
def test_rule_shape_errors(text, message):
    with pytest.raises(FormalizationError, match=message) as info:
        parse_rule(text)
    assert info.value.column is not None and info.value.line == 1


def test_rule_checks_agree_with_prolog_coverage_for_all_45_rules(task_file):
    task = _task(task_file)
    problem = problem_from_formal(task.formal)
    world = load_world()
    with prolog_module(problem) as module:
        for rule in all_rules(world):
            r1, r2 = rule
            result = check_rule(problem, f"interacts(X,Y) :- {r1}(X,Z), {r2}(Y,Z)")
            cov = coverage(module, rule)
            assert (result.covered_positives, result.covered_negatives) == (
                cov.positives, cov.negatives)
            assert result.in_pool == (rule_key(rule) in task.answer_pool)


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
    ("_x", "'_x'"), ("", "''"),
])
def test_prolog_atom_quoting(name, quoted):
    assert prolog_atom(name) == quoted


def test_quoted_atoms_read_back_in_prolog():
    from solvers.prolog import Engine

    names = ["o'neil", "two words", "back\\slash", "KX3A1", "velorastat"]
    with Engine().module() as module:
        for name in names:
            # the quoted text read by Prolog's own reader is the original atom
            row = module.query_once("term_to_atom(T, Text)", {"Text": prolog_atom(name)})
            assert row is not None and row["T"] == name


def test_check_rule_refuses_a_task_of_another_track(capsys):
    other = ROOT / "tests" / "hostile" / "base" / "causal.jsonl"   # a real causal task
    task_id = read_tasks(other)[0].task_id
    assert main(["check-rule", str(other), "--task", task_id,
                 "interacts(A,B) :- binds(A,P), binds(B,P)."]) == 2
    assert "check-rule takes induction tasks" in capsys.readouterr().err
