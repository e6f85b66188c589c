"""A track of one's own is a first-class citizen of experiments (docs/extending.md, section 10):
the horn example, registered through ``SCIR_TRACKS``, runs in the grid of
``docs/examples/horn_experiment.toml`` beside deduction (``scir eval`` with the oracle and the
tiny model), and ``scir report``, ``scir explore`` and ``scir export --format hf`` show both
tracks. Without the registration the experiment file is refused with one line naming the
field and the known tracks."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scir.errors import ConfigError
from scir.experiments.experiment import load_experiment

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENT = ROOT / "docs" / "examples" / "horn_experiment.toml"
HORN = f"{ROOT / 'docs' / 'examples' / 'horn_track.py'}:HornTrack"


def _env(tiny_cache_dir: Path, tracks: str | None = HORN) -> dict[str, str]:
    env = dict(os.environ, SCIR_CACHE_DIR=str(tiny_cache_dir))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                      if env.get("PYTHONPATH") else []))
    env.pop("SCIR_TRACKS", None)
    if tracks is not None:
        env["SCIR_TRACKS"] = tracks
    return env


def _scir(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scir", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600)


def test_unknown_track_is_refused_naming_the_field(monkeypatch):
    monkeypatch.delenv("SCIR_TRACKS", raising=False)
    with pytest.raises(ConfigError, match=r"tasks\.horn: unknown track 'horn' \(known tracks: "
                                          r"causal, deduction, equation, induction"):
        load_experiment(EXPERIMENT)


def test_registered_track_is_accepted(horn_registered):
    exp = load_experiment(EXPERIMENT)
    assert exp.groups() == [("deduction", "easy"), ("horn", "easy")]
    assert {c.track for c in exp.cells()} == {"deduction", "horn"}


@pytest.fixture(scope="module")
def grid(tmp_path_factory, tiny_cache_dir):
    """The example grid run with ``scir eval``, then reported and explored."""
    work = tmp_path_factory.mktemp("horn-grid")
    env = _env(tiny_cache_dir)
    for args in (["eval", str(EXPERIMENT), "--run", "run"],
                 ["report", "run", "-o", "report"],
                 ["explore", "run", "-o", "site"]):
        done = _scir(args, env, work)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return work


@pytest.mark.slow
def test_eval_runs_both_tracks(grid):
    with open(grid / "report" / "report.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    tracks = {r["track"] for r in rows}
    assert tracks == {"deduction", "horn"}
    oracle = [r for r in rows if r["arch"] == "oracle"]
    assert {r["track"] for r in oracle} == {"deduction", "horn"}
    # the oracle is the pipeline's upper bound: every gold formal object solves its task
    assert all(float(r["accuracy"]) == 1.0 for r in oracle)


def test_report_shows_both_tracks(grid):
    text = (grid / "report" / "report.md").read_text(encoding="utf-8")
    assert "deduction easy" in text and "horn easy" in text
    data = json.loads((grid / "report" / "report.json").read_text(encoding="utf-8"))
    assert "horn" in json.dumps(data)


def test_explorer_shows_both_tracks(grid):
    index = (grid / "site" / "index.html").read_text(encoding="utf-8")
    assert '<option value="horn">' in index and '<option value="deduction">' in index
    pages = {p.name.split("-")[0] for p in (grid / "site" / "tasks").glob("*.html")}
    assert pages == {"deduction", "horn"}


def test_hf_export_has_a_config_per_track(grid, tiny_cache_dir):
    files = sorted(str(p) for p in (grid / "run" / "tasks").glob("*.jsonl"))
    done = _scir(["export", *files, "--format", "hf", "--no-audit", "-o", "release"],
                 _env(tiny_cache_dir), grid)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (grid / "release" / "data").iterdir()) == ["deduction", "horn"]
    card = (grid / "release" / "README.md").read_text(encoding="utf-8")
    assert "- `horn`: propositional Horn-clause entailment" in card
    croissant = json.loads((grid / "release" / "croissant.json").read_text(encoding="utf-8"))
    assert "horn" in croissant["keywords"]
