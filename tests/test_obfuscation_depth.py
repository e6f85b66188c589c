"""Issue 29, deeper obfuscation: every technique of the deduction and causal writers appears in
rendered documents and is undone by the track's reference extractor (removing what it adds
breaks recovery); the generic extractor of ``scir.text.depth`` recovers every premise from NL
and at most 30% of deduction premises and causal edges from Obf; measures are exact on a
hand-made text; rendering and measuring are deterministic."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from scir.tasks import Document, Task
from scir.text.depth import DepthItem, measure, sentences
from scir.rendering.depth import group_depth, task_depth
from scir.rendering.extractors import recovery_problems
from scir.rendering.codecs import load_genres
from scir.rendering.template import render_task
from scir.tracks import get_track
from scir.tracks.causal.codec import writer as causal_writer
from scir.tracks.deduction.codec import writer as deduction_writer

N_TASKS = 8
_CACHE: dict[tuple[str, str], list[Task]] = {}


def rendered(track: str, tier: str = "easy") -> list[Task]:
    """``N_TASKS`` tasks (seed 7) rendered with seed 1, once per session."""
    key = (track, tier)
    if key not in _CACHE:
        _CACHE[key] = [render_task(t, 1) for t in get_track(track).generate(N_TASKS, 7, tier)]
    return _CACHE[key]


def _with_text(task: Task, index: int, text: str) -> Task:
    docs = list(task.documents)
    docs[index] = Document(docs[index].genre, text)
    return dataclasses.replace(task, documents=docs)


# ---- deduction techniques ----------------------------------------------------------------

def test_every_population_gets_an_abbreviation_or_a_catalogue_code():
    nouns = {"p1": ("endothelial tip cell", "endothelial tip cells", "an"),
             "p2": ("Kdr-positive cell", "Kdr-positive cells", "a"),
             "p3": ("neuroblast", "neuroblasts", "a"),
             "p4": ("epithelial tip cell", "epithelial tip cells", "an")}
    aliases = deduction_writer.choose_aliases(nouns, "P{n}", random.Random(3))
    assert set(aliases) == set(nouns)
    assert aliases["p1"][:2] == ("ETC", "ETCs") and aliases["p2"][:2] == ("Kdr+ cell",
                                                                           "Kdr+ cells")
    for pid in ("p3", "p4"):                 # no initials / initials already taken: a code
        assert re.fullmatch(r"P[0-9]{2} cells", aliases[pid][1]), aliases[pid]
    assert len({a[1] for a in aliases.values()}) == len(nouns)


def test_deduction_techniques_are_present_and_recovered():
    tasks = rendered("deduction")
    records = [t.provenance["render"] for t in tasks]
    assert all(r["aliases"] == len(t.domain_metadata["lexicon"]["predicates"])
               for r, t in zip(records, tasks))
    assert sum(r["split_statements"] for r in records) > 0
    assert all(r["distractors"] >= len(t.documents) for r, t in zip(records, tasks))
    split = re.compile(r"We next examined the |were sorted as one fraction|Consider any "
                       r"|We next examined cell |was followed individually|We screened ")
    distractor = re.compile(r"Whether every |We did not test whether |Markers of "
                            r"|It remains open whether |Counts of |Earlier work asked ")
    text = "\n".join(t.problem_obfuscated for t in tasks)
    assert split.search(text) and distractor.search(text)
    assert all(recovery_problems(t) == [] for t in tasks)


def test_the_second_sentence_of_a_split_statement_is_needed():
    second = re.compile(r"(?<=\. )(Every one of them was|None of them was|At least one of them "
                        r"was|All cells of that fraction are|No cell of that fraction is|At "
                        r"least one cell of that fraction is|It is always)[^.\n]*?(?:\.(?=\S)"
                        r"[^.\n]*?)*\.")
    for task in rendered("deduction"):
        for i, doc in enumerate(task.documents):
            m = second.search(doc.text)
            if m:
                damaged = _with_text(task, i, doc.text[:m.start()] + doc.text[m.end():])
                assert recovery_problems(damaged), m.group(0)
                return
    pytest.fail("no split statement rendered")


def test_distractors_never_relate_premise_pairs():
    from scir.tracks.deduction.logic import Formula

    premises = [Formula("all", ("a", "b")), Formula("no", ("b", "c"))]
    pairs = deduction_writer.unrelated_pairs(["a", "b", "c", "d"], premises)
    assert ("a", "b") not in pairs and ("b", "a") not in pairs and ("c", "b") not in pairs
    assert ("a", "c") in pairs and ("d", "a") in pairs


# ---- causal techniques ---------------------------------------------------------------------

def test_causal_edge_helpers():
    spec = load_genres("causal").phrases["edge_table"]
    table = causal_writer.edge_table(spec, [["Raf", "Mek"], ["Mek", "Erk"]], random.Random(1))
    assert table.splitlines()[1:] == ["| regulator | target |", "| Raf | Mek |",
                                      "| Mek | Erk |"]
    extra = causal_writer.edge_distractors(["{a} and {b} were measured."],
                                           ["Raf", "Mek", "Erk"], [["Raf", "Mek"]], 20,
                                           random.Random(2))
    assert extra and not any({"Raf", "Mek"} == set(re.findall(r"Raf|Mek|Erk", s))
                             for s in extra)
    text, split = causal_writer.edge_statement(["{a} regulates {b}."], ["{a}. Then {b}."],
                                               "Raf", "Mek", random.Random(0))
    assert text == ("Raf. Then Mek." if split else "Raf regulates Mek.")


def test_causal_techniques_are_present_and_recovered():
    tasks = rendered("causal") + rendered("causal", "hard")
    records = [t.provenance["render"] for t in tasks]
    assert any(r["edge_table"] for r in records)
    assert sum(r["split_edges"] for r in records) > 0
    assert all(r["distractors"] >= 1 for r in records)
    assert all(recovery_problems(t) == [] for t in tasks)
    with_table = next(t for t in tasks if t.provenance["render"]["edge_table"])
    network = with_table.documents[0].text
    row = re.search(r"^\| (?!regulator)\w+ \| \w+ \|\n", network, re.M)
    assert row is not None
    damaged = _with_text(with_table, 0, network[:row.start()] + network[row.end():])
    assert recovery_problems(damaged)


# ---- the generic extractor -----------------------------------------------------------------

def test_measure_is_exact_on_a_hand_made_text():
    items = [DepthItem("premise", 0, (("ETC", "ETCs"), ("neuroblast", "neuroblasts")),
                       (re.escape("Every ETC is a neuroblast."),)),
             DepthItem("premise", 1, (("glia", "glias"), ("neuroblast", "neuroblasts")),
                       (re.escape("No glia is a neuroblast."),)),
             DepthItem("premise", 1, (("glia", "glias"), ("ETC", "ETCs")),
                       (re.escape("Some glias are ETCs."),))]
    documents = ["[A1] Every ETC is a neuroblast.\nWhether some glias are ETCs was not tested.",
                 "Consider any glia. It is never an NB. Glias and ETCs; ETCs alone."]
    depth = measure(items, "\n\n".join(documents), documents,
                    ["ETC", "ETCs", "glia", "glias", "neuroblast", "neuroblasts"])
    assert depth.items["premise"] == 3
    # only the first is a clean-NL sentence; the third sits inside a distractor
    assert depth.recovered["premise"] == 1
    # the first, and the third (in the distractor and in "Glias and ETCs;"); not the second
    assert depth.literal["premise"] == 2
    # the second: "neuroblast" is named only in document 1
    assert depth.cross_document["premise"] == 1
    assert len(sentences(documents[1])) == 3
    assert depth.skeletons == {"[x] every x is a x.": 1,
                               "whether some x are x was not tested.": 1,
                               "consider any x.": 1, "x and x; x alone.": 1}
    assert depth.skeleton_cover(0.9) == 4
    clean = measure(items, "Every ETC is a neuroblast. No glia is a neuroblast. Some glias "
                    "are ETCs.")
    assert clean.recovered == clean.literal == clean.items and not clean.cross_document


@pytest.mark.parametrize("track, kind", [("deduction", "premise"), ("causal", "edge")])
def test_generic_extractor_meets_the_goal_on_a_fixed_seed(track, kind):
    tasks = rendered(track) + rendered(track, "hard")
    nl, obf = group_depth(tasks, "nl"), group_depth(tasks, "obf")
    assert nl and set(nl) == set(obf)
    for key, d in obf.items():
        assert nl[key].share("recovered", kind) == 1.0
        assert nl[key].share("literal", kind) == 1.0
        assert (d.share("recovered", kind) or 0.0) <= 0.30, key
        assert (d.share("literal", kind) or 0.0) < 1.0, key
        assert len(d.skeletons) > len(nl[key].skeletons)


def test_rendering_and_depth_are_deterministic():
    task = next(iter(get_track("deduction").generate(1, 11, "easy")))
    a, b = render_task(task, 4), render_task(task, 4)
    assert a.documents == b.documents and a.documents != render_task(task, 5).documents
    da, db = task_depth(a), task_depth(b)
    assert da is not None and db is not None
    assert (da.items, da.recovered, da.literal, da.cross_document, da.skeletons) == \
        (db.items, db.recovered, db.literal, db.cross_document, db.skeletons)


def test_induction_pronoun_splits_are_present_and_needed():
    from scir.tracks.induction.codec.writer import pronoun_split

    assert pronoun_split("{drug} was profiled next.", "{drug} inhibits the enzyme {protein}.") \
        == "{drug} was profiled next. It inhibits the enzyme {protein}."
    assert pronoun_split("{drug} was profiled next.", "The enzyme {protein} is inhibited by "
                         "{drug}.") is None
    tasks = rendered("induction") + rendered("induction", "hard")
    assert all(recovery_problems(t) == [] for t in tasks)
    split = re.compile(r" It [^\n]*?\.(?=\s|$)")
    damaged = None
    for task in tasks:
        m = split.search(task.documents[0].text)
        if m and task.provenance["render"].get("pronoun_splits"):
            damaged = _with_text(task, 0, task.documents[0].text[:m.start()]
                                 + task.documents[0].text[m.end():])
            break
    assert damaged is not None and recovery_problems(damaged)
    nl = group_depth(tasks, "nl")
    assert all(d.share("recovered", "fact") == 1.0 and d.share("recovered", "pair") == 1.0
               for d in nl.values())


def test_stats_prints_the_depth(tmp_path, capsys):
    import json

    from scir.cli import main
    from scir.tasks import write_tasks

    path = tmp_path / "c.obf.jsonl"
    write_tasks(path, rendered("causal"))
    assert main(["stats", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Obfuscation depth" in out
    assert re.search(r"^\| causal \| n5c1 \| edge \| [0-9]+ \| 100\.0% \|", out, re.M)
    assert main(["stats", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {(r["premises"]): r for r in data["depth"]["obf"]}
    assert rows["edge"]["recovered"] <= 0.30 and data["depth"]["nl"][0]["recovered"] == 1.0
    plain = tmp_path / "c.jsonl"
    write_tasks(plain, [dataclasses.replace(t, documents=[], problem_obfuscated="")
                        for t in rendered("causal")])
    assert main(["stats", str(plain)]) == 0
    assert "Obfuscation depth" not in capsys.readouterr().out


def test_split_statements_never_weaken_and_cover_every_form():
    from tests.test_render_template import FORBIDDEN

    phrases = load_genres("deduction").phrases
    assert set(phrases["split_statements"]) == set(phrases["statements"])
    for bank in phrases["split_statements"].values():
        for p in bank:
            assert not FORBIDDEN.search(p["text"]) and ". " in p["text"], p
    assert not any(FORBIDDEN.search(t) for t in phrases["distractors"])


def test_mixed_units_keep_every_digit_and_are_read_back():
    for printed in ("2.11", "0.05", "0.00", "12.30", "100.01"):
        scaled = causal_writer.scaled_value(printed)
        assert scaled.count(".") == 1 and len(scaled.split(".")[1]) == 1
        assert causal_writer.unscaled_value(scaled) == float(printed)
    tasks = [render_task(t, s) for t in get_track("causal").generate(6, 7, "easy")
             for s in (1, 2, 3)]
    label = re.compile(r"^[A-Za-z0-9]+(?:, in tenths of the common unit \(divide by 10\)| "
                       r"\(reported x10; divide by 10 to compare\)): [^\n]*$", re.M)
    hits = [(t, m) for t in tasks for m in [label.search(t.documents[1].text)] if m]
    assert hits and all(recovery_problems(t) == [] for t in tasks)
    task, m = hits[0]
    data = task.documents[1].text
    wrong = m.group(0).replace(": ", ": 9", 1)             # a changed first value
    assert recovery_problems(_with_text(task, 1, data[:m.start()] + wrong + data[m.end():]))
