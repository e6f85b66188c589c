"""Induction: where relation types meet among the examples' drugs says nothing about the pool
(issue #26), and the audit's co-location family finds it when it does.

The balanced fillers (``scir/tracks/induction/balanced_fillers.py``) give every same-category
candidate the same co-locations among the positives' drugs and among the negatives' drugs;
the statistics are the audit's own (``scir/audit/induction_structure.py``), read from the
formal object here. 20 Easy + 20 Hard balanced tasks (DESIGN.md section 9; about 0.05 s each).
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from scir.audit.induction_structure import colocation
from scir.cli import main
from scir.tasks import Task, write_tasks
from scir.tracks import get_track
from scir.tracks.induction.world import allowed_answers, load_world, rule_key

INDUCTION = get_track("induction")
N = 20


@pytest.fixture(scope="module")
def tasks() -> dict[str, list[Task]]:
    return {level: list(INDUCTION.generate(N, 6, level)) for level in ("easy", "hard")}


def _roles(task: Task) -> dict[str, tuple[set[str], set[str]]]:
    pos = {d for p in task.formal["pos"] for d in p}
    neg = {d for p in task.formal["neg"] for d in p}
    return {"pos": (pos, pos), "neg": (neg, neg), "mixed": (pos, neg),
            "any": (pos | neg, pos | neg)}


def _statistics(task: Task) -> dict[str, dict]:
    facts = [tuple(f) for f in task.formal["facts"]]
    rules = allowed_answers(load_world())
    return {role: colocation(facts, left, right, rules)
            for role, (left, right) in _roles(task).items()}


def test_colocation_statistics_are_the_same_for_every_candidate(tasks):
    """By construction: per role (positives' drugs, negatives' drugs, one of each, any
    example drug), the proteins where a candidate's relations meet on two drugs, the proteins
    carrying both, the drug pairs it links and its relations' facts are one value for all 18
    same-category candidates, pool or not; the positives' and the negatives' drugs are
    disjoint."""
    for level in ("easy", "hard"):
        for task in tasks[level]:
            roles = _roles(task)
            assert not roles["pos"][0] & roles["neg"][0], task.task_id
            for role, per_rule in _statistics(task).items():
                for name in ("proteins", "both", "pairs", "facts"):
                    values = {v[name] for v in per_rule.values()}
                    assert len(values) == 1, (task.task_id, role, name, values)


def test_relation_counts_by_role_are_equal(tasks):
    world = load_world()
    for task in tasks["easy"] + tasks["hard"]:
        for role in ("pos", "neg"):
            drugs = _roles(task)[role][0]
            counts = {r: sum(1 for f in task.formal["facts"] if f[0] == r and f[1] in drugs)
                      for r in world.relation_names}
            assert len(set(counts.values())) == 1, (task.task_id, role, counts)


def test_every_candidate_covers_two_examples_unless_it_is_a_distractor(tasks):
    """Labels ignored: every same-category candidate covers some example; the pool's rules
    and the other candidates cover two (the target its positives, a decoy a negative and a
    positive), the distractors three (their positives and their negative)."""
    from scir.tracks.induction.semantics import coverage, prolog_module, problem_from_formal

    for task in tasks["easy"][:8] + tasks["hard"][:8]:
        distractors = {rule_key(tuple(d)) for d in task.formal["distractors"]}
        with prolog_module(problem_from_formal(task.formal)) as module:
            for rule in allowed_answers(load_world()):
                cov = coverage(module, rule)
                covered = len(cov.positives) + len(cov.negatives)
                if rule_key(rule) in distractors:
                    assert covered >= 3, (task.task_id, rule)
                else:
                    assert covered == 2, (task.task_id, rule, cov)


def test_pool_statistics_stay_near_the_papers(tasks):
    """The per-rule pool growth keeps the pools small (the 200-task figures, against the
    paper's Table 2, are in docs/validity.md)."""
    for level in ("easy", "hard"):
        sizes = [len(t.answer_pool) for t in tasks[level]]
        assert max(sizes) <= 4 and 1.0 <= sum(sizes) / len(sizes) <= 2.2


# ---- the audit's co-location family ------------------------------------------------------

def _leaky(task: Task, index: int, rng: random.Random) -> Task:
    """``task`` with three more co-locations among the positives' drugs for every rule of its
    pool, each on a new protein and a pair of drugs that is no example (the pool stays)."""
    from scir.tracks.induction.text import render_blocks

    world = load_world()
    formal = json.loads(json.dumps(task.formal))
    pos = sorted({d for p in formal["pos"] for d in p})
    examples = {tuple(sorted(p)) for p in formal["pos"] + formal["neg"]}
    free = [(a, b) for i, a in enumerate(pos) for b in pos[i + 1:] if (a, b) not in examples]
    used = {f[2] for f in formal["facts"]}
    proteins = dict(task.domain_metadata["proteins"])
    for key in task.answer_pool:
        r1, r2 = key.split(",")
        category = world.category_of(r1)
        spare = [p.id for p in world.proteins_with_role(category) if p.id not in used]
        for _ in range(3):
            protein = spare.pop(rng.randrange(len(spare)))
            used.add(protein)
            proteins[protein] = world.protein_name(protein)
            a, b = rng.choice(free)
            formal["facts"] += [[r1, a, protein], [r2, b, protein]]
    formal["facts"].sort()
    blocks = render_blocks(world, [tuple(f) for f in formal["facts"]],
                           [tuple(p) for p in formal["pos"]], [tuple(p) for p in formal["neg"]],
                           random.Random(index))
    meta = {**task.domain_metadata, "proteins": proteins}
    return dataclasses.replace(task, task_id=f"induction-d2p2-9-{index}", formal=formal,
                               blocks=blocks, problem_nl="\n\n".join(blocks),
                               domain_metadata=meta, documents=[], problem_obfuscated="")


def _colocation_scores(path, out) -> dict[str, dict]:
    main(["audit", str(path), "--presentation", "nl", "--family-wise", "-o", str(out)])
    (group,) = json.loads((out / "audit.json").read_text())["groups"]
    return {s["name"]: s for s in group["scores"] if s["family"] == "structural"}


@pytest.mark.slow
def test_colocation_family_flags_pool_rules_that_meet_more_often(tasks, tmp_path):
    """40 balanced Easy tasks: no co-location baseline beats the constrained chance; the same
    tasks with extra co-locations for the pool's rules: the rankers are flagged."""
    base = tasks["easy"] + list(INDUCTION.generate(N, 7, "easy"))
    rng = random.Random(3)
    fair = tmp_path / "fair.jsonl"
    write_tasks(fair, [dataclasses.replace(t, task_id=f"induction-d2p2-9-{k}")
                       for k, t in enumerate(base)])
    leaky = tmp_path / "leaky.jsonl"
    write_tasks(leaky, [_leaky(t, k, rng) for k, t in enumerate(base)])
    scores = _colocation_scores(fair, tmp_path / "fair")
    assert not any(s["leak"] for s in scores.values()), scores
    assert all(s["accuracy"] < 0.25 for s in scores.values())
    scores = _colocation_scores(leaky, tmp_path / "leaky")
    assert scores["coloc-rank-logreg"]["leak"] and scores["coloc-rank-boost"]["leak"]
    assert scores["coloc-rank-logreg"]["accuracy"] > 0.6
