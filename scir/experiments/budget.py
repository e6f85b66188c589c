"""Budgets and rate limits of ``scir eval``: backend wrappers below the run store's cache, so
only calls really made count and wait.

:class:`Spending` adds up the tokens and cost of every call stored in the run (all earlier
invocations included) plus those made now, and the wall time of this invocation; when a limit
of the experiment's ``[budget]`` is reached, the next call (or the next task) raises
:class:`BudgetExceeded`, which stops the grid cleanly: calls in flight are cancelled, finished
results are kept, and a rerun with a raised budget continues.
"""

from __future__ import annotations

import threading
import time

from scir.experiments.experiment import Budget
from scir.llm.base import Backend, LLMRequest, LLMResponse
from scir.llm.http_limits import cancellable_sleep


class BudgetExceeded(Exception):
    """A budget limit was reached: which one and what was spent (a message for the user)."""


class Spending:
    """Tokens, cost and wall time spent, checked against a budget; thread-safe."""

    def __init__(self, budget: Budget, tokens: int = 0, cost: float = 0.0) -> None:
        """Start from ``tokens`` and ``cost`` already spent (the run store's stored calls)."""
        self.budget = budget
        self.tokens = tokens
        self.cost = cost
        self.start = time.monotonic()
        self._lock = threading.Lock()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def spent(self) -> str:
        """What was spent, as one phrase."""
        return (
            f"{self.tokens} tokens, ${self.cost:.4f}, {self.elapsed():.0f} s of wall time "
            f"in this invocation"
        )

    def check(self) -> None:
        """Raise BudgetExceeded when a limit is reached."""
        b = self.budget
        with self._lock:
            which = None
            if b.max_cost_usd is not None and self.cost >= b.max_cost_usd:
                which = f"max_cost_usd = {b.max_cost_usd}"
            elif b.max_tokens is not None and self.tokens >= b.max_tokens:
                which = f"max_tokens = {b.max_tokens}"
            elif b.max_wall_seconds is not None and self.elapsed() >= b.max_wall_seconds:
                which = f"max_wall_seconds = {b.max_wall_seconds}"
        if which is not None:
            raise BudgetExceeded(f"budget reached: {which} (spent {self.spent()})")

    def add(self, response: LLMResponse) -> None:
        with self._lock:
            self.tokens += response.prompt_tokens + response.completion_tokens
            self.cost += response.cost_usd


class _Wrapper(Backend):
    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model = inner.model
        self.enforced = inner.enforced

    def close(self) -> None:
        self.inner.close()


class BudgetedBackend(_Wrapper):
    """Checks the budget before every call and counts what the call spent."""

    def __init__(self, inner: Backend, spending: Spending) -> None:
        super().__init__(inner)
        self.spending = spending

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.spending.check()
        response = self.inner.complete(request)
        self.spending.add(response)
        return response


class RateLimitedBackend(_Wrapper):
    """At most ``per_minute`` calls in any moving 60-second window (the ``limits`` library);
    a call over the limit waits (cancellably) until the window has room."""

    def __init__(self, inner: Backend, per_minute: float) -> None:
        from limits import RateLimitItem, RateLimitItemPerMinute, storage, strategies

        super().__init__(inner)
        self._item: RateLimitItem
        # `limits` counts whole requests per window: a fractional rate is taken per hour
        if per_minute >= 1 and float(per_minute).is_integer():
            self._item = RateLimitItemPerMinute(int(per_minute))
        else:
            from limits import RateLimitItemPerHour

            self._item = RateLimitItemPerHour(max(1, round(per_minute * 60)))
        self._limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())

    def complete(self, request: LLMRequest) -> LLMResponse:
        while not self._limiter.hit(self._item, self.inner.name):
            reset = self._limiter.get_window_stats(self._item, self.inner.name).reset_time
            cancellable_sleep(min(5.0, max(0.05, reset - time.time())))
        return self.inner.complete(request)
