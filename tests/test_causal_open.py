"""Open causal tasks (issue #28 part 3, ``scir generate causal --answer open``): the answer is
the exact set of XYZ's directed edges. Generated at a few sizes up to the paper's frontier
check (11 proteins, 5 XYZ edges), verified, solved by the oracle and by ns with a scripted
model (one exact formalization, one with two columns' names swapped), scored by exact match
with edge precision, recall, F1 and SHD, checked with ``scir check``; chance by brute force."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.prompts import PromptArgs
from scir.cli import main
from scir.errors import ConfigError
from scir.runs.store import RunStore
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from scir.tracks.causal.options import parse_open_answer
from scir.tracks.causal.scoring import is_open_task

TRACK = get_track("causal")
SIZES = [(3, 1, 2), (4, 2, 2), (6, 3, 1), (11, 5, 1)]      # nodes, connections, tasks


def _open(nodes: int, connections: int, n: int, seed: int = 5):
    return list(TRACK.generate(n, seed, "easy", {"nodes": nodes, "connections": connections,
                                                 "answer": "open"}))


@pytest.fixture(scope="module")
def tasks():
    return [t for nodes, c, n in SIZES for t in _open(nodes, c, n)]


@pytest.fixture(scope="module")
def task_file(tasks, tmp_path_factory):
    path = tmp_path_factory.mktemp("open") / "open.jsonl"
    write_tasks(path, tasks)
    return path


def _gold(task) -> set[tuple[str, str]]:
    return {tuple(e) for e in TRACK.formal(task).xyz_edges}


def _text(edges) -> str:
    """Canonical text, written here independently: edges ordered by XYZ's partner in the
    Sachs data order (Raf, Mek, Plcg, PIP2, PIP3, Erk, Akt, PKA, PKC, P38, Jnk)."""
    order = ["Raf", "Mek", "Plcg", "PIP2", "PIP3", "Erk", "Akt", "PKA", "PKC", "P38", "Jnk"]
    partner = {e: e[1] if e[0] == "XYZ" else e[0] for e in edges}
    return "; ".join(f"{a} -> {b}" for a, b in sorted(edges, key=lambda e: order.index(
        partner[e])))


def test_open_tasks_state_the_edge_set_and_no_options(tasks):
    assert {(len(t.domain_metadata["subgraph_nodes"]), t.params["connections"])
            for t in tasks} == {(n, c) for n, c, _ in SIZES}
    for t in tasks:
        assert t.params["answer"] == "open" and t.options == []
        assert t.tier.endswith("open") and t.task_id.startswith(f"causal-{t.tier}-")
        gold = _gold(t)
        assert len(gold) == t.params["connections"]
        assert all("XYZ" in e for e in gold)
        assert t.answer == _text(gold) and t.answer_pool == [t.answer]
        assert "Options" not in TRACK.formalizer().prompt("cot", t, "nl")
        assert "Answer: A -> B; C -> D" in TRACK.formalizer().prompt("cot", t, "nl")
        symbcot = TRACK.formalizer().prompt("symbcot", t, "nl", PromptArgs(formalization=TRACK.formalizer().format(t)))
        assert "Options" not in symbcot and "Answer: A -> B; C -> D" in symbcot
    frontier = [t for t in tasks if len(t.domain_metadata["subgraph_nodes"]) == 11]
    assert frontier and len(frontier[0].domain_metadata["subgraph_edges"]) == 19


def _brute_force_count(task) -> int:
    """Every set of exactly c edges among all 2 * n possible directed XYZ edges (both
    directions of a pair allowed by the enumeration, then rejected as a 2-cycle) that leaves
    the known graph plus XYZ acyclic."""
    nodes = task.domain_metadata["subgraph_nodes"]
    known = [tuple(e) for e in task.domain_metadata["subgraph_edges"]]
    possible = [("XYZ", v) for v in nodes] + [(v, "XYZ") for v in nodes]
    count = 0
    for edges in itertools.combinations(possible, task.params["connections"]):
        g = nx.DiGraph(known)
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
        if nx.is_directed_acyclic_graph(g):
            count += 1
    return count


def test_chance_is_one_over_the_admissible_edge_sets_by_brute_force(tasks):
    for t in tasks:
        if len(t.domain_metadata["subgraph_nodes"]) > 6:
            continue                     # C(22, 5) graphs: counted by the track, not here
        count = _brute_force_count(t)
        assert t.chance == pytest.approx(1 / count) and t.chance_constrained == t.chance
        assert t.domain_metadata["admissible_answers"] == count
    # the frontier: C(11, 5) * 2^5 = 14784 sets before the acyclicity check removes some
    frontier = next(t for t in tasks if len(t.domain_metadata["subgraph_nodes"]) == 11)
    assert 1 < frontier.domain_metadata["admissible_answers"] < 14784
    assert frontier.chance == pytest.approx(1 / frontier.domain_metadata["admissible_answers"])


def test_verify_passes_and_catches_a_tampered_answer(task_file, tmp_path, capsys):
    assert main(["verify", str(task_file)]) == 0
    tasks = list(read_tasks(task_file))
    t = tasks[0]
    a, b = sorted(_gold(t))[0]
    t.answer = _text((_gold(t) - {(a, b)}) | {(b, a)})
    t.answer_pool = [t.answer]
    bad = tmp_path / "bad.jsonl"
    write_tasks(bad, [t])
    assert main(["verify", str(bad)]) == 1
    t2 = list(read_tasks(task_file))[1]
    t2.chance = 0.5
    write_tasks(bad, [t2])
    assert main(["verify", str(bad)]) == 1
    assert "1 / the admissible" in capsys.readouterr().out


def test_generation_is_deterministic_and_option_files_unchanged():
    a, b = _open(4, 2, 2, seed=9), _open(4, 2, 2, seed=9)
    assert [t.to_dict() for t in a] == [t.to_dict() for t in b]
    assert [t.task_id for t in a] == ["causal-n4c2open-9-0", "causal-n4c2open-9-1"]
    option = next(TRACK.generate(1, 9, "easy"))
    assert "answer" not in option.params and len(option.options) == 10
    assert option.tier == "n5c1" and not is_open_task(option)
    with pytest.raises(ConfigError):
        TRACK.resolve_params("easy", {"answer": "free"})


@pytest.mark.parametrize("text, want", [
    ("Answer: Raf -> XYZ; XYZ -> Mek", {("Raf", "XYZ"), ("XYZ", "Mek")}),
    ("I think so.\n**Answer:** raf → xyz, XYZ→MEK", {("Raf", "XYZ"), ("XYZ", "Mek")}),
    ("Answer: Raf causes XYZ and XYZ causes Mek.", {("Raf", "XYZ"), ("XYZ", "Mek")}),
    ("Maybe XYZ -> PKA.\nFinal answer:\n- Raf => XYZ\n- XYZ -> Mek",
     {("Raf", "XYZ"), ("XYZ", "Mek")}),
    ("Edges: Raf -> XYZ", {("Raf", "XYZ")}),          # no Answer line: the whole text
    ("Answer: Foo -> XYZ; Raf -> XYZ", {("Raf", "XYZ")}),   # unknown names are skipped
])
def test_parse_answer_reads_edge_lists(text, want):
    assert parse_open_answer(text, ["Raf", "Mek", "PKA", "P38", "XYZ"]) == want


def test_parse_answer_of_a_task_is_the_canonical_text(tasks):
    t = next(t for t in tasks if t.params["connections"] == 3)
    edges = sorted(_gold(t))
    messy = "Reasoning...\nAnswer: " + ", ".join(f"{a.lower()} → {b.upper()}"
                                              for a, b in reversed(edges))
    assert TRACK.parse_answer(t, messy) == t.answer
    assert TRACK.scorer().score(t, messy)


@pytest.mark.parametrize("text", ["Answer: B", "no edges here", "Answer: XYZ is upstream"])
def test_parse_answer_without_an_edge_set_is_none(text):
    t = _open(4, 2, 1)[0]
    assert TRACK.parse_answer(t, text) is None
    assert TRACK.scorer().score(t, text) is False


def _hand_metrics(answer: set, gold: set) -> dict:
    tp = len(answer & gold)
    p, r = tp / len(answer), tp / len(gold)
    return {"edge_precision": p, "edge_recall": r,
            "edge_f1": 0.0 if tp == 0 else 2 * p * r / (p + r),
            "shd": len({frozenset(e) for e in answer ^ gold})}


def test_scoring_exact_match_and_edge_metrics_by_hand(tasks):
    t = next(t for t in tasks if t.params["connections"] == 3)
    gold = _gold(t)
    assert TRACK.scorer().score(t, "Answer: " + t.answer)
    (a, b), rest = sorted(gold)[0], set(sorted(gold)[1:])
    reversed_one = rest | {(b, a)}
    partner = next(v for v in t.domain_metadata["subgraph_nodes"]
                   if all(v not in e for e in gold))
    extra = gold | {("XYZ", partner)}
    for answer, shd in ((reversed_one, 1), (rest, 1), (extra, 1)):
        text = "Answer: " + _text(answer)
        assert not TRACK.scorer().score(t, text)
        got = TRACK.scorer().assess(t, text).metrics
        want = _hand_metrics(answer, gold)
        assert want["shd"] == shd
        assert got == pytest.approx(want)
    # reversed: 2 of 3 right -> P = R = F1 = 2/3
    assert TRACK.scorer().assess(t, "Answer: " + _text(reversed_one)).metrics["edge_f1"] == \
        pytest.approx(2 / 3)
    assert TRACK.scorer().assess(t, None).metrics == {
        "edge_precision": 0.0, "edge_recall": 0.0, "edge_f1": 0.0, "shd": 3}


def _swap_plan(t):
    """Two proteins P (an XYZ partner) and Q (not one), neither an intervention target: with
    their names swapped in the ``columns:`` line, GIES sees the same numbers, so its XYZ edges
    are the gold's with P renamed Q."""
    formal = TRACK.formal(t)
    targets = {x for env in formal.environments for x in env.targets}
    gold = _gold(t)
    partners = {a if b == "XYZ" else b for a, b in gold}
    others = [v for v in formal.nodes if v != "XYZ" and v not in targets]
    for p in [v for v in others if v in partners]:
        for q in [v for v in others if v not in partners]:
            return p, q
    return None


@pytest.fixture(scope="module")
def ns_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("ns")
    pool = _open(6, 2, 12, seed=21)
    exact = pool[0]
    wrong, swap = next((t, s) for t in pool[1:] if (s := _swap_plan(t)) is not None)
    p, q = swap
    gold_text = TRACK.formalizer().format(wrong)
    first, rest = gold_text.split("\n", 1)
    columns = [c.strip() for c in first.split(":", 1)[1].split(",")]
    columns = [q if c == p else p if c == q else c for c in columns]
    wrong_text = "columns: " + ", ".join(columns) + "\n" + rest
    texts = {exact.task_id: TRACK.formalizer().format(exact), wrong.task_id: wrong_text}
    path = root / "open.jsonl"
    write_tasks(path, [exact, wrong])

    def script(body, index):
        prompt = "\n".join(m["content"] for m in body["messages"])
        for t in (exact, wrong):
            if t.blocks[1][:400] in prompt:
                return Reply(body=chat_body(texts[t.task_id]))
        return Reply(body=chat_body("no idea"))

    runs = {}
    with FakeOpenAIServer(script) as srv:
        runs["ns"] = root / "run-ns"
        assert main(["solve", str(path), "--arch", "ns", "--model", f"vllm:fake@{srv.url}",
                     "--run", str(runs["ns"]), "--max-tokens", "8000"]) == 0
    runs["oracle"] = root / "run-oracle"
    assert main(["solve", str(path), "--arch", "oracle", "--run", str(runs["oracle"])]) == 0
    renamed = {tuple(q if x == p else x for x in e) for e in _gold(wrong)}
    return path, exact, wrong, renamed, runs


def _results(run):
    with RunStore(run) as store:
        return {r["task_id"]: r for r in store.results()}


def test_oracle_solves_every_open_task(task_file, tmp_path):
    run = tmp_path / "oracle"
    assert main(["solve", str(task_file), "--arch", "oracle", "--run", str(run)]) == 0
    results = _results(run)
    assert len(results) == len(list(read_tasks(task_file)))
    for r in results.values():
        assert r["correct"] and r["answer"] == r["gold"]
        assert r["metrics"] == {"edge_precision": 1.0, "edge_recall": 1.0, "edge_f1": 1.0,
                                "shd": 0}


def test_ns_exact_and_wrong_formalizations_are_scored(ns_run, tmp_path):
    path, exact, wrong, renamed, runs = ns_run
    results = _results(runs["ns"])
    good, bad = results[exact.task_id], results[wrong.task_id]
    assert good["correct"] and good["answer"] == exact.answer and good["metrics"]["shd"] == 0
    assert not bad["correct"] and bad["status"] == "wrong"
    assert bad["answer"] == _text(renamed)
    # one of the two edges renamed: P = R = F1 = 1/2; SHD 2 (one missing, one extra)
    assert bad["metrics"] == pytest.approx({"edge_precision": 0.5, "edge_recall": 0.5,
                                            "edge_f1": 0.5, "shd": 2})
    assert bad["metrics"] == pytest.approx(_hand_metrics(renamed, _gold(wrong)))
    out = tmp_path / "rep"
    assert main(["report", str(runs["ns"]), str(runs["oracle"]), "-o", str(out),
                 "--no-figures"]) == 0
    md = (out / "report.md").read_text()
    section = md.split("## Open causal tasks")[1].split("\n## ")[0]
    ns_row = next(line for line in section.splitlines() if " ns " in line)
    # cell means over the two tasks: exact 1/2, P = R = F1 = (1 + 0.5) / 2, SHD (0 + 2) / 2
    assert "| 2 | 0.50 | 0.75 | 0.75 | 0.75 | 1.00 |" in ns_row, ns_row
    data = json.loads((out / "report.json").read_text())
    ns_cell = next(c for c in data["causal_open"] if c["cell"]["arch"] == "ns")
    assert ns_cell["edge_f1"] == pytest.approx(0.75) and ns_cell["shd"] == pytest.approx(1.0)
    oracle_cell = next(c for c in data["causal_open"] if c["cell"]["arch"] == "oracle")
    assert oracle_cell["exact"] == 1.0 and oracle_cell["shd"] == 0.0


def test_reports_without_open_tasks_have_no_open_section(tmp_path):
    path = tmp_path / "c.jsonl"
    write_tasks(path, list(TRACK.generate(1, 3, "easy")))
    assert main(["solve", str(path), "--arch", "oracle", "--run", str(tmp_path / "r")]) == 0
    assert main(["report", str(tmp_path / "r"), "-o", str(tmp_path / "rep"),
                 "--no-figures"]) == 0
    assert "Open causal" not in (tmp_path / "rep" / "report.md").read_text()
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert "causal_open" not in data
    assert all("edge_f1" not in c for c in data["cells"])
    results = _results(tmp_path / "r")
    assert all(r["metrics"] is None for r in results.values())


def test_scir_check_on_an_open_task(ns_run, tmp_path, capsys):
    path, exact, wrong, renamed, runs = ns_run
    right = tmp_path / "right.txt"
    right.write_text(exact.answer.replace("; ", "\n") + "\n")
    assert main(["check", str(path), str(right), "--task", exact.task_id]) == 0
    assert "SHD 0" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text(_text(renamed) + "\n")
    assert main(["check", str(path), str(bad), "--task", wrong.task_id, "--json"]) == 1
    text = capsys.readouterr().out
    assert '"shd": 2' in text and '"edge_f1": 0.5' in text
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("Foo -> XYZ\n")
    assert main(["check", str(path), str(unknown), "--task", exact.task_id]) == 2
    assert "unknown protein" in capsys.readouterr().err


def test_a_release_record_of_an_open_task_scores_as_the_task(tasks, tmp_path):
    from scir.release.scir_json import record, record_task

    t = next(t for t in tasks if t.params["connections"] == 3)
    data = json.loads(json.dumps(record(t)))
    assert data["scoring"] == "edges"                      # the record says how it is scored
    assert record(next(TRACK.generate(1, 9, "easy")))["scoring"] == "option"
    rebuilt = record_task(data)
    assert rebuilt.params == {} and rebuilt.formal == {}
    for text in ("Answer: " + t.answer, "Answer: " + _text(sorted(_gold(t))[1:])):
        assert TRACK.scorer().assess(rebuilt, text) == TRACK.scorer().assess(t, text)


def test_cot_answers_are_parsed_and_scored(tasks, tmp_path):
    small = [t for t in tasks if t.params["connections"] in (2, 3)][:2]
    right, wrong = small
    answers = {right.task_id: "XYZ looks downstream...\n**Answer:** " + right.answer.replace(
        "; ", ", "), wrong.task_id: "Answer: " + _text(sorted(_gold(wrong))[1:])}
    path = tmp_path / "cot.jsonl"
    write_tasks(path, small)
    seen = []

    def script(body, index):
        prompt = "\n".join(m["content"] for m in body["messages"])
        seen.append(prompt)
        for t in small:
            if t.blocks[1][:400] in prompt:
                return Reply(body=chat_body(answers[t.task_id]))
        return Reply(body=chat_body("no idea"))

    with FakeOpenAIServer(script) as srv:
        assert main(["solve", str(path), "--arch", "cot", "--model", f"vllm:fake@{srv.url}",
                     "--run", str(tmp_path / "run")]) == 0
    assert all("Answer: A -> B; C -> D" in p and "Options:" not in p for p in seen)
    results = _results(tmp_path / "run")
    assert results[right.task_id]["correct"] and results[right.task_id]["answer"] == right.answer
    bad = results[wrong.task_id]
    c = wrong.params["connections"]
    assert not bad["correct"]
    # one gold edge left out: P = 1, R = (c - 1) / c, SHD 1
    assert bad["metrics"] == pytest.approx(_hand_metrics(set(sorted(_gold(wrong))[1:]),
                                                         _gold(wrong)))
    assert bad["metrics"]["edge_precision"] == 1.0 and bad["metrics"]["shd"] == 1
    assert bad["metrics"]["edge_recall"] == pytest.approx((c - 1) / c)


def test_an_experiment_section_with_open_params_runs_and_reports(tmp_path):
    exp = tmp_path / "open.toml"
    exp.write_text('name = "open"\npresentations = ["nl"]\narchitectures = ["oracle"]\n'
                   'seeds = [0]\ntasks_per_cell = 2\n\n[tasks.causal.hard]\nn = 2\nseed = 4\n'
                   'params = { nodes = 4, connections = 2, answer = "open" }\n')
    assert main(["eval", str(exp), "--run", str(tmp_path / "run")]) == 0
    results = _results(tmp_path / "run")
    assert len(results) == 2 and all(r["correct"] and r["difficulty"] == "hard"
                                     for r in results.values())
    assert main(["report", str(tmp_path / "run"), "-o", str(tmp_path / "rep"),
                 "--no-figures"]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "INCOMPLETE" not in md
    assert "| causal/hard nl oracle none | 2 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 |" in md


def test_audit_leaves_open_tasks_out_with_a_message(task_file, capsys):
    assert main(["audit", str(task_file)]) == 2
    err = capsys.readouterr().err
    assert "open causal tasks (no options to pick from): not audited" in err
    assert "Traceback" not in err
