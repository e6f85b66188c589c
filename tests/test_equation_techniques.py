"""The equation track's deeper-obfuscation techniques (issue #29): column codes defined in the
other document and a scaled column with its conversion stated; each is drawn from the render
seed, present in the output and read back exactly by the reference extractor, in both
registers (``obf`` and ``ctl``)."""

from __future__ import annotations

import random
import re

import pytest

from scir.errors import VerificationError
from scir.tasks import Document, Task
from scir.rendering.blocks import block_contents
from scir.rendering.control import as_control, render_control
from scir.rendering.extractors import recovery_problems
from scir.text.patterns import alternation, find_all
from scir.rendering.template import render_task
from scir.tracks import get_track
from scir.tracks.equation.codec.writer import (
    FACTORS,
    code_key,
    column_codes,
    distractors,
    scaled,
    unscaled,
)
from scir.tracks.equation.numeric import printed

TRACK = get_track("equation")


@pytest.fixture(scope="module")
def rendered() -> list[Task]:
    tasks = [t for tier in ("easy", "hard") for t in TRACK.generate(8, 3, tier)]
    return [render_control(render_task(t, 2), 2) for t in tasks]


@pytest.mark.parametrize(
    "text", ["0.6811", "-0.383967", "8.4", "1.2e-05", "-3.5e+07", "0", "123456", "0.000104"]
)
@pytest.mark.parametrize("factor", FACTORS)
def test_scaling_shifts_digits_exactly(text, factor):
    out = scaled(text, factor)
    assert "e" not in out.lower()
    assert unscaled(out, factor) == float(text)
    assert float(out) == pytest.approx(float(text) * factor)


def test_column_codes_are_distinct_and_never_a_variable_name():
    columns = ["V3", "V7", "x", "y"]
    for seed in range(50):
        codes = column_codes(columns, "V{n}", random.Random(seed))
        assert sorted(codes) == sorted(columns)
        assert len(set(codes.values())) == len(columns)
        assert not set(codes.values()) & set(columns)
    bank = {"key": ["Key: {key}."], "entry": "{code} = {name}", "sep": "; "}
    key = code_key({"x": "V1", "y": "V2"}, bank, random.Random(0))
    assert key in ("Key: V1 = x; V2 = y.", "Key: V2 = y; V1 = x.")


def test_both_techniques_are_drawn_and_present_and_recovered_in_obf_and_ctl(rendered):
    drawn = {"codes": 0, "scaled": 0}
    for task in rendered:
        for presentation, view in (("obf", task), ("ctl", as_control(task))):
            assert recovery_problems(view) == [], (task.task_id, presentation)
            record = task.provenance["render" if presentation == "obf" else "render_ctl"]
            context, data = view.documents
            columns = block_contents(task)[1]["columns"]
            if record["column_codes"]:
                drawn["codes"] += 1
                # the data names no variable, only codes defined in the context document
                header = [ln for ln in data.text.splitlines() if ln.startswith(("row,", "| Row"))]
                for name in columns:
                    assert f" {name} = " not in data.text and f" {name} was " not in data.text
                    assert all(name not in [c.strip() for c in re.split(r"[,|]", h)]
                               for h in header)
                assert " = " in context.text
            scale = record["scaled_column"]
            if scale:
                drawn["scaled"] += 1
                j = columns.index(scale["column"])
                rows = block_contents(task)[1]["rows"]
                assert str(scale["factor"]) in data.text
                assert all(scaled(printed(r[j]), scale["factor"]) in data.text for r in rows)
    assert drawn["codes"] >= 4 and drawn["scaled"] >= 4, drawn


def test_techniques_follow_the_render_seed(rendered):
    task = rendered[0]
    plain = Task.from_dict({**task.to_dict(), "documents": [], "problem_obfuscated": "",
                            "documents_control": [], "problem_control": ""})
    records = {s: render_task(plain, s).provenance["render"] for s in range(12)}
    assert render_task(plain, 2).to_json() == render_task(plain, 2).to_json()
    assert len({r["column_codes"] for r in records.values()}) == 2
    assert len({str(r["scaled_column"]) for r in records.values()}) > 2


def test_a_key_that_does_not_code_every_variable_is_one_clear_error(rendered):
    task = next(t for t in rendered if t.provenance["render"]["column_codes"])
    context, data = task.documents
    first = block_contents(task)[0]
    broken = context.text
    for name in first["inputs"][:1]:   # drop one entry of the key
        broken = re.sub(r"(?:; )?\w+ = " + re.escape(name) + r"(?=[;.])", "", broken, count=1)
    assert broken != context.text
    bad = Task.from_dict({**task.to_dict(),
                          "documents": [Document(context.genre, broken).__dict__,
                                        data.__dict__]})
    with pytest.raises(VerificationError, match="column codes"):
        TRACK.codec().extract(bad)


def test_distractors_name_two_variables_and_state_nothing(rendered):
    from scir.rendering.codecs import codec_for

    gset = codec_for("equation").genres()
    for task in rendered:
        for view, record, bank in (
            (task, task.provenance["render"], gset.phrases["distractors"]),
            (as_control(task), task.provenance["render_ctl"], gset.control_phrases["distractors"]),
        ):
            context = view.documents[0].text
            n = record["distractors"]
            names = alternation(block_contents(task)[1]["columns"])
            found = find_all(bank, {"a": names, "b": names}, context)
            assert 1 <= n <= 2 and len(found) == n, (task.task_id, n, found)
            assert all(m.group("a") != m.group("b") for m in found)
            # the extractor reads the same context with or without them
            assert recovery_problems(view) == []
    with pytest.raises(AssertionError):   # a single variable gives no pair
        assert distractors(["{a} and {b}."], ["x"], 2, random.Random(0))
    texts = distractors(["{a} and {b}."], ["x", "y"], 3, random.Random(0))
    assert len(texts) == 3 and set(texts) <= {"x and y.", "y and x."}
