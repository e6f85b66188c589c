"""The evaluator's ``projected`` strategy (solvers.equation.projection + evaluator): which
parameters enter linearly, the exact linear solve, the batched profile, and that the true
skeleton of generated tasks -- every constant free -- passes the track's scoring rule on
tasks where the previous strategy (``bfgs``) failed it."""

from __future__ import annotations

import numpy as np
import pytest

from scir.tracks import get_track
from solvers.equation import fit, parse_equation
from solvers.equation.evaluator import BFGS
from solvers.equation.grid import GRID
from solvers.equation.projection import Projection, linear_params
from solvers.errors import ConfigError

TRACK = get_track("equation")


@pytest.mark.parametrize("text, inputs, linear, nonlinear", [
    ("p0*x + p1*sin(p2*t) + p3", ["x", "t"], (0, 1, 3), (2,)),
    ("P*p0*(-P*p1 + 1)", ["P"], (0,), (1,)),              # p0*p1 is a product: p1 is not
    ("p0*p1*x", ["x"], (0,), (1,)),
    ("-P**2*p0/(P**2*p1 + 1)", ["P"], (0,), (1,)),        # Holling III: p1 in a denominator
    ("p0*x**p1 + p2*x*exp(-T*p3)", ["x", "T"], (0, 2), (1, 3)),
    ("exp(p0)*x + p1**2", ["x"], (), (0, 1)),             # inside a function, squared
    ("x/p0 + sqrt(p1*x)", ["x"], (), (0, 1)),
    ("(p0 + x)/2 - p1*x/t - -(p2*x - t)*3", ["x", "t"], (0, 1, 2), ()),
    ("p2*x + p5", ["x"], (2, 5), ()),                     # unused p0, p1, p3, p4: neither
    ("x**2", ["x"], (), ()),
])
def test_linear_parameters_detected(text, inputs, linear, nonlinear) -> None:
    eq = parse_equation(text, inputs)
    assert linear_params(eq.tree, eq.n_params) == linear
    proj = Projection.of(eq.tree, eq.n_params)
    assert (proj.linear, proj.nonlinear) == (linear, nonlinear)
    # the decomposition is exact: offset + sum(p_i * column_i) == the equation, so solving
    # on data made by the equation gives back its linear parameters
    rng = np.random.default_rng(1)
    A = rng.uniform(0.5, 3.0, size=(40, len(inputs)))
    p = rng.uniform(0.5, 2.0, size=eq.n_params)
    p[[i for i in range(eq.n_params) if i not in linear + nonlinear]] = 1.0
    y = eq.evaluate(A, p)
    with np.errstate(all="ignore"):
        solved, pred = proj.solver(A, y, {n: i for i, n in enumerate(inputs)})(p[list(nonlinear)])
    np.testing.assert_allclose(solved, p, rtol=1e-9)
    np.testing.assert_allclose(pred, y, rtol=1e-9)


def test_profile_matches_single_solves() -> None:
    eq = parse_equation("p0*x + p1*sin(p2*t) + p3*exp(-p4*t)", ["x", "t"])
    rng = np.random.default_rng(2)
    A = rng.uniform(0.0, 5.0, size=(30, 2))
    y = eq.evaluate(A, [1.5, 2.0, 3.3, -0.7, 0.4])
    solve = Projection.of(eq.tree, eq.n_params).solver(A, y, {"x": 0, "t": 1})
    values = np.array([-2000.0, -1.0, 0.5, 3.3, 40.0])
    with np.errstate(all="ignore"):
        batched = solve.profile([1.0, 0.4], [0], values)
        single = []
        for v in values:
            out = solve([v, 0.4])
            single.append(np.inf if out is None else np.mean((out[1] - y) ** 2))
    assert np.isinf(batched[0]) == np.isinf(single[0])              # exp(2000 t): overflow
    np.testing.assert_allclose(batched[1:], single[1:], rtol=1e-8, atol=1e-20)
    assert batched[3] < 1e-20                                        # the true frequency


def test_strategy_option() -> None:
    x = np.linspace(0.0, 4.0, 100).reshape(-1, 1)
    y = 2.0 * np.sin(3.7 * x[:, 0]) + 0.5
    new = fit("p0*sin(p1*x) + p2", x, y, ["x"])
    np.testing.assert_allclose([abs(new.params[1]), new.params[2]], [3.7, 0.5], rtol=1e-6)
    old = fit("p0*sin(p1*x) + p2", x, y, ["x"], strategy=BFGS)
    assert old.starts_tried == new.starts_tried == 10
    with pytest.raises(ConfigError, match="strategy"):
        fit("p0*x", x, y, ["x"], strategy="newton")
    # no nonlinear parameter: one exact linear solve
    lin = fit("p0*x**2 + p1", x, 3.0 * x[:, 0] ** 2 - 1.0, ["x"])
    assert lin.starts_tried == 1 and lin.best_start == 0
    np.testing.assert_allclose(lin.params, [3.0, -1.0], rtol=1e-12)
    assert GRID.min() < 0 < GRID.max()


def test_frequency_inside_a_function_found_from_the_grid() -> None:
    # the grid over each nonlinear parameter finds a frequency far from every start of the
    # old strategy (uniform [-5, 5]): sin(0.0816*T) on T in [273, 373]
    rng = np.random.default_rng(3)
    A = np.column_stack([rng.uniform(0.001, 0.1, 24), rng.uniform(273.0, 373.0, 24)])
    eq = parse_equation("p0*strain*T + p1*strain*sin(T*p2)", ["strain", "T"])
    y = eq.evaluate(A, [0.06, 40.8, 0.0816])
    res = fit(eq, A, y)
    assert res.nmse < 1e-12 and abs(res.params[2]) == pytest.approx(0.0816, rel=1e-6)


# Tasks (seed 0, default Easy / Hard presets) on which the true skeleton with every constant
# free FAILED the scoring rule with the previous strategy (``bfgs``; measured by
# benchmarks/equation_fit.py: Easy fails [5, 7, 11, 13, 17, 25, 37, 38, 39], Hard fails
# [1, 5, 7, 11, 13, 15, 17, 21, 23, 25, 26, 27, 28, 31, 34, 37]).
# Seed 1, Hard 7 (``p0*strain**p1 + p2*tanh(p3*strain) + p4*strain**3 + p5*strain*sin(T*p6)``,
# failed by ``bfgs`` too) needs the joint pair search and the second grid search: the exponent
# p1 and the rate p3 are coupled on strain in [0.001, 0.1].
PREVIOUSLY_FAILED = [("easy", 0, 5), ("easy", 0, 7), ("easy", 0, 11), ("easy", 0, 37),
                     ("hard", 0, 1), ("hard", 0, 7), ("hard", 0, 11), ("hard", 0, 28),
                     ("hard", 1, 7)]


@pytest.mark.parametrize("level, seed, index", PREVIOUSLY_FAILED)
def test_true_skeleton_passes_the_scoring_rule(level, seed, index) -> None:
    _, params = TRACK.resolve_params(level)
    task = TRACK.generate_one(dict(params), seed, index)
    formal = TRACK.formal(task)
    assert "sin" in formal.skeleton or "cos" in formal.skeleton or "exp" in formal.skeleton \
        or "tanh" in formal.skeleton or "**p" in formal.skeleton
    assert TRACK.scorer().score(task, formal.skeleton)              # the scoring rule, fit inside


def test_cli_strategy(tmp_path, capsys) -> None:
    from solvers.equation.__main__ import main

    x = np.linspace(0.5, 4.0, 40)
    path = tmp_path / "data.csv"
    np.savetxt(path, np.c_[x, 1.5 * np.exp(-0.25 * x)], delimiter=",", header="x,y",
               comments="")
    for strategy in ("projected", "bfgs"):
        assert main([str(path), "--equation", "p0*exp(-p1*x)", "--strategy", strategy]) == 0
        out = capsys.readouterr().out
        assert "p0 = 1.5" in out and "p1 = 0.25" in out
    with pytest.raises(SystemExit):
        main([str(path), "--equation", "p0*x", "--strategy", "newton"])


def test_time_budget_holds_during_the_grid_search() -> None:
    # 5000 rows: one profile is many chunks; the budget is checked before each of them
    rng = np.random.default_rng(4)
    A = rng.uniform(0.0, 10.0, size=(5000, 2))
    eq = parse_equation("p0*sin(p1*x) + p2*exp(-p3*t)", ["x", "t"])
    y = eq.evaluate(A, [1.0, 2.2, 0.5, 0.3])
    res = fit(eq, A, y, seconds=0.3)
    assert res.status.value == "time_limit" and res.seconds < 5.0
