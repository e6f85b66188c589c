"""benchmarks/ilp_suite.py: the independent swipl check (benchmarks/ilp_check.pl) on a tiny
problem whose programs state their expected counts in a header comment, the script end to end
with our learner on two fixture folders, Popper's output format, and the kill at the time limit
(a fake "Popper" that sleeps: only our subprocess handling is under test, no solver is mocked).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "ilp_suite.py"
REACH = Path(__file__).parent / "fixtures" / "ilp_suite" / "reach"
PROGRAMS = sorted((REACH / "programs").glob("*.pl"))
ILP_FIXTURES = Path(__file__).parent / "fixtures" / "ilp"


def _suite():
    spec = importlib.util.spec_from_file_location("ilp_suite", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


suite = _suite()


def _expected(path: Path) -> tuple[dict[str, int], bool]:
    header = next(ln for ln in path.read_text().splitlines() if ln.startswith("% Expected:"))
    counts = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", header)}
    return counts, header.rstrip().endswith(" solved")


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_checker_counts(program: Path) -> None:
    counts, solved = _expected(program)
    check = suite.check_program(REACH, suite.program_lines(program.read_text()),
                                example_limit=0.05, timeout=60)
    got = {k: getattr(check, k) for k in counts}
    assert got == counts
    assert check.solved is solved
    # exs.pl: the "#" first line is skipped (its pos/1 term counts), the stray "#T1" line
    # spoils one pos/1 term
    assert check.skipped_terms == 2


def test_checker_reports_a_crash() -> None:
    with pytest.raises(suite.SolverError, match="swipl check failed"):
        suite.check_program(REACH / "missing", ["reach(A,B) :- edge(A,B)."], timeout=60)


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, check=False)


def test_end_to_end_with_our_learner(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    md = tmp_path / "table.md"
    proc = _run("--examples", str(ILP_FIXTURES), "--only", "no_solution,grandparent",
                "--timeout", "20", "--json", str(out), "--markdown", str(md))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    grand = next(ln.split() for ln in lines if ln.startswith("grandparent "))
    assert grand[1] == "yes" and grand[3:5] == ["3", "6/0/8/0"]
    nosol = next(ln.split() for ln in lines if ln.startswith("no_solution "))
    assert nosol[1] == "no_solution" and len(nosol) == 3  # no program: no size, no counts
    assert "solved by ours: 1" in proc.stdout and "goals: n/a (Popper not run)" in proc.stdout
    assert re.search(r"^\[1/2\] grandparent: ours solution .* \(solved, size 3\)$",
                     proc.stderr, re.MULTILINE)
    data = json.loads(out.read_text())
    assert [r["problem"] for r in data["rows"]] == ["grandparent", "no_solution"]
    g, n = data["rows"]
    assert g["ours_solved"] and g["ours"]["program"] == [
        "grandparent(A,B) :- parent(A,C), parent(C,B)."]
    assert g["ours"]["check"]["size"] == 3 and g["ours"]["claimed"] == {
        "tp": 6, "fn": 0, "tn": 8, "fp": 0}
    assert not n["ours_solved"] and n["ours"]["status"] == "no_solution"
    assert n["ours"]["check"] is None and g["popper"] is None
    assert data["summary"]["ours_solved"] == ["grandparent"] and data["summary"]["goals"] is None
    assert md.read_text().startswith("| problem | ours |")
    assert "| grandparent | yes |" in md.read_text()


def _sleepy_popper(folder: Path) -> Path:
    """A fake popper.py in ``folder`` that starts a child holding its stdout, writes the
    child's pid to the returned file and sleeps."""
    pidfile = folder / "child.pid"
    (folder / "popper.py").write_text(textwrap.dedent(f"""
        import subprocess, sys, time
        child = subprocess.Popen(["sleep", "60"])
        open({str(pidfile)!r} + ".tmp", "w").write(str(child.pid))
        __import__("os").replace({str(pidfile)!r} + ".tmp", {str(pidfile)!r})
        print("Generating programs of size: 2", flush=True)
        time.sleep(60)
    """))
    return pidfile


def _dead(pid: str) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(")")[1].split()[0] == "Z"


def test_popper_killed_at_the_time_limit(tmp_path: Path) -> None:
    """The whole process group of a run is killed at --timeout + --grace: a timeout."""
    pidfile = _sleepy_popper(tmp_path)
    start = time.perf_counter()
    proc = _run("--examples", str(ILP_FIXTURES), "--only", "grandparent", "--timeout", "1",
                "--grace", "0.5", "--popper", str(tmp_path), "--popper-python", sys.executable,
                "--json", str(tmp_path / "rows.json"), timeout=30)
    assert time.perf_counter() - start < 20
    assert proc.returncode == 0, proc.stderr
    popper = json.loads((tmp_path / "rows.json").read_text())["rows"][0]["popper"]
    assert popper["status"] == "timeout" and popper["program"] == []
    assert 1.5 <= popper["seconds"] < 6
    assert _dead(pidfile.read_text())
    assert "goal FAILS: median ratio <= 0.5" in proc.stdout  # no problem solved by both


def test_terminated_benchmark_ends_the_run(tmp_path: Path) -> None:
    """SIGTERM to the script (a cancelled batch job) kills the running system's group too."""
    pidfile = _sleepy_popper(tmp_path)
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--examples", str(ILP_FIXTURES),
                             "--only", "grandparent", "--timeout", "30", "--popper",
                             str(tmp_path), "--popper-python", sys.executable],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + 20
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pidfile.exists()
    proc.terminate()
    assert proc.wait(timeout=10) == 128 + 15
    assert _dead(pidfile.read_text())


def test_parse_popper_output() -> None:
    out = textwrap.dedent("""\
        ********** SOLUTION **********
        Precision:1.00 Recall:1.00 TP:4 FN:0 TN:5 FP:0 Size:7
        f(A):- empty(A).
        f(A):- tail(A,C),head(A,B),even(B),f(C).
        g(A):- .
        ******************************
    """)
    run = suite.parse_popper(0, out, "")
    assert run.status == "solution"
    assert run.program == ["f(A):- empty(A).", "f(A):- tail(A,C),head(A,B),even(B),f(C).",
                           "g(A)."]
    assert run.claimed == {"tp": 4, "fn": 0, "tn": 5, "fp": 0, "size": 7}
    assert suite.parse_popper(0, "NO SOLUTION\n", "").status == "no_solution"
    assert suite.parse_popper(None, "Generating programs of size: 2\n", "").status == "timeout"
    assert suite.parse_popper(1, "", "Traceback ...\nValueError: x\n").message == "ValueError: x"


def test_bad_arguments_exit_2() -> None:
    assert _run("--examples", str(ILP_FIXTURES), "--only", "nonexistent").returncode == 2
    assert _run("--examples", str(ROOT / "no-such-folder")).returncode == 2


def test_totals_and_goals() -> None:
    """The totals over rows whose programs were checked for real (reach: the correct and the
    wrong program)."""
    def program(name: str) -> list[str]:
        return suite.program_lines((REACH / "programs" / name).read_text())

    def run(clauses: list[str], seconds: float, claimed: dict[str, int]):
        check = suite.check_program(REACH, clauses, 0.05, 60)
        return suite.SystemRun("solution", seconds, clauses, claimed, check)

    correct, wrong = program("correct.pl"), program("wrong.pl")
    exact = {"tp": 5, "fn": 0, "tn": 5, "fp": 0}
    rows = [suite.Row("a", False, run(correct, 1.0, {**exact, "tp": 4}),
                      run(correct, 4.0, exact)),
            suite.Row("b", False, run(wrong, 1.0, {}), run(correct, 2.0, {**exact, "size": 5})),
            suite.Row("c", False, run(correct, 3.0, {}), run(correct, 2.0, {}))]
    s = suite.summarise(rows)
    assert (s.ours_solved, s.popper_solved, s.both_solved) == (["a", "c"], ["a", "b", "c"],
                                                               ["a", "c"])
    assert s.popper_only == ["b"] and s.ours_larger == [] and s.claims_differ == ["a (ours)"]
    assert (s.median_ratio, s.max_ratio) == (pytest.approx(0.875), pytest.approx(1.5))
    assert list(s.goals.values()) == [False, True, False, True]
    text = suite.render_text(rows, s)
    assert "goal FAILS: every Popper-solved problem solved" in text
    assert re.search(r"^b +inexact +1\.0 +4 +2/3/2/3 +yes +2\.0 +5 +5/0/5/0 +0\.50$", text,
                     re.MULTILINE)


def test_noisy_mdl_columns_and_goal() -> None:
    """Noisy rows show each system's MDL (FN + FP + size, from the swipl check) and the
    issue #31 goal: ours at most Popper's wherever both print a program."""
    def run(name: str):
        clauses = suite.program_lines((REACH / "programs" / name).read_text())
        return suite.SystemRun("timeout", 60.0, clauses, {},
                               suite.check_program(REACH, clauses, 0.05, 60))

    correct, wrong = run("correct.pl"), run("wrong.pl")
    assert (correct.mdl, wrong.mdl) == (correct.size, 3 + 3 + wrong.size)
    rows = [suite.Row("n1", True, correct, wrong), suite.Row("n2", True, wrong, correct),
            suite.Row("n3", True, correct, suite.SystemRun("timeout", 70.0, [])),
            suite.Row("c", False, wrong, correct)]
    s = suite.summarise(rows)
    assert s.noisy_compared == ["n1", "n2"] and s.noisy_worse == ["n2"]
    assert s.goals["noisy MDL <= Popper's"] is False
    text = suite.render_text(rows, s)
    assert "our MDL larger on: n2" in text and "goal FAILS: noisy MDL <= Popper's" in text
    cells = dict((r[0], r) for r in suite.table_rows(rows))
    assert cells["n1"][5] == str(correct.mdl) and cells["n1"][10] == str(wrong.mdl)
    assert cells["c"][5] == "" and cells["n3"][10] == ""
