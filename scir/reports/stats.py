"""The statistics of a report: accuracy with a 95% Wilson interval, chance-normalised accuracy
and paired differences with a bootstrap interval over the same tasks.

The intervals come from a well-kept library (scipy's Wilson score interval, bootstrap and
order-statistic quantile interval); this module only fixes the conventions: 95% by default, a
seeded generator so the same results give the same report, and the degenerate cases (no tasks,
identical outcomes).

Small samples: an interval over fewer than :data:`SMALL_N` tasks (or pairs, or problems) is
printed with :data:`SMALL_MARK` after it (``1.00 [1.00, 1.00]~``): at such sizes the interval's
nominal 95% coverage is not to be trusted (Wilson's is close but the bootstrap's is not: a
paired bootstrap over one task is ``[x, x]``, which says nothing), and a reader should not read
a narrow interval as certainty (docs/evaluation.md, "Small samples").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

LEVEL = 0.95  # the confidence level of every interval in a report
SMALL_N = 30  # below this many tasks an interval is marked as a small sample
SMALL_MARK = "~"
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class Interval:
    """An estimate with its confidence interval."""

    estimate: float
    low: float
    high: float
    n: int | None = field(default=None, compare=False)  # the sample size, when known

    @property
    def small(self) -> bool:
        """Whether the interval comes from fewer than :data:`SMALL_N` (but some) tasks."""
        return self.n is not None and 0 < self.n < SMALL_N

    def __str__(self) -> str:
        return f"{self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}]"


NO_VALUE = "-"  # how a report shows a missing number


def format_number(value: float | None, digits: int = 2) -> str:
    """A number as a report shows it: ``digits`` decimals, :data:`NO_VALUE` for None / NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_VALUE
    return f"{value:.{digits}f}"


def format_interval(i: Interval | None) -> str:
    """An interval as a report shows it, ``0.33 [0.06, 0.79]``; :data:`NO_VALUE` for None or
    an undefined estimate (no tasks)."""
    if i is None or math.isnan(i.estimate):
        return NO_VALUE
    return f"{i.estimate:.2f} [{i.low:.2f}, {i.high:.2f}]" + small_mark(i)


def small_mark(i: Interval | None) -> str:
    """:data:`SMALL_MARK` for an interval of a small sample, else ``""``."""
    return SMALL_MARK if i is not None and i.small else ""


def format_general(i: Interval | None) -> str:
    """An interval of a quantity spanning magnitudes (an NMSE), ``3.1e-05 [0, 0.012]``
    (``inf`` for an unbounded or infinite value); :data:`NO_VALUE` for None or no tasks."""
    if i is None or math.isnan(i.estimate):
        return NO_VALUE
    return f"{i.estimate:.2g} [{i.low:.2g}, {i.high:.2g}]" + small_mark(i)


def wilson(correct: int, n: int, level: float = LEVEL) -> Interval:
    """Accuracy ``correct / n`` with its Wilson score interval (NaNs when ``n`` is 0)."""
    from scipy.stats import binomtest

    if n < 0 or not 0 <= correct <= n:
        raise ValueError(f"need 0 <= correct <= n, got correct={correct}, n={n}")
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    ci = binomtest(correct, n).proportion_ci(confidence_level=level, method="wilson")
    low, high = ci.low, ci.high
    p = correct / n
    # rounding can put a bound a hair past the estimate at 0 or 1 successes
    return Interval(p, max(0.0, min(float(low), p)), min(1.0, max(float(high), p)), n)


def median_interval(
    values: Sequence[float], level: float = LEVEL, lowest: float = -math.inf
) -> Interval:
    """The median of ``values`` with its distribution-free order-statistic interval
    (:func:`scipy.stats.quantile_test`, two-sided: the sorted values at the ranks the
    binomial(n, 1/2) quantiles give). A bound the sample cannot give at ``level`` (fewer than
    six values at 95%) is the smallest possible value ``lowest`` or ``inf``; no values give
    NaNs. Infinite values are allowed (e.g. an NMSE that is not finite)."""
    from scipy.stats import quantile_test

    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or np.isnan(x).any():
        raise ValueError("median_interval needs a flat list of numbers without NaN")
    if x.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    ci = quantile_test(x, p=0.5).confidence_interval(confidence_level=level)
    low = lowest if math.isnan(ci.low) else float(ci.low)
    high = math.inf if math.isnan(ci.high) else float(ci.high)
    return Interval(float(np.median(x)), low, high, int(x.size))


def normalised_accuracy(accuracy: float, chance: float) -> float:
    """``max(0, (A - c) / (1 - c))``, the paper's chance-normalised accuracy; 0 when c is 1."""
    if chance >= 1.0:
        return 0.0
    return max(0.0, (accuracy - chance) / (1.0 - chance))


def paired_difference(
    first: Sequence[float],
    second: Sequence[float],
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """Mean of ``first - second`` over the same tasks (one pair per task, same order) with a
    paired percentile-bootstrap interval (tasks resampled with their pairs). Deterministic for
    a given seed; a constant difference has a zero-width interval."""
    from scipy.stats import bootstrap

    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(
            f"paired outcomes need two equal-length lists, got {a.shape} and {b.shape}"
        )
    if a.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    diff = a - b
    mean = float(diff.mean())
    if np.all(diff == diff[0]):
        return Interval(mean, mean, mean, int(diff.size))
    result = bootstrap(
        (diff,),
        np.mean,
        confidence_level=level,
        n_resamples=resamples,
        method="percentile",
        vectorized=True,
        random_state=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(mean, float(ci.low), float(ci.high), int(diff.size))
