"""Table 2 of the report gains the obfuscation depth (issue #29): per track and tier of the
tasks the results are over, the generic extractor's recovery NL -> Obf (and Ctl), the share
stated literally in one clause, the share needing another document and the Obf/NL length --
the figures ``scir stats`` prints; a run over tasks without an obf rendering still reports."""

from __future__ import annotations

import json

import pytest

from scir.cli import main
from scir.tasks import write_tasks
from scir.rendering.control import render_control
from scir.rendering.depth import depth_rows, group_depth
from scir.rendering.template import render_task
from scir.tracks import get_track


def _report(tmp_path, name, tasks, presentations=("obf",)):
    path = tmp_path / f"{name}.jsonl"
    write_tasks(path, tasks)
    runs = []
    for presentation in presentations:
        run = tmp_path / f"run-{name}-{presentation}"
        assert main(["solve", str(path), "--arch", "oracle", "--presentation", presentation,
                     "--run", str(run)]) == 0
        runs.append(str(run))
    out = tmp_path / f"rep-{name}"
    assert main(["report", *runs, "-o", str(out)]) == 0
    return (out / "report.md").read_text(), json.loads((out / "report.json").read_text())


@pytest.fixture(scope="module")
def tasks():
    made = [t for track in ("deduction", "equation")
            for t in get_track(track).generate(2, 3, "easy")]
    return [render_control(render_task(t, 1), 1) for t in made]


def test_report_table2_has_the_depth_of_the_rendered_tasks(tmp_path, tasks, capsys):
    md, data = _report(tmp_path, "r", tasks, ("nl", "ctl", "obf"))
    table2 = md.split("## Table 2")[1].split("\n## ")[0]
    assert "generic extractor NL -> Obf" in table2 and "Obf/NL length" in table2
    rows = data["table2_depth"]
    assert {(r["domain"], r["premises"]) for r in rows} == {("deduction", "premise"),
                                                          ("equation", "row")}
    # the same figures as scir stats (scir.text.depth) over the same tasks
    expected = {(r.domain, r.tier, r.premises): r for r in depth_rows(tasks)}
    obf = group_depth(tasks, "obf")
    for r in rows:
        e = expected[(r["domain"], r["tier"], r["premises"])]
        assert r["count"] == e.count == obf[(r["domain"], r["tier"])].items[r["premises"]]
        assert r["recovered_nl"] == 1.0
        assert r["recovered_obf"] == round(e.recovered_obf, 4) < 1.0
        assert r["recovered_ctl"] is not None
        assert r["ratio"] == round(e.ratio, 4) > 2.0
        line = next(ln for ln in table2.splitlines()
                    if ln.startswith(f"| {r['domain']} | {r['tier']} | {r['premises']} |"))
        assert f"100.0% -> {r['recovered_obf']:.1%}" in line
    assert "| Ctl |" in table2
    # without ctl renderings (or without ctl results) the Ctl column is left out
    plain = [t.__class__.from_dict({**t.to_dict(), "documents_control": [],
                                    "problem_control": ""}) for t in tasks]
    md2, data2 = _report(tmp_path, "p", plain)
    assert all(r["recovered_ctl"] is None for r in data2["table2_depth"])
    assert "| Ctl |" not in md2.split("## Table 2")[1].split("\n## ")[0]
    md3, data3 = _report(tmp_path, "o", tasks)
    assert "Ctl" not in md3
    assert all(r["recovered_ctl"] is None for r in data3["table2_depth"])


def test_a_run_over_unrendered_tasks_still_reports(tmp_path):
    raw = list(get_track("causal").generate(2, 1, "easy"))
    md, data = _report(tmp_path, "nl", raw, ("nl",))
    assert data["table2_depth"] == []
    assert "(no task with an obf rendering)" in md.split("## Table 2")[1]
