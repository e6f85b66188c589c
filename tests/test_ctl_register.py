"""The control register's phrase banks (issue #29): every phrase a writer emits in ``ctl`` comes
from the track's ``ctl.json`` (statement wordings, split statements, distractors, glossary
heads, table captions, condition wordings, unit conversions, pronoun-split lead-ins, ...), so
a ``ctl`` text holds (almost) no science words while the ``obf`` text holds many; the
reference extractors read every document with its own register's banks."""

from __future__ import annotations

import dataclasses
import json
from statistics import fmean

import pytest

from scir.errors import ResourceError, ScirError
from scir.tasks import Document
from scir.rendering.codecs import codec_for
from scir.rendering.control import as_control, render_control
from scir.rendering.extractors import recovery_problems
from scir.text.genres import read_genre_file, with_control
from scir.rendering.register import science_lexicon, science_words, words
from scir.rendering.template import render_task
from scir.tracks import get_track

TRACKS = ("deduction", "induction", "causal", "equation")
_CACHE: dict[str, list] = {}


def rendered(track: str) -> list:
    if track not in _CACHE:
        tasks = [t for tier in ("easy", "hard") for t in get_track(track).generate(3, 9, tier)]
        _CACHE[track] = [render_control(render_task(t, 4), 4) for t in tasks]
    return _CACHE[track]


@pytest.mark.parametrize("track", TRACKS)
def test_ctl_has_no_science_words_and_obf_has_many(track):
    tasks = rendered(track)
    ctl = [sum(science_words(t, "ctl").values()) for t in tasks]
    obf = [sum(science_words(t, "obf").values()) for t in tasks]
    assert fmean(ctl) <= 0.5 and max(ctl) <= 2, (ctl, [science_words(t) for t in tasks])
    assert fmean(obf) >= 50, obf
    assert len(science_lexicon(track)) >= 100


def test_the_science_word_check_counts_what_it_should():
    lexicon = science_lexicon("deduction")
    assert {"specimen", "examined"} <= lexicon
    assert "every" not in lexicon and "the" not in lexicon       # both registers use them
    assert words("FSCs and Foxj1 cells {S_pl} were examined") == ["and", "cells", "were",
                                                                   "examined"]
    task = rendered("deduction")[0]
    leaked = task.__class__.from_dict({**task.to_dict(),
                                       "problem_control": task.problem_control
                                       + " In every specimen examined, it was."})
    assert science_words(leaked)["specimen"] == 1 and science_words(leaked)["examined"] == 1


@pytest.mark.parametrize("track", TRACKS)
def test_every_document_is_read_with_its_own_register(track):
    gset = codec_for(track).genres()
    assert gset.control_phrases, "ctl.json restates the phrase banks"
    assert set(gset.control_phrases) == set(gset.phrases)
    for genre in gset.control:
        assert gset.phrases_for(genre.name) is gset.control_phrases
    for genre in gset.genres:
        assert gset.phrases_for(genre.name) is gset.phrases
    # the same ctl documents, labelled with their scientific base genres, are read with the
    # scientific banks and lose facts: the registers' wordings differ
    base = {g["name"]: g["base"]
            for g in json.loads(codec_for(track).control_file().read_text())["genres"]}
    for task in rendered(track)[:2]:
        ctl = as_control(task)
        assert recovery_problems(ctl) == []
        relabelled = dataclasses.replace(
            ctl, documents=[Document(base[d.genre], d.text) for d in ctl.documents])
        try:
            problems = recovery_problems(relabelled)
        except ScirError as exc:       # or the documents cannot be read at all
            problems = [str(exc)]
        assert problems, task.task_id


def _control_file(tmp_path, track: str, change) -> object:
    data = json.loads(codec_for(track).control_file().read_text())
    change(data)
    path = tmp_path / "ctl.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["phrases"].update({"statementz": {}}), "no scientific bank"),
        (lambda d: d["phrases"]["statements"]["all"].pop(), "ids"),
        (lambda d: d["phrases"].update({"distractors": "Whether."}), "non-empty list"),
        (lambda d: d["phrases"]["statements"].update({"all": []}), "non-empty list"),
        (lambda d: d.update({"phrases": ["x"]}), "phrases must be an object"),
    ],
)
def test_a_malformed_control_phrase_bank_is_one_clear_error(tmp_path, change, message):
    codec = codec_for("deduction")
    gset = read_genre_file("deduction", codec.genre_file(), codec.genre_count)
    with pytest.raises(ResourceError, match=message):
        with_control(gset, _control_file(tmp_path, "deduction", change))


def test_scir_stats_prints_the_ctl_depth_of_tasks_rendered_with_control(tmp_path, capsys):
    from scir.cli import main
    from scir.tasks import write_tasks

    both, plain = tmp_path / "both.jsonl", tmp_path / "plain.jsonl"
    write_tasks(both, rendered("equation"))
    write_tasks(plain, [render_task(t, 4) for t in get_track("equation").generate(2, 9, "easy")])
    assert main(["stats", str(both), "--json"]) == 0
    depth = json.loads(capsys.readouterr().out)["depth"]
    assert {"nl", "obf", "ctl"} == set(depth)
    assert {r["premises"] for r in depth["ctl"]} == {"row"}
    assert main(["stats", str(both)]) == 0
    assert "generic extractor (ctl)" in capsys.readouterr().out
    assert main(["stats", str(plain), "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["depth"]) == {"nl", "obf"}
