"""``scir explore``: the static site over real runs (deduction tasks generated, rendered and
solved with ``scir solve``: the oracle, and NS through a scripted OpenAI-compatible server that
writes the gold formalization for one task, the goal negated for another -- a wrong answer --
and a hostile text for a third -- a parse error), opened in headless Chromium (Debian's
``chromium`` driven by Playwright, never a downloaded browser): the filters, a failed task's
page, escaping, and no request leaving ``file://``. Plus the task sources, conflicts, staging
and the diff, without a browser."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.errors import ConfigError
from scir.explore import diff as D
from scir.explore.gather import gather
from scir.reports.sources import find_tasks
from scir.runs.store import RunStore
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track

HOSTILE = "</script><img src=x onerror=alert(1)>"
HOSTILE_TEXT = "</pre><script>alert(2)</script><b onmouseover=alert(3)>bold</b>"
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _negated(text: str) -> str:
    """The gold formalization with its goal negated (True <-> False)."""
    lines = text.splitlines()
    goal = lines[-1][len("goal: "):-1]
    return "\n".join(lines[:-1] + [f"goal: -({goal}).", ""])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three rendered deduction tasks; an oracle run and an NS run (NL and Obf) whose model
    formalizes one task right (``ok``), negates the goal of one (``wrong``) and answers one with
    a hostile text (``parse_error``)."""
    root = tmp_path_factory.mktemp("explore")
    clean, rendered = root / "d.jsonl", root / "d.obf.jsonl"
    assert main(["generate", "deduction", "--difficulty", "easy", "-n", "3", "--seed", "4",
                 "-o", str(clean)]) == 0
    assert main(["render", str(clean), "--renderer", "template", "--seed", "1",
                 "-o", str(rendered)]) == 0
    tasks = read_tasks(rendered)
    track = get_track("deduction")
    wrong = next(t for t in tasks if t.answer != "Unknown")
    hostile, good = [t for t in tasks if t is not wrong][:2]
    replies = {good.task_id: track.formalizer().format(good),
               wrong.task_id: _negated(track.formalizer().format(wrong)),
               hostile.task_id: HOSTILE}

    def script(body, index):
        prompt = body["messages"][0]["content"]
        task = next(t for t in tasks if t.problem_nl in prompt or t.problem_obfuscated in prompt)
        return Reply(body=chat_body(replies[task.task_id]))

    oracle, ns = root / "run-oracle", root / "run-ns"
    with FakeOpenAIServer(script) as srv:
        for presentation in ("nl", "obf"):
            assert main(["solve", str(rendered), "--arch", "oracle", "--run", str(oracle),
                         "--presentation", presentation]) == 0
            assert main(["solve", str(rendered), "--arch", "ns", "--model",
                         f"vllm:fake@{srv.url}", "--max-retries", "0", "--run", str(ns),
                         "--presentation", presentation]) == 0
    return {"root": root, "tasks": tasks, "rendered": rendered, "oracle": oracle, "ns": ns,
            "good": good, "wrong": wrong, "hostile": hostile}


@pytest.fixture(scope="module")
def site(runs):
    """``scir explore`` over both runs (task records found through the runs) and
    ``scir report`` over the same runs."""
    out = runs["root"] / "site"
    assert main(["explore", str(runs["oracle"]), str(runs["ns"]), "-o", str(out)]) == 0
    report = runs["root"] / "report"
    assert main(["report", str(runs["oracle"]), str(runs["ns"]), "-o", str(report),
                 "--no-figures"]) == 0
    return out, json.loads((report / "report.json").read_text())


# ---- the browser -------------------------------------------------------------------------
def _browser_or_skip():
    """Playwright and the system Chromium; under ``make test`` (MAKELEVEL set) a missing one
    is a failure, since scripts/setup.sh installs both."""
    in_make = "MAKELEVEL" in os.environ
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if in_make:
            pytest.fail("playwright is not installed (the test extra has it)")
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM.exists():
        if in_make:
            pytest.fail(f"{CHROMIUM} is missing (scripts/setup.sh installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (Debian's package; never "
                    "`playwright install`)")
    return sync_playwright


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    sync_playwright = _browser_or_skip()
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        yield context
        context.close()


class Seen:
    """What a page did: every request's URL, dialogs (an alert would be one), script errors."""

    def __init__(self, page) -> None:
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: self.errors.append(str(e)))


def _open(browser, url: str):
    """A new page at ``url`` and what it does."""
    page = browser.new_page()
    seen = Seen(page)
    page.goto(url)
    return page, seen


@pytest.mark.slow      # builds the runs (generate, render, four solves) and starts Chromium
def test_browser_filter_to_a_failed_task(site, runs, browser):
    out, report = site
    page, seen = _open(browser, (out / "index.html").resolve().as_uri())
    rows = page.locator("#results tbody tr")
    assert rows.count() == 12                      # 3 tasks x (oracle, ns) x (nl, obf)
    # the cells table shows the numbers scir report computes, interval included
    cells = page.locator("#cells tbody tr")
    assert cells.count() == len(report["cells"]) == 4
    for c in report["cells"]:
        row = cells.filter(has_text=c["model"]).filter(
            has=page.locator(f"td:text-is('{c['arch']}')")).filter(
            has=page.locator(f"td:text-is('{c['presentation']}')"))
        assert row.count() == 1
        assert (f"{c['accuracy']:.2f} [{c['accuracy_low']:.2f}, {c['accuracy_high']:.2f}]"
                in row.inner_text())
    # filter: ns, failed outcomes
    page.select_option("#filter-arch", "ns")
    page.select_option("#filter-status", "!ok")
    visible = page.locator("#results tbody tr:visible")
    assert visible.count() == 4                    # wrong + parse_error, NL and Obf
    assert {s for s in visible.locator("td:nth-child(7)").all_inner_texts()} == {
        "wrong", "parse_error"}
    assert page.locator("#shown-count").inner_text() == "4"
    assert page.locator("#cells tbody tr:visible").count() == 2     # ns NL and Obf
    # search by task id narrows to the wrong task
    page.fill("#filter-task", runs["wrong"].task_id[-3:].upper())
    visible = page.locator("#results tbody tr:visible")
    assert visible.count() == 2
    assert "#" in page.url and "status=%21ok" in page.url
    # click through to the failed task
    visible.filter(has_text="obf").locator("a.task-link").click()
    page.wait_for_load_state()
    task = runs["wrong"]
    assert page.locator("#task-id").inner_text() == task.task_id
    assert page.locator("#nl pre").inner_text().strip() == task.problem_nl.strip()
    obf = page.locator("#obf pre").all_inner_texts()
    assert [t.strip() for t in obf] == [d.text.strip() for d in task.documents]
    gold = get_track("deduction").formalizer().format(task)
    assert page.locator("#gold-formal").inner_text().strip() == gold.strip()
    anchor = page.url.rsplit("#", 1)[1]
    result = page.locator(f"section#{anchor}")
    assert "ns" in result.locator("h2").inner_text()
    assert "obf" in result.locator("h2").inner_text()
    assert result.locator(".status").first.inner_text() == "wrong"
    assert result.locator(".verdict").inner_text() == "incorrect"
    assert result.locator(".solver-status").inner_text() == "answered"
    assert result.locator(".answer").inner_text() == {"True": "False",
                                                      "False": "True"}[task.answer]
    # the diff: the gold goal removed, the negated goal added, every premise the same
    goal = gold.strip().splitlines()[-1]
    removed = result.locator("tr.diff-gold").all_inner_texts()
    added = result.locator("tr.diff-model").all_inner_texts()
    assert [t.split("\t")[-1].strip() for t in removed] == [goal]
    assert [t.split("\t")[-1].strip() for t in added] == [
        _negated(gold).strip().splitlines()[-1]]
    assert result.locator("tr.diff-same").count() == len(gold.strip().splitlines()) - 1
    assert result.locator(".solver-log").inner_text() == "(empty)"    # Prover9 answered
    # back: the filter is restored from the address
    page.go_back()
    page.wait_for_load_state()
    assert page.locator("#filter-status").input_value() == "!ok"
    assert page.locator("#results tbody tr:visible").count() == 2
    assert not seen.errors and not seen.dialogs
    assert seen.requests and all(u.startswith("file://") for u in seen.requests)
    page.close()


def test_browser_tables_fit_their_page(site, browser):
    """On a narrow window the page does not scroll sideways: a wide table scrolls inside its
    own box. The Versions table is there."""
    out, _ = site
    for name in ("index.html", *(f"tasks/{p.name}" for p in sorted((out / "tasks").iterdir())[:1])):
        page = browser.new_page()
        page.set_viewport_size({"width": 560, "height": 800})
        seen = Seen(page)
        page.goto((out / name).resolve().as_uri())
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= page.evaluate("window.innerWidth"), (name, page_width)
        boxes = page.locator(".table-wrap")
        assert boxes.count() >= 1
        if name == "index.html":
            wide = page.evaluate("(() => { const b = document.querySelector('#cells')"
                                 ".closest('.table-wrap'); return [b.scrollWidth, "
                                 "b.clientWidth]; })()")
            assert wide[0] > wide[1]          # the cells table is wider: it scrolls in its box
            assert page.locator("#versions tbody tr").count() > 5
            assert "toolkit" in page.locator("#versions").inner_text()
        assert not seen.errors
        page.close()


def test_browser_hostile_formalization_is_text(site, runs, browser):
    out, _ = site
    task = runs["hostile"]
    page, seen = _open(browser, (out / "tasks" / f"{task.task_id}.html").resolve().as_uri())
    sections = page.locator("section.result").filter(has_text="parse_error")
    assert sections.count() == 2
    first = sections.first
    assert HOSTILE in first.locator("tr.diff-model").inner_text()
    assert first.locator(".verdict").inner_text() == "incorrect"
    assert first.locator(".solver-status").inner_text() == "parse_error"
    assert "expected a line 'premise: FORMULA.'" in first.locator(".solver-log").inner_text()
    assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    assert not seen.dialogs and not seen.errors
    assert seen.requests and all(u.startswith("file://") for u in seen.requests)
    page.close()


# ---- the site without a browser ------------------------------------------------------------
def test_site_pages_and_escaping(site, runs):
    out, _ = site
    index = (out / "index.html").read_text()
    pages = sorted(p.name for p in (out / "tasks").iterdir())
    assert pages == sorted(f"{t.task_id}.html" for t in runs["tasks"])
    assert sorted(p.name for p in (out / "assets").iterdir()) == ["explore.css", "explore.js"]
    hostile = (out / "tasks" / f"{runs['hostile'].task_id}.html").read_text()
    assert HOSTILE not in hostile and "<img" not in hostile
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in hostile
    for html in (index, hostile):
        # nothing but the site's own files: no remote source, no inline script
        for remote in ('src="http', "src='http", 'href="http', "href='http", "url(http", "<script>"):
            assert remote not in html


def test_hostile_task_text_and_model_name(tmp_path, runs):
    """Task text, a model name and result fields with markup are escaped everywhere."""
    task = copy.deepcopy(runs["tasks"][0])
    task.problem_nl = HOSTILE_TEXT
    task.documents[0].text = HOSTILE_TEXT
    taskfile = tmp_path / "t.jsonl"
    write_tasks(taskfile, [task])
    run = tmp_path / "run"
    evil_model = 'm"><img src=x onerror=alert(4)>'
    with RunStore(run) as store:
        store.put_result({"task_id": task.task_id, "domain": "deduction", "tier": task.tier,
                          "difficulty": "easy", "arch": "ns", "presentation": "nl",
                          "model": evil_model, "answer": HOSTILE, "correct": False,
                          "status": "wrong", "chance": 1 / 3, "gold": task.answer,
                          "formalization": HOSTILE_TEXT, "solver_log": HOSTILE,
                          "response": HOSTILE, "error": HOSTILE_TEXT, "solver_status": "answered"})
    out = tmp_path / "site"
    assert main(["explore", str(run), "-o", str(out), "--tasks", str(taskfile)]) == 0
    for path in [out / "index.html", *(out / "tasks").iterdir()]:
        html = path.read_text()
        for bad in ("<img", "<script>", "<b ", "</pre><script"):
            assert bad not in html, (path.name, bad)
    page = (out / "tasks" / f"{task.task_id}.html").read_text()
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "m&#34;&gt;&lt;img" in (out / "index.html").read_text()


def test_conflicting_runs_are_shown(tmp_path, runs, capsys):
    """Two runs holding the same result with different content: the first run's is used and
    the conflict is listed on the index and on the task's page."""
    copy = tmp_path / "run-ns-copy"
    shutil.copytree(runs["ns"], copy)
    with RunStore(copy) as store:
        changed = next(r for r in store.results() if r["status"] == "ok")
        store.put_result({**changed, "answer": "Unknown", "correct": False, "status": "wrong"})
    out = tmp_path / "site"
    capsys.readouterr()
    assert main(["explore", str(runs["ns"]), str(copy), "-o", str(out)]) == 0
    assert "1 conflicting results" in capsys.readouterr().out
    index = (out / "index.html").read_text()
    assert 'id="conflicts"' in index and str(copy) in index
    page = (out / "tasks" / f"{changed['task_id']}.html").read_text()
    assert "conflict:" in page and "answer, correct, status" in page


def test_bad_task_id_in_a_store_leaves_the_site(tmp_path, runs, capsys):
    """A result whose task id cannot name a file is an error; the site already there stays
    as it was (the new one is staged)."""
    out = tmp_path / "site"
    assert main(["explore", str(runs["oracle"]), "-o", str(out)]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    bad = tmp_path / "bad"
    shutil.copytree(runs["oracle"], bad)
    with RunStore(bad) as store:
        r = store.results()[0]
        store.put_result({**r, "task_id": "../../escape"})
    capsys.readouterr()
    assert main(["explore", str(bad), "-o", str(out)]) == 2     # no task record for it
    assert "1 stored results have no task record" in capsys.readouterr().err
    assert main(["explore", str(bad), "-o", str(out), "--unverified"]) == 2
    assert "cannot name an export file" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "escape.html").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


def test_not_a_run_directory(tmp_path, capsys):
    assert main(["explore", str(tmp_path), "-o", str(tmp_path / "site")]) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_help_has_an_example(capsys):
    assert main(["explore", "--help"]) == 0
    text = capsys.readouterr().out
    assert "scir explore runs/demo -o site/" in text and "--tasks" in text


# ---- where the task records come from ------------------------------------------------------
def test_tasks_from_the_solve_invocation_then_explicit_files(tmp_path, runs, monkeypatch):
    found = find_tasks([str(runs["oracle"])])
    assert found.files == [str(runs["rendered"])] and not found.notes
    assert sorted(found.tasks) == sorted(t.task_id for t in runs["tasks"])
    # an explicit file comes first; a record of the same id with other content is noted
    other = copy.deepcopy(runs["tasks"][0])
    other.question = "a different question"
    mine = tmp_path / "mine.jsonl"
    write_tasks(mine, [other])
    found = find_tasks([str(runs["oracle"])], [str(mine)])
    assert found.files == [str(mine), str(runs["rendered"])]
    assert found.tasks[other.task_id].question == "a different question"
    assert len(found.notes) == 1 and other.task_id in found.notes[0]
    # the clean and the rendered file of the same tasks: the rendered records are used
    clean = runs["root"] / "d.jsonl"
    found = find_tasks([], [str(clean), str(runs["rendered"])])
    assert not found.notes and all(t.documents for t in found.tasks.values())
    assert found.tasks == {t.task_id: t for t in read_tasks(runs["rendered"])}
    # given with a relative name, recorded resolved: found from another folder too
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "rel-run"
    shutil.copy(runs["rendered"], tmp_path / "rel.jsonl")
    assert main(["solve", "rel.jsonl", "--arch", "oracle", "--run", str(run), "--limit", "1"]) == 0
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert [p.task is not None for p in gather([str(run)]).pages] == [True]
    # the task file gone: noted, shown without it
    (tmp_path / "rel.jsonl").unlink()
    with pytest.raises(ConfigError, match=r"1 stored results have no task record .* --tasks"):
        gather([str(run)])                  # its verdict cannot be recomputed: refused
    site = gather([str(run)], unverified=True)
    assert site.sources.notes and "rel.jsonl is not there" in site.sources.notes[0]
    assert [p.task for p in site.pages] == [None]
    assert [r.unverified for r in site.pages[0].results] == [True]
    assert main(["explore", str(run), "-o", "s", "--unverified"]) == 0
    assert "no task file given or recorded" in (sub / "s" / "tasks" / site.pages[0].page
                                                ).read_text()


def test_tasks_from_an_eval_run(tmp_path, runs):
    """``scir eval``: the experiment's task file (relative to the experiment) and the task list
    it generated into RUNDIR/tasks/ are both found."""
    shutil.copy(runs["rendered"], tmp_path / "given.jsonl")
    exp = tmp_path / "exp" / "e.toml"
    exp.parent.mkdir()
    exp.write_text('architectures = ["oracle"]\npresentations = ["nl"]\ntasks_per_cell = 1\n'
                   '[tasks.deduction.easy]\nfile = "../given.jsonl"\n'
                   '[tasks.deduction.hard]\nn = 1\nseed = 2\n')
    run = tmp_path / "run"
    assert main(["eval", str(exp), "--run", str(run)]) == 0
    site = gather([str(run)])
    assert not site.sources.notes
    assert {Path(f).name for f in site.sources.files} == {"deduction-hard.jsonl", "given.jsonl"}
    assert len(site.pages) == 2 and all(p.task is not None for p in site.pages)
    assert all(p.gold_text and p.gold_text.startswith("premise: ") for p in site.pages)


# ---- the diff ---------------------------------------------------------------------------------
def test_diff_lines():
    gold = "premise: a(c).\npremise: b(c).\ngoal: d(c).\n"
    same = D.formal_diff(gold, "```\npremise: a(c).  \n\npremise: b(c).\ngoal: d(c).\n```")
    assert same.identical and same.same == 3 and same.model_lines == 3
    d = D.formal_diff(gold, "premise: a(c).\ngoal: -d(c).\nextra.\n")
    assert [(x.kind, x.text) for x in d.lines] == [
        (" ", "premise: a(c)."), ("-", "premise: b(c)."), ("-", "goal: d(c)."),
        ("+", "goal: -d(c)."), ("+", "extra.")]
    assert (d.same, d.gold_lines, d.model_lines, d.identical) == (1, 3, 3, False)


def test_diff_is_bounded(monkeypatch):
    monkeypatch.setattr(D, "MAX_LINES", 5)
    d = D.formal_diff("a\nb\n", "\n".join(f"x{i}" for i in range(12)))
    assert d.cut == 7 and d.model_lines == 12
    assert sum(x.kind == D.MODEL_ONLY for x in d.lines) == 5


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["a.", "b.", "c(x).", "d ->", "e"]), max_size=12),
       st.lists(st.sampled_from(["a.", "b.", "c(x).", "f.", "e"]), max_size=12))
def test_diff_reconstructs_both_sides(gold, model):
    """The unchanged and gold-only lines give the gold text back, the unchanged and
    model-only lines the formalization; ``same`` counts a longest matching of the two."""
    d = D.formal_diff("\n".join(gold), "\n".join(model))
    assert [x.text for x in d.lines if x.kind != D.MODEL_ONLY] == gold
    assert [x.text for x in d.lines if x.kind != D.GOLD_ONLY] == model
    assert d.same == sum(x.kind == D.SAME for x in d.lines)
    assert d.identical == (gold == model)


def test_same_runs_same_site(tmp_path, runs):
    """The site is a function of the runs and task files: two builds give the same bytes."""
    sites = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main(["explore", str(runs["oracle"]), str(runs["ns"]), "-o", str(out)]) == 0
        sites.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert sites[0] == sites[1] and len(sites[0]) == 1 + len(runs["tasks"]) + 2


def test_the_committed_example_site_uses_the_current_assets():
    """docs/examples/explorer/ (a snapshot made by the commands in docs/explorer.md) carries
    the script and stylesheet the explorer writes now, and its pages load nothing else."""
    from importlib import resources

    from scir.explore.write import ASSETS

    example = Path(__file__).resolve().parent.parent / "docs" / "examples" / "explorer"
    for name in ASSETS:
        shipped = resources.files("scir.explore").joinpath("static", name).read_bytes()
        assert (example / "assets" / name).read_bytes() == shipped, (
            f"docs/examples/explorer/assets/{name} is stale: rebuild the example site "
            "(docs/explorer.md)")
    for page in [example / "index.html", *(example / "tasks").glob("*.html")]:
        html = page.read_text()
        assert "Content-Security-Policy" in html and "<script>" not in html
        assert 'src="http' not in html and 'href="http' not in html
