"""The control presentation (``ctl``, issue #29 part 3): every track rendered in ``nl``, ``ctl``
and ``obf`` and solved in each with ``oracle`` and ``ns`` (a scripted model that writes the
gold formalization); the reference extractor recovers every control document exactly; the
control is deterministic, about the Obf length, plain (no scientific genre or filler), and it
reaches the report (``NL -> Ctl -> Obf`` cells) and the HF export (``ctl`` splits)."""

from __future__ import annotations

import dataclasses
import json
import statistics
import threading

import pytest

from scir.cli import main
from scir.errors import ConfigError
from scir.llm.base import Backend, LLMResponse
from scir.pipelines import PipelineSettings
from scir.pipelines.registry import architectures
from scir.pipelines.runner import run_task
from scir.tasks import Task, write_tasks
from scir.tracks.reading import read_tasks
from scir.rendering.blocks import block_contents
from scir.rendering.codecs import codec_for
from scir.rendering.control import as_control, render_control
from scir.rendering.extractors import extract_blocks, recovery_problems
from scir.rendering.template import render_task
from scir.tracks import get_track

TRACKS = ("deduction", "induction", "causal", "equation")
PRESENTATIONS = ("nl", "ctl", "obf")
N_TASKS = 3
_CACHE: dict[str, list[Task]] = {}


def rendered(track: str) -> list[Task]:
    """``N_TASKS`` Easy and ``N_TASKS`` Hard tasks of ``track`` rendered in obf and ctl."""
    if track not in _CACHE:
        tasks = [t for d in ("easy", "hard") for t in get_track(track).generate(N_TASKS, 5, d)]
        _CACHE[track] = [render_control(render_task(t, 3), 3) for t in tasks]
    return _CACHE[track]


class GoldFormalizer(Backend):
    """A scripted model: every request is answered with the task's gold formalization
    (``Track.format_formal``); the prompts are kept to check which text the model saw."""

    provider, model = "scripted", "gold"

    def __init__(self, text: str) -> None:
        self.text = text
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request):
        with self._lock:
            self.prompts.append(request.prompt or "\n".join(m.content
                                                             for m in request.messages))
        return LLMResponse(self.text, 10, 5, 0.01, 0.001, "stop", self.provider, self.model)


@pytest.mark.parametrize("track", TRACKS)
def test_every_ctl_block_is_recovered_exactly_and_chunked_like_obf(track):
    control_names = {g.name for g in codec_for(track).genres().control}
    science_names = set(codec_for(track).genres().names)
    for task in rendered(track):
        assert recovery_problems(task) == []
        assert recovery_problems(as_control(task)) == []
        assert len(extract_blocks(as_control(task))) == len(block_contents(task))
        assert len(task.documents_control) == len(task.documents) == len(task.blocks)
        genres = [d.genre for d in task.documents_control]
        assert set(genres) <= control_names and not set(genres) & science_names
        assert len(set(genres)) == len(genres)
        assert task.problem_control == "\n\n".join(d.text for d in task.documents_control)
        record = task.provenance["render_ctl"]
        assert record["genres"] == genres and record["chars_ctl"] == len(task.problem_control)
        # the obf rendering is untouched by the control
        clean = dataclasses.replace(
            task, documents=[], problem_obfuscated="", documents_control=[], problem_control="",
            provenance={k: v for k, v in task.provenance.items()
                        if k not in ("render", "render_ctl")})
        assert render_task(clean, 3).to_json() == dataclasses.replace(
            task, documents_control=[], problem_control="",
            provenance={k: v for k, v in task.provenance.items() if k != "render_ctl"}).to_json()


@pytest.mark.parametrize("track", TRACKS)
def test_ctl_is_plain_text_without_the_scientific_filler(track):
    gset = codec_for(track).genres()
    science = {f for g in gset.genres for f in g.filler} | set(gset.filler)
    science_titles = {g.title for g in gset.genres}
    for task in rendered(track):
        for sentence in science:
            if "{" not in sentence:
                assert sentence not in task.problem_control, (task.task_id, sentence)
        assert not any(t in task.problem_control for t in science_titles)


@pytest.mark.parametrize("track", TRACKS)
def test_ctl_length_is_about_the_obf_length(track):
    ratios = [len(t.problem_control) / len(t.problem_obfuscated) for t in rendered(track)]
    assert 0.8 <= statistics.mean(ratios) <= 1.25, ratios
    assert all(0.7 <= r <= 1.4 for r in ratios), ratios


def test_ctl_is_deterministic_and_seeded():
    task = next(iter(get_track("induction").generate(1, 2, "easy")))
    a = render_control(render_task(task, 1), 1)
    b = render_control(render_task(task, 1), 1)
    c = render_control(render_task(task, 1), 2)
    assert a.to_json() == b.to_json()
    assert a.problem_control != c.problem_control
    # an unrendered task gets a ctl rendering of its own length target
    alone = render_control(task, 1)
    assert alone.problem_control and not alone.problem_obfuscated
    assert recovery_problems(as_control(alone)) == []


@pytest.mark.parametrize("track", TRACKS)
def test_every_track_solves_in_nl_ctl_and_obf_with_oracle_and_ns(track):
    t = get_track(track)
    archs = [a for a in ("oracle", "ns") if a in architectures(t)]
    assert "oracle" in archs
    for task in rendered(track)[::N_TASKS]:           # one Easy, one Hard
        for presentation in PRESENTATIONS:
            settings = PipelineSettings(presentation=presentation)
            for arch in archs:
                backend = GoldFormalizer(t.formalizer().format(task)) if arch == "ns" else None
                r = run_task(arch, task, backend, settings)
                assert (r.status, r.correct, r.presentation) == ("ok", True, presentation), \
                    (arch, presentation, r.status, r.error)
                if arch == "ns":
                    seen = backend.prompts[0]
                    text = {"nl": task.problem_nl, "ctl": task.problem_control,
                            "obf": task.problem_obfuscated}[presentation]
                    assert text[:200] in seen
                    others = [p for p in ("ctl", "obf") if p != presentation]
                    for other in others:
                        other_text = {"ctl": task.problem_control,
                                      "obf": task.problem_obfuscated}[other]
                        assert other_text[:200] not in seen
                else:
                    assert r.input_chars == len({"nl": task.problem_nl,
                                                 "ctl": task.problem_control,
                                                 "obf": task.problem_obfuscated}[presentation])


def test_asking_for_ctl_on_a_file_without_it_is_one_clear_error(tmp_path, capsys):
    task = render_task(next(iter(get_track("deduction").generate(1, 1, "easy"))), 1)
    with pytest.raises(ConfigError, match=r"no control text \(render it with `scir render "
                                          r"FILE --control"):
        run_task("oracle", task, None, PipelineSettings(presentation="ctl"))
    path = tmp_path / "d.obf.jsonl"
    write_tasks(path, [task])
    # a file rendered without --control has no ctl fields: older files read as before
    assert "control" not in path.read_text()
    rc = main(["solve", str(path), "--arch", "oracle", "--presentation", "ctl",
               "--run", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc != 0 and "scir render FILE --control" in err and "Traceback" not in err


def test_render_command_writes_ctl_with_control_only(tmp_path, capsys):
    src = tmp_path / "c.jsonl"
    write_tasks(src, get_track("causal").generate(2, 4, "easy"))
    plain, both = tmp_path / "c.obf.jsonl", tmp_path / "c.ctl.jsonl"
    assert main(["render", str(src), "--seed", "1", "-o", str(plain)]) == 0
    assert main(["render", str(src), "--seed", "1", "--control", "-o", str(both)]) == 0
    assert "Ctl/NL" in capsys.readouterr().out
    a, b = read_tasks(plain), read_tasks(both)
    assert [t.problem_obfuscated for t in a] == [t.problem_obfuscated for t in b]
    assert all(not t.problem_control for t in a) and all(t.problem_control for t in b)
    # a ctl task file round-trips byte for byte
    again = tmp_path / "again.jsonl"
    write_tasks(again, b)
    assert again.read_bytes() == both.read_bytes()


def _run(tmp_path, name, tasks_file, presentation):
    run = tmp_path / name
    assert main(["solve", str(tasks_file), "--arch", "oracle", "--presentation", presentation,
                 "--run", str(run)]) == 0
    return run


def test_report_shows_ctl_cells_only_when_ctl_results_exist(tmp_path):
    tasks = tmp_path / "d.jsonl"
    write_tasks(tasks, rendered("deduction"))
    runs = [_run(tmp_path, f"r-{p}", tasks, p) for p in PRESENTATIONS]
    without = tmp_path / "rep-without"
    withctl = tmp_path / "rep-with"
    assert main(["report", str(runs[0]), str(runs[2]), "-o", str(without)]) == 0
    assert main(["report", *map(str, runs), "-o", str(withctl)]) == 0
    md_without = (without / "report.md").read_text()
    md_with = (withctl / "report.md").read_text()
    assert "## Table 1: accuracy, NL -> Obf" in md_without and "Ctl" not in md_without
    assert "## Table 1: accuracy, NL -> Ctl -> Obf" in md_with
    assert "## Table 2: input and items, NL -> Ctl -> Obf" in md_with
    table = md_with.split("## Table 1: accuracy, NL -> Ctl -> Obf")[1].split("##")[0]
    row = next(line for line in table.splitlines() if line.startswith("| none oracle"))
    entries = row.strip("|").split("|")[1:]
    assert entries and all(e.count(" -> ") == 2 for e in entries), row
    table1 = json.loads((withctl / "report.json").read_text())["table1"]
    assert all("ctl" in col for r in table1 for col in r["columns"])
    plain = json.loads((without / "report.json").read_text())["table1"]
    assert all("ctl" not in col for r in plain for col in r["columns"])
    # the same report again is byte-identical
    again = tmp_path / "rep-again"
    assert main(["report", str(runs[0]), str(runs[2]), "-o", str(again)]) == 0
    assert (again / "report.md").read_text() == md_without


def test_hf_export_has_ctl_rows(tmp_path):
    from scir.release.rows import row, splits

    tasks = rendered("induction")
    parts = {s.name: s for s in splits(tasks)["induction"]}
    assert {"easy_nl", "easy_ctl", "easy_obf", "hard_ctl"} <= set(parts)
    r = parts["easy_ctl"].rows[0]
    assert r["presentation"] == "ctl" and r["problem"] == tasks[0].problem_control
    assert r["blocks"] == [] and r == row(tasks[0], "ctl")
    docs = r["documents"] if isinstance(r["documents"], list) else json.loads(r["documents"])
    assert [d["genre"] for d in docs] == [d.genre for d in tasks[0].documents_control]
    # a task without control documents has no ctl row
    plain = [render_task(next(iter(get_track("induction").generate(1, 5, "easy"))), 3)]
    assert "easy_ctl" not in {s.name for s in splits(plain)["induction"]}


def test_explorer_shows_a_ctl_column_only_for_tasks_with_control_documents(tmp_path):
    import html

    with_ctl = rendered("causal")[:2]
    without = [dataclasses.replace(t, documents_control=[], problem_control="")
               for t in with_ctl]
    for name, tasks in (("ctl", with_ctl), ("plain", without)):
        path = tmp_path / f"{name}.jsonl"
        write_tasks(path, tasks)
        run = _run(tmp_path, f"run-{name}", path, "obf")
        site = tmp_path / f"site-{name}"
        assert main(["explore", str(run), "-o", str(site), "--tasks", str(path)]) == 0
        page = html.unescape((site / "tasks" / f"{tasks[0].task_id}.html").read_text())
        if name == "ctl":
            assert 'id="ctl"' in page and tasks[0].documents_control[0].genre in page
            assert tasks[0].documents_control[1].text.splitlines()[0] in page
        else:
            assert 'id="ctl"' not in page and 'id="obf"' in page


def test_an_experiment_grid_runs_ctl_cells_and_reports_them(tmp_path, capsys):
    exp = tmp_path / "ctl.toml"
    spec = ('presentations = ["nl", "ctl", "obf"]\narchitectures = ["oracle"]\n'
            'tasks_per_cell = 2\n\n[tasks.causal.easy]\nn = 2\nseed = 1\n')
    exp.write_text(spec + 'render = { renderer = "template", seed = 1 }\n')
    assert main(["eval", str(exp), "--run", str(tmp_path / "bad"), "--dry-run"]) == 2
    assert "control = true" in capsys.readouterr().err
    exp.write_text(spec + 'render = { renderer = "template", seed = 1, control = true }\n')
    run = tmp_path / "run"
    assert main(["eval", str(exp), "--run", str(run)]) == 0
    (tasks_file,) = (run / "tasks").glob("causal-easy.jsonl")
    assert all(t.problem_control for t in read_tasks(tasks_file))
    assert main(["report", str(run), "-o", str(tmp_path / "rep")]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Table 1: accuracy, NL -> Ctl -> Obf" in md
    assert "nl_vs_ctl" in md and "ctl_vs_obf" in md


def test_the_python_api_renders_the_control_on_request():
    from scir import api

    tasks = list(get_track("causal").generate(1, 2, "easy"))
    plain = api.render(tasks, 1)
    both = api.render(tasks, 1, control=True)
    assert not plain[0].problem_control and both[0].problem_control
    assert both[0].problem_obfuscated == plain[0].problem_obfuscated
    assert run_task("oracle", both[0], None, PipelineSettings(presentation="ctl")).correct


def test_audit_reads_the_ctl_text_and_names_the_render_option(tmp_path, capsys):
    tasks = [render_control(render_task(t, 1), 1)
             for t in get_track("causal").generate(12, 3, "easy")]   # 10+ to cross-validate
    path = tmp_path / "c.jsonl"
    write_tasks(path, tasks)
    # 1: a baseline flagged (at 12 tasks the structural ones read the causal data's own
    # signal, as for obf and nl); the audit ran on the ctl text either way
    assert main(["audit", str(path), "--presentation", "ctl", "-o", str(tmp_path / "a")]) in (0, 1)
    report = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert '"presentation": "ctl"' in json.dumps(report)
    plain = tmp_path / "p.jsonl"
    write_tasks(plain, [dataclasses.replace(t, documents_control=[], problem_control="")
                        for t in tasks])
    capsys.readouterr()
    assert main(["audit", str(plain), "--presentation", "ctl", "-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "scir render --control" in err and "Traceback" not in err
