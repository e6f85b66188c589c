"""The inverse formats of the LLM renderer: every block's content written in its formal format
parses back to the same content, under grammars llguidance accepts; deduction formulas match
by Prover9-proved equivalence, not by spelling."""

from __future__ import annotations

import lark
import pytest

from scir.errors import FormalizationError
from scir.rendering.blocks import block_contents
from scir.text.inverse import equivalent
from scir.rendering.inverse import block_format, format_block, match_block, parse_block
from scir.tracks import get_track
from solvers.grammar_check import validate_lark

TRACKS = ("deduction", "induction", "causal")


@pytest.fixture(scope="module")
def samples():
    return {t: list(get_track(t).generate(2, 11, "easy")) for t in TRACKS}


@pytest.mark.parametrize("track", TRACKS)
def test_formal_text_round_trips_under_its_grammar(samples, track):
    for task in samples[track]:
        for i, content in enumerate(block_contents(task)):
            fmt = block_format(task, i, content)
            text = format_block(task, i, content)
            validate_lark(fmt.grammar)                      # llguidance accepts the grammar
            lark.Lark(fmt.grammar, parser="earley").parse(text)   # ... and it accepts the text
            assert match_block(task, i, content, parse_block(task, i, text)) == []
            assert fmt.max_tokens > len(text) // 4


@pytest.mark.parametrize("track", TRACKS)
def test_lossy_and_malformed_formalizations_are_caught(samples, track):
    task = samples[track][0]
    content = block_contents(task)[0]
    lines = format_block(task, 0, content).splitlines(keepends=True)
    lossy = "".join(lines[:1] + lines[2:]) if track != "causal" else "".join(
        lines[:2] + lines[3:])
    assert match_block(task, 0, content, parse_block(task, 0, lossy))
    with pytest.raises(FormalizationError):
        parse_block(task, 0, "Every cell is a cell, probably.\n")


def test_deduction_equivalence_is_proved_not_spelled(samples):
    task = samples["deduction"][0]
    preds = sorted(task.formal["predicates"])
    a, b = preds[0], preds[1]
    assert equivalent(f"all x ({a}(x) -> -{b}(x))", f"all x ({b}(x) -> -{a}(x))")
    assert equivalent(f"exists x ({a}(x) & {b}(x))", f"exists y ({b}(y) & {a}(y))")
    assert not equivalent(f"all x ({a}(x) -> {b}(x))", f"all x ({b}(x) -> {a}(x))")
    assert not equivalent(f"exists x ({a}(x) & {b}(x))", f"all x ({a}(x) -> {b}(x))")
    original = {"premises": [f"all x ({a}(x) -> -{b}(x))", f"exists x {a}(x)"]}
    reworded = {"premises": [f"exists y {a}(y)", f"all z ({b}(z) -> -{a}(z))"]}
    assert match_block(task, 0, original, reworded) == []
    weaker = {"premises": [f"exists y {a}(y)", f"exists z ({b}(z) & -{a}(z))"]}
    assert match_block(task, 0, original, weaker)


def test_deduction_formalization_outside_the_signature_is_rejected(samples):
    task = samples["deduction"][0]
    with pytest.raises(FormalizationError, match="signature"):
        parse_block(task, 0, "all x (unknown_pred(x) -> other(x)).\n")


def test_causal_rows_match_as_multisets(samples):
    task = samples["causal"][0]
    content = block_contents(task)[1]
    shuffled = {"columns": list(reversed(content["columns"])),
                "environments": [{"name": e["name"],
                                  "rows": [list(reversed(r)) for r in reversed(e["rows"])]}
                                 for e in content["environments"]]}
    assert match_block(task, 1, content, shuffled) == []
    shuffled["environments"][0]["rows"][0][0] += 0.01
    assert match_block(task, 1, content, shuffled)
