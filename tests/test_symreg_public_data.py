"""The baselines on data of the public kind (LLM-SR, LSR-Synth): thousands of rows, several
inputs, values that went through float32 (LLM-SRBench stores its samples as float32), and a
target handed over as a read-only array -- what pandas 3 gives for a column
(``df["y"].to_numpy()``) and what made pyoperon 0.6.2 crash after its whole search with
``TypeError: FitLeastSquares(): incompatible function arguments`` (nanobind refuses a
read-only array for the binding's non-const ``ndarray``; scikit-learn's ``check_X_y`` passes
the caller's array on unchanged). ``check_data`` now hands every library a fresh, writable,
C-contiguous float64 copy."""

from __future__ import annotations

import numpy as np
import pytest

from scir.outcomes.regression import acc_tau
from solvers.equation.expression import parse_equation
from solvers.errors import SolverError
from solvers.symreg import GplearnRegressor, OperonRegressor, check_data, get_regressor

pytest.importorskip("pyoperon")
pytest.importorskip("gplearn")


def readonly(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


def public_kind(n: int = 3000) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """An LSR-Synth-like oscillator: x, t, v -> dv_dt, values rounded through float32, the
    matrix Fortran-ordered and the target a read-only column view."""
    rng = np.random.default_rng(5)
    X = rng.uniform([-2.0, 0.0, -2.0], [2.0, 10.0, 2.0], (n, 3)).astype(np.float32)
    x, t, v = (X[:, i].astype(np.float64) for i in range(3))
    y = (-1.3 * x - 0.4 * v + 0.8 * np.sin(1.1 * t)).astype(np.float32)
    table = np.asfortranarray(np.column_stack([X, y]).astype(np.float64))
    return readonly(table[:, :3]), readonly(table[:, 3]), ["x", "t", "v"]


def test_check_data_returns_writable_owned_float64() -> None:
    X, y, inputs = public_kind(50)
    Xa, ya = check_data(X, y, inputs, 1.0)
    for a in (Xa, ya):
        assert a.dtype == np.float64 and a.flags.writeable and a.flags.c_contiguous
        assert a.flags.owndata
    big_endian = np.arange(4, dtype=">f8")
    _, yb = check_data(np.ones((4, 1)), big_endian, ["x"], 1.0)
    assert yb.dtype.byteorder in "=|<" and yb.flags.writeable


def test_pyoperon_small_random_input_readonly_target() -> None:
    """The issue's small case: 200 x 2 uniform(1, 2), y = x0 * sin(x1), a 2 s budget -- with
    the target read-only, as pandas gives it."""
    rng = np.random.default_rng(0)
    X = rng.uniform(1.0, 2.0, (200, 2))
    y = readonly(X[:, 0] * np.sin(X[:, 1]))
    fit = get_regressor("pyoperon").fit(X, y, ["x0", "x1"], seconds=2, seed=0)
    pred = parse_equation(fit.expression, ["x0", "x1"]).evaluate(X)
    assert acc_tau(y, pred, 0.1), fit.expression


@pytest.mark.parametrize("regressor", [OperonRegressor(population_size=200, generations=60),
                                       GplearnRegressor(population_size=200, generations=3)],
                         ids=["pyoperon", "gplearn"])
def test_public_kind_data_fits_without_error(regressor) -> None:
    X, y, inputs = public_kind()
    fit = regressor.fit(X, y, inputs, seconds=20, seed=0)
    pred = parse_equation(fit.expression, inputs).evaluate(np.asarray(X))
    assert np.isfinite(pred).all(), fit.expression
    nmse = float(np.mean((pred - y) ** 2) / np.var(y))
    assert nmse < 0.5, (fit.expression, nmse)       # learnt something, not a constant
    assert not X.flags.writeable and not y.flags.writeable   # the caller's arrays untouched


def test_library_failure_is_a_solver_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure inside pyoperon is the baseline's SolverError, never a raw traceback."""
    import pyoperon.sklearn as operon

    def broken(self, X, y):
        raise TypeError("FitLeastSquares(): incompatible function arguments")

    monkeypatch.setattr(operon.SymbolicRegressor, "fit", broken)
    with pytest.raises(SolverError, match="pyoperon failed: TypeError"):
        OperonRegressor().fit(np.ones((5, 1)) * np.arange(5)[:, None], np.arange(5.0), ["x"],
                              seconds=1, seed=0)


def test_large_train_splits_are_sampled_by_the_seed() -> None:
    """Public train splits have thousands of rows: each baseline searches a seeded sample
    (pyoperon 2000 rows, gplearn 1000), the same for the same seed."""
    from solvers.symreg.base import subsample

    X, y, _ = public_kind()
    Xa, ya = check_data(X, y, ["x", "t", "v"], 1.0)
    a, b = subsample(Xa, ya, 1000, 3), subsample(Xa, ya, 1000, 3)
    assert a[0].shape == (1000, 3) and np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], subsample(Xa, ya, 1000, 4)[0])
    assert subsample(Xa, ya, 0, 3)[0].shape == (3000, 3)            # 0: every row
    fit = GplearnRegressor(population_size=100, generations=1).fit(X, y, ["x", "t", "v"],
                                                                   seconds=20, seed=0)
    assert fit.extra["rows"] == 1000.0
    assert OperonRegressor.max_rows == 2000


def test_gplearn_scaled_target_answers_in_the_data_units() -> None:
    """With ``scale_target`` the program is fitted to the standardised target and answered
    as std * program + mean: its predictions are on the scale of y (here of order 1e-3)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(1.0, 3.0, (300, 2))
    y = 1e-3 * X[:, 0] * X[:, 1] + 5e-3
    fit = GplearnRegressor(population_size=300, generations=10, scale_target=True).fit(
        X, y, ["a", "b"], seconds=20, seed=0)
    pred = parse_equation(fit.expression, ["a", "b"]).evaluate(X)
    assert "target scaled" in fit.log
    assert float(np.mean((pred - y) ** 2) / np.var(y)) < 0.2, fit.expression
