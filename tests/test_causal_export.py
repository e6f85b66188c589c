"""``scir export FILE --format csv``: per causal task a CSV, its metadata and a targets file;
the CSV round-trips to the stored rows and ``python -m solvers.gies`` on it recovers the same
XYZ edges as the track's solver."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from scir.cli import main
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from scir.tracks.causal.graph import NEW_PROTEIN
from scir.tracks.causal.options import match_options, parse_option, xyz_directed

TRACK = get_track("causal")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """3 Easy and 3 Hard tasks exported as csv; returns (tasks, folder)."""
    folder = tmp_path_factory.mktemp("causal-export")
    tasks = []
    for level in ("easy", "hard"):
        path = folder / f"{level}.jsonl"
        assert main(["generate", "causal", "--difficulty", level, "-n", "3", "--seed", "11",
                     "-o", str(path)]) == 0
        assert main(["export", str(path), "--format", "csv", "-o", str(folder / "csv")]) == 0
        tasks += read_tasks(path)
    return tasks, folder / "csv"


def test_files_per_task(exported) -> None:
    tasks, out = exported
    names = sorted(p.name for p in out.iterdir())
    expected = sorted(f"{t.task_id}{ext}" for t in tasks
                      for ext in (".csv", ".json", ".targets.json"))
    assert names == expected


def test_csv_round_trips_to_the_rows(exported) -> None:
    tasks, out = exported
    for task in tasks:
        with (out / f"{task.task_id}.csv").open(encoding="utf-8", newline="") as handle:
            table = list(csv.reader(handle))
        assert table[0] == ["environment", *task.formal["columns"]]
        back: dict[str, list[list[float]]] = {}
        for row in table[1:]:
            back.setdefault(row[0], []).append([float(x) for x in row[1:]])
        assert back == {e["name"]: e["rows"] for e in task.formal["environments"]}
        assert list(back) == [e["name"] for e in task.formal["environments"]]


def test_metadata_files(exported) -> None:
    tasks, out = exported
    for task in tasks:
        meta = json.loads((out / f"{task.task_id}.json").read_text(encoding="utf-8"))
        targets = {e["name"]: e["targets"] for e in task.formal["environments"]}
        assert meta["targets"] == targets
        assert meta["known_edges"] == task.formal["known_edges"]
        assert meta["new_protein"] == NEW_PROTEIN and meta["options"] == task.options
        assert "answer" not in meta and "xyz_edges" not in meta
        assert json.loads((out / f"{task.task_id}.targets.json").read_text()) == targets


def test_gies_command_line_recovers_the_same_xyz_edges(exported, tmp_path) -> None:
    tasks, out = exported
    for task in tasks[::2]:      # one subprocess per task: three of the six
        result = tmp_path / f"{task.task_id}.gies.json"
        proc = subprocess.run(
            [sys.executable, "-m", "solvers.gies", str(out / f"{task.task_id}.csv"),
             "--env-column", "environment", "--targets",
             str(out / f"{task.task_id}.targets.json"), "-o", str(result)],
            capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        graph = json.loads(result.read_text(encoding="utf-8"))
        found = xyz_directed([tuple(e) for e in graph["directed"]])
        assert [list(e) for e in found] == TRACK.verify(task).details["found"] and found
        match = match_options(found, [parse_option(o) for o in task.options])
        assert match.letter == task.answer
