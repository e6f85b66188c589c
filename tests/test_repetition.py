"""scir.llm.repetition: loops stop, genuine lists of distinct items never do."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from scir.llm.repetition import RepetitionGuard


def fed(tokens: list[int]) -> int | None:
    """The position at which the guard stops, or None."""
    guard = RepetitionGuard()
    for i, t in enumerate(tokens):
        if guard.push(t):
            return i
    return None


def test_a_short_line_stops_at_its_third_copy() -> None:
    line = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16]            # ten tokens, with its newline
    assert fed([1, 2, 3] + line * 5) == 3 + 3 * len(line) - 1


def test_a_long_line_stops_at_its_second_copy() -> None:
    line = list(range(200, 260))
    assert fed(line * 3) == 2 * len(line) - 1


def test_one_token_over_and_over() -> None:
    assert fed([5] * 100) == 23                              # min_span tokens


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 500), min_size=3, max_size=40), min_size=1,
                max_size=30, unique_by=tuple))
def test_distinct_lines_never_stop(lines: list[list[int]]) -> None:
    """A list of distinct lines (as a formalization is), each ended by a newline token."""
    tokens = [t for line in lines for t in line + [1000]]
    stop = fed(tokens)
    if stop is not None:                    # only a line made of one repeated block may loop
        tail = tokens[:stop + 1]
        assert any(len(set(line)) < len(line) for line in lines) or len(tail) < 24


def test_random_text_never_stops() -> None:
    rng = random.Random(1)
    assert fed([rng.randrange(30000) for _ in range(5000)]) is None
