"""The symbolic-regression baselines (solvers.symreg): each real baseline recovers a simple law
from noise-free data, the same seed gives the same expression, the time limit holds, gplearn
programs (protected operators included) convert to the right formulas, bad data get a clear
error, and PySR without Julia is refused with a clear message before anything is imported."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import sympy

from scir.outcomes.regression import acc_tau
from solvers.equation.expression import parse_equation
from solvers.errors import ConfigError, SolverError, SolverInputError
from solvers.symreg import (
    REGRESSORS,
    GplearnRegressor,
    OperonRegressor,
    RegressorUnavailable,
    check_data,
    get_regressor,
    program_to_sympy,
    pysr_sr,
)

pytest.importorskip("pyoperon")
pytest.importorskip("gplearn")
from gplearn._program import _Program
from gplearn.functions import _function_map


def predict(expression: str, inputs: list[str], X: np.ndarray) -> np.ndarray:
    """The expression evaluated on the rows of ``X`` by the project's one evaluator."""
    return parse_equation(expression, inputs).evaluate(X)


def law_product(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    X = rng.uniform(1.0, 5.0, (n, 2))
    return X, 2.5 * X[:, 0] * X[:, 1] + X[:, 0]


def law_plain(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    X = rng.uniform(1.0, 5.0, (n, 2))
    return X, X[:, 0] * X[:, 1] + X[:, 0]


# (baseline, law, input names, seconds, seed): names that clash with sympy's own (gamma, S);
# gplearn has no constant tuning, so its law has no constant (it finds 2.5*x*y + x rarely).
# The time limits are far above what the budgets need (a few seconds), so that the budget, not
# the clock of a loaded machine, ends each search.
CASES = {
    "pyoperon": (OperonRegressor(population_size=300, generations=150), law_product,
                 ["S", "gamma"], 60.0, 7),
    "gplearn": (GplearnRegressor(population_size=500, generations=20), law_plain,
                ["S", "beta"], 60.0, 1),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def fitted(request: pytest.FixtureRequest):
    regressor, law, inputs, seconds, seed = CASES[request.param]
    X, y = law(np.random.default_rng(0), 200)
    return (regressor, law, inputs, seconds, seed, X, y,
            regressor.fit(X, y, inputs, seconds=seconds, seed=seed))


def test_baseline_recovers_a_simple_law(fitted) -> None:
    regressor, law, inputs, seconds, _, _, _, result = fitted
    X_new, y_new = law(np.random.default_rng(1), 300)       # fresh points of the same law
    y_pred = predict(result.expression, inputs, X_new)
    assert acc_tau(y_new, y_pred, 0.001), result
    assert {str(s) for s in parse_equation(result.expression, inputs).to_sympy().free_symbols} \
        == set(inputs)
    assert parse_equation(result.expression, inputs).text == result.expression   # canonical
    assert result.status == "ok" and 0 < result.seconds < seconds
    assert result.complexity >= 3 and regressor.name in result.log


def test_same_seed_same_expression(fitted) -> None:
    regressor, _, inputs, seconds, seed, X, y, result = fitted
    assert result.status == "ok"          # the budget, not the clock, ended it: deterministic
    again = regressor.fit(X, y, inputs, seconds=seconds, seed=seed)
    assert again.expression == result.expression


@pytest.mark.parametrize("regressor", [OperonRegressor(population_size=200,
                                                       generations=10 ** 6),
                                       GplearnRegressor(population_size=200,
                                                        generations=10 ** 6)],
                         ids=["pyoperon", "gplearn"])
def test_time_limit_is_respected(regressor) -> None:
    rng = np.random.default_rng(3)
    X = rng.uniform(-2.0, 2.0, (150, 3))
    y = np.sin(X[:, 0] * X[:, 1]) + np.exp(0.3 * X[:, 2]) * X[:, 0] ** 3 + rng.normal(0, .1, 150)
    result = regressor.fit(X, y, ["a", "b", "c"], seconds=1.0, seed=0)
    assert result.status == "timeout"
    # a million generations would take hours: stopping within a few seconds of the limit
    # is the limit at work (generous for a loaded machine)
    assert result.seconds < 1.0 + 5.0, result.seconds
    assert np.isfinite(predict(result.expression, ["a", "b", "c"], X)).any()


def gp_program(nodes: list[object], n_features: int) -> _Program:
    """A gplearn program over the given prefix nodes (function names become functions)."""
    program = [_function_map[n] if isinstance(n, str) else n for n in nodes]
    fns = sorted({n for n in nodes if isinstance(n, str)})
    return _Program(function_set=[_function_map[f] for f in fns],
                    arities={a: [_function_map[f] for f in fns if _function_map[f].arity == a]
                             for a in (1, 2)},
                    init_depth=(2, 4), init_method="full", n_features=n_features,
                    const_range=(-1.0, 1.0), metric=None, p_point_replace=0.05,
                    parsimony_coefficient=0.0, random_state=np.random.RandomState(0),
                    program=program)


x0, x1 = sympy.symbols("v0 v1", real=True)
CONVERSIONS = [
    (["add", "mul", 0, 1, "sub", 0, 2.5], x0 * x1 + x0 - 2.5),
    (["div", 0, 1], x0 / x1),
    (["inv", "neg", 0], -1 / x0),
    (["log", "sub", 0, 1], sympy.log(sympy.Abs(x0 - x1))),
    (["sqrt", "sub", 0, 1], sympy.sqrt(sympy.Abs(x0 - x1))),
    (["abs", "sin", "cos", 1], sympy.Abs(sympy.sin(sympy.cos(x1)))),
    (["tan", "mul", 0.5, 0], sympy.tan(0.5 * x0)),
]


@pytest.mark.parametrize("nodes,expected", CONVERSIONS, ids=lambda v: str(v)[:30])
def test_gplearn_program_conversion(nodes: list[object], expected: sympy.Expr) -> None:
    program = gp_program(nodes, 2)
    converted = program_to_sympy(program.program, 2)
    assert sympy.simplify(converted - expected) == 0
    # where no protection guard fires, the formula is gplearn's own prediction
    X = np.random.default_rng(5).uniform(1.0, 3.0, (50, 2))
    X[:, 1] += 4.0                       # |x0 - x1| > 1, |x| > 1: no guard fires
    f = sympy.lambdify([x0, x1], converted, "numpy")
    np.testing.assert_allclose(np.broadcast_to(f(*X.T), (50,)), program.execute(X), rtol=1e-12)


def test_protected_division_guard_is_dropped() -> None:
    """gplearn answers 1 for a/b when |b| <= 0.001; the converted formula is a/b there."""
    program = gp_program(["div", 0, 1], 2)
    X = np.array([[2.0, 4.0], [2.0, 0.0005]])
    assert program.execute(X).tolist() == [0.5, 1.0]
    f = sympy.lambdify([x0, x1], program_to_sympy(program.program, 2), "numpy")
    assert f(*X.T).tolist() == [0.5, 4000.0]


@pytest.mark.parametrize("program,match", [
    ([_function_map["add"], 0], "incomplete"),
    ([_function_map["add"], 0, 5], "column 5"),
    ([0, 1], "after its end"),
    ([_function_map["add"], 0, "x"], "not a terminal"),
    ([_function_map["max"], 0, 1], "'max' has no formula"),    # the language has no max
])
def test_malformed_gplearn_program(program: list[object], match: str) -> None:
    with pytest.raises(SolverError, match=match):
        program_to_sympy(program, 2)


def test_pysr_without_julia_is_refused_before_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pysr_sr.shutil, "which", lambda name: None)
    before = "pysr" in sys.modules
    with pytest.raises(RegressorUnavailable, match="PySR needs Julia, which is not installed"):
        get_regressor("pysr").fit([[1.0], [2.0]], [1.0, 2.0], ["x"], seconds=1, seed=0)
    assert ("pysr" in sys.modules) == before and "juliacall" not in sys.modules
    assert isinstance(RegressorUnavailable("x"), ConfigError)


def test_pysr_refused_on_this_machine() -> None:
    reason = pysr_sr.availability()
    if reason is None:
        pytest.skip("PySR and Julia are installed here")
    assert "PySR" in reason


@pytest.mark.parametrize("X,y,inputs,seconds,error", [
    ([[1.0], [np.nan]], [1.0, 2.0], ["x"], 1, SolverInputError),
    ([[1.0, 2.0], [2.0, 3.0]], [1.0, 2.0], ["x"], 1, SolverInputError),
    ([[1.0], [2.0]], [1.0, 2.0, 3.0], ["x"], 1, SolverInputError),
    ([[1.0], [2.0]], [1.0, 2.0], ["lambda"], 1, ConfigError),
    ([[1.0], [2.0]], [1.0, 2.0], ["E"], 1, ConfigError),        # Euler's number
    ([[1.0, 1.0], [2.0, 2.0]], [1.0, 2.0], ["x", "x"], 1, ConfigError),
    ([["a"], ["b"]], [1.0, 2.0], ["x"], 1, SolverInputError),
    ([[1.0], [2.0]], [1.0, 2.0], ["x"], 0, ConfigError),
    ([[1.0], [2.0]], [1.0, 2.0], ["x"], float("nan"), ConfigError),
])
def test_bad_data_is_refused(X, y, inputs, seconds, error) -> None:
    with pytest.raises(error):
        check_data(X, y, inputs, seconds)
    for name in ("pyoperon", "gplearn"):
        with pytest.raises(error):
            get_regressor(name).fit(X, y, inputs, seconds=seconds, seed=0)


def test_unknown_regressor() -> None:
    assert set(REGRESSORS) == {"pyoperon", "gplearn", "pysr"}
    with pytest.raises(ConfigError, match="regressor must be one of"):
        get_regressor("eureqa")


@pytest.mark.parametrize("seed", range(30))
def test_random_programs_convert_exactly(seed: int) -> None:
    """Random gplearn programs over the operators without a guard: the converted formula
    is gplearn's own prediction, point for point."""
    fns = [_function_map[f] for f in ("add", "sub", "mul", "sqrt", "sin", "cos", "neg", "abs")]
    program = _Program(function_set=fns, arities={1: [f for f in fns if f.arity == 1],
                                                 2: [f for f in fns if f.arity == 2]},
                       init_depth=(2, 6), init_method="half and half", n_features=2,
                       const_range=(-3.0, 3.0), metric=None, p_point_replace=0.05,
                       parsimony_coefficient=0.0, random_state=np.random.RandomState(seed))
    X = np.random.default_rng(seed).uniform(-3.0, 3.0, (40, 2))
    f = sympy.lambdify([x0, x1], program_to_sympy(program.program, 2), "numpy")
    np.testing.assert_allclose(np.broadcast_to(f(*X.T), (40,)), program.execute(X),
                               rtol=1e-9, atol=1e-12)


def test_the_registry_names_the_regressors_solvers_has():
    from scir.pipelines.registry import SYMREG_ARCHS
    from solvers.symreg import REGRESSORS

    assert SYMREG_ARCHS == tuple(REGRESSORS)


@pytest.mark.parametrize("name", ["pyoperon", "gplearn"])
def test_a_generation_budget_repeats_under_any_load(name: str) -> None:
    """get_regressor(name, N) searches N generations (PySR: iterations) whatever the clock
    allows, so the same seed gives the same expression on a loaded machine too."""
    regressor = get_regressor(name, 3)
    assert regressor.generations == 3  # type: ignore[attr-defined]
    X, y = law_plain(np.random.default_rng(4), 150)
    first = regressor.fit(X, y, ["x", "y"], seconds=120.0, seed=5)
    again = get_regressor(name, 3).fit(X, y, ["x", "y"], seconds=120.0, seed=5)
    assert first.status == "ok" and again.expression == first.expression
    assert first.extra["generations"] <= 3.0
    assert get_regressor(name).generations > 3  # type: ignore[attr-defined]


def test_pysr_budget_is_its_iterations() -> None:
    assert get_regressor("pysr", 7).niterations == 7  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3", 10**7])
def test_a_bad_generation_budget_is_refused(bad: object) -> None:
    with pytest.raises(ConfigError, match="generations must be an integer from 1"):
        get_regressor("gplearn", bad)  # type: ignore[arg-type]
