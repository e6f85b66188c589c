"""The symbolic-regression architectures (scir.pipelines.symreg, ``--arch pyoperon|gplearn|
pysr``) on a test-only track with regression data ("lawfit": y = x0*x1 + x0): the baseline
fits the train split, its expression is scored by the track, the model column is ``none``;
tracks without regression data and PySR without Julia are refused with a clear ConfigError;
a baseline that fails on the data is a ``solver_error`` result; ``scir solve`` runs them."""

from __future__ import annotations

import json
from typing import Any, Sequence

import numpy as np
import pytest

from scir.cli import main
from scir.errors import ConfigError
from scir.outcomes.regression import acc_tau
from scir.runs.store import RunStore
from scir.pipelines.registry import SYMREG_ARCHS
from scir.pipelines.result import NO_MODEL, PipelineSettings
from scir.pipelines.runner import run_task
from scir.tasks import Task, write_tasks
from scir.tracks import register, unregister
from scir.tracks.base import Check, RegressionData, Track, TrackParam
from solvers.equation.expression import parse_equation
from solvers.symreg import REGRESSORS
from solvers.symreg import pysr_sr

pytest.importorskip("pyoperon")
pytest.importorskip("gplearn")
from parity_track import ParityTrack, parity  # noqa: E402,F401  (autouse: parity registered)


class LawfitTrack(Track):
    """Test track: recover y = x0*x1 + x0 from points; an expression is accepted when 95% of
    the test points are within 0.1% of it."""

    name = "lawfit"
    n_blocks = 1

    def parameters(self) -> Sequence[TrackParam]:
        return [TrackParam("points", int, "train points", 100, 200, minimum=2, maximum=1000)]

    def tier(self, params: dict[str, Any]) -> str:
        return f"p{params['points']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        rng = np.random.default_rng([seed, index])
        splits = {}
        for split, n in (("train", params["points"]), ("test", 100)):
            X = rng.uniform(1.0, 5.0, (n, 2))
            splits[split] = {"X": X.tolist(), "y": (X[:, 0] * X[:, 1] + X[:, 0]).tolist()}
        text = "Points of y against x and z."
        return Task(task_id=self.task_id(params, seed, index), domain=self.name,
                    difficulty="easy", tier=self.tier(params), seed=seed, params=dict(params),
                    question="Which law?", answer="x*z + x", answer_pool=["x*z + x"],
                    chance=0.0, formal={"inputs": ["x", "z"], "splits": splits},
                    blocks=[text], problem_nl=text)

    def verify(self, task: Task) -> Check:
        return Check(task.task_id, self.score(task, task.answer), task.answer, task.answer)

    def solve_formal(self, task: Task, formal: Any) -> str:
        return task.answer

    def regression_data(self, task: Task, split: str = "train") -> RegressionData:
        data = task.formal["splits"][split]
        return RegressionData(np.asarray(data["X"]), np.asarray(data["y"]),
                              tuple(task.formal["inputs"]))

    def score(self, task: Task, answer: str | None) -> bool:
        if answer is None:
            return False
        test = self.regression_data(task, "test")
        return acc_tau(test.y, parse_equation(answer, test.inputs).evaluate(test.X), 0.001)


@pytest.fixture(autouse=True)
def lawfit():
    register("lawfit", LawfitTrack)
    yield
    unregister("lawfit")


def settings(seconds: float = 3.0) -> PipelineSettings:
    return PipelineSettings(seed=1, symreg_seconds=seconds)


def test_archs_are_the_registered_baselines() -> None:
    assert SYMREG_ARCHS == tuple(REGRESSORS)


@pytest.mark.parametrize("arch,seconds", [("pyoperon", 5.0), ("gplearn", 1.5)])
def test_baseline_answers_and_is_scored(arch: str, seconds: float) -> None:
    """pyoperon finds the law within 5 s; gplearn (1000 programs a generation) answers its
    best program of the few generations 1.5 s allow, scored either way."""
    task = next(iter(LawfitTrack().generate(1, seed=3)))
    result = run_task(arch, task, None, settings(seconds))
    assert (result.model, result.arch) == (NO_MODEL, arch)
    assert result.status == ("ok" if result.correct else "wrong")
    assert result.correct == LawfitTrack().scorer().score(task, result.answer)
    if arch == "pyoperon":
        assert result.correct
    assert result.answer == result.formalization
    assert result.solver_status in ("answered", "timeout")
    assert arch in result.solver_log and result.seconds > 0


def test_wrong_expression_is_wrong() -> None:
    """Too little data and time for a law: the answer is scored, not assumed right."""
    task = next(iter(LawfitTrack().generate(1, seed=3)))
    task.formal["splits"]["train"]["y"] = [v + 50.0 * (i % 2) for i, v in
                                           enumerate(task.formal["splits"]["train"]["y"])]
    result = run_task("pyoperon", task, None, settings(1.0))
    assert (result.status, result.correct) == ("wrong", False) and result.answer


def test_bad_training_data_is_a_solver_error() -> None:
    task = next(iter(LawfitTrack().generate(1, seed=3)))
    task.formal["splits"]["train"]["y"][0] = float("nan")
    result = run_task("gplearn", task, None, settings())
    assert result.status == "solver_error" and "NaN" in result.error and result.answer is None


@pytest.mark.parametrize("arch", SYMREG_ARCHS)
def test_track_without_regression_data_is_refused(arch: str) -> None:
    task = next(iter(ParityTrack().generate(1, seed=0)))
    with pytest.raises(ConfigError, match=f"--arch {arch} fits an equation to data; track "
                                          "'parity' has no regression data"):
        run_task(arch, task, None, settings())


def test_pysr_unavailable_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pysr_sr.shutil, "which", lambda name: None)
    task = next(iter(LawfitTrack().generate(1, seed=3)))
    with pytest.raises(ConfigError, match="PySR needs Julia, which is not installed here"):
        run_task("pysr", task, None, settings())


def test_scir_solve_runs_a_baseline(tmp_path, capsys) -> None:
    path = tmp_path / "lawfit.jsonl"
    write_tasks(path, list(LawfitTrack().generate(2, seed=3)))
    run = tmp_path / "run"
    argv = ["solve", str(path), "--arch", "pyoperon", "--symreg-seconds", "2", "--run",
            str(run)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "accuracy: 2/2" in out
    with RunStore(run) as store:
        rows = store.results()
    assert {(r["model"], r["arch"], r["status"]) for r in rows} == {(NO_MODEL, "pyoperon",
                                                                     "ok")}
    assert main(argv) == 0 and "already stored: 2" in capsys.readouterr().out


def test_scir_solve_refuses_pysr_here(tmp_path, capsys) -> None:
    if pysr_sr.availability() is None:
        pytest.skip("PySR and Julia are installed here")
    path = tmp_path / "lawfit.jsonl"
    write_tasks(path, list(LawfitTrack().generate(1, seed=3)))
    assert main(["solve", str(path), "--arch", "pysr", "--run", str(tmp_path / "r")]) == 2
    assert "PySR" in capsys.readouterr().err


def test_scir_solve_with_a_generation_budget_repeats(tmp_path, capsys) -> None:
    """--symreg-generations: two runs of the same tasks and seed store the same answers;
    the budget is recorded, and a run is not continued with another budget."""
    path = tmp_path / "lawfit.jsonl"
    write_tasks(path, list(LawfitTrack().generate(2, seed=3)))
    answers = []
    for name in ("a", "b"):
        run = tmp_path / name
        argv = ["solve", str(path), "--arch", "gplearn", "--symreg-generations", "2",
                "--symreg-seconds", "120", "--run", str(run)]
        assert main(argv) == 0
        with RunStore(run) as store:
            answers.append(sorted((r["task_id"], r["formalization"]) for r in store.results()))
    assert answers[0] == answers[1] and len(answers[0]) == 2
    capsys.readouterr()
    argv = ["solve", str(path), "--arch", "gplearn", "--symreg-generations", "3",
            "--run", str(tmp_path / "a")]
    assert main(argv) == 2
    assert "symreg_generations=2" in capsys.readouterr().err


def test_experiment_generation_budget_is_recorded_and_repeats(tmp_path, capsys) -> None:
    """[symreg] generations: the cells' fingerprint records it, and two runs of the grid
    store the same baseline answers (the clock never ends these searches)."""
    path = tmp_path / "exp.toml"
    path.write_text("""
presentations = ["nl"]
architectures = ["pyoperon", "gplearn"]
tasks_per_cell = 1
[symreg]
seconds = 120
generations = 2
[tasks.equation.easy]
n = 1
seed = 1
""")
    answers = []
    for name in ("a", "b"):
        run = tmp_path / name
        assert main(["eval", str(path), "--run", str(run)]) == 0
        with RunStore(run) as store:
            answers.append(sorted((r["arch"], r["formalization"]) for r in store.results()))
        cells = json.loads((run / "experiment.json").read_text())["cells"]
        assert [v["symreg"] for v in cells.values()] == [{"seconds": 120.0, "generations": 2}] * 2
    capsys.readouterr()
    assert answers[0] == answers[1] and [a for a, _ in answers[0]] == ["gplearn", "pyoperon"]
    path.write_text(path.read_text().replace("generations = 2", "generations = 0"))
    assert main(["eval", str(path), "--run", str(tmp_path / "c")]) == 2
    assert "generations" in capsys.readouterr().err
