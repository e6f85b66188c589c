"""``scir check``: hand-written work checked against a task of each track.

Every case is a file under tests/fixtures/check/<track>/ whose header states its verdict:
``% Expected: pass`` / ``fail`` (exit 0 / 1) or the error class (exit 2), ``% Output:`` regexes
that lines of the report must match (pass and fail), ``% Match:`` a regex for the error
message, ``% Args:`` extra command-line options. The task is the one task of
tests/fixtures/check/<track>.jsonl. Real solvers throughout: the sandboxed SWI-Prolog worker,
Prover9, GIES.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from scir.cli import main
from scir.errors import (FormalizationError, SandboxViolation, ScirError, SolverError,
                         SolverInputError, SolverResourceLimit, SolverTimeout)
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from scir.tracks.checking import CheckContext, checker_for

HERE = Path(__file__).parent / "fixtures" / "check"
CASES = sorted(p for p in HERE.glob("*/*") if p.is_file())
ERRORS = {cls.__name__: cls for cls in (FormalizationError, SandboxViolation, SolverInputError,
                                        SolverTimeout, SolverResourceLimit, SolverError)}


def header(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in re.findall(r"^[%#] (\w+): (.*)$", path.read_text(encoding="utf-8"), re.M):
        out.setdefault(key, []).append(value)
    return out


def task_file(path: Path) -> Path:
    return HERE / f"{path.parent.name}.jsonl"


@pytest.fixture(scope="module")
def contexts():
    made: dict[tuple, CheckContext] = {}

    def get(**limits) -> CheckContext:
        key = tuple(sorted(limits.items()))
        if key not in made:
            made[key] = CheckContext(**limits)
        return made[key]

    yield get
    for context in made.values():
        context.close()


def _limits(head: dict[str, list[str]]) -> dict[str, float]:
    """The CheckContext settings of the case's ``% Args:`` (as the command line makes them)."""
    args = shlex.split(" ".join(head.get("Args", [])))
    limits = {}
    for flag, key, kind in (("--time-limit", "time_limit", float),
                            ("--inference-limit", "inference_limit", int)):
        if flag in args:
            limits[key] = kind(args[args.index(flag) + 1])
    return limits


def test_every_track_has_pass_fail_and_error_cases():
    tracks = {p.parent.name for p in CASES}
    assert tracks == {"induction", "deduction", "causal"}
    for track in tracks:
        kinds = {header(p)["Expected"][0] for p in CASES if p.parent.name == track}
        assert {"pass", "fail"} <= kinds and kinds - {"pass", "fail"}, track
    for path in CASES:
        head = header(path)
        assert head["Expected"][0] in {"pass", "fail", *ERRORS}, path.name
        assert head.get("Output") or head.get("Match"), path.name


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_case(path, contexts):
    head = header(path)
    expected = head["Expected"][0]
    task = read_tasks(task_file(path))[0]
    check = checker_for(get_track(task.domain))
    context = contexts(**_limits(head))
    text = path.read_text(encoding="utf-8")
    if expected in ("pass", "fail"):
        result = check(task, text, context)
        report = "\n".join(f"{label}: {value}" for label, value in result.lines)
        assert result.passed == (expected == "pass"), report
        for pattern in head.get("Output", []):
            assert re.search(pattern, report, re.M), f"{pattern!r} not in\n{report}"
        return
    with pytest.raises(ScirError) as info:
        check(task, text, context)
    assert type(info.value) is ERRORS[expected], str(info.value)
    for pattern in head.get("Match", []):
        assert re.search(pattern, str(info.value)), str(info.value)
    if task.domain == "induction":      # the sandbox worker survived (or was replaced)
        target = (HERE / "induction" / "target.pl").read_text(encoding="utf-8")
        assert check(task, target, context).passed


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_exit_codes_and_positions(capsys):
    tasks = str(HERE / "induction.jsonl")
    code, out, _ = _run(capsys, tasks, str(HERE / "induction" / "target.pl"))
    assert code == 0 and "verdict:    PASS (valid; agrees with the pool member" in out
    code, out, _ = _run(capsys, tasks, str(HERE / "induction" / "distractor.pl"))
    assert code == 1 and "verdict:    FAIL (not valid)" in out
    shell = HERE / "induction" / "shell.pl"
    code, _, err = _run(capsys, tasks, str(shell))
    assert code == 2 and f"error: {shell}:4:46, task " in err and "shell/1 is not allowed" in err
    loop = HERE / "induction" / "time_limit.pl"
    code, _, err = _run(capsys, tasks, str(loop), "--time-limit", "0.2",
                        "--inference-limit", "1000000000")
    assert code == 2 and "(the sandbox stopped the program)" in err
    code, _, err = _run(capsys, str(HERE / "causal.jsonl"), "-e", "Erk -> XYZ\nFoo -> XYZ")
    assert code == 2 and "line 2, column 1, task causal-n5c1-3-0: unknown protein 'Foo'" in err


def test_cli_several_tasks_and_json(capsys, tmp_path):
    both = tmp_path / "both.jsonl"
    both.write_text((HERE / "induction.jsonl").read_text() + (HERE / "causal.jsonl").read_text())
    ids = [t.task_id for t in read_tasks(both)]
    code, _, err = _run(capsys, str(both), str(HERE / "induction" / "target.pl"))
    assert code == 2 and "name one with --task ID" in err
    code, _, err = _run(capsys, str(both), str(HERE / "induction" / "target.pl"),
                        "--task", ids[0], "--task", "nope")
    assert code == 2 and "no task 'nope' in the file" in err
    # a causal task reads the source as an edge list: a Prolog rule is bad input there
    code, _, err = _run(capsys, str(both), str(HERE / "induction" / "target.pl"),
                        "--task", ids[1])
    assert code == 2 and "syntax error" in err
    code, out, _ = _run(capsys, str(HERE / "induction.jsonl"), "--json",
                        "-e", "interacts(A, B) :- agonist_of(A, P), agonist_of(B, P).")
    data = json.loads(out)
    assert code == 0 and data["passed"] is True
    (check,) = data["checks"]
    assert check["agrees_with_pool"] == ["agonist_of,agonist_of"]
    assert check["covered_negatives"] == [] and len(check["covered_positives"]) == 2


def test_check_rule_alias(capsys):
    tasks = str(HERE / "induction.jsonl")
    task = read_tasks(tasks)[0]
    assert main(["check-rule", tasks, "--task", task.task_id,
                 "interacts(A,B) :- binds(A,P), antagonist_of(B,P)"]) == 0   # no full stop
    assert "valid:      yes" in capsys.readouterr().out
    assert main(["check-rule", tasks, "--task", task.task_id,
                 "interacts(A,B) :- binds(A,P) binds(B,P)."]) == 2
    assert "line 1, column 30, task induction-d2p2-11-1: syntax error" in capsys.readouterr().err
    causal = str(HERE / "causal.jsonl")              # any track: here an edge list
    assert main(["check-rule", causal, "Erk -> XYZ"]) == 0
    assert "verdict:    PASS (matches option G, the gold answer)" in capsys.readouterr().out


def test_sandboxed_coverage_agrees_with_prolog_coverage_on_all_45_rules(contexts):
    """The sandboxed check of each candidate rule, written as a program, covers what
    prolog/induction.pl says the rule covers (an independent second reading of coverage)."""
    from scir.tracks.induction.check import program_coverage
    from scir.tracks.induction.semantics import coverage, problem_from_formal, prolog_module
    from scir.tracks.induction.world import all_rules, load_world

    world = load_world()
    task = read_tasks(HERE / "induction.jsonl")[0]
    problem = problem_from_formal(task.formal, world)
    context = contexts()
    with prolog_module(problem, world) as module:
        for r1, r2 in all_rules(world):
            program = f"interacts(X, Y) :- {r1}(X, Z), {r2}(Y, Z)."
            mine = program_coverage(problem, program, context, world.relation_names)
            gold = coverage(module, (r1, r2))
            assert (mine.positives, mine.negatives) == (gold.positives, gold.negatives)
            assert mine.valid == gold.valid


@pytest.mark.parametrize("program,message", [
    ("interacts(A, B) :- X = " + "f(" * 300 + "a" + ")" * 300 + ", binds(A, X), binds(B, X).",
     r"line 1, column \d+: syntax error: term nested deeper than 200 levels"),
    ("interacts(A, B) :- X = '" + "a" * 70_000 + "', binds(A, X), binds(B, X).",
     r"line 1, column 24: syntax error: quoted atom of 70000 characters"),
    ("interacts(A, B) :- binds(A, P), binds(B, P).\n" * 2 + "x" * 2_000_000,
     r"program too long"),
])
def test_huge_terms_are_refused_before_anything_runs(program, message):
    """Huge or deeply nested text is refused by the reader in this process, with a position,
    before a sandbox worker is even started."""
    from scir.tracks.induction.check import check

    task = read_tasks(HERE / "induction.jsonl")[0]
    with CheckContext() as context:
        with pytest.raises(SolverInputError, match=message):
            check(task, program, context)
        assert context._sandbox is None


def test_a_track_without_a_checker_is_refused_and_one_with_a_method_is_used(tmp_path):
    """The command never branches on a track's name: a track's own ``check_hand_written``
    method is used when it has one; a track with neither that nor a ``check`` module is a
    ConfigError (exit 2)."""
    from parity_track import ParityTrack

    from scir.errors import ConfigError
    from scir.tracks.checking import HandCheck

    with pytest.raises(ConfigError, match="track 'parity' cannot check hand-written work"):
        checker_for(ParityTrack())

    class Checked(ParityTrack):
        def check_hand_written(self, task, text, context):
            return HandCheck(task.task_id, self.name, text == "even", f"said {text}")

    track = Checked()
    check = checker_for(track)
    task = next(iter(track.generate(1, seed=1)))
    with CheckContext() as context:
        assert check(task, "even", context).passed and not check(task, "odd", context).passed
