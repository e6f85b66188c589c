"""Provenance: every invocation of a run records what produced it (toolkit version and commit,
Python, platform, solvers, libraries, model identities); reports, the explorer and the dataset
card show it, and a report over runs that differ in any of it says so. Real runs, real
solvers, real stores."""

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir import __version__
from scir.cli import main
from scir.runs.store import RunStore
from scir.provenance import MISSING, UNKNOWN, differences, file_digest, flatten, probe, toolkit

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def taskfile(tmp_path_factory):
    path = tmp_path_factory.mktemp("prov") / "d.jsonl"
    assert main(["generate", "deduction", "-n", "2", "--seed", "3", "-o", str(path)]) == 0
    return path


def test_probe_names_the_toolkit_python_and_the_solvers_found():
    from solvers import asp, prover9

    found = probe()
    assert found["toolkit"]["version"] == __version__
    assert re.fullmatch(r"[0-9a-f]{40}", found["toolkit"]["commit"])   # the suite runs in git
    assert found["toolkit"]["dirty"] in (True, False)
    assert found["python"].count(".") == 2 and found["platform"]
    assert found["solvers"]["prover9"] == prover9.version()
    assert found["solvers"]["clingo"] == asp.version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", found["solvers"]["swi-prolog"])
    assert found["libraries"]["numpy"] != MISSING
    assert probe() == found and probe() is not found          # cached, handed out as a copy


def test_outside_a_git_checkout_the_commit_is_unknown(tmp_path):
    kit = toolkit(tmp_path)
    assert kit == {"version": __version__, "commit": UNKNOWN, "dirty": None}
    assert flatten({"toolkit": kit})["toolkit"] == f"{__version__} (commit unknown)"


def test_file_digests_are_cached_per_path_mtime_and_size(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIR_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "m.gguf"
    model.write_bytes(b"weights" * 1000)
    assert file_digest(model) == hashlib.sha256(model.read_bytes()).hexdigest()
    cache = tmp_path / "cache" / "digests.json"
    entries = json.loads(cache.read_text())
    (key,) = entries
    assert key.startswith(f"{model.resolve()}|")
    # a cached digest is served as it is: the file is not read again
    cache.write_text(json.dumps({key: "ab" * 32}))
    assert file_digest(model) == "ab" * 32
    # a changed file (another size, another mtime) is digested again; its old entry is dropped
    model.write_bytes(b"other weights")
    assert file_digest(model) == hashlib.sha256(b"other weights").hexdigest()
    assert len(json.loads(cache.read_text())) == 1


def test_a_solve_run_records_provenance_and_an_absolute_task_path(taskfile, tmp_path,
                                                                  monkeypatch):
    monkeypatch.chdir(taskfile.parent)
    run = tmp_path / "run"
    assert main(["solve", taskfile.name, "--arch", "oracle", "--run", str(run)]) == 0
    with RunStore(run, readonly=True) as store:
        (config,) = store.invocations()
        (record,) = store.provenances()
    assert config["file"] == str(taskfile.resolve())
    assert record["toolkit"] == probe()["toolkit"]
    assert record["solvers"] == probe()["solvers"] and record["models"] == []


def test_the_tiny_model_is_identified_by_its_weights(taskfile, tmp_path):
    from scir.llm.tiny import ensure_model
    from scir.provenance import folder_digest

    run = tmp_path / "tiny"
    assert main(["solve", str(taskfile), "--arch", "ns", "--model", "tiny", "--limit", "1",
                 "--max-tokens", "40", "--run", str(run)]) in (0, 1)
    with RunStore(run, readonly=True) as store:
        (record,) = store.provenances()
    (model,) = record["models"]
    assert model["name"] == "tiny" and model["backend"] == "tiny"
    assert model["sha256"] == folder_digest(ensure_model())


def test_an_http_model_records_the_revision_its_server_names(taskfile, tmp_path):
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: True"))) as srv:
        srv.served["fake"] = {"root": "fake-2026-01-01", "owned_by": "lab"}
        assert main(["solve", str(taskfile), "--arch", "cot", "--model",
                     f"openai:fake@{srv.url}", "--run", str(tmp_path / "r")]) == 0
    with RunStore(tmp_path / "r", readonly=True) as store:
        (model,) = store.provenances()[0]["models"]
    assert model["revision"] == "fake-2026-01-01" and model["url"] == srv.url
    assert model["served"] == {"id": "fake", "root": "fake-2026-01-01", "owned_by": "lab"}


def _old_store(path: Path) -> None:
    """A store as the toolkit wrote it before provenance: invocations without the column."""
    db = sqlite3.connect(path / "run.sqlite")
    db.executescript("""
    CREATE TABLE invocations (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at REAL NOT NULL,
                              config TEXT NOT NULL);
    INSERT INTO invocations (started_at, config) VALUES (1.0, '{"file": "d.jsonl"}');
    PRAGMA user_version=2;
    """)
    db.commit()
    db.close()


def test_an_old_store_reads_and_migrates(tmp_path, taskfile):
    run = tmp_path / "old"
    run.mkdir()
    _old_store(run)
    with RunStore(run, readonly=True) as store:          # read-only: nothing migrated
        assert store.provenances() == [None]
        assert store.invocations()[0]["file"] == "d.jsonl"
    db = sqlite3.connect(run / "run.sqlite")
    assert "provenance" not in {r[1] for r in db.execute("PRAGMA table_info(invocations)")}
    db.close()
    with RunStore(run) as store:                         # writable: the column is added
        store.log_invocation({"command": "x"}, probe())
        assert store.provenances()[0] is None and store.provenances()[1] == probe()
    # an old relative task path is still found from another directory: beside the run
    from scir.reports.sources import recorded_files

    (tmp_path / "d.jsonl").write_bytes(taskfile.read_bytes())
    assert tmp_path / "d.jsonl" in recorded_files(run)


def test_report_shows_versions_and_says_when_runs_differ(taskfile, tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for run in (a, b):
        assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run)]) == 0
    capsys.readouterr()
    assert main(["report", str(a), "-o", str(tmp_path / "ra"), "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "versions:" in out and f"toolkit {__version__} (commit " in out
    assert "DIFFER" not in out
    md = (tmp_path / "ra" / "report.md").read_text()
    assert "## Versions" in md and "| solver prover9 | " in md
    data = json.loads((tmp_path / "ra" / "report.json").read_text())
    assert data["versions"]["differences"] == {}
    assert data["versions"]["components"]["solver clingo"] == {probe()["solvers"]["clingo"]:
                                                               [str(a)]}
    # run b was made by another commit with another Prover9 (as a copy from elsewhere holds)
    db = sqlite3.connect(b / "run.sqlite")
    record = json.loads(db.execute("SELECT provenance FROM invocations").fetchone()[0])
    record["toolkit"]["commit"] = "f" * 40
    record["solvers"]["prover9"] = "2017-03A"
    db.execute("UPDATE invocations SET provenance = ?", (json.dumps(record),))
    db.commit()
    db.close()
    assert main(["report", str(a), str(b), "-o", str(tmp_path / "rab"), "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "DIFFERS solver prover9: 2009-11A in " in out
    assert "Versions DIFFER between the combined runs in: " in out
    md = (tmp_path / "rab" / "report.md").read_text()
    assert "Versions DIFFER between the combined runs in: solver prover9, toolkit" in md
    assert "| toolkit (DIFFERS) |" in md and "ffffffffffff" in md
    diff = json.loads((tmp_path / "rab" / "report.json").read_text())["versions"]["differences"]
    assert set(diff) == {"toolkit", "solver prover9"}
    assert diff["solver prover9"]["2017-03A"] == [str(b)]
    site = tmp_path / "site"
    assert main(["explore", str(a), str(b), "-o", str(site)]) == 0
    assert "Versions DIFFER" in capsys.readouterr().out
    html = (site / "index.html").read_text()
    assert 'id="versions"' in html and "solver prover9 (differs)" in html


def test_differences_ignore_what_a_record_lacks():
    one = {"toolkit": {"version": "1", "commit": "a", "dirty": False}, "python": "3.11.2"}
    two = {"toolkit": {"version": "1", "commit": "a", "dirty": False}}
    assert differences([("x", one), ("y", two)]) == {}
    assert set(differences([("x", one), ("y", {**one, "python": "3.12.0"})])) == {"python"}


def test_the_dataset_card_names_toolkit_and_solvers(taskfile, tmp_path):
    out = tmp_path / "release"
    assert main(["export", str(taskfile), "--format", "hf", "-o", str(out)]) == 0
    card = (out / "README.md").read_text()
    section = card.split("## Provenance", 1)[1].split("\n## ", 1)[0]
    kit = probe()["toolkit"]
    assert f"`{kit['version']}`" in section and f"`{kit['commit']}`" in section
    for name, version in probe()["solvers"].items():
        assert f"| {name} | `{version}` |" in section
