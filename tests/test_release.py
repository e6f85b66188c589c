"""The dataset release: ``scir export --format hf`` (a folder ``datasets.load_dataset`` loads
with one config per track and a split per difficulty x presentation, typed features, a card
with chance levels, generation parameters, the audit and the data licences, Croissant
metadata that mlcroissant validates and reads) and ``--format scir`` (records a task can be
scored from alone). Real generated and rendered tasks of all three tracks; everything offline.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
import yaml

from scir.cli import main
from scir.release.rows import merge_tasks, Source
from scir.release.schema import COLUMNS
from scir.release.scir_json import EXTRA_FIELDS, SCIR_FIELDS, record_task
from scir.tasks import Task, write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track

# (name, track, difficulty, tasks, seed, rendered): causal easy has the 10 tasks the audit
# needs for one group; causal hard stays unrendered (no hard_obf split)
INPUTS = (("d", "deduction", "easy", 4, 1, True), ("i", "induction", "easy", 4, 1, True),
          ("c", "causal", "easy", 10, 1, True), ("ch", "causal", "hard", 3, 2, False))
DATE = "2026-12-01"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Path]:
    """The export's input files: clean files of every track, rendered copies of three."""
    folder = tmp_path_factory.mktemp("inputs")
    files = []
    for name, track, difficulty, n, seed, rendered in INPUTS:
        clean = folder / f"{name}.jsonl"
        assert main(["generate", track, "--difficulty", difficulty, "-n", str(n), "--seed",
                     str(seed), "-o", str(clean)]) == 0
        files.append(clean)
        if rendered:
            obf = folder / f"{name}.obf.jsonl"
            assert main(["render", str(clean), "--renderer", "template", "--seed", "1", "-o",
                         str(obf)]) == 0
            files.append(obf)
    return files


def export_hf(files: list[Path], out: Path, *extra: str) -> None:
    assert main(["export", *map(str, files), "--format", "hf", "-o", str(out),
                 "--date", DATE, *extra]) == 0


@pytest.fixture(scope="module")
def release(inputs, tmp_path_factory) -> Path:
    """The hf folder of every input, with the audit."""
    out = tmp_path_factory.mktemp("release") / "hf"
    export_hf(inputs, out)
    return out


@pytest.fixture(scope="module")
def tasks(inputs) -> list[Task]:
    return merge_tasks(Source(p.name, read_tasks(p)) for p in inputs)


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def card_header(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


# ---------------------------------------------------------------- the hf folder

@pytest.mark.slow
def test_hf_folder_loads_with_typed_features(release, tasks, offline):
    import datasets

    assert sorted(datasets.get_dataset_config_names(str(release))) == \
        ["causal", "deduction", "induction"]
    expected_splits = {"deduction": ["easy_nl", "easy_obf"],
                       "induction": ["easy_nl", "easy_obf"],
                       "causal": ["easy_nl", "easy_obf", "hard_nl"]}  # ch is not rendered
    by_id = {t.task_id: t for t in tasks}
    string, strings = datasets.Value("string"), datasets.List(datasets.Value("string"))
    for config, splits in expected_splits.items():
        ds = datasets.load_dataset(str(release), config)
        assert sorted(ds) == splits
        for split in splits:
            features = ds[split].features
            assert list(features) == [c.name for c in COLUMNS]
            assert features["options"] == strings == datasets.Sequence(datasets.Value("string"))
            assert features["answer_pool"] == strings and features["blocks"] == strings
            assert features["documents"] == datasets.List({"genre": string, "text": string})
            assert features["chance"] == datasets.Value("float64")
            assert features["seed"] == datasets.Value("int64")
            for name in ("formal", "params", "domain_metadata", "provenance"):
                assert features[name] == string
            difficulty, presentation = split.split("_")
            members = [t for t in tasks if t.domain == config and t.difficulty == difficulty
                       and (presentation == "nl" or t.documents)]
            assert [r["task_id"] for r in ds[split]] == [t.task_id for t in members]
            for row in ds[split]:
                task = by_id[row["task_id"]]
                assert row["presentation"] == presentation
                assert row["options"] == task.options and row["answer"] == task.answer
                assert row["answer_pool"] == task.answer_pool
                assert row["chance"] == task.chance
                assert json.loads(row["formal"]) == task.formal
                assert json.loads(row["params"]) == task.params
                if presentation == "nl":
                    assert row["problem"] == task.problem_nl and row["blocks"] == task.blocks
                    assert row["documents"] == []
                else:
                    assert row["problem"] == task.problem_obfuscated and row["blocks"] == []
                    assert row["documents"] == [{"genre": d.genre, "text": d.text}
                                                for d in task.documents]
    # deduction has no options at all: still typed as strings, not List(null)
    assert all(r == [] for r in datasets.load_dataset(str(release), "deduction")
               ["easy_nl"]["options"])


def test_card_header_and_body(release, tasks, inputs):
    head = card_header(release)
    assert head["pretty_name"] == "SciR tasks" and head["license"] == "cc-by-4.0"
    assert "question-answering" in head["task_categories"]
    configs = {c["config_name"]: {f["split"]: f["path"] for f in c["data_files"]}
               for c in head["configs"]}
    assert configs["causal"] == {"easy_nl": "data/causal/easy_nl.jsonl",
                                 "easy_obf": "data/causal/easy_obf.jsonl",
                                 "hard_nl": "data/causal/hard_nl.jsonl"}
    for paths in configs.values():
        for path in paths.values():
            assert (release / path).is_file()
    assert {i["config_name"] for i in head["dataset_info"]} == set(configs)
    body = (release / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    # chance levels: the mean over each split's tasks
    for config, difficulty, presentation in (("induction", "easy", "nl"),
                                             ("causal", "hard", "nl")):
        members = [t for t in tasks if t.domain == config and t.difficulty == difficulty]
        mean = sum(t.chance for t in members) / len(members)
        constrained = sum(t.chance_constrained for t in members) / len(members)
        assert (f"| {config} | {difficulty}_{presentation} | {len(members)} | "
                f"{100 * mean:.1f}% | {100 * constrained:.1f}% |") in body
    # generation: every input file with its seeds and parameters
    for path in inputs:
        section = body.split(f"### `{path.name}`", 1)[1].split("###", 1)[0]
        file_tasks = read_tasks(path)
        assert f"| seeds | {', '.join(str(s) for s in sorted({t.seed for t in file_tasks}))} |" \
            in section
        assert json.dumps(file_tasks[0].params, sort_keys=True) in section
    # licence: the Sachs data of the causal config is CC0
    licence = body.split("## Licence", 1)[1]
    assert "**causal**" in licence and "CC0-1.0" in licence and "Sachs" in licence
    assert "**deduction**" not in licence


def test_card_audit_is_the_projects_audit(release, inputs):
    """The card's audit tables are those of scir.audit over the same files (causal easy, and
    causal easy + hard pooled, have enough tasks; the other groups are too small and are left
    out as scir audit does)."""
    from scir.audit.report import group_table
    from scir.audit.run import audit_files

    body = (release / "README.md").read_text(encoding="utf-8")
    audits = audit_files([str(p) for p in inputs], ["nl", "obf"], folds=5, seed=1)
    assert {(a.track, a.difficulty, a.presentation) for a in audits} == \
        {("causal", "easy", "nl"), ("causal", "easy", "obf"), ("causal", "all", "nl")}
    for audit in audits:
        assert group_table(audit) in body
    assert "### deduction · easy" not in body


def test_no_audit_says_so(inputs, tmp_path):
    out = tmp_path / "hf"
    export_hf(inputs[:2], out, "--no-audit")
    body = (out / "README.md").read_text(encoding="utf-8")
    assert "Not run for this release (`--no-audit`)" in body and "Wilson" not in body


def test_croissant_validates_and_reads(release, tasks):
    import mlcroissant as mlc

    meta = json.loads((release / "croissant.json").read_text(encoding="utf-8"))
    objects = [d for d in meta["distribution"] if d["@type"] == "cr:FileObject"]
    assert sorted(o["contentUrl"] for o in objects) == sorted(
        f["path"] for c in card_header(release)["configs"] for f in c["data_files"])
    for o in objects:
        assert o["sha256"] == hashlib.sha256((release / o["contentUrl"]).read_bytes()).hexdigest()
    ds = mlc.Dataset(jsonld=str(release / "croissant.json"))
    issues = ds.metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
    assert sorted(r.name for r in ds.metadata.record_sets) == ["causal", "deduction", "induction"]
    records = list(ds.records("induction"))
    members = [t for t in tasks if t.domain == "induction"]
    assert len(records) == len(members) + sum(1 for t in members if t.documents)
    by_id = {t.task_id: t for t in members}
    for rec in records:
        task = by_id[rec["induction/task_id"].decode()]
        assert [p.decode() for p in rec["induction/answer_pool"]] == task.answer_pool
        documents = rec["induction/documents"] or []
        if rec["induction/presentation"] == b"obf":
            assert [d["induction/documents/genre"].decode() for d in documents] == \
                [d.genre for d in task.documents]


def test_same_inputs_same_bytes(release, inputs, tmp_path):
    again = tmp_path / "hf"
    export_hf(inputs, again)
    files = sorted(p.relative_to(release) for p in release.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for name in files:
        assert (release / name).read_bytes() == (again / name).read_bytes(), name
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert main(["export", *map(str, inputs), "--format", "scir", "-o", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_clean_and_rendered_copies_merge(inputs, tmp_path):
    """d.jsonl and d.obf.jsonl hold the same tasks: each appears once per split, the obf rows
    from the rendered copy; a different task under a known id is refused."""
    d_clean, d_obf = inputs[0], inputs[1]
    out = tmp_path / "hf"
    export_hf([d_clean, d_obf], out, "--no-audit")
    rows = (out / "data/deduction/easy_nl.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == len(read_tasks(d_clean))
    assert len((out / "data/deduction/easy_obf.jsonl").read_text().splitlines()) == len(rows)
    changed = read_tasks(d_clean)
    changed[0].answer_pool = changed[0].answer_pool + ["X"]
    bad = tmp_path / "bad.jsonl"
    write_tasks(bad, changed)
    assert main(["export", str(d_obf), str(bad), "--format", "hf", "-o",
                 str(tmp_path / "hf2")]) == 2
    assert not (tmp_path / "hf2").exists()


def test_hostile_inputs_stay_contained(inputs, tmp_path, capsys):
    """An id that tries to escape is refused when read; a symbolic link in an existing output
    folder that leads out is refused before anything moves; the earlier folder is kept."""
    record = read_tasks(inputs[0])[0].to_dict()
    record["task_id"] = "../../escape"
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "hf"
    for fmt in ("hf", "scir"):
        assert main(["export", str(hostile), "--format", fmt, "-o", str(out)]) == 2
        assert "task_id" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path.parent / "escape").exists()
    outside = tmp_path / "outside"
    outside.mkdir()
    out.mkdir()
    (out / "keep.txt").write_text("earlier\n")
    os.symlink(outside, out / "data")
    assert main(["export", str(inputs[0]), "--format", "hf", "--no-audit", "-o",
                 str(out)]) == 2
    assert list(outside.iterdir()) == [] and (out / "keep.txt").read_text() == "earlier\n"
    assert not (out / "README.md").exists()


SCRIPT = "<script>alert(1)</script>"
BREAKOUT = "`</code><img src=x onerror=alert(2)>`"


class _Elements(__import__("html.parser").parser.HTMLParser):
    """The element names and the text of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_task_fields_stay_text_in_the_card(inputs, tmp_path):
    """Raw HTML from the input files (a tier, provenance, the renderer's model, the file's
    name) and from ``--name``, with backticks that would end a code span: the card's Markdown,
    rendered as CommonMark with GFM tables, shows each as text and makes no element of its
    own."""
    from markdown_it import MarkdownIt

    records = [json.loads(line) for line in inputs[1].read_text().splitlines()]   # d.obf
    for r in records:
        r["tier"] = SCRIPT
        r["provenance"]["generator"] = BREAKOUT
        r["provenance"]["render"]["model"] = "<b onmouseover=alert(3)>m</b>"
    name = "<em onclick=alert(4)>x`|.jsonl"
    hostile = tmp_path / name
    hostile.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "hf"
    export_hf([hostile], out, "--no-audit", "--name", "<u>SciR</u> & co")
    body = (out / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert SCRIPT not in body        # escaped; the img and b tags are inside code spans
    page = _Elements()
    page.feed(MarkdownIt("commonmark").enable("table").render(body))
    assert page.tags <= {"h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td",
                         "code", "pre", "br", "strong", "em", "ul", "li", "a"}, page.tags
    text = "".join(page.text)
    for shown in (SCRIPT, BREAKOUT, "<b onmouseover=alert(3)>m</b>", name, "<u>SciR</u> & co"):
        assert shown in text, shown


# ---------------------------------------------------------------- the scir array

def candidates(task: Task, others: list[Task]) -> list[str]:
    """Answers to score: the gold one, every pool member, other labels and letters, other
    tasks' answers, and (causal) stated edge sets: an option's own, one with an extra edge
    (the subset rule), and two options' edges together."""
    out = [task.answer, *task.answer_pool, "True", "False", "Unknown", "", "nonsense"]
    out += [o.answer for o in others if o.domain == task.domain][:6]
    out += [chr(ord("A") + i) for i in range(len(task.options))]
    if task.options:
        out += list(task.options)
        out += [f"{o}; XYZ -> Zzz" for o in task.options]
        out += [f"{task.options[0]}; {task.options[1]}"]
    return out


def test_scir_records_score_like_their_tasks(inputs, tasks, tmp_path):
    out = tmp_path / "release.json"
    assert main(["export", *map(str, inputs), "--format", "scir", "-o", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(rows, list) and [r["task_id"] for r in rows] == [t.task_id for t in tasks]
    outcomes: dict[str, set[bool]] = {}
    for row, task in zip(rows, tasks):
        assert list(row) == list(SCIR_FIELDS + EXTRA_FIELDS)
        assert {k: row[k] for k in SCIR_FIELDS} == {k: getattr(task, k) for k in SCIR_FIELDS}
        assert row["options"] == task.options and row["answer_pool"] == task.answer_pool
        assert row["question"] == task.question and row["chance"] == task.chance
        track = get_track(task.domain)
        alone = record_task(row)
        assert alone.formal == {} and alone.blocks == []  # nothing but the record
        for answer in candidates(task, tasks):
            expected = track.scorer().score(task, answer)
            assert track.scorer().score(alone, answer) == expected, (task.task_id, answer)
            outcomes.setdefault(task.domain, set()).add(expected)
    # every track saw accepted and refused answers (the comparison is not vacuous)
    assert outcomes == {t: {True, False} for t in ("deduction", "induction", "causal")}
    # a causal answer stated as edges, strictly containing exactly one option: accepted
    causal = next(t for t in tasks if t.domain == "causal")
    gold = causal.options[ord(causal.answer) - ord("A")]
    assert get_track("causal").scorer().score(record_task(rows[tasks.index(causal)]),
                                               f"{gold}; XYZ -> Zzz")


def test_hf_rows_score_like_their_tasks(release, tasks):
    """A row of the hf folder is just as self-contained as a scir record."""
    by_id = {t.task_id: t for t in tasks}
    for path in sorted((release / "data").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            task = by_id[row["task_id"]]
            track = get_track(task.domain)
            for answer in candidates(task, tasks)[:12]:
                scorer = track.scorer()
                assert scorer.score(record_task(row), answer) == scorer.score(task, answer)
