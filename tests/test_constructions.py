"""The two constructions of the induction and causal tracks (``--construction balanced`` the
default, ``paper`` the SciR paper's): the paper's is unchanged, the balanced one spreads
induction fillers over all nine relation types and keeps the answer-blind heuristics of
``benchmarks/independence.py`` at chance, and causal interventions and edge directions are
independent of where XYZ attaches; every task records and verifies ``chance_constrained``.

Sizes follow DESIGN.md section 9: 20 tasks per tier and construction (10 for the induction
paper construction), generated once per module.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import pytest
from scipy.stats import binomtest, fisher_exact

from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.causal.graph import NEW_PROTEIN
from scir.tracks.induction.world import allowed_answers, load_world

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
N = 20
N_PAPER_INDUCTION = 10
INDUCTION = get_track("induction")
CAUSAL = get_track("causal")


def _independence():
    spec = importlib.util.spec_from_file_location("independence",
                                                  ROOT / "benchmarks" / "independence.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def induction_tasks() -> dict[tuple[str, str], list[Task]]:
    return {(c, level): list(INDUCTION.generate(N if c == "balanced" else N_PAPER_INDUCTION, 1,
                                                level, {"construction": c}))
            for c in ("balanced", "paper") for level in ("easy", "hard")}


@pytest.fixture(scope="module")
def causal_tasks() -> dict[tuple[str, str], list[Task]]:
    return {(c, level): list(CAUSAL.generate(N, 1, level, {"construction": c}))
            for c in ("balanced", "paper") for level in ("easy", "hard")}


# ---- the parameter ----------------------------------------------------------------------------

@pytest.mark.parametrize("track", [INDUCTION, CAUSAL], ids=lambda t: t.name)
def test_construction_is_recorded_and_never_makes_the_difficulty_custom(track):
    level, params = track.resolve_params("hard", {"construction": "paper"})
    assert level == "hard" and params["construction"] == "paper"
    assert track.resolve_params("easy")[1]["construction"] == "balanced"
    (task,) = track.generate(1, 2, "easy", {"construction": "paper"})
    assert task.difficulty == "easy" and task.params["construction"] == "paper"


# ---- paper construction unchanged -------------------------------------------------------------

def _without_new_fields(record: dict) -> dict:
    """A record minus what schema 2 and the construction parameter added."""
    out = {k: v for k, v in record.items() if k not in ("schema_version", "chance_constrained")}
    out["params"] = {k: v for k, v in record["params"].items()
                     if k not in ("construction", "pool_growth")}
    return out


@pytest.mark.parametrize("track,fixture,seed,level,n", [
    (INDUCTION, "induction/easy-seed3.jsonl", 3, "easy", 2),
    (CAUSAL, "causal/paper-hard-seed1.jsonl", 1, "hard", 3),
], ids=["induction", "causal"])
def test_paper_construction_reproduces_the_files_made_before_it_existed(track, fixture, seed,
                                                                         level, n):
    """The golden files were written by the generators before the balanced construction
    existed; the paper construction gives the same records, apart from the new fields."""
    golden = [json.loads(line) for line in (FIXTURES / fixture).read_text().splitlines()]
    made = [t.to_dict() for t in track.generate(n, seed, level, {"construction": "paper"})]
    assert [_without_new_fields(r) for r in made] == [_without_new_fields(r) for r in golden]
    assert all(r["params"]["construction"] == "paper" for r in made)


@pytest.mark.slow
def test_balanced_construction_differs_from_the_paper(induction_tasks, causal_tasks):
    for tasks in (induction_tasks, causal_tasks):
        for level in ("easy", "hard"):
            a = [t.formal for t in tasks[("balanced", level)]]
            b = [t.formal for t in tasks[("paper", level)]]
            assert sum(x != y for x, y in zip(a, b)) == min(len(a), len(b))


# ---- chance_constrained -----------------------------------------------------------------------

def test_induction_records_both_chances_and_verify_checks_them(induction_tasks):
    assert len(allowed_answers(load_world())) == 18
    question = induction_tasks[("balanced", "easy")][0].question
    assert "must belong to the same category" in question
    for (construction, level), tasks in induction_tasks.items():
        for task in tasks[:3]:
            assert task.chance == pytest.approx(len(task.answer_pool) / 45)
            assert task.chance_constrained == pytest.approx(len(task.answer_pool) / 18)
    task = induction_tasks[("balanced", "easy")][0]
    assert INDUCTION.verify(task).ok
    bad = dataclasses.replace(task, chance_constrained=task.chance)
    check = INDUCTION.verify(bad)
    assert not check.ok and "chance_constrained" in check.message


def test_causal_records_both_chances_and_verify_checks_them(causal_tasks):
    for tasks in causal_tasks.values():
        for task in tasks:
            assert task.chance == task.chance_constrained == pytest.approx(1 / len(task.options))
    task = causal_tasks[("balanced", "hard")][0]
    assert CAUSAL.verify(task).ok
    check = CAUSAL.verify(dataclasses.replace(task, chance_constrained=0.5))
    assert not check.ok and "chance_constrained" in check.message


def test_stats_show_both_chances(induction_tasks):
    from scir.reports.taskstats import group_stats, task_stats
    from scir.reports.statsformat import format_groups

    groups = group_stats(task_stats(t) for t in induction_tasks[("balanced", "hard")])
    (g,) = groups
    pools = [len(t.answer_pool) for t in induction_tasks[("balanced", "hard")]]
    assert g.chance == pytest.approx(sum(pools) / 45 / N, abs=1e-4)
    assert g.chance_constrained == pytest.approx(sum(pools) / 18 / N, abs=1e-4)
    table = format_groups(groups)
    assert "constrained chance" in table and f"{g.chance_constrained:.1%}" in table


# ---- induction: balanced fillers --------------------------------------------------------------

def test_balanced_fillers_cover_all_nine_relation_types(induction_tasks):
    world = load_world()
    for level in ("easy", "hard"):
        for task in induction_tasks[("balanced", level)]:
            types = {f[0] for f in task.formal["facts"]}
            assert types == set(world.relation_names), task.task_id
            # the co-location quotas (balanced_fillers.py) need 36 facts per co-location of
            # every same-category rule among each role's drugs: positives per rule plus one
            quotas = 36 * (task.params["positives"] + 1)
            assert len(task.formal["facts"]) == max(task.params["facts"], quotas)
            example_drugs = {d for p in task.formal["pos"] + task.formal["neg"] for d in p}
            about_examples = {f[0] for f in task.formal["facts"] if f[1] in example_drugs}
            assert about_examples == set(world.relation_names), task.task_id
        for task in induction_tasks[("paper", level)]:
            rules = [task.formal["target"]] + task.formal["distractors"]
            assert {f[0] for f in task.formal["facts"]} <= {r for rule in rules for r in rule}


def test_balanced_tasks_keep_the_pool_checks(induction_tasks):
    """The admissibility checks still hold: the target is in the pool, covers no negative,
    no rule of another category is valid (verify re-runs clingo and the ILP cross-check)."""
    for level in ("easy", "hard"):
        for task in induction_tasks[("balanced", level)][:5]:
            check = INDUCTION.verify(task)
            assert check.ok, check.message
            assert task.answer in task.answer_pool


def _hits(tasks, heuristic) -> float:
    return sum(heuristic(t) for t in tasks)


def test_answer_blind_heuristics_are_at_chance_for_balanced_and_not_for_paper(induction_tasks):
    """On 40 balanced tasks every heuristic's 95% Wilson lower bound (the label-aware ones
    included) stays at or below the constrained chance + 0.03, while 20 paper tasks leak through the relation types present
    in the facts."""
    ind = _independence()
    heuristics = ind.induction_heuristics()
    balanced = induction_tasks[("balanced", "easy")] + induction_tasks[("balanced", "hard")]
    paper = induction_tasks[("paper", "easy")] + induction_tasks[("paper", "hard")]
    chance = sum(t.chance_constrained for t in balanced) / len(balanced)
    for name, h in {**heuristics, **ind.induction_label_heuristics()}.items():
        lo, _ = ind.wilson(_hits(balanced, h), len(balanced))
        assert lo <= chance + ind.MARGIN, (name, lo, chance)
    paper_chance = sum(t.chance_constrained for t in paper) / len(paper)
    present = heuristics["random pair over present types"]
    lo, _ = ind.wilson(_hits(paper, present), len(paper))
    assert lo > paper_chance          # 20 tasks: above chance even at the interval's bound
    assert _hits(paper, present) / len(paper) > 2 * _hits(balanced, present) / len(balanced)
    # labels ignored, the paper's targets are the rules covering two examples (about 85%)
    two = heuristics["random pair covering two examples"]
    assert _hits(paper, two) / len(paper) > 0.5


# ---- causal: balanced interventions and directions --------------------------------------------

def _partner_counts(tasks):
    """(partners intervened, partners, other nodes intervened, other nodes)."""
    return _independence().partner_counts(tasks)


def test_balanced_interventions_are_blind_to_xyz_partners(causal_tasks):
    """XYZ is intervened on in every balanced task, the other targets are uniform: partners
    are not intervened on more often than other nodes (one-sided Fisher test, 1% level;
    the by-construction check is the next test)."""
    for level in ("easy", "hard"):
        tasks = causal_tasks[("balanced", level)]
        for t in tasks:
            targets = [x for e in t.formal["environments"] for x in e["targets"]]
            assert NEW_PROTEIN in targets and len(targets) == t.params["interventions"]
        ph, pn, oh, on = _partner_counts(tasks)
        assert fisher_exact([[ph, pn - ph], [oh, on - oh]],
                            alternative="greater").pvalue > 0.01, (level, ph, pn, oh, on)
    # the same test on the paper's tasks finds its bias (partners favoured)
    ph, pn, oh, on = _partner_counts(causal_tasks[("paper", "easy")]
                                     + causal_tasks[("paper", "hard")])
    assert ph / pn > oh / on
    assert fisher_exact([[ph, pn - ph], [oh, on - oh]], alternative="greater").pvalue < 0.05


def test_balanced_intervention_choice_ignores_where_xyz_attaches():
    """By construction: the same random state gives the same targets whatever XYZ's edges."""
    import networkx as nx
    import numpy as np

    from scir.tracks.causal.graph import TaskGraph
    from scir.tracks.causal.scm import choose_interventions_blind

    sub = nx.DiGraph([("Raf", "Mek"), ("Mek", "Erk"), ("PKA", "Raf"), ("PKA", "Erk")])
    wirings = [[("XYZ", "Raf")], [("Erk", "XYZ")], [("XYZ", "PKA"), ("Mek", "XYZ")]]
    for seed in range(20):
        chosen = [choose_interventions_blind(TaskGraph(sub, edges), 3,
                                             np.random.default_rng(seed))
                  for edges in wirings]
        assert chosen[0] == chosen[1] == chosen[2]


def test_balanced_xyz_edge_directions_are_even(causal_tasks):
    tasks = causal_tasks[("balanced", "easy")] + causal_tasks[("balanced", "hard")]
    edges = [e for t in tasks for e in t.formal["xyz_edges"]]
    into = sum(1 for a, b in edges if b == NEW_PROTEIN)
    assert binomtest(into, len(edges), 0.5).pvalue > 0.05, (into, len(edges))


def test_balanced_option_features_are_at_chance(causal_tasks):
    """Option pickers on one answer-blind feature (partners intervened, mentions, directions,
    text length, known degree; max and min): Wilson lower bound <= chance + 0.03 on 40 tasks."""
    ind = _independence()
    for level in ("easy", "hard"):
        tasks = causal_tasks[("balanced", level)] + list(
            CAUSAL.generate(N, 2, level))
        chance = 1 / len(tasks[0].options)
        feats = [ind._causal_features(t) for t in tasks]
        for name in feats[0][0]:
            for maximise in (True, False):
                hits = sum(ind._argbest({chr(65 + i): row[name] for i, row in enumerate(f)},
                                        [t.answer], maximise) for t, f in zip(tasks, feats))
                lo, _ = ind.wilson(hits, len(tasks))
                assert lo <= chance + ind.MARGIN, (level, name, maximise, hits)


def test_balanced_tasks_are_solved_by_gies_and_regeneration_is_counted(causal_tasks):
    for level in ("easy", "hard"):
        for task in causal_tasks[("balanced", level)][:5]:
            assert CAUSAL.verify(task).ok
        for task in causal_tasks[("balanced", level)]:
            p = task.provenance
            assert p["regenerated"] == p["attempts"] - 1
            assert sum(v for k, v in p["rejected"].items() if k != "new_structure") \
                == p["regenerated"]


def test_report_shows_both_chances_and_reads_results_stored_without_one():
    from scir.reports.aggregate import cell_stats
    from scir.experiments.cells import CellKey

    base = {"domain": "induction", "arch": "oracle", "presentation": "nl", "model": "none",
            "status": "ok"}
    results = [dict(base, task_id="a", correct=True, chance=1 / 45, chance_constrained=1 / 18),
               dict(base, task_id="b", correct=False, chance=2 / 45, chance_constrained=2 / 18,
                    status="wrong"),
               dict(base, task_id="c", correct=True, chance=0.1)]     # stored before schema 2
    row = cell_stats(CellKey("induction", "easy", "nl", "oracle", "none"), results)
    assert row.chance == pytest.approx((1 / 45 + 2 / 45 + 0.1) / 3)
    assert row.chance_constrained == pytest.approx((1 / 18 + 2 / 18 + 0.1) / 3)
    assert row.normalised_constrained < row.normalised
    assert {"chance_constrained", "normalised_constrained"} <= set(row.to_dict())
