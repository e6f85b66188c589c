"""The equation track: generation (ground truth exact on its own data, every term matters,
noise only on train, deterministic), verification, scoring with fitted parameters, the
pipelines (oracle, cot with a scripted model; ns and symbcot refused), the rendering codec in
every genre, and ``scir import llmsr``."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.tracks.reading import task_from_dict
from scir.errors import ConfigError, TaskFormatError
from scir.outcomes.regression import acc_tau
from scir.runs.store import RunStore
from scir.tasks import Document, Task, write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from scir.tracks.equation.formal import SPLITS, EquationFormal
from scir.tracks.equation.llmsr import import_llmsr
from scir.tracks.equation.codec.writer import scaled
from scir.tracks.equation.numeric import evaluate, printed
from scir.tracks.equation.terms import SCIENCES

TRACK = get_track("equation")


@pytest.fixture(scope="module")
def easy() -> list[Task]:
    return list(TRACK.generate(8, seed=5, difficulty="easy"))


@pytest.fixture(scope="module")
def hard() -> list[Task]:
    return list(TRACK.generate(4, seed=5, difficulty="hard"))


def _predict(task: Task, split: str, text: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    formal = TRACK.formal(task)
    data = formal.splits[split]
    return np.asarray(data.y), evaluate(text or formal.expression, formal.inputs, data.X)


def test_ground_truth_is_exact_on_its_own_test_data(easy, hard):
    assert {TRACK.formal(t).science for t in easy} == set(SCIENCES)
    for task in easy + hard:
        for split in SPLITS:
            y, predicted = _predict(task, split)
            assert acc_tau(y, predicted, 0.001, share=1.0), (task.task_id, split)
        formal = TRACK.formal(task)
        assert task.answer == formal.expression and task.answer_pool == [formal.expression]
        assert len(formal.constants) == evaluate_params(formal)
        assert all(c > 0 for c in formal.constants)


def evaluate_params(formal: EquationFormal) -> int:
    from solvers.equation.expression import parse_equation

    return parse_equation(formal.skeleton, list(formal.inputs)).n_params


def test_difficulty_sets_terms_and_operators(easy, hard):
    for tasks, terms in ((easy, 2), (hard, 4)):
        for task in tasks:
            assert len(task.domain_metadata["terms"]) == terms
            kinds = {t["kind"] for t in task.domain_metadata["terms"]}
            assert kinds == {"textbook", "synthetic"}
    assert {t.tier for t in easy} == {"t2o1"} and {t.tier for t in hard} == {"t4o2"}


def test_ood_inputs_lie_outside_the_in_domain_ranges(easy):
    for task in easy:
        formal = TRACK.formal(task)
        for i, name in enumerate(formal.inputs):
            low, high = formal.ranges["id"][name]
            assert all(low <= r[i] <= high for r in formal.splits["train"].X)
            assert all(r[i] >= high for r in formal.splits["test_ood"].X)
            assert max(r[i] for r in formal.splits["test_ood"].X) > high


def test_every_term_matters(easy, hard):
    """Dropping any one term of the truth breaks Acc_0.01 on the training data."""
    for task in easy + hard:
        formal = TRACK.formal(task)
        y, full = _predict(task, "train")
        for term in task.domain_metadata["terms"]:
            part = evaluate(term["expression"], formal.inputs, formal.splits["train"].X)
            assert not acc_tau(y, full - part, 0.01), (task.task_id, term["name"])


def test_same_seed_same_bytes_and_science_choice():
    one = [t.to_json() for t in TRACK.generate(3, seed=9, difficulty="hard")]
    two = [t.to_json() for t in TRACK.generate(3, seed=9, difficulty="hard")]
    assert one == two
    assert one != [t.to_json() for t in TRACK.generate(3, seed=10, difficulty="hard")]
    (bio,) = TRACK.generate(1, seed=9, overrides={"science": "biology"})
    assert TRACK.formal(bio).inputs == ("t", "P") and bio.difficulty == "easy"


def test_noise_only_on_train():
    tasks = list(TRACK.generate(4, seed=2, overrides={"noise": 0.05}))
    for task in tasks:
        assert task.difficulty == "custom" and TRACK.formal(task).noise == 0.05
        y, predicted = _predict(task, "train")
        assert not acc_tau(y, predicted, 0.001)            # noisy
        assert acc_tau(y, predicted, 0.2)                  # but near the truth
        for split in ("test_id", "test_ood"):
            assert acc_tau(*_predict(task, split), 0.001, share=1.0)
        assert TRACK.verify(task).ok


def test_impossible_parameters_are_a_config_error():
    with pytest.raises(ConfigError, match="operators"):
        list(TRACK.generate(1, seed=1, overrides={"terms": 1, "operators": 5}))
    with pytest.raises(ConfigError, match="--terms must be <= 6"):
        list(TRACK.generate(1, seed=1, overrides={"terms": 9}))


def test_verify_catches_a_tampered_row_and_constant(easy):
    task = easy[0]
    assert TRACK.verify(task).ok
    for split in ("test_id", "test_ood", "train"):
        bad = task_from_dict(json.loads(task.to_json()))
        bad.formal["splits"][split]["y"][3] *= 1.01
        check = TRACK.verify(bad)
        assert not check.ok and split in check.message
    bad = task_from_dict(json.loads(task.to_json()))
    bad.formal["constants"][0] *= 2
    check = TRACK.verify(bad)
    assert not check.ok and "skeleton" in check.message


def test_formal_object_errors_name_the_field(easy):
    data = json.loads(json.dumps(easy[0].formal))
    data["splits"]["train"]["X"][2] = [1.0]
    with pytest.raises(TaskFormatError, match=r"formal\.splits\.train\.X\[2\]"):
        EquationFormal.load(data)
    data = json.loads(json.dumps(easy[0].formal))
    data["splits"]["test_ood"]["y"][0] = float("nan")
    with pytest.raises(TaskFormatError, match=r"formal\.splits\.test_ood\.y\[0\]"):
        EquationFormal.load(data)
    data = json.loads(json.dumps(easy[0].formal))
    data["science"] = "alchemy"
    with pytest.raises(TaskFormatError, match="formal.science"):
        EquationFormal.load(data)
    assert list(easy[0].formal) == ["science", "inputs", "output", "expression", "skeleton",
                                    "constants", "splits", "noise", "ranges"]


def linear_skeleton(task: Task) -> str:
    """The truth with each term's leading coefficient as a free parameter (the constants
    inside functions kept): a correct skeleton whose fit is well posed."""
    import sympy

    formal = TRACK.formal(task)
    science = SCIENCES[formal.science]
    leading, k = [], 0
    for term in task.domain_metadata["terms"]:
        leading.append(k)
        k += science.term(term["name"]).constants
    expr = sympy.sympify(formal.skeleton)
    values = {sympy.Symbol(f"p{i}"): sympy.Float(c) for i, c in enumerate(formal.constants)
              if i not in leading}
    names = {sympy.Symbol(f"p{i}"): sympy.Symbol(f"free{j}") for j, i in enumerate(leading)}
    return re.sub(r"\bfree(\d)", r"p\1", str(expr.subs(values).subs(names)))


def test_scoring_fits_free_parameters(easy):
    for task in easy[:4]:
        assert TRACK.scorer().score(task, task.answer)
        skeleton = linear_skeleton(task)
        assert "p0" in skeleton and TRACK.scorer().score(task, skeleton)   # fitted on train
        terms = [t["expression"] for t in task.domain_metadata["terms"]]
        assert not TRACK.scorer().score(task, terms[0])             # a term missing
        assert not TRACK.scorer().score(task, "p0")
        assert not TRACK.scorer().score(task, "__import__('os').system('true')")
        assert not TRACK.scorer().score(task, "not an equation at all")
        assert not TRACK.scorer().score(task, None)


def test_parse_answer_strips_the_left_hand_side(easy):
    task = easy[0]
    output = TRACK.formal(task).output
    for line in (f"Answer: {output} = p0*t + p1", "Answer: y = p0*t + p1",
                 "**Answer:** `p0*t + p1`", "Answer: f(t, A) = p0*t + p1.",
                 "Answer: p0*t + p1"):
        assert TRACK.parse_answer(task, "reasoning\n" + line) == "p0*t + p1", line
    assert TRACK.parse_answer(task, "no answer here") is None


def test_oracle_end_to_end(tmp_path, capsys):
    path = tmp_path / "e.jsonl"
    assert main(["generate", "equation", "-n", "3", "--seed", "1", "-o", str(path)]) == 0
    assert main(["solve", str(path), "--arch", "oracle", "--run", str(tmp_path / "run")]) == 0
    assert "accuracy: 3/3" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("arch", ["ns", "symbcot"])
def test_formalizing_architectures_are_refused(arch, tmp_path, capsys):
    path = tmp_path / "e.jsonl"
    write_tasks(path, TRACK.generate(1, seed=1))
    assert main(["solve", str(path), "--arch", arch, "--model", "vllm:x@http://127.0.0.1:9",
                 "--run", str(tmp_path / "run")]) == 2
    assert f"--arch {arch} does not apply to the equation track" in capsys.readouterr().err


def test_cot_with_a_scripted_model(tmp_path, capsys):
    """The model proposes the skeleton for the first tasks (fitted: correct) and a wrong
    equation for the last."""
    tasks = list(TRACK.generate(3, seed=4))
    path = tmp_path / "e.jsonl"
    write_tasks(path, tasks)

    def script(body, index):
        prompt = body["messages"][-1]["content"]
        (task,) = [t for t in tasks if t.problem_nl in prompt]
        formal = TRACK.formal(task)
        assert "p0, p1" in prompt and formal.output in prompt
        answer = formal.skeleton if task is not tasks[-1] else "p0*" + formal.inputs[0]
        return Reply(body=chat_body(f"Looking at the data...\nAnswer: {formal.output} = "
                                    f"{answer}"))

    with FakeOpenAIServer(script) as srv:
        code = main(["solve", str(path), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                     "--run", str(tmp_path / "run"), "--api-retries", "0"])
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0] == "accuracy: 2/3"
    with RunStore(tmp_path / "run") as store:
        results = {r["task_id"]: r for r in store.results(arch="cot")}
    assert results[tasks[0].task_id]["answer"] == TRACK.formal(tasks[0]).skeleton


def test_every_genre_is_recovered(easy):
    codec = TRACK.codec()
    gset = codec.genres()
    assert len(gset.genres) >= 4
    for task in easy[:4]:
        contents = codec.block_contents(task, TRACK.formal(task))
        for genre in gset.genres:
            drafts, info = codec.drafts(task, contents, [genre, genre], gset, random.Random(1))
            docs = [Document(genre.name, d.text()) for d in drafts]
            rendered = task_from_dict({**task.to_dict(),
                                       "documents": [d.__dict__ for d in docs]})
            found = codec.extract(rendered)
            assert [codec.canonical(i, c) for i, c in enumerate(found)] == \
                   [codec.canonical(i, c) for i, c in enumerate(contents)], genre.name
            scale = info["scaled_column"] or {}
            columns = contents[1]["columns"]
            # every value keeps its printed digits (the scaled column's shifted exactly)
            assert all(
                (scaled(printed(v), scale["factor"]) if c == scale.get("column") else printed(v))
                in docs[1].text
                for r in contents[1]["rows"] for c, v in zip(columns, r))


# ---------------------------------------------------------------- scir import llmsr
def _write_problem(folder: Path, task: Task, truth: str | None = "txt") -> None:
    formal = TRACK.formal(task)
    folder.mkdir(parents=True)
    for split in SPLITS:
        data = formal.splits[split]
        lines = [",".join(formal.inputs + (formal.output,))]
        lines += [",".join(printed(v) for v in list(x) + [y]) for x, y in zip(data.X, data.y)]
        (folder / f"{split}.csv").write_text("\n".join(lines) + "\n")
    if truth == "txt":
        (folder / "equation.txt").write_text(f"# ground truth\ny = {formal.expression}\n")
    elif truth == "json":
        (folder / "equation.json").write_text(json.dumps({"skeleton": formal.skeleton,
                                                          "constants": formal.constants}))


def test_import_llmsr(tmp_path, easy, capsys):
    root = tmp_path / "lsr"
    names = {"chemistry": "chem_react", "biology": "bio_pop_growth", "physics": "phys_osc",
             "materials": "matsci"}
    for i, task in enumerate(easy[:4]):
        folder = root / names[TRACK.formal(task).science] / f"P{i}"
        _write_problem(folder, task, "txt" if i % 2 else "json")
    _write_problem(root / "phys_osc" / "no_truth", easy[2], truth=None)
    out = tmp_path / "imp.jsonl"
    assert main(["import", "llmsr", str(root), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "imported 5 equation tasks" in captured.out
    assert "1 without ground truth: symbolic accuracy n/a" in captured.out
    imported = read_tasks(out)
    assert [t.task_id for t in imported] == [f"equation-llmsr-0-{i}" for i in range(5)]
    by_source = {t.domain_metadata["source"]: t for t in imported}
    no_truth = by_source["phys_osc/no_truth"]            # imported, not skipped
    assert no_truth.answer == "" and no_truth.answer_pool == []
    assert no_truth.domain_metadata["ground_truth"] is False
    assert no_truth.domain_metadata["domain"] == "phys_osc"
    assert TRACK.formal(no_truth).splits == TRACK.formal(easy[2]).splits
    for i, task in enumerate(easy[:4]):
        source = f"{names[TRACK.formal(task).science]}/P{i}"
        got = TRACK.formal(by_source[source])
        assert got.splits == TRACK.formal(task).splits and got.science == TRACK.formal(task).science
        assert by_source[source].difficulty == "custom"
        assert TRACK.scorer().score(by_source[source], task.answer)
    assert main(["verify", str(out)]) == 0
    again = tmp_path / "again.jsonl"
    assert main(["import", "llmsr", str(root), "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()                       # deterministic


def test_import_errors_name_file_and_line(tmp_path, easy, capsys):
    root = tmp_path / "lsr"
    _write_problem(root / "P0", easy[0])
    train = root / "P0" / "train.csv"
    lines = train.read_text().splitlines()
    lines[4] = lines[4] + ",7"
    train.write_text("\n".join(lines) + "\n")
    assert main(["import", "llmsr", str(root), "--science", "chemistry", "-o",
                 str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{train}:5:" in err and "values for 3 columns" in err
    lines[4] = lines[4].replace(",7", "").replace(lines[4].split(",")[0], "abc", 1)
    train.write_text("\n".join(lines) + "\n")
    assert main(["import", "llmsr", str(root), "--science", "chemistry", "-o",
                 str(tmp_path / "x.jsonl")]) == 2
    assert f"{train}:5: not a number" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()
    with pytest.raises(ConfigError, match="cannot tell the science"):
        import_llmsr(root)


def test_import_stays_inside_the_folder(tmp_path, easy, capsys):
    outside = tmp_path / "outside"
    _write_problem(outside / "chem_react", easy[0])
    root = tmp_path / "lsr"
    root.mkdir()
    os.symlink(outside / "chem_react", root / "linked")              # a linked folder
    assert import_llmsr(root, science="chemistry").tasks == []       # is not followed
    hostile = root / "chem_react" / "..\n\x1b[2J evil"
    _write_problem(hostile, easy[0])
    os.remove(hostile / "test_ood.csv")
    os.symlink(outside / "chem_react" / "test_ood.csv", hostile / "test_ood.csv")
    with pytest.raises(ConfigError, match="lies outside the folder"):
        import_llmsr(root)
    os.remove(hostile / "test_ood.csv")
    _write_problem(root / "tmp", easy[0])
    (hostile / "test_ood.csv").write_text((root / "tmp" / "test_ood.csv").read_text())
    import shutil

    shutil.rmtree(root / "tmp")
    assert main(["import", "llmsr", str(root), "-o", str(tmp_path / "h.jsonl")]) == 0
    (task,) = read_tasks(tmp_path / "h.jsonl")
    assert task.domain_metadata["source"] == "chem_react/..\n\x1b[2J evil"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl", "lsr", "outside"]


# ---------------------------------------------------------------- untrusted input
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


@pytest.fixture(scope="module")
def small() -> Task:
    (task,) = TRACK.generate(1, seed=3, overrides={"samples": 4, "test_samples": 4})
    return task


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(["science", "inputs", "output", "expression", "skeleton",
                            "constants", "splits", "noise", "ranges"]), value=JSON)
def test_a_malformed_formal_object_is_a_task_format_error(small, key, value):
    data = json.loads(json.dumps(small.formal))
    data[key] = value
    try:
        formal = EquationFormal.load(data)
    except TaskFormatError as exc:
        assert exc.field and exc.field.startswith("formal")
    else:
        assert json.loads(json.dumps(formal.dump())) == json.loads(json.dumps(data))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet="tAxyz0123456789+-*/(). eslogincqrtabh_=\n:`'", max_size=60))
def test_any_model_text_is_parsed_and_scored_without_error(easy, text):
    task = easy[0]
    answer = TRACK.parse_answer(task, "Answer: " + text)
    assert answer is None or isinstance(answer, str)
    assert TRACK.scorer().score(task, answer) in (True, False)
