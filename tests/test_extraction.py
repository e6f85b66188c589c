"""Extraction precision and recall (issue #28): a scripted model formalizes real deduction
tasks with known missing, extra and rewritten premises; ``scir solve`` (ns and symbcot) stores
each result's extraction against the gold, and ``scir report`` shows the means in Table 2."""

from __future__ import annotations

import re

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.runs.store import RunStore
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from solvers.prover9 import proves

TRACK = get_track("deduction")
NO = re.compile(r"all x \((\w+)\(x\) -> -(\w+)\(x\)\)")
ALL = re.compile(r"all x \((\w+)\(x\) -> (\w+)\(x\)\)")


def edited(task) -> tuple[str, dict]:
    """The gold formalization with one premise dropped, one ``no`` premise written the other
    way round (equivalent), and one ``all`` premise's converse added (not entailed); with
    what the extraction check must find."""
    gold = TRACK.formal(task)
    premises = list(gold.premises)
    no = next(p for p in premises if NO.fullmatch(p))
    a, b = NO.fullmatch(no).groups()
    swapped = f"all x ({b}(x) -> -{a}(x))"
    source = next(p for p in premises if ALL.fullmatch(p))
    s, t = ALL.fullmatch(source).groups()
    junk = f"all x ({t}(x) -> {s}(x))"
    dropped = next(p for p in premises if p not in (no, source))
    mine = [swapped if p == no else p for p in premises if p != dropped] + [junk]
    # the construction is what this test says it is (Prover9, independently of the check)
    assert not proves(premises, junk) and not proves(mine, dropped)
    assert proves([no], swapped) and proves([swapped], no)
    text = "\n".join([f"premise: {p}." for p in mine] + [f"goal: {gold.goal}."])
    n = len(premises)
    want = {"items": n, "correct": n - 1, "gold_items": n, "recalled": n - 1,
            "missing": [dropped], "extra": [junk], "goal": "equivalent",
            "precision": (n - 1) / n, "recall": (n - 1) / n}
    return text, want


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    root = tmp_path_factory.mktemp("extraction")
    tasks = list(TRACK.generate(3, 11, "easy"))
    path = root / "d.jsonl"
    write_tasks(path, tasks)
    plan = {t.task_id: edited(t) for t in tasks}

    def script(body, index):
        prompt = "\n".join(m["content"] for m in body["messages"])
        for task in tasks:
            text, _ = plan[task.task_id]
            if text in prompt:                  # symbcot's second call: answer from it
                return Reply(body=chat_body("Answer: True"))
            if task.problem_nl[:200] in prompt:
                return Reply(body=chat_body(text))
        return Reply(body=chat_body("Answer: True"))

    runs = {}
    with FakeOpenAIServer(script) as srv:
        for arch in ("ns", "symbcot"):
            runs[arch] = root / f"run-{arch}"
            assert main(["solve", str(path), "--arch", arch, "--model",
                         f"vllm:fake@{srv.url}", "--run", str(runs[arch]),
                         "--max-tokens", "4000"]) == 0
    return path, plan, runs


@pytest.mark.parametrize("arch", ["ns", "symbcot"])
def test_stored_extraction_is_what_the_scripted_model_did(scripted, arch):
    path, plan, runs = scripted
    with RunStore(runs[arch]) as store:
        results = list(store.results())
    assert len(results) == len(plan)
    for r in results:
        _, want = plan[r["task_id"]]
        got = r["extraction"]
        assert got is not None, r["task_id"]
        for key, value in want.items():
            assert got[key] == pytest.approx(value) if isinstance(value, float) \
                else got[key] == value, (r["task_id"], key, got[key], value)
        assert got["undecided"] == 0


def test_report_table2_shows_precision_and_recall(scripted, tmp_path, capsys):
    path, plan, runs = scripted
    assert main(["report", str(runs["ns"]), "-o", str(tmp_path / "rep"), "--no-figures"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    table = md.split("## Table 2")[1].split("\n## ")[0]
    assert "| precision | recall |" in table
    precision = sum(w["precision"] for _, w in plan.values()) / len(plan)
    recall = sum(w["recall"] for _, w in plan.values()) / len(plan)
    row = next(line for line in table.splitlines() if " ns " in line)
    assert f"{precision:.2f} -> -" in row and f"{recall:.2f} -> -" in row, row


def test_a_gold_formalization_scores_one_and_a_wrong_one_zero():
    """The gold formalization itself: precision and recall 1, nothing missing or extra; one
    converse premise and the negated goal: precision and recall 0, the goal negated."""
    from solvers.prover9 import negated_goal

    task = next(iter(TRACK.generate(1, 12, "easy")))
    gold = TRACK.formalizer().parse(task, TRACK.formalizer().format(task)).formal
    got = TRACK.formalizer().extraction(task, gold)
    assert (got.precision, got.recall, got.missing, got.extra, got.goal) == \
        (1.0, 1.0, [], [], "equivalent")
    s, t = ALL.fullmatch(next(p for p in gold.premises if ALL.fullmatch(p))).groups()
    text = f"premise: all x ({t}(x) -> {s}(x)).\ngoal: {negated_goal(gold.goal)}."
    wrong = TRACK.formalizer().parse(task, text).formal
    got = TRACK.formalizer().extraction(task, wrong)
    assert (got.precision, got.recall, got.goal) == (0.0, 0.0, "negated")
    assert len(got.missing) == got.gold_items and len(got.extra) == 1


def test_induction_facts_and_examples_match_as_sets():
    """Induction: the gold formalization scores 1 / 1; without two facts and with one fact
    whose protein is changed, precision and recall say so, naming what is missing and extra."""
    track = get_track("induction")
    task = next(iter(track.generate(1, 3, "easy")))
    text = track.formalizer().format(task)
    gold = track.formalizer().parse(task, text).formal
    assert (track.formalizer().extraction(task, gold).precision, track.formalizer().extraction(task, gold).recall) == \
        (1.0, 1.0)
    lines = text.splitlines()
    facts = [i for i, line in enumerate(lines)
             if "(" in line and not line.startswith(("pos", "neg"))]
    first, second, third = (lines[i] for i in facts[:3])
    relation, rest = third.split("(", 1)
    drug = rest.split(",")[0]
    proteins = sorted({f[2] for f in gold.facts})
    new = next(p for p in proteins if (relation, drug, p) not in set(gold.facts))
    changed = f"{relation}({drug}, {new})."
    edited = [line for line in lines if line not in (first, second, third)] + [changed]
    got = track.formalizer().extraction(task, track.formalizer().parse(task, "\n".join(edited)).formal)
    n = len(gold.facts) + len(gold.pos) + len(gold.neg)
    assert (got.items, got.correct, got.gold_items, got.recalled) == (n - 2, n - 3, n, n - 3)
    assert sorted(got.missing) == sorted(x.rstrip(".") for x in (first, second, third))
    assert got.extra == [changed.rstrip(".")]


def test_causal_rows_match_within_rounding_in_any_column_order():
    """Causal: rows are matched per environment after putting the columns in the gold's order
    by name, values within the rendering's rounding; a value off by more is extra (and its
    gold row missing); a dropped known edge is missing."""
    track = get_track("causal")
    task = next(iter(track.generate(1, 3, "easy")))
    gold = track.formal(task)
    lines = track.formalizer().format(task).splitlines()
    header = lines[0]
    columns = header.split(":", 1)[1].replace(" ", "").split(",")
    order = list(reversed(range(len(columns))))          # every row's columns reversed
    out = ["columns: " + ", ".join(columns[i] for i in order)]
    edge = next(line for line in lines if "->" in line)
    first_row = None
    for line in lines[1:]:
        parts = line.split()
        if line == edge:
            continue
        if parts and all(p.replace(".", "").replace("-", "").isdigit() for p in parts):
            values = [parts[i] for i in order]
            if first_row is None:                          # shift one value by 0.5
                first_row = line
                values[0] = f"{float(values[0]) + 0.5:.2f}"
            out.append(" ".join(values))
        else:
            out.append(line)
    got = track.formalizer().extraction(task, track.formalizer().parse(task, "\n".join(out)).formal)
    n = sum(len(e.rows) for e in gold.environments) + len(gold.known_edges)
    assert (got.items, got.correct, got.gold_items, got.recalled) == (n - 1, n - 2, n, n - 2)
    assert edge.replace(" ", "") in [m.replace(" ", "") for m in got.missing]
    assert len(got.extra) == 1 and got.extra[0].startswith("row (observational)")


def test_explorer_and_samples_show_what_was_missed_and_invented(scripted, tmp_path):
    """The explorer's task page lists the missed and the invented premises of each
    formalization; ``--samples`` carries the stored extraction."""
    import html
    import json

    path, plan, runs = scripted
    site = tmp_path / "site"
    assert main(["explore", str(runs["ns"]), "--tasks", str(path), "-o", str(site)]) == 0
    for task_id, (_, want) in plan.items():
        page = html.unescape((site / "tasks" / f"{task_id}.html").read_text())
        missed = page.split('<ul class="missed">')[1].split("</ul>")[0]
        invented = page.split('<ul class="invented">')[1].split("</ul>")[0]
        assert want["missing"][0] in missed and want["extra"][0] in invented
        assert f"precision {want['precision']:.2f}" in page
    assert main(["report", str(runs["ns"]), "-o", str(tmp_path / "rep"), "--no-figures",
                 "--samples"]) == 0
    rows = [json.loads(line) for line in
            (tmp_path / "rep" / "samples.jsonl").read_text().splitlines()]
    assert {r["task_id"]: r["extraction"]["missing"] for r in rows} == \
        {task_id: want["missing"] for task_id, (_, want) in plan.items()}


def test_failures_are_attributed_from_what_is_stored(scripted, tmp_path):
    """symbcot answered "True" to every task over formalizations with a missing and an extra
    premise: each of its failures is an extraction error, in report.json and report.md."""
    import json

    path, plan, runs = scripted
    tasks = {t.task_id: t for t in read_tasks(path)}
    assert main(["report", str(runs["symbcot"]), "-o", str(tmp_path / "rep"),
                 "--no-figures"]) == 0
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    wrong = sorted(i for i, t in tasks.items() if t.answer != "True")
    assert wrong, "the fixture's tasks should not all be True"
    (cell,) = data["failure_analysis"]
    assert cell["failed"] == cell["extraction"] == len(wrong)
    assert sorted(cell["examples"]["extraction"]) == wrong[:3]
    assert "## Failure analysis" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.parametrize("result, twin, kind", [
    ({"status": "ok"}, None, None),
    ({"status": "backend_error", "arch": "cot"}, None, "backend"),
    ({"status": "parse_error", "arch": "ns"}, None, "format"),
    ({"status": "no_answer", "arch": "cot"}, None, "format"),
    ({"status": "wrong", "arch": "ns", "extraction": {"items": 3, "correct": 2,
                                                      "gold_items": 3, "recalled": 3}},
     None, "extraction"),
    ({"status": "wrong", "arch": "ns", "extraction": {"items": 3, "correct": 3,
                                                      "gold_items": 3, "recalled": 3,
                                                      "goal": "negated"}}, None, "extraction"),
    ({"status": "solver_error", "arch": "ns", "extraction": {"items": 3, "correct": 3,
                                                             "gold_items": 3, "recalled": 3,
                                                             "goal": "equivalent"}},
     None, "solver"),
    ({"status": "wrong", "arch": "symbcot", "extraction": {"items": 2, "correct": 2,
                                                           "gold_items": 2, "recalled": 2}},
     None, "reasoning"),
    ({"status": "wrong", "arch": "ns"}, None, "unknown"),
    ({"status": "wrong", "arch": "symbcot", "executable": False}, None, "format"),
    ({"status": "wrong", "arch": "cot", "presentation": "nl"}, None, "reasoning"),
    ({"status": "wrong", "arch": "cot", "presentation": "obf"}, {"status": "ok"},
     "obfuscation"),
    ({"status": "wrong", "arch": "cot", "presentation": "obf"}, {"status": "wrong"},
     "reasoning"),
    ({"status": "wrong", "arch": "cot", "presentation": "obf"}, None, "unknown"),
])
def test_attribution_rules(result, twin, kind):
    from scir.reports.attribution import attribute

    assert attribute(result, twin) == kind


def test_cot_pairs_find_their_nl_twin():
    """failures() pairs a cot Obf result with the NL result of the same task, model,
    constraint and seed -- not with another seed's."""
    from scir.reports.attribution import failures

    def r(pres, status, seed=0):
        return {"task_id": "t1", "arch": "cot", "model": "m", "constrained": True,
                "seed": seed, "presentation": pres, "status": status}
    got = failures([("obf", r("obf", "wrong")), ("nl", r("nl", "ok")),
                    ("obf1", r("obf", "wrong", 1)), ("nl1", r("nl", "wrong", 1))])
    assert dict(got["obf"].kinds) == {"obfuscation": 1}
    assert dict(got["obf1"].kinds) == {"reasoning": 1}
    assert dict(got["nl1"].kinds) == {"reasoning": 1} and "nl" not in got


def test_explorer_shows_the_failure_analysis_with_links(scripted, tmp_path):
    """The explorer's index has the failure table, its examples link to task pages, and each
    failed result's task page names its kind."""
    import html

    path, plan, runs = scripted
    site = tmp_path / "site"
    assert main(["explore", str(runs["symbcot"]), "--tasks", str(path), "-o", str(site)]) == 0
    index = (site / "index.html").read_text()
    assert 'id="failures"' in index
    links = re.findall(r'class="failure-example" href="tasks/([^"]+)"', index)
    assert links and all((site / "tasks" / html.unescape(link)).exists() for link in links)
    tasks = {t.task_id: t for t in read_tasks(path)}
    for task_id, task in tasks.items():
        page = (site / "tasks" / f"{task_id}.html").read_text()
        assert ('class="failure failure-extraction"' in page) == (task.answer != "True")
