"""scir.outcomes.regression: Acc_tau, NMSE and symbolic equivalence of the equation track."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scir.errors import ConfigError, FormalizationError, TaskFormatError
from scir.outcomes.regression import (TAUS, acc_tau, nmse, point_correct, relative_errors,
                                      symbolic_equivalent)

Y = np.array([1.0, -2.0, 4.0, 0.0])


def test_relative_errors_by_hand() -> None:
    pred = np.array([1.1, -2.0, 3.0, 0.0])
    np.testing.assert_allclose(relative_errors(Y, pred), [0.1, 0.0, 0.25, 0.0], rtol=1e-12)
    # a zero target is met only exactly; non-finite predictions have infinite error
    assert relative_errors([0.0, 0.0], [1e-300, 0.0]).tolist() == [math.inf, 0.0]
    assert relative_errors([1.0, 1.0, 1.0], [np.nan, np.inf, -np.inf]).tolist() == [math.inf] * 3


def test_point_correct_is_strict() -> None:
    assert point_correct([2.0, 2.0], [2.2, 2.19], 0.1).tolist() == [False, True]


def test_acc_tau_share() -> None:
    y = np.arange(1.0, 21.0)                     # 20 points
    pred = y.copy()
    pred[0] *= 2                                 # 19/20 = 95 % correct: passes
    assert acc_tau(y, pred, 0.01)
    pred[1] *= 2                                 # 18/20 = 90 %: fails
    assert not acc_tau(y, pred, 0.01)
    assert acc_tau(y, pred, 0.01, share=0.9)
    pred[2] = np.nan
    assert not acc_tau(y, pred, 0.01, share=0.9)


def test_constant_bias() -> None:
    y = np.linspace(1.0, 10.0, 50)
    assert not acc_tau(y, y * 1.02, 0.01)
    assert acc_tau(y, y * 1.02, 0.1)
    assert TAUS == (0.1, 0.01, 0.001)


def test_nmse_by_hand() -> None:
    y = np.array([1.0, 2.0, 3.0, 4.0])           # population variance 1.25
    assert nmse(y, y + 0.5) == pytest.approx(0.25 / 1.25)
    assert nmse(y, np.full(4, y.mean())) == pytest.approx(1.0)
    assert nmse(y, [1.0, 2.0, 3.0, np.nan]) == math.inf
    assert nmse([3.0, 3.0], [3.0, 3.0]) == 0.0
    assert nmse([3.0, 3.0], [3.0, 3.1]) == math.inf


def test_bad_arrays() -> None:
    with pytest.raises(ConfigError, match="same non-zero length"):
        nmse([1.0, 2.0], [1.0])
    with pytest.raises(ConfigError, match="same non-zero length"):
        acc_tau([], [], 0.1)
    with pytest.raises(TaskFormatError, match="non-finite"):
        relative_errors([1.0, np.nan], [1.0, 1.0])
    with pytest.raises(ConfigError, match="tau"):
        point_correct([1.0], [1.0], 0.0)


FINITE = arrays(np.float64, st.integers(1, 40),
                elements=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


@settings(max_examples=30, deadline=None)
@given(FINITE)
def test_truth_against_itself(y: np.ndarray) -> None:
    for tau in TAUS:
        assert acc_tau(y, y, tau)
    assert nmse(y, y) == 0.0


@settings(max_examples=30, deadline=None)
@given(FINITE, st.floats(-0.5, 0.5))
def test_relative_error_of_a_scaled_prediction(y: np.ndarray, bias: float) -> None:
    err = relative_errors(y, y * (1 + bias))
    nonzero = y != 0
    np.testing.assert_allclose(err[nonzero], abs(bias), rtol=1e-9, atol=1e-15)
    assert np.all(err[~nonzero] == 0)


# -- symbolic equivalence ------------------------------------------------------------------

@pytest.mark.parametrize("candidate, truth, expected", [
    ("1.0004*x*exp(-0.5*t)", "x*exp(-t/2)", True),        # fitted constants within 1e-3
    ("p0*x*exp(-p1*t)", "x*exp(-t/2)", True),             # free parameters
    ("p0*x + p1", "2.5*x + sqrt(2)", True),               # a parameter equal to sqrt(2)
    ("log(x*t)", "log(x) + log(t)", True),                # identity on the positive domain
    ("p0*(sin(x)**2 + cos(x)**2)", "3", True),
    ("x**2.0*p0", "0.8234*x**2", True),
    ("1.01*x*exp(-0.5*t)", "x*exp(-t/2)", False),         # constant 1 % off
    ("x*exp(-p0*x)", "x*exp(-t/2)", False),               # wrong variable
    ("p0*x**2", "x**2 + 1e-3*x", False),                  # close numerically, not symbolically
    ("x + 1e-9*t", "x", False),                           # a spurious term
])
def test_symbolic_equivalent(candidate: str, truth: str, expected: bool) -> None:
    assert symbolic_equivalent(candidate, truth, ["x", "t"]) is expected


def test_symbolic_equivalent_on_the_data_domain() -> None:
    # with negative sample points the inputs are real symbols, not positive ones
    X = np.column_stack([np.linspace(-3.0, -0.5, 20), np.linspace(-2.0, -1.0, 20)])
    assert symbolic_equivalent("sqrt(x**2)", "abs(x)", ["x", "t"], X=X)
    assert not symbolic_equivalent("sqrt(x**2)", "x", ["x", "t"], X=X)
    assert symbolic_equivalent("sqrt(x**2)", "x", ["x", "t"])     # default points: positive


def test_symbolic_equivalent_time_limit() -> None:
    # a proof not finished in time counts as not proved: 0.05 s is less than the proving
    # subprocess needs to start, which is killed
    assert symbolic_equivalent("p0*x*t", "2*t*x", ["x", "t"], seconds=30.0)
    assert not symbolic_equivalent("p0*x*t", "2*t*x", ["x", "t"], seconds=0.05)


def test_symbolic_equivalent_bad_text() -> None:
    with pytest.raises(FormalizationError):
        symbolic_equivalent("__import__('os')", "x", ["x"])
    with pytest.raises(ConfigError, match="has parameters"):
        symbolic_equivalent("x", "p0*x", ["x"])
