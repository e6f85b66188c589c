"""Deduction generation: labels established twice and balanced, proof trees that check in
Prolog, determinism (also through the process pool), verification of tampered tasks, and the
pipeline hooks (solve_formal, parse_answer, count_items). The fixtures use the paper
construction (the balanced one has its own tests in test_deduction_balanced.py)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scir.errors import ConfigError, SolverInputError, TaskFormatError
from scir.tracks.reading import task_from_dict
from scir.tasks import Task, write_tasks
from scir.tracks.deduction import DeductionTrack, checks, generator
from scir.tracks.deduction.formal import DeductionFormal
from scir.tracks.deduction.logic import Node, parse
from scir.tracks.deduction.vocabulary import get_context

TRACK = DeductionTrack(workers=1)
PAPER = {"construction": "paper"}


@pytest.fixture(scope="module")
def easy_tasks() -> list[Task]:
    return list(TRACK.generate(12, 7, "easy", PAPER))


@pytest.fixture(scope="module")
def hard_tasks() -> list[Task]:
    return list(TRACK.generate(6, 11, "hard", PAPER))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), index=st.integers(0, 500), depth=st.integers(0, 5),
       width=st.integers(0, 2))
def test_labels_agree_and_proof_trees_check(seed, index, depth, width):
    """ASP and Prover9 agree on every generated task (generate_one raises otherwise), and
    verify() re-establishes the label and checks every tree in Prolog."""
    params = {"depth": depth, "width": width}
    task = TRACK.generate_one(params, seed, index)
    assert task.answer == generator.target_label(seed, index)
    premises = [parse(p) for p in task.formal["premises"]]
    statement = parse(task.formal["goal"])
    assert checks.asp_label(premises, statement).label == task.answer
    assert checks.prover9_label(premises, statement) == task.answer
    check = TRACK.verify(task)
    assert check.ok, check.message
    proof = Node.from_json(task.formal["proof"])
    steps = checks.proof_steps(proof)
    assert len(steps) == depth + 1                     # the seed syllogism + the expansions
    assert len(task.formal["distractors"]) == width
    results = checks.check_trees([proof], premises)
    assert results[0].ok
    assert len(results[0].missing) == (1 if task.answer == "Unknown" else 0)
    context = get_context(task.domain_metadata["context"])
    assert set(task.formal["predicates"]) <= {p.id for p in context.predicates}
    assert set(task.formal["constants"]) <= {i.id for i in context.individuals}


def test_fresh_predicates_only(hard_tasks):
    """Each syllogism step introduces names no other step of the task uses."""
    for task in hard_tasks:
        trees = [Node.from_json(t) for t in [task.formal["proof"], *task.formal["distractors"]]]
        root = trees[0].formula
        introduced: list[str] = []
        for tree in trees:
            for conclusion, _, premises in checks.proof_steps(tree):
                above = set(conclusion.args)
                below = {a for premise in premises for a in premise.args}
                introduced += sorted(below - above)
        assert len(introduced) == len(set(introduced)), task.task_id
        assert not set(introduced) & set(root.args)


def test_labels_balanced_over_a_file(easy_tasks):
    counts = Counter(t.answer for t in easy_tasks)
    assert counts == {"True": 4, "False": 4, "Unknown": 4}
    for start in range(0, 12, 3):
        assert {t.answer for t in easy_tasks[start:start + 3]} == {"True", "False", "Unknown"}
    orders = {tuple(t.answer for t in easy_tasks[i:i + 3]) for i in range(0, 12, 3)}
    assert len(orders) > 1                                    # shuffled, not a fixed cycle


def test_task_fields(hard_tasks):
    for task in hard_tasks:
        assert task.tier == "e5d2" and task.difficulty == "hard" and task.chance == 1 / 3
        assert task.answer_pool == [task.answer]
        formal = task.formal
        assert len(formal["premises"]) == len(formal["premise_sources"]) >= 14
        assert set(formal["premise_sources"]) == {"proof", "distractor_1", "distractor_2"}
        assert len(task.blocks) == 2 and task.problem_nl == "\n\n".join(task.blocks)
        sentences = sum(len([s for s in b.split(". ") if s]) for b in task.blocks)
        assert sentences == len(formal["premises"])
        assert task.question.startswith("Based on the statements above, is the following "
                                        "statement True, False, or Unknown? ")
        assert task.provenance["generator"] == "scir.tracks.deduction"
        assert set(task.provenance["retries"]) == set(generator.RETRY_REASONS)
        lexicon = task.domain_metadata["lexicon"]
        assert set(lexicon["predicates"]) == set(formal["predicates"])
        assert set(lexicon["individuals"]) == set(formal["constants"])


def test_custom_parameters_and_limits():
    tasks = list(TRACK.generate(2, 3, "easy", {"depth": 1, "width": 0, **PAPER}))
    assert [t.tier for t in tasks] == ["e1d0", "e1d0"]
    assert {t.difficulty for t in tasks} == {"custom"}
    assert all(t.formal["distractors"] == [] for t in tasks)
    with pytest.raises(ConfigError, match="may need"):
        list(TRACK.generate(1, 3, "hard", {"depth": 12, "width": 6}))
    with pytest.raises(ConfigError, match="--width must be <= 6"):
        list(TRACK.generate(1, 3, "hard", {"width": 7}))


@pytest.mark.slow
@pytest.mark.parametrize("construction", ["paper", "balanced"])
def test_same_seed_same_bytes_with_and_without_pool(tmp_path, construction):
    serial, pooled, again = (tmp_path / f"{n}.jsonl" for n in ("serial", "pooled", "again"))
    params = {"construction": construction}
    write_tasks(serial, DeductionTrack(workers=1).generate(12, 5, "easy", params))
    write_tasks(pooled, DeductionTrack(workers=2).generate(12, 5, "easy", params))
    assert serial.read_bytes() == pooled.read_bytes()
    if construction == "paper":
        write_tasks(again, DeductionTrack(workers=1).generate(12, 5, "easy", params))
        assert serial.read_bytes() == again.read_bytes()


def test_workers_setting(monkeypatch):
    monkeypatch.setenv("SCIR_WORKERS", "3")
    assert DeductionTrack().workers(100) == 3
    assert DeductionTrack().workers(5) == 1                   # small files stay in-process
    monkeypatch.setenv("SCIR_WORKERS", "many")
    with pytest.raises(ConfigError, match="SCIR_WORKERS must be an integer"):
        DeductionTrack().workers(100)


def _copy(task: Task) -> Task:
    return task_from_dict(json.loads(task.to_json()))


def test_verify_catches_a_dropped_premise(easy_tasks):
    task = _copy(next(t for t in easy_tasks if t.answer == "True"))
    sources = task.formal["premise_sources"]
    drop = sources.index("proof")
    del task.formal["premises"][drop]
    del sources[drop]
    check = TRACK.verify(task)
    assert not check.ok and check.found == "Unknown"
    assert "stored answer 'True', the solvers establish 'Unknown'" in check.message
    assert "is not among the premises" in check.message


def test_verify_catches_a_broken_proof_step(easy_tasks):
    task = _copy(easy_tasks[0])
    task.formal["proof"]["rule"] = "celarent" if task.formal["proof"]["rule"] != "celarent" \
        else "cesare"
    check = TRACK.verify(task)
    assert not check.ok and check.found == task.answer
    assert check.message.startswith("proof: ") and "does not follow by" in check.message


def test_verify_rejects_formulas_outside_the_fragment(easy_tasks):
    task = _copy(easy_tasks[0])
    task.formal["premises"][0] = "all x (a(x) | b(x))"
    with pytest.raises(TaskFormatError, match="not one of the deduction forms") as info:
        TRACK.verify(task)
    assert info.value.field == "formal.premises[0]" and info.value.task_id == task.task_id


def test_solve_formal_and_count_items(easy_tasks):
    for task in easy_tasks[:3]:
        assert TRACK.solve_formal(task, TRACK.formal(task)) == task.answer
        assert TRACK.formalizer().count_items(TRACK.formal(task)) == len(task.formal["premises"])
    task = easy_tasks[0]
    broken = DeductionFormal((*task.formal["premises"], "all x (a(x) ->"), "b(c1)")
    with pytest.raises(SolverInputError):
        TRACK.solve_formal(task, broken)
    with pytest.raises(TaskFormatError, match="expected a list") as info:
        DeductionFormal.load({"premises": "p(a)", "goal": "p(a)"})
    assert info.value.field == "formal.premises"
    assert TRACK.formalizer().count_items(DeductionFormal((), "p(a)")) == 0


def test_formal_dump_reproduces_the_json(easy_tasks):
    """DeductionFormal.load then dump gives the stored JSON, key order included; an edit of
    task.formal in place is seen by the cached Track.formal."""
    for task in easy_tasks:
        assert DeductionFormal.load(task.formal).dump() == task.formal
        assert list(DeductionFormal.load(task.formal).dump()) == list(task.formal)
    task = task_from_dict(easy_tasks[0].to_dict())
    first = TRACK.formal(task)
    assert TRACK.formal(task) is first
    task.formal["premises"].pop()
    assert TRACK.formal(task).premises == first.premises[:-1]


@pytest.mark.parametrize("text, label", [
    ("Reasoning...\nAnswer: True", "True"),
    ("answer: false", "False"),
    ("**Answer:** Unknown\n", "Unknown"),
    ("Answer: True\nWait, no.\nFinal answer: False", "False"),
    ("The chain breaks, so the statement is **Unknown**.", "Unknown"),
    ("It follows from premises 3 and 7. False", "False"),
    ("Answer: uncertain", "Unknown"),
    ("The answer is True.", "True"),
    ("It could be true or false; I cannot tell.", None),
    ("Answer: maybe", None),
    ("", None),
])
def test_parse_answer(easy_tasks, text, label):
    assert TRACK.parse_answer(easy_tasks[0], text) == label


def test_labels_are_established_not_assumed():
    """A candidate whose solver label differs from the target is rebuilt: with the proof's
    deleted premise stated anyway, an 'Unknown' candidate is really True."""
    rng = random.Random(3)
    problem = generator.build(2, 0, "Unknown", rng)
    missing = [leaf.formula for leaf in problem.proof.leaves() if leaf.missing]
    assert checks.asp_label(problem.premises, problem.statement).label == "Unknown"
    completed = problem.premises + missing
    label = checks.double_check(completed, problem.statement).label
    assert label == ("True" if problem.statement == problem.conclusion else "False")


def test_explain_follows_the_proof(easy_tasks):
    for task in easy_tasks[:3]:
        lines = TRACK.explain(task)
        proof = Node.from_json(task.formal["proof"])
        derived = [line for line in lines if line.startswith("From ")]
        assert len(derived) == len(checks.proof_steps(proof)) == 5          # seed + 4 expansions
        assert derived[-1].endswith(f"({proof.rule}).")
        missing = [line for line in lines if line.startswith("Not stated: ")]
        assert len(missing) == (1 if task.answer == "Unknown" else 0)
