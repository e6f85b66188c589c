"""scir.reports.stats: Wilson intervals, chance normalisation, paired bootstrap differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scir.reports.stats import Interval, normalised_accuracy, paired_difference, wilson


def independent_check_wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval from its textbook formula (an independent check of the
    library call)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_the_formula_and_contains_the_estimate(kn):
    k, n = kn
    got = wilson(k, n)
    low, high = independent_check_wilson(k, n)
    assert got.low == pytest.approx(max(0.0, low), abs=1e-9)
    assert got.high == pytest.approx(min(1.0, high), abs=1e-9)
    assert 0.0 <= got.low <= got.estimate <= got.high <= 1.0


def test_wilson_narrows_with_more_tasks_and_rejects_bad_counts():
    small, large = wilson(10, 20), wilson(100, 200)
    assert small.estimate == large.estimate == 0.5
    assert large.high - large.low < small.high - small.low
    assert math.isnan(wilson(0, 0).estimate)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_normalised_accuracy():
    assert normalised_accuracy(0.25, 0.25) == 0.0
    assert normalised_accuracy(0.1, 0.25) == 0.0          # below chance clips to 0
    assert normalised_accuracy(1.0, 1 / 3) == pytest.approx(1.0)
    assert normalised_accuracy(0.6, 0.2) == pytest.approx(0.5)
    assert normalised_accuracy(1.0, 1.0) == 0.0


def test_paired_difference_is_deterministic_and_brackets_the_mean():
    rng = np.random.default_rng(7)
    first = (rng.random(200) < 0.7).astype(float)
    second = (rng.random(200) < 0.5).astype(float)
    one, two = paired_difference(first, second), paired_difference(first, second)
    assert one == two
    assert one.estimate == pytest.approx(float(np.mean(first - second)))
    assert one.low < one.estimate < one.high
    # the interval of the reversed pair is the mirror image
    rev = paired_difference(second, first)
    assert rev.estimate == pytest.approx(-one.estimate)
    assert rev.low == pytest.approx(-one.high, abs=0.02)


def test_paired_difference_agrees_with_a_plain_resampling_check():
    """An independent check: resample task indices with numpy and take percentiles."""
    rng = np.random.default_rng(3)
    first = (rng.random(150) < 0.6).astype(float)
    second = np.where(rng.random(150) < 0.8, first, 1 - first)
    got = paired_difference(first, second)
    diff = first - second
    picks = np.random.default_rng(11).integers(0, diff.size, size=(20000, diff.size))
    means = diff[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    assert got.low == pytest.approx(low, abs=0.02)
    assert got.high == pytest.approx(high, abs=0.02)


def test_paired_difference_degenerate_inputs():
    assert paired_difference([1, 0, 1], [1, 0, 1]) == Interval(0.0, 0.0, 0.0)
    assert paired_difference([1, 1], [0, 0]) == Interval(1.0, 1.0, 1.0)
    assert math.isnan(paired_difference([], []).estimate)
    with pytest.raises(ValueError):
        paired_difference([1, 0], [1])
