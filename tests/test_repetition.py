"""scir.llm.repetition: loops and copies stop, genuine lists of distinct items and gold
formalizations never do."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from scir.llm.repetition import CopyGuard, RepetitionGuard


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


# ---- CopyGuard: free text that only restates the prompt or itself --------------------------
def copy_stop(prompt: str, text: str, every: int = 3) -> int | None:
    """The length of ``text`` at which the guard stops it, or None."""
    guard = CopyGuard(prompt)
    return next((i for i in range(1, len(text) + 1, every) if guard.push_text(text[:i])),
                None)


PROBLEM = ("Every Gdf5-positive cell is a BMP-responsive cell, without exception. Each cell "
           "that is a BMP-responsive cell is a SEG-positive cell. Each cell that is a "
           "SEG-positive cell is a Col10a1-positive cell. Each cell that is a Col10a1-positive "
           "cell is a Sox9-positive cell. Cell W2 is a Gdf5-positive cell. Is cell W2 a "
           "Sox9-positive cell?")


def test_a_problem_copied_with_names_swapped_stops() -> None:
    """What SmolLM2 wrote: the problem again, one name changed per sentence, until the limit."""
    names = ["BMP-responsive", "SEG-positive", "Col10a1-positive", "Sox9-positive"]
    copied = "The problem is:\n" + " ".join(
        f"Each cell that is a {a} cell is a {b} cell." for a in names for b in names)
    stop = copy_stop(PROBLEM, copied)
    assert stop is not None and stop < len(copied) // 2


def test_a_phrase_looping_with_a_counter_stops() -> None:
    text = " ".join(f"The experimental conditions (Condition {i}) have a direct causal "
                    f"relation among the experimental conditions (Condition {i + 1})."
                    for i in range(1, 20))
    assert copy_stop("Protein concentrations were measured.", text) is not None


def test_reasoning_that_quotes_the_problem_does_not_stop() -> None:
    text = ("Cell W2 is a Gdf5-positive cell, so it is a BMP-responsive cell. Being "
            "BMP-responsive, it is SEG-positive; from that, cell W2 is Col10a1-positive, and "
            "then Sox9-positive, by the fourth statement. So the statement follows from the "
            "premises by a chain of four steps.\nAnswer: True")
    assert copy_stop(PROBLEM, text) is None


@pytest.mark.parametrize("track_name", ["deduction", "induction", "causal"])
@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_a_gold_formalization_never_stops(track_name: str, difficulty: str) -> None:
    """A perfect free formalization (the gold one, as text) is never taken for a copy, under
    either presentation's prompt: data rows copied as numbers do not count."""
    from scir.pipelines.result import first_prompt
    from scir.rendering.template import render_task
    from scir.tracks import get_track

    track = get_track(track_name)
    for task in track.generate(3, 5, difficulty):
        task = render_task(task, seed=1)
        text = track.formalizer().format(task)
        for presentation in ("nl", "obf"):
            _, prompt = first_prompt(track, task, presentation, "formalize")
            assert copy_stop(prompt, text) is None, (task.task_id, presentation)
