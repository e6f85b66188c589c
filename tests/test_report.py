"""``scir report`` end to end over run stores made by ``scir solve`` (parity track: oracle, and
cot / ns / symbcot through a scripted OpenAI-compatible server; NL and Obf; easy and hard; one
unconstrained NS cell), with every number recomputed from the stores (tests/report_check.py)."""

import json
import re
import shutil
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from parity_track import ParityTrack, install, uninstall
from report_check import check_report, wilson_formula
from scir.cli import main
from scir.reports.aggregate import cell_stats
from scir.experiments.cells import CellKey
from scir.reports.figures import HEIGHT, WIDTH
from scir.runs.store import RunStore
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks

OBF_PREFIX = "From the lab notebook: "


def _numbers(prompt):
    return [int(n) for n in re.findall(r"[0-9]+", re.search(r"are ([0-9, ]+)\.", prompt)[1])]


def script(body, index):
    """cot: wrong when the first number is even (NL) or is a multiple of 3 (Obf); formalize:
    the numbers, one dropped in Obf when the first is odd (a wrong sum parity), and a
    malformed answer for unconstrained calls (no grammar sent) when the first is 1 mod 4;
    symbcot's answer step: the parity of the formalized numbers."""
    prompt = body["messages"][0]["content"]
    if prompt.startswith("Formalization: "):
        nums = [int(n) for n in re.findall(r"[0-9]+", prompt.split("\n", 1)[0])]
        return Reply(body=chat_body(f"Answer: {'even' if sum(nums) % 2 == 0 else 'odd'}"))
    nums = _numbers(prompt)
    obf = OBF_PREFIX in prompt
    if "List the numbers" in prompt:
        if "structured_outputs" not in json.dumps(body) and "guided" not in json.dumps(body) \
                and nums[0] % 4 == 1:
            return Reply(body=chat_body("the numbers, I think"))
        if obf and nums[0] % 2 == 1:
            nums = nums[1:] or nums
        return Reply(body=chat_body("numbers: " + ", ".join(map(str, nums))))
    parity = "even" if sum(nums) % 2 == 0 else "odd"
    if (nums[0] % 3 == 0) if obf else (nums[0] % 2 == 0):
        parity = {"even": "odd", "odd": "even"}[parity]
    return Reply(body=chat_body(f"Answer: {parity}", prompt_tokens=20, completion_tokens=4,
                                cost=0.001))


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """Run stores for a small grid and the task file."""
    install()
    root = tmp_path_factory.mktemp("grid")
    tasks = list(ParityTrack().generate(10, seed=5, difficulty="easy")) + \
        list(ParityTrack().generate(10, seed=6, difficulty="hard"))
    for t in tasks:
        t.problem_obfuscated = OBF_PREFIX + t.problem_nl
    taskfile = root / "tasks.jsonl"
    write_tasks(taskfile, tasks)
    runs = {}
    with FakeOpenAIServer(script) as srv:
        model = f"vllm:fake@{srv.url}"
        for arch in ("oracle", "cot", "ns", "symbcot"):
            runs[arch] = root / f"run-{arch}"
            for presentation in ("nl", "obf"):
                argv = ["solve", str(taskfile), "--arch", arch, "--run", str(runs[arch]),
                        "--presentation", presentation]
                if arch != "oracle":
                    argv += ["--model", model, "--max-tokens", "40"]
                assert main(argv) == 0
        runs["free"] = root / "run-free"
        for presentation in ("nl", "obf"):
            assert main(["solve", str(taskfile), "--arch", "ns", "--model", model,
                         "--max-tokens", "40", "--run", str(runs["free"]), "--presentation",
                         presentation, "--unconstrained"]) == 0
    yield root, taskfile, runs
    uninstall()


@pytest.mark.slow
def test_report_numbers_match_the_stores(grid, tmp_path, capsys):
    root, _, runs = grid
    dirs = [str(runs[k]) for k in ("oracle", "cot", "ns", "symbcot", "free")]
    capsys.readouterr()
    assert main(["report", *dirs, "-o", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    data = check_report(tmp_path / "rep", dirs)
    cells = {(c["arch"], c["presentation"], c["difficulty"], c["constrained"]): c
             for c in data["cells"]}
    assert len(cells) == 2 * 2 * 5                   # 5 arch rows x NL/Obf x easy/hard
    assert cells[("oracle", "nl", "easy", True)]["accuracy"] == 1.0
    assert 0 < cells[("cot", "nl", "easy", True)]["accuracy"] < 1
    assert cells[("ns", "nl", "easy", True)]["executable"] == 1.0
    assert cells[("ns", "nl", "easy", False)]["status_parse_error"] > 0   # free decoding
    assert {d["contrast"] for d in data["differences"]} == {
        "nl_vs_obf", "ns_vs_cot", "constrained_vs_unconstrained"}
    assert any(d["difference"]["low"] < d["difference"]["high"] for d in data["differences"])
    assert all(p["reasoning"] and p["extraction"] and p["joint"] for p in data["probes"])
    # Table 1 printed: one row per model x arch, entries NL -> Obf with intervals
    nl = cells[("cot", "nl", "easy", True)]
    obf = cells[("cot", "obf", "easy", True)]
    small = {True: "~", False: ""}              # fewer than 30 tasks: marked as a small sample
    assert nl["small_n"] == (0 < nl["n"] < 30)
    entry = (f"{nl['accuracy']:.2f} [{nl['accuracy_low']:.2f}, {nl['accuracy_high']:.2f}]"
             f"{small[nl['small_n']]} -> "
             f"{obf['accuracy']:.2f} [{obf['accuracy_low']:.2f}, {obf['accuracy_high']:.2f}]"
             f"{small[obf['small_n']]}")
    row = next(line for line in printed.splitlines() if line.startswith("| vllm:fake cot |"))
    assert entry in row.split("|")[2]
    assert "| vllm:fake ns free |" in printed and "| none oracle |" in printed
    # the grammar's effect, printed: ns constrained vs free executable rates of the stores
    c, f = cells[("ns", "nl", "easy", True)], cells[("ns", "nl", "easy", False)]
    line = next(ln for ln in printed.splitlines() if ln.startswith("| parity | easy | nl | ns |"))
    assert f"| {c['executable']:.2f} vs {f['executable']:.2f} |" in line
    md = (tmp_path / "rep" / "report.md").read_text()
    for section in ("## Table 1", "## Constrained vs free", "## Chance-normalised", "## Probes", "## Table 2",
                    "## Failures", "## Cost and tokens", "## Completeness", "## Conflicts",
                    "## Paired differences"):
        assert section in md
    assert "conflict" not in printed.lower()


def test_conflicting_runs_are_named_and_the_first_is_used(grid, tmp_path, capsys):
    root, taskfile, runs = grid
    other = tmp_path / "run-cot-again"
    same_usage = dict(prompt_tokens=20, completion_tokens=4, cost=0.001)
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: even", **same_usage))
                          ) as srv:
        assert main(["solve", str(taskfile), "--arch", "cot", "--model",
                     f"vllm:fake@{srv.url}", "--max-tokens", "40", "--run", str(other)]) == 0
    dirs = [str(runs["cot"]), str(other)]
    capsys.readouterr()
    assert main(["report", *dirs, "-o", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    data = check_report(tmp_path / "rep", dirs)
    with RunStore(runs["cot"]) as a, RunStore(other) as b:
        differ = {r["task_id"] for r in a.results(presentation="nl")
                  if r["answer"] != b.get_result(r["task_id"], "cot", "nl", r["model"])["answer"]}
    assert differ and {c["key"]["task_id"] for c in data["conflicts"]} == differ
    assert all(c["used"] == dirs[0] and c["other"] == dirs[1] and "answer" in c["fields"]
               for c in data["conflicts"])
    assert f"{len(differ)} conflicting results" in printed
    flagged = [c for c in data["cells"] if c["conflicts"]]
    assert {(c["presentation"], c["difficulty"]) for c in flagged} <= {("nl", "easy"),
                                                                      ("nl", "hard")}
    assert re.search(r"\]~?!", printed)                   # the cell is marked
    # the first run's results are used: same numbers as the first run alone
    assert main(["report", dirs[0], "-o", str(tmp_path / "alone")]) == 0
    alone = json.loads((tmp_path / "alone" / "report.json").read_text())
    assert [c["correct"] for c in alone["cells"]] == [c["correct"] for c in data["cells"]]


def test_an_unfinished_plan_is_marked_incomplete(grid, tmp_path, capsys):
    root, _, runs = grid
    run = tmp_path / "run"
    shutil.copytree(runs["oracle"], run)
    with RunStore(run) as store:
        store.put_plan(CellKey("parity", "easy", "nl", "oracle", "none").plan_dict(), 25)
        store.put_plan(CellKey("parity", "hard", "nl", "oracle", "none").plan_dict(), 10)
        store.put_plan(CellKey("parity", "easy", "nl", "cot", "m").plan_dict(), 5)
    capsys.readouterr()
    assert main(["report", str(run), "-o", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    data = check_report(tmp_path / "rep", [str(run)])
    incomplete = {(c["difficulty"], c["arch"]): (c["done"], c["planned"])
                  for c in data["incomplete"]}
    assert incomplete == {("easy", "oracle"): (10, 25), ("easy", "cot"): (0, 5)}
    state = {(c["difficulty"], c["presentation"], c["arch"]): c["complete"]
             for c in data["cells"]}
    assert state[("hard", "nl", "oracle")] is True and state[("easy", "obf", "oracle")] is None
    assert "2 incomplete cells" in printed and "1.00 [0.72, 1.00]~* ->" in printed
    md = (tmp_path / "rep" / "report.md").read_text()
    assert md.count("INCOMPLETE") == 2


def test_samples_hold_one_line_per_result(grid, tmp_path):
    root, taskfile, runs = grid
    dirs = [str(runs["ns"]), str(runs["cot"])]
    assert main(["report", *dirs, "-o", str(tmp_path / "rep"), "--samples",
                 "--no-figures"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "rep" / "samples.jsonl").read_text()
             .splitlines()]
    gold = {t.task_id: t for t in read_tasks(taskfile)}
    assert len(lines) == 2 * 2 * 20
    for s in lines:
        assert s["gold"] == gold[s["task_id"]].answer and s["answer_pool"] == [s["gold"]]
        assert s["correct"] == (s["answer"] == s["gold"])
        assert s["status"] == ("ok" if s["correct"] else s["status"])
        assert s["run"] in dirs and s["cell"]["arch"] in ("ns", "cot")
        if s["cell"]["arch"] == "ns":
            assert s["formalization"].startswith("numbers: ") and s["solver_status"]
        else:
            assert s["response"].startswith("Answer: ") and s["formalization"] is None
    assert not (tmp_path / "rep" / "figures").exists()


@pytest.mark.slow
def test_figures_are_real_images(grid, tmp_path):
    root, _, runs = grid
    dirs = [str(runs[k]) for k in ("oracle", "cot", "ns", "free")]
    assert main(["report", *dirs, "-o", str(tmp_path / "rep")]) == 0
    figures = sorted(p.name for p in (tmp_path / "rep" / "figures").iterdir())
    assert figures == ["constrained.png", "heatmap-none.png", "heatmap-vllm_fake.png",
                       "nl_vs_obf.png", "probes.png"]
    for name in figures:
        with Image.open(tmp_path / "rep" / "figures" / name) as img:
            assert img.format == "PNG" and img.size[0] >= WIDTH and img.size[1] >= HEIGHT
            pixels = np.asarray(img.convert("RGB"), dtype=float)
        assert pixels.var() > 0
        assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10, name


def test_figures_read_without_overlapping_text(grid):
    """Every figure of a grid with five architectures, two difficulties, NL and Obf and two
    models (the oracle's ``none`` and the scripted one): no two texts overlap and none sticks
    out (:func:`figures.text_overlaps`); the facets wrap after three columns and one legend
    sits above them, outside the data."""
    import matplotlib.pyplot as plt

    from scir.reports import figures
    from scir.reports.report import build_report

    _, taskfile, runs = grid
    report = build_report([str(runs[k]) for k in ("oracle", "cot", "ns", "symbcot", "free")])
    fig = figures.nl_vs_obf_figure(report)
    assert len(fig.axes) == 5 and fig.legends and not any(ax.get_legend() for ax in fig.axes)
    assert len({round(ax.get_position().x0, 2) for ax in fig.axes}) == 3   # 3 columns
    assert figures.text_overlaps(fig) == []
    plt.close(fig)
    for _, fig in figures.heatmap_figures(report):
        assert figures.text_overlaps(fig) == []
        assert any(t.get_text().startswith("chance ") for t in fig.axes[0].texts)
        plt.close(fig)
    # a figure that does not read is told: two labels drawn on top of each other
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.5, 0.5, "another label")
    assert ("one label", "another label") in figures.text_overlaps(fig)
    plt.close(fig)


def test_compare_two_runs_side_by_side(grid, tmp_path, capsys):
    root, _, runs = grid
    dirs = [str(runs["ns"]), str(runs["free"])]
    assert main(["report", *dirs, "-o", str(tmp_path / "rep"), "--compare",
                 "--no-figures"]) == 0
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    rows = data["comparison"]["cells"]
    assert data["comparison"]["a"] == dirs[0] and len(rows) == 0   # constrained differs
    assert main(["report", str(runs["cot"]), str(runs["symbcot"]), "--compare",
                 "-o", str(tmp_path / "rep2"), "--no-figures"]) == 0
    data = json.loads((tmp_path / "rep2" / "report.json").read_text())
    assert data["comparison"]["cells"] == []                        # arch differs
    assert main(["report", str(runs["ns"]), "--compare", "-o", str(tmp_path / "x")]) == 2
    assert "--compare needs exactly two run directories" in capsys.readouterr().err


def test_compare_matches_cells_across_models(grid, tmp_path):
    root, taskfile, runs = grid
    other = tmp_path / "run-b"
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: odd"))) as srv:
        assert main(["solve", str(taskfile), "--arch", "cot", "--model",
                     f"sglang:other@{srv.url}", "--max-tokens", "40", "--run", str(other)]) == 0
    assert main(["report", str(runs["cot"]), str(other), "--compare", "-o",
                 str(tmp_path / "rep"), "--no-figures"]) == 0
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    rows = data["comparison"]["cells"]
    assert {(r["first"]["difficulty"], r["first"]["presentation"]) for r in rows} == {
        ("easy", "nl"), ("hard", "nl")}
    a = {c["task_id"]: c["correct"] for c in RunStore(runs["cot"]).results(presentation="nl")}
    b = {c["task_id"]: c["correct"] for c in RunStore(other).results()}
    for r in rows:
        ids = [t for t in a if t.split("-")[1] == ("c3" if r["first"]["difficulty"] == "easy"
                                                  else "c5")]
        want = np.mean([int(a[t]) - int(b[t]) for t in ids])
        assert r["tasks"] == len(ids) and r["difference"]["estimate"] == pytest.approx(want)
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Comparison: A vs B" in md


def test_ns_with_and_without_backup_in_every_output(grid, tmp_path, capsys):
    """Free-decoded NS fails to parse on a quarter of the tasks; with ``--backup cot`` those
    get the CoT answer: the report shows ns and ns+backup, both recomputed from the stores."""
    root, taskfile, runs = grid
    run = tmp_path / "run-backup"
    with FakeOpenAIServer(script) as srv:
        for presentation in ("nl", "obf"):
            assert main(["solve", str(taskfile), "--arch", "ns", "--model",
                         f"vllm:fake@{srv.url}", "--max-tokens", "40", "--run", str(run),
                         "--presentation", presentation, "--unconstrained", "--backup",
                         "cot"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"with cot backup: accuracy [0-9]+/20, backup answers [1-9]", out)
        assert main(["solve", str(taskfile), "--arch", "ns", "--model", f"vllm:fake@{srv.url}",
                     "--max-tokens", "40", "--run", str(run), "--unconstrained"]) == 2
        assert "started with backup='cot', not None" in capsys.readouterr().err
    dirs = [str(runs["cot"]), str(run)]
    assert main(["report", *dirs, "-o", str(tmp_path / "rep"), "--samples"]) == 0
    printed = capsys.readouterr().out
    data = check_report(tmp_path / "rep", dirs)
    with RunStore(run) as store:
        results = store.results()
    with RunStore(runs["cot"]) as store:
        cot = {(r["task_id"], r["presentation"]): r for r in store.results()}
    used = [r for r in results if r["backup_used"]]
    assert used and all(r["status"] == "parse_error" for r in used)
    assert all(r["backup_answer"] == cot[(r["task_id"], r["presentation"])]["answer"]
               for r in used)                      # the backup is the cot cell's answer
    views = {(c["presentation"], c["difficulty"]): c for c in data["cells"]
             if c["backup"] == "cot"}
    plain = {(c["presentation"], c["difficulty"]): c for c in data["cells"]
             if c["arch"] == "ns" and c["backup"] is None}
    assert len(views) == len(plain) == 4
    for key, view in views.items():
        mine = [r for r in used if (r["presentation"], r["difficulty"]) == key]
        assert view["backup_used"] == plain[key]["backup_used"] == len(mine)
        assert view["correct"] == plain[key]["correct"] + sum(r["backup_correct"] for r in mine)
        assert view["status_parse_error"] == 0 and view["n"] == plain[key]["n"]
    assert any(v["accuracy"] > plain[k]["accuracy"] for k, v in views.items())
    assert sum(d["contrast"] == "backup_vs_none" for d in data["differences"]) == 4
    assert [r["row"]["label"] for r in data["table1"]] == [
        "vllm:fake cot", "vllm:fake ns free", "vllm:fake ns+backup free"]
    assert "| vllm:fake ns+backup free |" in printed and "| vllm:fake ns free |" in printed
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Backup answers" in md and "| parity/easy nl ns+backup vllm:fake free |" in md
    header = (tmp_path / "rep" / "report.csv").read_text().splitlines()[0].split(",")
    assert "backup" in header and "backup_used" in header
    samples = [json.loads(x) for x in (tmp_path / "rep" / "samples.jsonl").read_text()
               .splitlines()]
    assert sum(bool(s["backup_used"]) for s in samples) == len(used)


def test_not_a_run_directory_is_one_error(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "not a run directory" in capsys.readouterr().err


_RESULT = st.fixed_dictionaries({
    "task_id": st.text("abc", min_size=1, max_size=4),
    "correct": st.booleans(),
    "status": st.sampled_from(["wrong", "parse_error", "timeout", "backend_error"]),
    "chance": st.sampled_from([0.5, 1 / 3, 0.1]),
    "chance_constrained": st.one_of(st.none(), st.sampled_from([0.5, 0.2])),
    "executable": st.one_of(st.none(), st.booleans()),
    "seconds": st.floats(0, 5)})


@settings(max_examples=60, deadline=None)
@given(st.lists(_RESULT, max_size=30))
def test_cell_stats_agree_with_the_formulas(results):
    for r in results:
        r["status"] = "ok" if r["correct"] else r["status"]
    s = cell_stats(CellKey("t", "easy", "nl", "ns", "m"), results, planned=len(results) + 1)
    n = len(results)
    assert s.n == n and sum(s.statuses.values()) == n
    assert s.correct == sum(r["correct"] for r in results)
    assert s.complete is False and s.done == n - s.statuses["backend_error"]
    if n == 0:
        assert s.normalised is None and s.latency_mean is None
        return
    p, low, high = wilson_formula(s.correct, n)
    assert s.accuracy.estimate == pytest.approx(p)
    assert s.accuracy.low == pytest.approx(low, abs=1e-9)
    assert s.accuracy.high == pytest.approx(high, abs=1e-9)
    c = np.mean([r["chance"] for r in results])
    assert s.normalised == pytest.approx(max(0.0, (p - c) / (1 - c)))
    assert 0 <= s.normalised_constrained <= 1
    recorded = [r["executable"] for r in results if r["executable"] is not None]
    assert s.executable == (pytest.approx(np.mean(recorded)) if recorded else None)
    assert s.latency_median == pytest.approx(float(np.median([r["seconds"] for r in results])))


def test_a_reproducible_report_repeats_byte_for_byte(tmp_path, capsys):
    """Two runs of one experiment with the same answers, the second slower: the default
    reports differ in their latency, the reproducible ones (--reproducible) are identical,
    and measurements.json keeps the latency and the versions they leave out."""
    install()
    try:
        tasks = list(ParityTrack().generate(6, seed=5, difficulty="easy"))
        taskfile = tmp_path / "tasks.jsonl"
        write_tasks(taskfile, tasks)
        run = tmp_path / "run"
        out = {}
        for attempt, delay in (("first", 0.0), ("second", 0.05)):
            def slow(body, index, delay=delay):
                time.sleep(delay)
                return script(body, index)

            shutil.rmtree(run, ignore_errors=True)
            with FakeOpenAIServer(slow) as srv:
                assert main(["solve", str(taskfile), "--arch", "cot", "--run", str(run),
                             "--model", f"vllm:fake@{srv.url}", "--max-tokens", "40"]) == 0
            for mode in ("default", "reproducible"):
                dest = tmp_path / f"{attempt}-{mode}"
                argv = ["report", str(run), "-o", str(dest), "--no-figures"]
                assert main(argv + (["--reproducible"] if mode == "reproducible" else [])) == 0
                out[attempt, mode] = {p.name: p.read_bytes() for p in dest.iterdir()}
        capsys.readouterr()
    finally:
        uninstall()
    first, second = out["first", "reproducible"], out["second", "reproducible"]
    assert sorted(first) == ["measurements.json", "report.csv", "report.json", "report.md"]
    for name in ("report.md", "report.json", "report.csv"):
        assert first[name] == second[name], name
    # the default reports carry the wall-clock latency, which differs between the runs
    default_1 = json.loads(out["first", "default"]["report.json"])
    default_2 = json.loads(out["second", "default"]["report.json"])
    assert default_2["cells"][0]["latency_mean"] > default_1["cells"][0]["latency_mean"]
    assert out["first", "default"]["report.json"] != out["second", "default"]["report.json"]
    # ... and the measurements file holds it, with the versions
    meas_1, meas_2 = (json.loads(out[a, "reproducible"]["measurements.json"])
                      for a in ("first", "second"))
    assert [c["latency_mean"] for c in meas_1["cells"]] == [
        c["latency_mean"] for c in default_1["cells"]]
    assert meas_2["cells"][0]["latency_mean"] >= 0.05
    assert meas_1["versions"] == default_1["versions"] and meas_1["versions"]["records"]
    # the reproducible report says where they are and keeps everything else
    data = json.loads(first["report.json"])
    assert data["reproducible"] is True and "reproducible" not in default_1
    assert all(c["latency_mean"] is None and c["latency_median"] is None for c in data["cells"])
    assert data["versions"]["in"] == "measurements.json"
    assert data["versions"]["differences"] == []
    strip = {"latency_mean", "latency_median"}
    assert [{k: v for k, v in c.items() if k not in strip} for c in data["cells"]] == [
        {k: v for k, v in c.items() if k not in strip} for c in default_1["cells"]]
    md, default_md = first["report.md"].decode(), out["first", "default"]["report.md"].decode()
    assert "latency mean" in default_md and "latency mean" not in md
    assert "in measurements.json" in md and "| component | version |" not in md
    toolkit = default_1["versions"]["components"]["toolkit"]
    assert toolkit and all(value not in md for value in toolkit)
