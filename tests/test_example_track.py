"""The example track of docs/extending.md (docs/examples/horn_track.py): its own behaviour,
registration at run time, and discovery through a real ``scir.tracks`` entry point."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import scir.tracks as registry
from scir.cli import main
from scir.errors import ConfigError, FormalizationError, TaskFormatError, VerificationError
from scir.tracks.reading import read_tasks


@pytest.fixture
def horn(horn_registered):
    return registry.get_track("horn")


def test_registered_at_run_time(horn, horn_track_class):
    assert isinstance(horn, horn_track_class)
    assert "horn" in registry.track_names()
    assert registry.get_track("horn") is horn  # cached


def test_forward_chaining_and_clingo_agree(horn_track_class):
    import horn_track as ht

    program = ht.HornProgram(
        facts=("a", "b"),
        rules=(("c", ("a", "b")), ("d", ("c",)), ("e", ("d", "f")), ("f", ("e",)),
               ("g", ("c", "d"))),
        query="g")
    assert ht.forward_chain(program) == {"a": 0, "b": 0, "c": 1, "d": 2, "g": 3}
    holds, entailed = ht.least_model_clingo(program)
    assert holds == {"a", "b", "c", "d", "g"} and entailed
    _, entailed = ht.least_model_clingo(ht.HornProgram(program.facts, program.rules, "e"))
    assert not entailed  # e and f only support each other: not in the least model


def test_generation_balances_labels_and_respects_depth(horn):
    easy = list(horn.generate(40, seed=3, difficulty="easy"))
    hard = list(horn.generate(40, seed=3, difficulty="hard"))
    for tasks, depth in ((easy, 2), (hard, 3)):
        labels = [t.answer for t in tasks]
        assert 10 <= labels.count("True") <= 30
        assert all(t.domain_metadata["query_depth"] >= depth
                   for t in tasks if t.answer == "True")
        assert all(t.domain_metadata["query_depth"] is None
                   for t in tasks if t.answer == "False")
    assert {t.difficulty for t in easy} == {"easy"} and {t.difficulty for t in hard} == {"hard"}
    assert easy[0].tier == "a8r6d2" and hard[0].tier == "a12r16d3"


def test_custom_parameters(horn):
    level, params = horn.resolve_params("easy", {"atoms": 10})
    assert level == "custom" and params["atoms"] == 10
    (task,) = horn.generate(1, seed=1, difficulty="easy", overrides={"atoms": 10})
    assert task.difficulty == "custom" and task.task_id == "horn-a10r6d2-1-0"
    with pytest.raises(ConfigError, match="--facts and --body must be smaller than --atoms"):
        list(horn.generate(1, seed=1, overrides={"atoms": 3, "facts": 3}))
    with pytest.raises(ConfigError, match="track horn has no parameter 'width'"):
        horn.resolve_params("easy", {"width": 2})


def test_verify_detects_wrong_label_and_broken_formal(horn):
    task = next(horn.generate(1, seed=5))
    assert horn.verify(task).ok
    flipped = "False" if task.answer == "True" else "True"
    task.answer, task.answer_pool = flipped, [flipped]
    check = horn.verify(task)
    assert not check.ok and check.found != flipped
    assert "forward chaining and clingo say" in check.message
    task.formal["rules"][0]["body"] = []
    with pytest.raises(FormalizationError, match="every rule needs a non-empty body"):
        horn.verify(task)


def test_a_broken_record_is_refused_when_the_file_is_read(horn, tmp_path):
    """The track's ``validate_formal`` runs in the reader: file, line, task and field."""
    task = next(horn.generate(1, seed=5))
    path = tmp_path / "h.jsonl"
    task.formal["rules"][0]["body"] = []
    path.write_text(task.to_json() + "\n")
    with pytest.raises(TaskFormatError, match="every rule needs a non-empty body") as info:
        read_tasks(path)
    assert (info.value.file, info.value.line, info.value.task_id) == (str(path), 1, task.task_id)
    task = next(horn.generate(1, seed=5))
    task.answer_pool = ["maybe"]
    path.write_text(task.to_json() + "\n")
    with pytest.raises(TaskFormatError, match=r"must be \[answer\]") as info:
        read_tasks(path)
    assert info.value.field == "answer_pool"


def test_solvers_disagreeing_is_a_verification_error(horn, monkeypatch):
    import horn_track as ht

    task = next(horn.generate(1, seed=2))
    monkeypatch.setattr(ht, "forward_chain", lambda program: {"p0": 0})
    with pytest.raises(VerificationError, match="forward chaining and clingo disagree"):
        horn.verify(task)


def test_formalization_parse_and_solve(horn):
    task = next(horn.generate(1, seed=4))
    gold = task.formal
    lines = [f"{a}." for a in gold["facts"]]
    lines += [f"{r['head']} :- {', '.join(r['body'])}." for r in gold["rules"]]
    lines.append(f"?- {gold['query']}.")
    parsed = horn.formalizer().parse(task, "\n".join(lines))
    assert parsed.formal == horn.formal(task) and parsed.formal.dump() == gold
    assert parsed.items == horn.formalizer().count_items(parsed.formal) == len(gold["facts"]) + \
        len(gold["rules"])
    assert horn.scorer().score(task, horn.solve_formal(task, parsed.formal))
    with pytest.raises(FormalizationError, match="does not parse") as info:
        horn.formalizer().parse(task, "p1.\np2 :- .\n?- p2.")
    assert (info.value.line, info.value.column) == (2, 7)


def test_parse_answer(horn):
    task = next(horn.generate(1, seed=1))
    assert horn.parse_answer(task, "p1 holds, so...\nAnswer: **true**") == "True"
    assert horn.parse_answer(task, "Answer: No.") == "False"
    assert horn.parse_answer(task, "Answer: maybe") is None
    assert horn.parse_answer(task, "no final line") is None


def test_export_lp_runs_under_clingo(horn, tmp_path):
    import horn_track as ht
    from solvers.asp import AspProgram

    path = tmp_path / "h.jsonl"
    assert main(["generate", "horn", "-n", "2", "--seed", "9", "-o", str(path)]) == 0
    assert main(["export", str(path), "--format", "lp", "-o", str(tmp_path / "lp")]) == 0
    for task in read_tasks(path):
        prog = AspProgram().load_path(ht.HERE / "horn.lp")
        prog.load_path(tmp_path / "lp" / f"{task.task_id}.lp")
        (model,) = prog.models()
        entailed = any(a.name == "entailed" for a in model.atoms)
        assert entailed == (task.answer == "True")


def test_entry_point_discovery(tmp_path, monkeypatch, make_dist_info, horn_track_class):
    """A distribution announcing ``horn = horn_track:HornTrack`` in group ``scir.tracks``
    makes the track known without any registration call."""
    monkeypatch.setattr(registry, "_extra", {})
    monkeypatch.setattr(registry, "_cache", {})
    assert "horn" not in registry.track_names()
    with pytest.raises(ConfigError, match="unknown track 'horn'"):
        registry.get_track("horn")
    make_dist_info(tmp_path, "horn_example", "scir.tracks",
                   {"horn": "horn_track:HornTrack", "broken": "no_such_module:Track"})
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert {"horn", "broken"} <= set(registry.track_names())
    track = registry.get_track("horn")
    assert type(track).__name__ == "HornTrack" and track.name == "horn"
    assert type(track) is horn_track_class  # the same module docs/examples provides
    with pytest.raises(ConfigError, match="track 'broken' cannot be loaded from entry point "
                                          "no_such_module:Track"):
        registry.get_track("broken")


def test_entry_point_end_to_end(tmp_path, horn_env):
    """``scir generate horn`` / ``scir verify`` in a separate process that knows the track
    only through its entry point."""
    out = tmp_path / "h.jsonl"
    cmd = [sys.executable, "-m", "scir"]
    gen = subprocess.run(cmd + ["generate", "horn", "--difficulty", "hard", "-n", "4",
                                "--seed", "2", "-o", str(out)],
                         env=horn_env, capture_output=True, text=True, timeout=120)
    assert gen.returncode == 0, gen.stderr
    assert "wrote 4 horn tasks" in gen.stdout
    ver = subprocess.run(cmd + ["verify", str(out)], env=horn_env, capture_output=True,
                         text=True, timeout=120)
    assert ver.returncode == 0, ver.stdout + ver.stderr
    assert "verified 4/4 tasks (horn 4); 0 failed" in ver.stdout
    first = json.loads(out.read_text().splitlines()[0])
    assert first["task_id"] == "horn-a12r16d3-2-0" and first["difficulty"] == "hard"
