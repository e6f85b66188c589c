"""The precision-goal schedule of the SR agent (MAPE as a fraction: 1e-3 = 0.1 %).

The first iteration's goal is ``goal_start``. When an iteration's best MAPE meets its goal
(``best < goal``), the next goal is the next power of ten strictly below that best (3.2e-4 ->
1e-4; exactly 1e-4 -> 1e-5); otherwise the goal stays. The run stops as soon as the best MAPE
seen is below ``goal_stop``.
"""

from __future__ import annotations

import math


def power_below(value: float) -> float:
    """The largest power of ten strictly below a positive ``value``."""
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"a power of ten below {value!r} is not defined")
    exponent = math.floor(math.log10(value))
    if 10.0**exponent >= value:  # value is a power of ten (or log10 rounded up)
        exponent -= 1
    while 10.0**exponent >= value:
        exponent -= 1
    return 10.0**exponent


def met(best: float | None, goal: float) -> bool:
    """Whether a best MAPE (None: nothing evaluated) meets a goal."""
    return best is not None and best < goal


def next_goal(goal: float, best: float | None) -> float:
    """The goal of the next iteration, given this iteration's goal and its best MAPE."""
    if best is not None and met(best, goal) and best > 0:  # an exact fit (0) has nothing below it
        return power_below(best)
    return goal


def should_stop(best: float | None, stop: float) -> bool:
    """Whether the run is done: the best MAPE seen is below ``stop``."""
    return best is not None and best < stop
