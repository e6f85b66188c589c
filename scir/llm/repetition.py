"""Degenerate output: a generation that repeats itself is stopped early, with its own finish
reason (:data:`REPETITION`), instead of running to ``max_tokens``.

Small models under a grammar (and without one) fall into loops: one premise line, one fact or
one phrase repeated until the token limit. :class:`RepetitionGuard` watches the generated
token ids and says stop once the tail is periodic: the last copies of a block of ``p`` tokens
(``1 <= p <= max_period``) are identical and together at least ``min_span`` tokens long --
``times`` copies of a short block, two of a block of at least ``long_block`` tokens (a long
premise line written twice running is already a loop, and three copies of it would take
most of a formalization's budget). A genuine answer never states the same block like that
(a formalization lists distinct premises, facts, rows or edges), so the guard costs nothing
there. Under a grammar, the backends cut a stopped loop back to its longest prefix the
grammar accepts as a whole (so that it parses); where there is none (a required last line
not yet written), the output stays as it stopped and fails to parse, which is what a loop
deserves: waiting for the grammar's bounds to end it costs up to the whole budget.

    >>> guard = RepetitionGuard()
    >>> any(guard.push(t) for t in [1, 2, 3, 4] * 3 + [9] * 10)
    False
    >>> any(guard.push(t) for t in [5, 6, 7, 8, 9, 10, 11, 12] * 3)
    True
    >>> guard = RepetitionGuard()
    >>> any(guard.push(t) for t in list(range(100, 140)) * 2)
    True
"""

from __future__ import annotations

REPETITION = "repetition"        # the finish reason of a generation stopped by the guard


class RepetitionGuard:
    """Feed token ids one by one (:meth:`push`); True once the output loops."""

    def __init__(self, *, times: int = 3, max_period: int = 256, min_span: int = 24,
                 long_block: int = 32) -> None:
        self.times = times
        self.long_block = long_block
        self.max_period = max_period
        self.min_span = min_span
        self.tokens: list[int] = []

    def reset(self) -> None:
        """Forget the tokens seen (a loop is then caught only once it repeats anew)."""
        self.tokens = []

    def push(self, token: int) -> bool:
        """Add one generated token; whether the tail is now a loop."""
        self.tokens.append(int(token))
        return self.looping()

    def looping(self) -> bool:
        """Whether the last ``times`` blocks of some period are identical (see the module)."""
        t = self.tokens
        n = len(t)
        if n < self.min_span:
            return False
        last = t[-1]
        for p in range(1, min(self.max_period, n // 2) + 1):
            times = 2 if p >= self.long_block else self.times
            if p * times > n or p * times < self.min_span or t[-1 - p] != last:
                continue
            block = t[n - p:]
            if all(t[n - k * p: n - (k - 1) * p] == block for k in range(2, times + 1)):
                return True
        return False
