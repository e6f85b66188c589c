"""``scir eval`` end to end: a small grid (every track, Easy and Hard, NL and Obf, oracle /
cot / ns / symbcot, constrained and free) against a local OpenAI-compatible server, reported
by ``scir report`` and every number of the report recomputed from the stored results
(tests/report_check.py); and the same grid on a local Ray instance, stored identically."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from report_check import check_report
from scir.cli import main
from scir.runs.store import RunStore

TIMING = {"seconds"}


def experiment(tmp_path: Path, url: str) -> Path:
    tracks = "".join(f"""
[tasks.{track}.{level}]
n = 2
seed = 3
render = {{ renderer = "template", seed = 3 }}
""" for track in ("deduction", "induction", "causal") for level in ("easy", "hard"))
    path = tmp_path / "grid.toml"
    path.write_text(f"""
name = "grid"
presentations = ["nl", "obf"]
architectures = ["oracle", "cot", "ns", "symbcot"]
constrained = [true, false]
seeds = [0]
tasks_per_cell = 2
[generation]
max_tokens = 64
max_retries = 1
[[models]]
name = "openai:fake@{url}"
{tracks}""")
    return path


def script(body, index):
    """Replies that depend only on the request: answers of every track's form and text no
    parser takes (so ns retries and some cells fail), chosen by a hash of the conversation."""
    text = "".join(m["content"] for m in body["messages"])
    pick = hashlib.sha256(text.encode()).digest()[0] % 5
    reply = ["Reasoning.\nAnswer: True", "Answer: A", "no formalization here ((",
             "Answer: Unknown", "Answer: False"][pick]
    return Reply(body=chat_body(reply, prompt_tokens=len(text) % 97 + 1, completion_tokens=4,
                                cost=0.0001))


def stored(run: Path) -> list[dict]:
    with RunStore(run) as store:
        return [{k: v for k, v in r.items() if k not in TIMING} for r in store.results()]


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(script) as srv:
        yield srv


@pytest.fixture(scope="module")
def local_grid(tmp_path_factory, server):
    tmp = tmp_path_factory.mktemp("grid")
    exp = experiment(tmp, server.url)
    assert main(["eval", str(exp), "--run", str(tmp / "run")]) == 0
    return tmp, exp


@pytest.mark.slow
def test_a_grid_end_to_end_and_the_report_recomputed_from_the_store(local_grid, capsys):
    tmp, _ = local_grid
    run = tmp / "run"
    results = stored(run)
    cells = {(r["domain"], r["difficulty"], r["presentation"], r["arch"], r["constrained"])
             for r in results}
    # 3 tracks x 2 levels x 2 presentations x (oracle, cot, ns, ns free, symbcot, symbcot free)
    assert len(cells) == 3 * 2 * 2 * 6 and len(results) == 2 * len(cells)
    statuses = {r["status"] for r in results}
    assert {"ok", "parse_error"} <= statuses and statuses & {"wrong", "no_answer"}
    assert main(["report", str(run), "-o", str(tmp / "report")]) == 0
    out = capsys.readouterr().out
    assert "->" in out                                  # the Table-1 layout: NL -> Obf cells
    data = check_report(tmp / "report", [str(run)])
    assert all(c["planned"] == c["done"] == 2 for c in data["cells"])
    assert list((tmp / "report" / "figures").glob("*.png"))


@pytest.mark.slow
def test_the_same_grid_on_local_ray_is_stored_identically(local_grid, tmp_path, capsys):
    pytest.importorskip("ray")
    tmp, exp = local_grid
    assert main(["eval", str(exp), "--run", str(tmp_path / "run"), "--executor", "ray",
                 "--workers", "2"]) == 0
    local, remote = stored(tmp / "run"), stored(tmp_path / "run")
    assert len(local) == len(remote) == 144
    assert local == remote
    # a rerun on Ray runs nothing
    assert main(["eval", str(exp), "--run", str(tmp_path / "run"), "--executor", "ray",
                 "--workers", "2"]) == 0
    assert "tasks run now: 0" in capsys.readouterr().out
