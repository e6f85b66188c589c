"""What every track promises, checked for each registered track and the horn example.

A track whose module is not there yet is not registered (the registry checks that its module
can be found) and so simply does not appear here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scir.cli import main
from scir.tracks.reading import task_from_dict
from scir.commands.export import SCIR_FIELDS
from scir.tasks import Task, write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track, register, track_names, unregister

NAMES = sorted(set(track_names()) | {"horn"})
N, SEED = 3, 1
LABELS = ("True", "False", "Unknown")


@pytest.fixture(scope="module")
def generated(tmp_path_factory, horn_track_class):
    """``generated(name)`` -> (file, tasks): 3 Easy tasks with seed 1, made once per track
    through ``scir generate`` (the horn example registered for the module)."""
    register("horn", horn_track_class)
    folder = tmp_path_factory.mktemp("generated")
    cache: dict[str, tuple[Path, list[Task]]] = {}

    def get(name: str) -> tuple[Path, list[Task]]:
        if name not in cache:
            out = folder / f"{name}.jsonl"
            code = main(["generate", name, "--difficulty", "easy", "-n", str(N), "--seed",
                         str(SEED), "-o", str(out)])
            assert code == 0, f"scir generate {name} failed"
            cache[name] = (out, read_tasks(out))
        return cache[name]

    yield get
    unregister("horn")


@pytest.fixture(params=NAMES)
def name(request, generated) -> str:
    return request.param


def wrong_answer(name: str, task: Task, others: list[Task]) -> str:
    """A different answer that looks valid for the track: another label, another option
    letter, or another task's answer / a distractor rule not in this task's pool."""
    track = get_track(name)
    pool = set(task.answer_pool)
    if task.options:
        candidates = [chr(ord("A") + i) for i in range(len(task.options))]
    elif track.answer_kind == "label":
        candidates = list(LABELS)
    else:
        candidates = [t.answer for t in others]
        for rule in task.formal.get("distractors", []):
            candidates.append(",".join(sorted(rule)) if isinstance(rule, list) else str(rule))
    for candidate in candidates:
        if candidate not in pool:
            return candidate
    pytest.fail(f"cannot build a wrong answer for a {name} task (pool {sorted(pool)})")


def test_task_shape(name, generated):
    track = get_track(name)
    _, tasks = generated(name)
    level, params = track.resolve_params("easy")
    assert len(tasks) == N
    assert [t.task_id for t in tasks] == [f"{name}-{track.tier(params)}-{SEED}-{i}"
                                          for i in range(N)]
    assert len({t.task_id for t in tasks}) == N
    for task in tasks:
        assert re.fullmatch(r"[a-z]+-[A-Za-z0-9.]+-\d+-\d+", task.task_id)
        assert (task.domain, task.difficulty, task.seed) == (name, level, SEED)
        assert task.params == params and task.tier == track.tier(params)
        assert len(task.blocks) == track.n_blocks
        assert all(block and block in task.problem_nl for block in task.blocks)
        assert task.answer in task.answer_pool
        assert 0 <= task.chance <= 1
        if task.chance == 0:            # an open answer (an equation): never a choice
            assert not task.options and track.answer_kind not in ("label", "option")
        assert task.question


def test_same_seed_same_bytes(name, generated, tmp_path, horn_env):
    """Same seed, same file: in this process through the API, and in another process with
    another hash seed (catches output that depends on set or dict iteration order)."""
    track = get_track(name)
    path, _ = generated(name)
    again = tmp_path / "again.jsonl"
    write_tasks(again, track.generate(N, SEED, "easy"))
    assert again.read_bytes() == path.read_bytes()
    other = tmp_path / "other.jsonl"
    env = dict(horn_env, PYTHONHASHSEED="4242")
    proc = subprocess.run([sys.executable, "-m", "scir", "generate", name, "-n", str(N),
                           "--seed", str(SEED), "-o", str(other)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert other.read_bytes() == path.read_bytes()
    (other_seed,) = track.generate(1, SEED + 1, "easy")
    assert other_seed.to_json() != path.read_text(encoding="utf-8").splitlines()[0]


def test_json_round_trip(name, generated):
    _, tasks = generated(name)
    for task in tasks:
        line = task.to_json()
        back = task_from_dict(json.loads(line))
        assert back == task and back.to_json() == line


def test_score_verify_and_solve(name, generated):
    track = get_track(name)
    path, tasks = generated(name)
    scorer = track.scorer()
    for task in tasks:
        assert scorer.score(task, task.answer)
        assert not scorer.score(task, None)
        check = track.verify(task)
        assert check.ok, check.message
        assert check.task_id == task.task_id and check.expected == task.answer
        assert scorer.score(task, track.solve_formal(task, track.formal(task)))  # the oracle
        parsed = track.parse_answer(task, f"Some reasoning.\nAnswer: {task.answer}")
        assert scorer.score(task, parsed)


def test_typed_formal_object_round_trips(name, generated):
    """Every track has a typed formal object: ``formal_type.load`` reads the stored JSON and
    ``dump`` writes it back exactly (key order included, so the generator's bytes are the
    dump's); ``Track.formal`` caches the load; the reference items are counted on it."""
    track = get_track(name)
    _, tasks = generated(name)
    assert track.formal_type is not None
    for task in tasks:
        formal = track.formal(task)
        assert isinstance(formal, track.formal_type) and track.formal(task) is formal
        dumped = formal.dump()
        assert json.dumps(dumped) == json.dumps(task.formal)
        assert track.formal_type.load(dumped) == formal
        assert track.formalizer().reference_items(task) == track.formalizer().count_items(formal) > 0


def test_scir_verify(name, generated, capsys):
    path, tasks = generated(name)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"verified {N}/{N} tasks ({name} {N}); 0 failed" in out


def test_tampered_answer_fails_verify(name, generated, tmp_path, capsys):
    _, tasks = generated(name)
    tampered = [task_from_dict(t.to_dict()) for t in tasks]
    victim = tampered[1]
    wrong = wrong_answer(name, victim, tasks)
    victim.answer_pool = sorted((set(victim.answer_pool) - {victim.answer}) | {wrong})
    victim.answer = wrong
    path = tmp_path / "tampered.jsonl"
    write_tasks(path, tampered)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    failed = re.findall(r"(?m)^FAILED (\S+):", out)
    assert failed == [victim.task_id], out
    assert f"verified {N - 1}/{N} tasks" in out and "1 failed" in out


def test_export_scir(name, generated, tmp_path, capsys):
    path, tasks = generated(name)
    out = tmp_path / "release.json"
    assert main(["export", str(path), "--format", "scir", "-o", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(rows, list) and len(rows) == N
    for row, task in zip(rows, tasks):
        # the SciR release's seven fields first, in its order; then what a task needs alone
        assert list(row)[:7] == list(SCIR_FIELDS) == [
            "task_id", "domain", "tier", "problem_nl", "problem_obfuscated", "answer",
            "domain_metadata"]
        assert list(row)[7:] == ["difficulty", "question", "options", "answer_pool", "scoring",
                                 "chance", "chance_constrained"]
        assert {k: row[k] for k in SCIR_FIELDS} == {k: getattr(task, k) for k in SCIR_FIELDS}
        assert row["question"] == task.question and row["options"] == task.options
        assert row["answer_pool"] == task.answer_pool and row["chance"] == task.chance
        assert row["scoring"] == get_track(name).scoring


def test_construction_never_makes_the_difficulty_custom():
    from scir.tracks import get_track

    for name in ("deduction", "induction", "causal"):
        track = get_track(name)
        specs = {p.name: p for p in track.parameters()}
        assert specs["construction"].choices == ("balanced", "paper")
        level, params = track.resolve_params("hard", {"construction": "paper"})
        assert (level, params["construction"]) == ("hard", "paper")
        assert track.difficulty_of(params) == "hard"
