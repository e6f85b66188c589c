"""``scir audit``: it flags leaks that are there and none that are not.

The leaky files are built from real generated tasks: deduction tasks cut to a premise count
that fixes the label, causal tasks whose interventions give the answer option away; their
independent twins keep the same texts with answers drawn at random. The last test audits
freshly generated tasks of every track (balanced construction: nothing flagged; paper
construction: flagged) (``slow``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from scir.audit.crossval import GroupAudit, fold_group, wilson
from scir.cli import main
from scir.tasks import Task, write_tasks
from scir.tracks import get_track


@pytest.fixture(scope="module")
def deduction_base() -> list[Task]:
    return list(get_track("deduction").generate(20, seed=3, difficulty="easy"))


@pytest.fixture(scope="module")
def causal_base() -> list[Task]:
    return list(get_track("causal").generate(3, seed=3, difficulty="easy"))


# ---- deduction: the label is the premise count ------------------------------------------
KEEP = {"True": 9, "False": 7, "Unknown": 5}     # premises kept per label


def _cut(task: Task, keep: int, label: str, index: int) -> Task:
    """``task`` with its first ``keep`` premises only, relabelled (clean NL rebuilt with the
    track's templates)."""
    from scir.tracks.deduction.codec.contents import deduction_lexicon
    from scir.tracks.deduction.logic import parse
    from scir.tracks.deduction.templates import blocks

    premises = task.formal["premises"][:keep]
    assert len(premises) == keep, "base task too small"
    texts = blocks([parse(p) for p in premises], deduction_lexicon(task))
    return dataclasses.replace(task, task_id=f"deduction-e4d1-3-{index}", answer=label,
                               answer_pool=[label], formal={**task.formal, "premises": premises},
                               blocks=texts, problem_nl="\n\n".join(texts), documents=[],
                               problem_obfuscated="")


def _deduction_file(base: list[Task], path: Path, shuffle: bool) -> Path:
    records = []
    for k, task in enumerate(base):
        for label, keep in KEEP.items():
            records.append((task, keep, label))
    labels = [label for _, _, label in records]
    if shuffle:  # the same texts, labels independent of them
        random.Random(7).shuffle(labels)
    write_tasks(path, [_cut(t, keep, label, i)
                       for i, ((t, keep, _), label) in enumerate(zip(records, labels))])
    return path


def _audit(files: list[Path], out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["audit", *map(str, files), "-o", str(out), *extra])
    return code, json.loads((out / "audit.json").read_text())


def _scores(report: dict) -> dict[str, dict]:
    (group,) = report["groups"]
    return {s["name"]: s for s in group["scores"]}


@pytest.mark.slow
def test_flags_a_label_that_follows_the_premise_count(deduction_base, tmp_path, capsys):
    path = _deduction_file(deduction_base, tmp_path / "leaky.jsonl", shuffle=False)
    code, report = _audit([path], tmp_path / "out", "--presentation", "nl")
    assert code == 1
    scores = _scores(report)
    assert scores["counts-logreg"]["leak"] and scores["counts-logreg"]["accuracy"] > 0.9
    assert scores["counts-boost"]["leak"]
    assert not scores["majority"]["leak"]          # labels are balanced: 20 of each
    assert "**LEAK**" in (tmp_path / "out" / "audit.md").read_text()
    assert "**LEAK**" in capsys.readouterr().out
    # a leak this strong survives the family-wise (Bonferroni) correction
    code, report = _audit([path], tmp_path / "fw", "--presentation", "nl", "--family-wise")
    assert code == 1 and _scores(report)["counts-logreg"]["leak"]
    assert report["groups"][0]["confidence"] == pytest.approx(1 - 0.05 / len(_scores(report)))


def test_flags_nothing_when_labels_are_independent(deduction_base, tmp_path):
    path = _deduction_file(deduction_base, tmp_path / "shuffled.jsonl", shuffle=True)
    code, report = _audit([path], tmp_path / "out", "--presentation", "nl")
    assert report["leaks"] == 0 and code == 0
    assert all(s["accuracy"] < 0.6 for s in _scores(report).values())


def test_same_seed_same_report(deduction_base, tmp_path):
    path = _deduction_file(deduction_base, tmp_path / "shuffled.jsonl", shuffle=True)
    main(["audit", str(path), "--seed", "5", "-o", str(tmp_path / "a")])
    main(["audit", str(path), "--seed", "5", "-o", str(tmp_path / "b")])
    assert (tmp_path / "a" / "audit.json").read_bytes() == \
        (tmp_path / "b" / "audit.json").read_bytes()


# ---- causal: the answer's partner is the intervened node ---------------------------------
def _causal_copy(task: Task, index: int, rng: random.Random, leaky: bool) -> Task:
    """A copy of ``task`` with its options shuffled and a random option as the answer; leaky:
    the interventions moved so that the answer's partner is intervened on twice and no other
    option's partner is."""
    from scir.tracks.causal import templates
    from scir.tracks.causal.options import letter, parse_option
    from scir.tracks.causal.scm import Environment

    new = task.domain_metadata["new_protein"]
    options = list(task.options)
    rng.shuffle(options)
    envs = [dict(e) for e in task.formal["environments"]]
    # the answer is drawn at random: copies of one base task share nothing but their texts
    j = rng.randrange(len(options))
    if leaky:
        (edge,) = parse_option(options[j])
        partner = edge[0] if edge[1] == new else edge[1]
        others = [n for n in task.domain_metadata["subgraph_nodes"] if n != partner]
        targets = [[partner], [partner], [rng.choice(others)]]
        for env, tgt in zip([e for e in envs if e["kind"] != "observational"], targets):
            env["targets"] = tgt
    formal = {**task.formal, "environments": envs}
    env_objs = [Environment(e["name"], e["kind"], e["targets"], e["rows"]) for e in envs]
    blocks = [templates.block_network(task.domain_metadata["subgraph_nodes"],
                                      [tuple(e) for e in task.formal["known_edges"]], new,
                                      task.params["connections"], env_objs),
              templates.block_data(env_objs, task.formal["columns"])]
    return dataclasses.replace(task, task_id=f"causal-n5c1-3-{index}", options=options,
                               answer=letter(j), answer_pool=[letter(j)], formal=formal,
                               blocks=blocks, problem_nl="\n\n".join(blocks), documents=[],
                               problem_obfuscated="")


def _causal_file(base: list[Task], path: Path, leaky: bool) -> Path:
    rng = random.Random(11)
    write_tasks(path, [_causal_copy(base[i % len(base)], i, rng, leaky) for i in range(60)])
    return path


def test_flags_options_whose_partner_is_intervened(causal_base, tmp_path):
    path = _causal_file(causal_base, tmp_path / "leaky.jsonl", leaky=True)
    code, report = _audit([path], tmp_path / "out")
    assert code == 1
    scores = _scores(report)
    # two options share the intervened partner (one per direction): about half are right
    assert scores["most-intervened-partners"]["leak"]
    assert scores["most-intervened-partners"]["accuracy"] > 0.35
    assert scores["rank-logreg"]["leak"] and scores["rank-boost"]["leak"]
    assert not scores["majority"]["leak"]


def test_flags_nothing_on_shuffled_options(causal_base, tmp_path):
    path = _causal_file(causal_base, tmp_path / "fair.jsonl", leaky=False)
    code, report = _audit([path], tmp_path / "out")
    assert report["leaks"] == 0 and code == 0


# ---- the pieces ----------------------------------------------------------------------------
def test_leak_threshold_uses_the_larger_chance():
    audit = GroupAudit("induction", "easy", "nl", tasks=100, parsed=100, chance=0.03,
                       chance_constrained=0.08, folds=5, files=[])
    assert audit.threshold == pytest.approx(0.11)


def test_wilson_interval_from_scipy():
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0, 20)[0] == 0.0


def test_tiers_of_one_seed_and_index_share_a_fold_group():
    assert fold_group("induction-d2p2-1-7") == fold_group("induction-d3p2-1-7")
    assert fold_group("induction-d2p2-1-7") != fold_group("induction-d2p2-1-8")
    assert fold_group("odd id") == "odd id"


def test_obf_without_documents_is_a_clear_error(deduction_base, tmp_path, capsys):
    path = tmp_path / "clean.jsonl"
    write_tasks(path, deduction_base)
    assert main(["audit", str(path), "--presentation", "obf"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"error: {path}") and "nothing to audit" in err[-1]


def test_bad_file_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": 1}\n')
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}:1")


# ---- generated tasks: passes only once the generators are independent ---------------------
def _generated_files(track: str, tmp_path: Path, construction: str) -> list[Path]:
    from scir.rendering.template import render_task

    files = []
    for level in ("easy", "hard"):
        tasks = [render_task(t) for t in get_track(track).generate(
            30, seed=2, difficulty=level, overrides={"construction": construction})]
        files.append(tmp_path / f"{track}-{construction}-{level}.jsonl")
        write_tasks(files[-1], tasks)
    return files


@pytest.mark.slow
@pytest.mark.parametrize("track", ["deduction", "induction", "causal"])
def test_generated_tasks_show_no_leak(track, tmp_path):
    """30 Easy + 30 Hard tasks of the default (balanced) construction, clean and
    template-rendered: no baseline beats chance in any group. At this size the run examines
    some 50 (baseline, group) pairs over few tasks, so the intervals are family-wise
    (``--family-wise``); the 200-per-tier audit (benchmarks/audit.py) uses plain 95%
    intervals. The paper construction at the same size is flagged, so the check has the
    power to fail: deduction in every group, causal and induction by their structural
    families (sortability; co-location among the examples' drugs) in every pooled group."""
    files = _generated_files(track, tmp_path, "balanced")
    code, report = _audit(files, tmp_path / "out", "--family-wise")
    leaks = [(g["difficulty"], g["presentation"], g["leaks"]) for g in report["groups"]
             if g["leaks"]]
    assert code == 0 and not leaks, leaks
    code, report = _audit(_generated_files(track, tmp_path, "paper"), tmp_path / "paper",
                          "--family-wise")
    assert code == 1
    if track == "deduction":
        assert all(g["leaks"] for g in report["groups"])
    else:
        for group in report["groups"]:
            structural = [s["name"] for s in group["scores"]
                          if s["family"] == "structural" and s["leak"]]
            assert structural or group["difficulty"] != "all", group["difficulty"]
