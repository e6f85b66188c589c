"""The template renderer: every task of every track (Easy and Hard) is rendered, and the
track's reference extractor recovers the exact formal content of every block from the
documents alone; lengths stay within 2-4.5x of the clean text; output is deterministic."""

from __future__ import annotations

import copy
import json
import re

import pytest

from scir.errors import TaskFormatError
from scir.tracks.reading import task_from_dict
from scir.tasks import Task
from scir.rendering.blocks import block_contents, differences
from scir.rendering.extractors import extract_blocks, recovery_problems
from scir.rendering.codecs import load_genres
from scir.rendering.template import render_task
from scir.tracks import get_track

TRACKS = ("deduction", "induction", "causal")
N_TASKS = 10
_CACHE: dict[tuple[str, str], list[Task]] = {}


def tasks(track: str, difficulty: str) -> list[Task]:
    """``N_TASKS`` generated tasks of a track and difficulty (generated once per session)."""
    key = (track, difficulty)
    if key not in _CACHE:
        _CACHE[key] = list(get_track(track).generate(N_TASKS, 7, difficulty))
    return _CACHE[key]


def rendered(track: str, difficulty: str, seed: int = 1) -> list[Task]:
    return [render_task(t, seed) for t in tasks(track, difficulty)]


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
@pytest.mark.parametrize("track", TRACKS)
def test_every_block_is_recovered_exactly(track, difficulty):
    lo, hi = load_genres(track).ratio
    for original, task in zip(tasks(track, difficulty), rendered(track, difficulty)):
        expected = block_contents(original)
        found = extract_blocks(task)
        assert len(found) == len(expected) == len(task.documents) == len(task.blocks)
        for i, (a, b) in enumerate(zip(expected, found)):
            assert differences(track, i, a, b) == [], (task.task_id, i)
        record = task.provenance["render"]
        ratio = len(task.problem_obfuscated) / len(task.problem_nl)
        assert 2.0 <= ratio <= 4.5, (task.task_id, ratio)
        assert lo - 0.1 <= ratio <= hi + 0.1
        assert record["ratio"] == round(ratio, 3)
        assert record["chars_nl"] == len(task.problem_nl)
        assert record["chars_obf"] == len(task.problem_obfuscated)
        assert record["genres"] == [d.genre for d in task.documents]
        assert len(set(record["genres"])) == len(record["genres"])
        assert task.problem_obfuscated == "\n\n".join(d.text for d in task.documents)
        # the renderer touches nothing else
        for name in ("question", "answer", "answer_pool", "formal", "blocks", "problem_nl",
                     "options", "domain_metadata"):
            assert getattr(task, name) == getattr(original, name), name
        assert {k: v for k, v in task.provenance.items() if k != "render"} == \
            original.provenance


@pytest.mark.parametrize("track", TRACKS)
def test_rendering_is_deterministic_and_seeded(track):
    first = [t.to_json() for t in rendered(track, "easy", seed=5)]
    again = [t.to_json() for t in rendered(track, "easy", seed=5)]
    other = [t.to_json() for t in rendered(track, "easy", seed=6)]
    assert first == again
    assert first != other
    assert all(not recovery_problems(task_from_dict(json.loads(t))) for t in other)


def test_deduction_abbreviations_cross_documents():
    crossed = 0
    for task in rendered("deduction", "hard"):
        record = task.provenance["render"]
        if not record["aliases"]:
            continue
        glossary = record["glossary_document"] - 1
        other = task.documents[1 - glossary].text
        spec = load_genres("deduction").genre(task.documents[glossary].genre).option("glossary")
        line = next(line for line in task.documents[glossary].text.splitlines()
                    if line.startswith(spec["head"]))
        assert spec["head"] not in other
        aliases = re.findall(r"[A-Za-z0-9+.\-]+\+ cells|\b[A-Z]{2,}s\b", line)
        crossed += any(a[:-1] in other for a in aliases)
    assert crossed >= 5


def test_induction_codes_defined_in_facts_used_in_pairs():
    used = 0
    for task in rendered("induction", "easy"):
        facts, pos, neg = (d.text for d in task.documents)
        defined = dict(re.findall(r"([A-Z][a-z]+) \(([A-Z]{2,4}-[0-9]{5})\)", facts))
        assert len(defined) == task.provenance["render"]["codes"]
        codes = set(defined.values())
        mentioned = set(re.findall(r"\b[A-Z]{2,4}-[0-9]{5}\b", pos + neg))
        assert mentioned <= codes
        assert not re.search(r"[A-Z][a-z]+ \([A-Z]{2,4}-[0-9]{5}\)", pos + neg)
        used += bool(mentioned)
    assert used >= 5


def test_causal_data_tables_refer_to_labels_of_the_network_document():
    for task in rendered("causal", "hard"):
        network, data = (d.text for d in task.documents)
        labels = task.provenance["render"]["labels"]
        for label in labels:
            assert re.search(rf"{re.escape(label)}: ", network)
            assert label in data
        assert not re.search(r"inhibit|activat|observational", data)
        rows = sum(len(e["rows"]) for e in task.formal["environments"])
        assert data.count("\n") >= rows


def test_causal_blocks_need_the_gold_fields_of_the_typed_object():
    """A causal formal object without ``xyz_edges``, ``columns`` or an environment's ``kind``
    loads (a formalization's shape) but cannot tell the blocks: one error naming them all."""
    task = copy.deepcopy(tasks("causal", "easy")[0])
    del task.formal["xyz_edges"], task.formal["columns"], task.formal["environments"][1]["kind"]
    with pytest.raises(TaskFormatError) as info:
        block_contents(task)
    assert info.value.task_id == task.task_id and info.value.field == "formal"
    assert "lacks xyz_edges, columns, environments[1].kind" in info.value.message


def _mutations(task: Task):
    """Damaged copies of a rendered task, each of which must fail recovery."""
    doc = task.documents[0]
    if task.domain == "deduction":
        kind_words = [("Every ", "Most "), ("All ", "Most "), ("No ", "Few "),
                      ("Without exception, ", "Typically, ")]
        for old, new in kind_words:
            if old in doc.text:
                yield doc, doc.text.replace(old, new, 1)
                break
    if task.domain == "causal":
        data = task.documents[1]
        m = re.search(r"[0-9]+\.[0-9]{2}", data.text)
        bumped = f"{float(m.group(0)) + 0.01:.2f}"
        yield data, data.text[:m.start()] + bumped + data.text[m.end():]
    if task.domain == "induction":
        for old, new in (("enzyme", "transporter"), ("agonist", "antagonist")):
            if old in doc.text:
                yield doc, doc.text.replace(old, new, 1)
    lines = doc.text.split("\n")
    yield doc, "\n".join(lines[:2])             # most of the document lost


@pytest.mark.parametrize("track", TRACKS)
def test_damaged_documents_fail_recovery(track):
    task = rendered(track, "easy")[0]
    assert recovery_problems(task) == []
    count = 0
    for doc, text in _mutations(task):
        damaged = copy.deepcopy(task)
        index = task.documents.index(doc)
        damaged.documents[index].text = text
        assert recovery_problems(damaged), (track, text[:200])
        count += 1
    assert count >= 2


FORBIDDEN = re.compile(r"\b(most|majority|many|usually|typically|generally|often|mostly|"
                       r"predominantly|largely|few)\b", re.I)


def test_quantifier_wordings_never_weaken():
    bank = load_genres("deduction").phrases["statements"]
    ids = {kind: {p["id"] for p in items} for kind, items in bank.items()}
    for kind, items in bank.items():
        for p in items:
            assert not FORBIDDEN.search(p["text"]), p
    for genre in load_genres("deduction").genres:
        for kind, chosen in genre.option("wording").items():
            assert chosen and set(chosen) <= ids[kind], (genre.name, kind)


def _universe(track: str) -> list[str]:
    if track == "deduction":
        from scir.tracks.deduction.vocabulary import contexts

        return [n for c in contexts() for p in c.predicates for n in (p.noun, p.plural)] + \
            [i.name for c in contexts() for i in c.individuals]
    if track == "induction":
        from scir.tracks.induction.world import load_world

        w = load_world()
        return [d.capitalize() for d in w.drugs] + [p.name for p in w.proteins] + \
            list(w.relation_names)
    from scir.tracks.causal.graph import ORDER

    return list(ORDER) + ["XYZ"]


@pytest.mark.parametrize("track", TRACKS)
def test_filler_never_mentions_entities(track):
    gset = load_genres(track)
    texts = list(gset.filler)
    for g in gset.genres:
        texts += list(g.filler) + list(g.intro) + list(g.closing) + list(g.headers)
    texts += [v for values in gset.slots.values() for v in values]
    names = _universe(track)
    pattern = re.compile(r"(?<![\w+\-])(?:" + "|".join(re.escape(n) for n in
                                                         sorted(names, key=len, reverse=True))
                         + r")(?![\w+\-])", re.I)
    hits = [(t, m.group(0)) for t in texts for m in [pattern.search(t)] if m]
    assert hits == []


def test_every_genre_file_has_eight_documented_genres():
    for track in TRACKS:
        gset = load_genres(track)
        assert len(gset.genres) == 8
        assert all(len(g.style) > 80 for g in gset.genres)
        assert gset.fidelity and 2.0 <= gset.ratio[0] <= gset.ratio[1] <= 4.5


@pytest.mark.slow
def test_render_and_stats_commands(tmp_path):
    import os
    import subprocess
    import sys

    from scir.tasks import write_tasks

    source = tmp_path / "mixed.jsonl"
    write_tasks(source, [t for track in TRACKS for t in tasks(track, "easy")[:2]])
    outputs = []
    for hash_seed in ("1", "2"):           # same file and seed: identical bytes in any process
        out = tmp_path / f"obf{hash_seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run([sys.executable, "-m", "scir", "render", str(source),
                               "--renderer", "template", "--seed", "3", "-o", str(out)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "rendered 6/6 tasks (0 dropped" in proc.stdout
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    report = json.loads((tmp_path / "obf1.render.json").read_text())
    assert report["rendered"] == 6 and report["dropped"] == []
    assert {g["domain"] for g in report["groups"]} == set(TRACKS)
    assert all(2.0 <= s["ratio"] <= 4.5 for s in report["per_task"])
    proc = subprocess.run([sys.executable, "-m", "scir", "stats", str(tmp_path / "obf1.jsonl"),
                           "--per-task"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for track in TRACKS:
        assert re.search(rf"^\| {track} \| \S+ \| 2 \| [0-9,.]+ \| [0-9,.]+ \| [0-9.]+ \| "
                         r"[0-9.]+ \|", proc.stdout, re.M), proc.stdout
    assert "pool sizes" in proc.stdout and "| deduction-" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "scir", "stats", str(source), "--json"],
                          capture_output=True, text=True, timeout=120)
    groups = json.loads(proc.stdout)["groups"]
    assert all(g["chars_obf"] is None and g["tasks"] == 2 for g in groups)
    bad = subprocess.run([sys.executable, "-m", "scir", "render", str(source), "--renderer",
                          "llm", "-o", str(tmp_path / "x.jsonl")], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "needs --model" in bad.stderr
