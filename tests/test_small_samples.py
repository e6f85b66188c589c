"""Honest small samples and readable figures: intervals over fewer than SMALL_N tasks are
marked, a cell not run is drawn as missing (never as a zero bar), and bar charts draw each
group's chance line. On a real run of the deduction track (real solvers)."""

import json

import matplotlib
import pytest

matplotlib.use("Agg")

from scir.cli import main  # noqa: E402
from scir.reports import figures  # noqa: E402
from scir.reports.report import build_report  # noqa: E402
from scir.reports.stats import (SMALL_MARK, SMALL_N, format_general, format_interval,  # noqa: E402
                                 median_interval, paired_difference, wilson)


def test_small_intervals_are_marked_and_large_ones_are_not():
    assert SMALL_N == 30 and SMALL_MARK == "~"
    assert format_interval(wilson(1, 1)) == "1.00 [0.21, 1.00]~"
    assert format_interval(wilson(29, 29)).endswith("~")
    assert not format_interval(wilson(30, 30)).endswith("~")
    assert format_interval(wilson(0, 0)) == "-"                 # no tasks: nothing to mark
    one = paired_difference([1], [0])                           # the issue's [1.00, 1.00]
    assert one.small and format_interval(one) == "1.00 [1.00, 1.00]~"
    assert not paired_difference([1, 0] * 20, [0, 0] * 20).small
    assert format_general(median_interval([1e-3, 2e-3, 3e-3])).endswith("~")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    tasks = root / "d.jsonl"
    assert main(["generate", "deduction", "-n", "3", "--seed", "2", "-o", str(tasks)]) == 0
    run = root / "run"
    assert main(["solve", str(tasks), "--arch", "oracle", "--run", str(run)]) == 0
    return run


def test_the_report_marks_small_cells(run, tmp_path, capsys):
    capsys.readouterr()
    assert main(["report", str(run), "-o", str(tmp_path / "rep"), "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "| none oracle | 1.00 [0.44, 1.00]~ -> - |" in out
    assert f"1 of 1 cells have fewer than {SMALL_N} tasks" in out
    md = (tmp_path / "rep" / "report.md").read_text()
    assert f"`~` a small sample (fewer than {SMALL_N} tasks" in md
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert data["cells"][0]["small_n"] is True
    assert data["table1"][0]["columns"][0]["nl"]["small_n"] is True
    assert data["table1"][0]["columns"][0]["obf"] is None       # not run: missing, not zero


def test_a_cell_not_run_is_drawn_missing_with_the_chance_line(run, tmp_path):
    import matplotlib.pyplot as plt

    report = build_report([str(run)])
    g = report.grid
    (row,) = g.rows
    (column,) = g.columns
    pair = g.get(row, column)
    assert pair.nl is not None and pair.obf is None              # obf was not run
    fig, ax = plt.subplots()
    figures._bars(ax, ["deduction/easy"], {"NL": [pair.nl], "Obf": [pair.obf]}, "t")
    lengths = [p.get_width() for p in ax.patches]                # horizontal bars
    assert lengths[0] == pytest.approx(1.0)
    assert lengths[1] != lengths[1]                              # NaN: no bar, not a zero bar
    assert [t.get_text() for t in ax.texts] == [figures.NOT_RUN]
    (chance,) = [c for c in ax.collections if c.get_label() == "chance"]
    (segment,) = chance.get_segments()
    assert segment[0][0] == segment[1][0] == pytest.approx(pair.nl.chance)
    assert pair.nl.chance == pytest.approx(1 / 3)                # deduction's three labels
    plt.close(fig)
    assert figures.chances({"NL": [pair.nl], "Obf": [None]}) == [pair.nl.chance]
    assert figures.chances({"NL": [None], "Obf": [None]}) == [None]
    # the whole figure set draws with the missing cell
    written = figures.write_figures(report, tmp_path / "figs")
    assert {p.name for p in written} >= {"nl_vs_obf.png"}
