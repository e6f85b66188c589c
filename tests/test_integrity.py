"""Integrity of results (issue 25): ``scir report`` and ``scir explore`` recompute every verdict
from the stored answer and the task file, so a store tampered with ``sqlite3`` -- ``correct``
and ``status`` set to a pass on every result, in the JSON record and in the columns, or the
equation metrics forged -- still gives the true numbers, and says which stored verdicts
disagreed; ``scir rescore`` writes the recomputed verdicts back (after tampering, or after a
scorer changed) without any model call; a run whose task file is gone is refused, or with
``--unverified`` reported with its stored verdicts marked.

Real runs: generated deduction tasks solved by the oracle and by CoT through a scripted
OpenAI-compatible server (``scir solve``), a ``scir eval`` run (its tasks generated into the
run folder), and an end-to-end ``scir solve --arch sr-agent`` on generated equation tasks.
Every report is also checked against ``tests/report_check.py``, which recomputes the verdicts
itself from the task files with plain ``json``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from report_check import check_report
from scir.cli import main
from scir.explore.gather import gather
from scir.tracks.reading import read_tasks

PASS_ALL = ("UPDATE results SET correct = 1, status = 'ok', "
            "result = json_set(result, '$.correct', json('true'), '$.status', 'ok')")
FORGED_METRICS = ("UPDATE results SET result = json_set(result, '$.metrics', "
                  "json('{\"acc_0.1\": true, \"acc_0.01\": true, \"acc_0.001\": true, "
                  "\"nmse_id\": 0.0, \"nmse_ood\": 0.0, \"symbolic\": true}'))")


def sql(run: Path, *statements: str) -> None:
    db = sqlite3.connect(run / "run.sqlite")
    try:
        for statement in statements:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


def stored(run: Path) -> dict[tuple, tuple]:
    """key -> (status column, correct column, status in JSON, correct in JSON)."""
    db = sqlite3.connect(run / "run.sqlite")
    try:
        rows = db.execute("SELECT task_id, arch, presentation, model, status, correct, "
                          "result FROM results").fetchall()
    finally:
        db.close()
    return {r[:4]: (r[4], bool(r[5]), json.loads(r[6])["status"],
                    bool(json.loads(r[6])["correct"])) for r in rows}


def numbers(report_dir: Path) -> list[tuple]:
    """Per cell of report.json: the cell, n, correct, accuracy, statuses, equation metrics."""
    data = json.loads((report_dir / "report.json").read_text())
    return sorted((c["track"], c["presentation"], c["arch"], c["model"], c["n"], c["correct"],
                   c["accuracy"], *(c[f"status_{s}"] for s in ("ok", "wrong", "no_answer")),
                   c["metrics_n"], c["acc_0.01"], c["nmse_id"]) for c in data["cells"])


def report(run_dirs: list[Path], out: Path, capsys, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["report", *map(str, run_dirs), "-o", str(out), "--no-figures", *extra])
    got = capsys.readouterr()
    return code, got.out, got.err


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Six deduction tasks; an oracle run; a CoT run whose model answers ``True`` to every
    task but the first (no answer line); the true reports of both."""
    root = tmp_path_factory.mktemp("integrity")
    taskfile = root / "d.jsonl"
    assert main(["generate", "deduction", "--difficulty", "easy", "-n", "6", "--seed", "3",
                 "-o", str(taskfile)]) == 0
    tasks = read_tasks(taskfile)

    def script(body, index):
        prompt = body["messages"][0]["content"]
        silent = tasks[0].problem_nl in prompt
        return Reply(body=chat_body("I cannot tell." if silent else "Answer: True"))

    oracle, cot = root / "oracle", root / "cot"
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(oracle)]) == 0
    with FakeOpenAIServer(script) as srv:
        assert main(["solve", str(taskfile), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                     "--max-tokens", "20", "--run", str(cot)]) == 0
    truth = root / "truth"
    assert main(["report", str(oracle), str(cot), "-o", str(truth), "--no-figures"]) == 0
    return {"root": root, "taskfile": taskfile, "tasks": tasks, "oracle": oracle, "cot": cot,
            "truth": truth, "stored": stored(cot)}


def copy_run(runs, name: str, tmp_path: Path) -> Path:
    run = tmp_path / name
    shutil.copytree(runs[name], run)
    return run


def test_the_true_run_is_mixed(runs):
    """What the tampering hides: CoT is right only where the gold is True, and one task has
    no answer."""
    values = runs["stored"].values()
    assert {v[:2] for v in values} >= {("ok", True), ("wrong", False), ("no_answer", False)}


def test_report_on_a_tampered_store_prints_the_true_numbers(runs, tmp_path, capsys):
    oracle, cot = runs["oracle"], copy_run(runs, "cot", tmp_path)
    sql(cot, PASS_ALL)
    assert all(v == ("ok", True, "ok", True) for v in stored(cot).values())   # tampered
    code, out, err = report([oracle, cot], tmp_path / "rep", capsys)
    assert code == 0, err
    assert numbers(tmp_path / "rep") == numbers(runs["truth"])
    data = check_report(tmp_path / "rep", [str(oracle), str(cot)])     # independent
    lied = {k for k, v in runs["stored"].items() if v[:2] != ("ok", True)}
    said = {tuple(d["key"][f] for f in ("task_id", "arch", "presentation", "model"))
            for d in data["verdicts"]["disagreements"]}
    assert said == lied and all(d["run"] == str(cot) for d in data["verdicts"]["disagreements"])
    assert data["verdicts"]["recomputed"] == 12 and data["verdicts"]["unverified"] == []
    # said plainly: the count and the keys, printed and in the report
    line = next(x for x in out.splitlines() if "stored verdicts disagree" in x)
    assert line.startswith(f"{len(lied)} stored verdicts disagree with the recomputed ones")
    assert all(task in line for task, *_ in sorted(lied)[:5])
    truth_rows = [x for x in (runs["truth"] / "report.md").read_text().splitlines()
                  if x.startswith("| vllm:fake cot |")][:1]           # Table 1's row
    assert [x for x in out.splitlines() if x.startswith("| vllm:fake cot |")] == truth_rows
    md = (tmp_path / "rep" / "report.md").read_text()
    section = md.split("## Verdicts", 1)[1].split("## Paired differences", 1)[0]
    assert f"{len(lied)} stored verdicts disagreed" in section
    assert all(f"| {task} cot nl vllm:fake |" in section for task, *_ in lied)
    assert "correct=True" in section and "status=ok" in section


def test_a_tampered_status_alone_is_recomputed(runs, tmp_path, capsys):
    """``status`` forged on answered results (a wrong answer shown as a timeout, a right one
    as a parse error) and a pass claimed for the result without an answer: the answered ones
    get their status from their answer again, the unanswered one becomes no_answer."""
    cot = copy_run(runs, "cot", tmp_path)
    sql(cot, "UPDATE results SET status = 'timeout', result = json_set(result, '$.status', "
             "'timeout') WHERE status = 'wrong'",
        "UPDATE results SET status = 'parse_error', result = json_set(result, '$.status', "
        "'parse_error') WHERE status = 'ok'",
        "UPDATE results SET status = 'ok', correct = 1, result = json_set(result, "
        "'$.status', 'ok', '$.correct', json('true')) WHERE status = 'no_answer'")
    code, out, err = report([runs["oracle"], cot], tmp_path / "rep", capsys)
    assert code == 0 and numbers(tmp_path / "rep") == numbers(runs["truth"])
    check_report(tmp_path / "rep", [str(runs["oracle"]), str(cot)])


def test_explore_on_a_tampered_store_shows_the_true_verdicts(runs, tmp_path, capsys):
    cot = copy_run(runs, "cot", tmp_path)
    sql(cot, PASS_ALL)
    site = gather([str(runs["oracle"]), str(cot)])
    truth = json.loads((runs["truth"] / "report.json").read_text())["cells"]
    assert sorted((c.cell.arch, c.n, c.correct) for c in site.cells) == sorted(
        (c["arch"], c["n"], c["correct"]) for c in truth)
    lied = {k for k, v in runs["stored"].items() if v[:2] != ("ok", True)}
    flagged = {(p.task_id, r.cell.arch): r for p, r in site.results() if r.disagreement}
    assert set(flagged) == {(k[0], "cot") for k in lied}
    assert all(not r.correct for r in flagged.values())
    capsys.readouterr()
    assert main(["explore", str(runs["oracle"]), str(cot), "-o", str(tmp_path / "site")]) == 0
    assert f"{len(lied)} stored verdicts disagree" in capsys.readouterr().out
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'id="verdicts"' in index and index.count("disagreed: correct, status") == len(lied)
    wrong = next(k for k in lied if runs["stored"][k][0] == "wrong")
    page = (tmp_path / "site" / "tasks" / f"{wrong[0]}.html").read_text()
    assert "the stored verdict disagreed" in page and '"verdict incorrect"' in page


def test_rescore_fixes_a_tampered_store(runs, tmp_path, capsys):
    cot = copy_run(runs, "cot", tmp_path)
    sql(cot, PASS_ALL)
    lied = {k for k, v in runs["stored"].items() if v[:2] != ("ok", True)}
    capsys.readouterr()
    assert main(["rescore", str(cot), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.count("would change ") == len(lied) and "written" in out
    assert all(v == ("ok", True, "ok", True) for v in stored(cot).values())   # untouched
    assert main(["rescore", str(cot)]) == 0
    out = capsys.readouterr().out
    assert out.count("\nchanged ") + out.startswith("changed ") == len(lied)
    assert "correct True -> False" in out and "status 'ok' -> 'wrong'" in out
    assert "status 'ok' -> 'no_answer'" in out
    assert f"rescored 6 results of {cot} from 1 task files, no model called: {len(lied)} " \
           f"changed (written), {6 - len(lied)} unchanged" in out
    want = {k: (v[0], v[1], v[0], v[1]) for k, v in runs["stored"].items()}
    assert stored(cot) == want                     # columns and JSON both true again
    assert main(["rescore", str(cot)]) == 0
    assert "0 changed" in capsys.readouterr().out
    code, out, _ = report([cot], tmp_path / "rep", capsys)
    assert code == 0 and "disagree" not in out
    # the columns alone forged (the JSON records true): rescore sees and fixes them too
    sql(cot, "UPDATE results SET correct = 1, status = 'ok'")
    assert main(["rescore", str(cot)]) == 0
    assert capsys.readouterr().out.count("store columns (status 'ok', correct True)") == len(lied)
    assert stored(cot) == want


def test_rescore_after_a_scorer_change_calls_no_model(runs, tmp_path, capsys, monkeypatch):
    """A changed scoring rule (here: the label rule accepting any answer) and ``scir rescore``:
    the verdicts change without a model call (the run's server is gone, and the store holds
    as many calls as before); back to the rule, rescore restores them."""
    from scir.outcomes.scoring import LabelScorer

    cot = copy_run(runs, "cot", tmp_path)
    calls = sqlite3.connect(cot / "run.sqlite").execute("SELECT COUNT(*) FROM calls").fetchone()
    monkeypatch.setattr(LabelScorer, "score", lambda self, task, answer: answer is not None)
    capsys.readouterr()
    assert main(["rescore", str(cot)]) == 0
    out = capsys.readouterr().out
    wrong = [k for k, v in runs["stored"].items() if v[0] == "wrong"]
    assert out.count("correct False -> True; status 'wrong' -> 'ok'") == len(wrong) > 0
    assert all(stored(cot)[k][:2] == ("ok", True) for k in wrong)
    monkeypatch.undo()
    assert main(["rescore", str(cot)]) == 0
    assert stored(cot) == {k: (v[0], v[1], v[0], v[1]) for k, v in runs["stored"].items()}
    assert sqlite3.connect(cot / "run.sqlite").execute(
        "SELECT COUNT(*) FROM calls").fetchone() == calls


def test_a_missing_task_file_is_refused_or_marked_unverified(runs, tmp_path, capsys):
    """The run's task file moved away: report, explore and rescore refuse in one line naming
    the run and the tasks; ``--tasks`` with the moved file restores the true numbers;
    ``--unverified`` uses the (tampered) stored verdicts, says so and marks the cells."""
    taskfile = tmp_path / "d.jsonl"
    shutil.copy(runs["taskfile"], taskfile)
    run = tmp_path / "cot"
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: True"))) as srv:
        assert main(["solve", str(taskfile), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                     "--max-tokens", "20", "--run", str(run)]) == 0
    moved = tmp_path / "moved.jsonl"
    taskfile.rename(moved)
    sql(run, PASS_ALL)
    for argv in (["report", str(run), "-o", str(tmp_path / "rep")],
                 ["explore", str(run), "-o", str(tmp_path / "site")],
                 ["rescore", str(run)]):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"error: {run}: 6 stored results have no task record to check "
                              f"their verdicts against (tasks ") and err.count("\n") == 1, err
        assert "--tasks FILE" in err
    assert not (tmp_path / "rep").exists() and not (tmp_path / "site").exists()
    assert all(v == ("ok", True, "ok", True) for v in stored(run).values())   # nothing written
    code, out, err = report([run], tmp_path / "rep", capsys, "--tasks", str(moved))
    assert code == 0 and "6 stored verdicts disagree" not in out
    check_report(tmp_path / "rep", [str(run)], [str(moved)])
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["verdicts"][
        "task_files"] == [str(moved)]
    code, out, err = report([run], tmp_path / "unverified", capsys, "--unverified")
    assert code == 0, err
    assert "6 results unverified: no task file holds their task" in out
    assert "1.00 [0.61, 1.00]~? -> -" in out          # the stored (forged) verdicts, marked
    data = check_report(tmp_path / "unverified", [str(run)])
    assert len(data["verdicts"]["unverified"]) == 6 and data["cells"][0]["unverified"] == 6
    md = (tmp_path / "unverified" / "report.md").read_text()
    assert "6 results unverified" in md and "Unverified (no task file holds the task" in md


def test_an_eval_run_finds_its_task_files_in_the_run_folder(tmp_path, capsys):
    """``scir eval`` keeps its generated tasks in RUNDIR/tasks/: a tampered eval run reports
    its true numbers with no --tasks."""
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: False"))) as srv:
        exp = tmp_path / "e.toml"
        exp.write_text('architectures = ["oracle", "cot"]\npresentations = ["nl"]\n'
                       'tasks_per_cell = 4\n[tasks.deduction.easy]\nn = 4\nseed = 2\n'
                       f'[[models]]\nname = "vllm:fake@{srv.url}"\n')
        run = tmp_path / "run"
        assert main(["eval", str(exp), "--run", str(run)]) == 0
    code, _, _ = report([run], tmp_path / "truth", capsys)
    assert code == 0
    sql(run, PASS_ALL)
    code, out, _ = report([run], tmp_path / "rep", capsys)
    assert code == 0 and numbers(tmp_path / "rep") == numbers(tmp_path / "truth")
    data = check_report(tmp_path / "rep", [str(run)])
    assert data["verdicts"]["task_files"] == [str(run / "tasks" / "deduction-easy.jsonl")]
    cot = next(c for c in data["cells"] if c["arch"] == "cot")
    assert len(data["verdicts"]["disagreements"]) == 4 - cot["correct"]


@pytest.fixture(scope="module")
def agent_run(tmp_path_factory):
    """``scir solve --arch sr-agent`` on two generated equation tasks; the model's final
    answer is a constant (``p0``): wrong on both, a true 0/2."""
    root = tmp_path_factory.mktemp("agent")
    eq = root / "eq.jsonl"
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "2", "--seed", "1",
                 "-o", str(eq)]) == 0
    run = root / "run"
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Final: p0"))) as srv:
        assert main(["solve", str(eq), "--arch", "sr-agent", "--model", f"vllm:fake@{srv.url}",
                     "--run", str(run), "--iterations", "1", "--agent-steps", "2",
                     "--max-tokens", "100"]) == 0
    truth = root / "truth"
    assert main(["report", str(run), "-o", str(truth), "--no-figures"]) == 0
    return run, truth


def test_a_tampered_sr_agent_run_reports_the_truth(agent_run, tmp_path, capsys):
    """End to end through sr-agent: ``correct``, ``status`` and every equation metric forged
    to a pass; the report still prints 0.00 for the true 0/2, with the true metrics."""
    source, truth = agent_run
    run = tmp_path / "run"
    shutil.copytree(source, run)
    sql(run, PASS_ALL, FORGED_METRICS)
    code, out, err = report([run], tmp_path / "rep", capsys)
    assert code == 0, err
    assert "| vllm:fake sr-agent | 0.00 [0.00, 0.66]~ -> - |" in out
    assert numbers(tmp_path / "rep") == numbers(truth)
    cell = json.loads((tmp_path / "rep" / "report.json").read_text())["cells"][0]
    assert cell["correct"] == 0 and cell["acc_0.01"] == 0.0 and cell["nmse_id"] > 0
    data = check_report(tmp_path / "rep", [str(run)])
    assert [sorted(d["fields"]) for d in data["verdicts"]["disagreements"]] == [
        ["correct", "metrics", "status"]] * 2
    assert main(["rescore", str(run)]) == 0
    assert "2 changed (written)" in capsys.readouterr().out
    code, out, _ = report([run], tmp_path / "again", capsys)
    assert "disagree" not in out and numbers(tmp_path / "again") == numbers(truth)
