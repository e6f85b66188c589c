"""solvers.equation.evaluator: BFGS fits of equation constants from several starts (tool T2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers.equation import FitStatus, fit, parse_equation, report
from solvers.equation.__main__ import main
from solvers.equation.evaluator import starting_points
from solvers.errors import ConfigError, FormalizationError, TaskFormatError

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("skeleton, truth, params, inputs", [
    ("p0*x*exp(-p1*t)", "1.5*x*exp(-0.25*t)", (1.5, 0.25), ["x", "t"]),
    ("p0*x**2 + p1*x + p2", "0.3*x**2 - 2.0*x + 7.0", (0.3, -2.0, 7.0), ["x"]),
    ("p0*log(x) + p1/x", "2.2*log(x) + 0.45/x", (2.2, 0.45), ["x"]),
    ("p0*x/(p1 + x)", "3.0*x/(0.8 + x)", (3.0, 0.8), ["x"]),           # Michaelis-Menten
])
def test_recovers_constants(skeleton, truth, params, inputs) -> None:
    X = RNG.uniform(0.5, 4.0, size=(100, len(inputs)))
    y = parse_equation(truth, inputs).evaluate(X)
    res = fit(skeleton, X, y, inputs)
    assert res.status is FitStatus.OK
    np.testing.assert_allclose(res.params, params, rtol=1e-6)
    assert res.mape < 1e-4 and res.nmse < 1e-12
    assert parse_equation(res.expression, inputs).n_params == 0


def test_frequency_needs_several_starts() -> None:
    # p0*sin(p1*x) with p1 = 3.7 on [0, 4]: from all ones BFGS stops in a local minimum far
    # from 3.7; among ten seeded starts one lands in the right basin
    x = np.linspace(0.0, 4.0, 200).reshape(-1, 1)
    y = 2.0 * np.sin(3.7 * x[:, 0])
    one = fit("p0*sin(p1*x)", x, y, ["x"], starts=1)
    assert one.starts_tried == 1 and one.mape > 10
    assert not math.isclose(abs(one.params[1]), 3.7, rel_tol=1e-2)
    many = fit("p0*sin(p1*x)", x, y, ["x"], starts=10)
    assert many.best_start != 0
    np.testing.assert_allclose(np.abs(many.params), [2.0, 3.7], rtol=1e-6)
    assert many.params[0] * many.params[1] > 0                   # same sign: the same curve


def test_deterministic_and_seeded() -> None:
    x = np.linspace(0.0, 4.0, 200).reshape(-1, 1)
    y = 2.0 * np.sin(3.7 * x[:, 0])
    a, b = (fit("p0*sin(p1*x)", x, y, ["x"], starts=4, seed=3) for _ in range(2))
    assert (a.params, a.mse, a.best_start, a.expression) == \
        (b.params, b.mse, b.best_start, b.expression)
    assert starting_points(2, 3, 5)[0].tolist() == [1.0, 1.0]
    assert np.array_equal(np.vstack(starting_points(2, 3, 5)), np.vstack(starting_points(2, 3, 5)))
    assert not np.array_equal(starting_points(2, 3, 5)[1], starting_points(2, 3, 6)[1])


def test_mape_skips_zero_targets() -> None:
    x = np.array([[0.0], [1.0], [2.0], [4.0]])
    y = 2.0 * x[:, 0]                                             # y = 0 at x = 0
    res = fit("x", x, y, ["x"])                                  # predictions half the target
    assert res.mape_skipped == 1 and res.mape == pytest.approx(50.0)
    assert "1 points with y ~ 0 skipped" in report(res)
    zero = fit("x - x", x, np.zeros(4), ["x"])
    assert zero.mape_skipped == 4 and math.isnan(zero.mape) and zero.mse == 0.0


def test_non_finite_starts() -> None:
    x = np.linspace(0.1, 4.0, 50).reshape(-1, 1)
    res = fit("log(p0*x - 100)", x, np.ones(50), ["x"])
    assert res.status is FitStatus.NON_FINITE and res.starts_tried == 10
    assert all(math.isnan(p) for p in res.params) and res.mse == math.inf
    assert "non_finite" in report(res)
    # a start at ones is not finite (sqrt(-1)) but a later one is: it is skipped, not fatal
    ok = fit("sqrt(p0 - 2)*x", x, 3.0 * x[:, 0], ["x"])
    assert ok.status is FitStatus.OK and ok.best_start != 0
    assert ok.params[0] == pytest.approx(11.0, rel=1e-6)


def test_time_budget() -> None:
    x = np.linspace(0.0, 4.0, 200).reshape(-1, 1)
    res = fit("p0*sin(p1*x)", x, 2.0 * np.sin(3.7 * x[:, 0]), ["x"], seconds=0.0)
    assert res.status is FitStatus.TIME_LIMIT and "time budget" in report(res)


def test_bad_arguments() -> None:
    x = np.ones((3, 1))
    with pytest.raises(FormalizationError):
        fit("__import__('os')", x, np.ones(3), ["x"])
    with pytest.raises(ConfigError, match="shape"):
        fit("p0*x", np.ones((3, 2)), np.ones(3), ["x"])
    with pytest.raises(TaskFormatError, match="non-finite"):
        fit("p0*x", x, np.array([1.0, np.nan, 1.0]), ["x"])
    with pytest.raises(ConfigError, match="starts"):
        fit("p0*x", x, np.ones(3), ["x"], starts=0)
    with pytest.raises(ConfigError, match="differ"):
        fit(parse_equation("p0*x", ["x"]), x, np.ones(3), ["t"])


def test_cli(tmp_path, capsys) -> None:
    X = RNG.uniform(0.5, 4.0, size=(60, 2))
    y = 1.5 * X[:, 0] * np.exp(-0.25 * X[:, 1])
    path = tmp_path / "data.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="x,t,y", comments="")
    assert main([str(path), "--equation", "p0*x*exp(-p1*t)"]) == 0
    out = capsys.readouterr().out
    assert "p0 = 1.5" in out and "p1 = 0.25" in out and "MAPE" in out
    assert main([str(path), "--equation", "p0*z"]) == 2
    assert "unknown name 'z'" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.csv"), "--equation", "x"]) == 2
