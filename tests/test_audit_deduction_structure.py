"""The deduction audit's structural family (``scir/audit/deduction_structure.py``) on real
generated tasks: it reads the statement and the premise graph back from the text, flags files
whose labels follow the local structure of the premises (built here from balanced tasks), and
flags nothing on the balanced tasks as generated."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from scir.audit import deduction_structure as ds
from scir.audit.items import load_items
from scir.cli import main
from scir.tasks import Task, write_tasks
from scir.tracks import get_track
from scir.tracks.deduction.logic import parse

LABELS = ("True", "False", "Unknown")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[list[Task], Path]:
    tasks = list(get_track("deduction").generate(60, seed=11, difficulty="easy"))
    path = tmp_path_factory.mktemp("structure") / "balanced.jsonl"
    write_tasks(path, tasks)
    return tasks, path


def _audit(path: Path, out: Path) -> dict[str, dict]:
    main(["audit", str(path), "-o", str(out)])
    (group,) = json.loads((out / "audit.json").read_text())["groups"]
    return {s["name"]: s for s in group["scores"]}


def _rebuilt(task: Task, premises: list[str], label: str) -> Task:
    """``task`` with other premises (clean NL rebuilt with the track's templates) and label."""
    from scir.tracks.deduction.codec.contents import deduction_lexicon
    from scir.tracks.deduction.templates import blocks

    texts = blocks([parse(p) for p in premises], deduction_lexicon(task))
    return dataclasses.replace(task, answer=label, answer_pool=[label],
                               formal={**task.formal, "premises": premises}, blocks=texts,
                               problem_nl="\n\n".join(texts), documents=[],
                               problem_obfuscated="")


@pytest.mark.slow
def test_statement_and_pieces_read_back_from_the_text(base):
    """The statement recovered from the question is the task's goal; the premises fall into
    pieces (at least one per tree), each touching the statement's terms."""
    tasks, path = base
    for item in load_items([str(path)], ["nl"]):
        assert ds.statement_formula(item) == parse(item.task.formal["goal"]), item.task_id
        g = ds.graph(item)
        pieces = ds.trees(g)
        assert len(pieces) >= 1 + item.task.params["width"]
        assert all(set(g.statement_terms) & piece for piece in pieces)


def test_flags_labels_that_follow_the_statement_terms_edges(base, tmp_path):
    """The same texts, each relabelled by how many "every" premises leave the statement's
    first term (mod 3): a purely structural rule that no count feature states; the
    Weisfeiler-Lehman model finds it."""
    tasks, _ = base
    relabelled = []
    for task in tasks:
        first = parse(task.formal["goal"]).args[0]
        out = sum(1 for p in map(parse, task.formal["premises"])
                  if p.kind == "all" and p.args[0] == first)
        relabelled.append(_rebuilt(task, task.formal["premises"], LABELS[out % 3]))
    path = tmp_path / "edges.jsonl"
    write_tasks(path, relabelled)
    scores = _audit(path, tmp_path / "out")
    assert scores["wl-boost"]["leak"] or scores["wl-logreg"]["leak"], scores["wl-boost"]


@pytest.mark.slow
def test_flags_the_paper_construction_not_the_balanced_one(base, tmp_path):
    """The paper construction (a deleted leaf per distractor and, for Unknown, in the proof:
    the intact proof is the one piece without a free end) is flagged by the structural
    family; the balanced tasks as generated are not."""
    tasks, path = base
    paper = list(get_track("deduction").generate(60, seed=11, difficulty="easy",
                                                 overrides={"construction": "paper"}))
    paper_path = tmp_path / "paper.jsonl"
    write_tasks(paper_path, paper)
    scores = _audit(paper_path, tmp_path / "paper")
    assert [n for n, s in scores.items() if s["family"] == "structural" and s["leak"]], scores
    fair = _audit(path, tmp_path / "fair")
    assert not [name for name, s in fair.items() if s["family"] == "structural" and s["leak"]]


def test_motif_rule_reads_no_answer(base):
    """The fixed rule never sees the answer: the same prediction for a task relabelled."""
    tasks, path = base
    items = load_items([str(path)], ["nl"])
    for item in items[:6]:
        first = ds.motif_rule(item, random.Random(1))
        item.task = dataclasses.replace(item.task, answer="Unknown", answer_pool=["Unknown"])
        assert ds.motif_rule(item, random.Random(1)) == first
