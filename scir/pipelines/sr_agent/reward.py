"""The log-linear reward of an SR-agent trajectory (SR-Scientist, for RL training):

``R = clip((lg s_max - lg s) / (lg s_max - lg s_goal), 0, 1)``

where ``s`` is the best MAPE the trajectory reached (a fraction), ``s_max`` the MAPE at and
above which the reward is 0, and ``s_goal`` the goal of the trajectory's iteration (reward 1 at
and below it). A trajectory that evaluated nothing gets 0; an exact fit (``s == 0``) gets 1.
"""

from __future__ import annotations

import math


def reward(s: float | None, s_goal: float, s_max: float = 1.0) -> float:
    """The reward of a best MAPE ``s`` under a goal ``s_goal`` and an upper bound ``s_max``."""
    if not 0 < s_goal < s_max:
        raise ValueError(f"the reward needs 0 < s_goal < s_max, got {s_goal!r}, {s_max!r}")
    if s is None or math.isnan(s):
        return 0.0
    if s <= 0:
        return 1.0
    value = (math.log10(s_max) - math.log10(s)) / (math.log10(s_max) - math.log10(s_goal))
    return min(1.0, max(0.0, value))
