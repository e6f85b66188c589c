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

Free text (no grammar) also degenerates in ways that are not periodic in tokens: a small
model copies the problem with one name swapped per sentence, or loops over a phrase with a
counter in it, until the token limit. :class:`CopyGuard` stops those with the finish reason
:data:`COPY`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scir.llm.base import LLMRequest

REPETITION = "repetition"  # the finish reason of a generation stopped by the guard


class RepetitionGuard:
    """Feed token ids one by one (:meth:`push`); True once the output loops."""

    def __init__(
        self, *, times: int = 3, max_period: int = 256, min_span: int = 24, long_block: int = 32
    ) -> None:
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
            block = t[n - p :]
            if all(t[n - k * p : n - (k - 1) * p] == block for k in range(2, times + 1)):
                return True
        return False


def prompt_text(request: LLMRequest) -> str:
    """What a :class:`CopyGuard` compares against: the request's user and system messages
    (never the model's own earlier answers)."""
    return "\n".join(
        str(m.get("content") or "") for m in request.chat_messages() if m.get("role") != "assistant"
    )


COPY = "copy"  # the finish reason of free text stopped by the CopyGuard
COPY_EVERY = 4  # the backends check free text every this many tokens
_WORD = re.compile(r"\S+")
_LETTER = re.compile(r"[^\W\d_]")


_DIGITS = re.compile(r"\d+")


def _words(text: str) -> list[str]:
    """Whitespace-separated words, every run of digits read as one digit (a phrase looping
    with a counter, "Condition 3 ... Condition 4", is the same phrase)."""
    return [_DIGITS.sub("0", w) for w in _WORD.findall(text)]


def _grams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


class CopyGuard:
    """Free text that only restates: stops a generation whose last ``window`` word
    ``n``-grams are, all but a share of ``1 - share``, already in the prompt or earlier in
    the output. It catches what :class:`RepetitionGuard` does not: a small model copying the
    problem text with one name changed per sentence, or a phrase looping with a counter in it
    ("Condition 3 ... Condition 4 ..."), both until the token limit.

    Only n-grams with a letter in them count: data rows copied as numbers (what a causal
    formalization is asked to do) are neither old nor new. The prompt is the text of the
    user and system messages, never an earlier answer of the model (a corrected
    formalization rightly repeats most of the failed one).

        >>> guard = CopyGuard("Every cell that is a neuron is a glial cell. " * 2
        ...                   + "Cell K1 is a neuron. Is cell K1 a glial cell?")
        >>> guard.push_text("Cell K1 is a neuron, so it is a glial cell. Answer: True")
        False
        >>> guard.push_text("Every cell that is a glial cell is a neuron. " * 2
        ...                 + "Every cell that is a neuron is a neuron. " * 3)
        True
        >>> CopyGuard("").push_text(" ".join(f"Condition {i} is like Condition {i + 1}."
        ...                                  for i in range(12)))
        True
    """

    def __init__(self, prompt: str, *, n: int = 4, window: int = 32, share: float = 0.9) -> None:
        self.n = n
        self.window = window
        self.share = share
        self.prompt = set(_grams(_words(prompt), n))

    def push_text(self, text: str) -> bool:
        """Whether ``text``, the whole output so far (its last word may be unfinished, and is
        left out), now only restates."""
        words = _words(text)
        if text and not text[-1].isspace():
            words = words[:-1]
        grams = [g for g in _grams(words, self.n) if any(_LETTER.search(w) for w in g)]
        if len(grams) < self.window:
            return False
        seen = set(grams[: -self.window])
        old = 0
        for gram in grams[-self.window :]:
            old += gram in self.prompt or gram in seen
            seen.add(gram)
        return old >= self.share * self.window
