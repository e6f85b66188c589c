"""GIES: ours (solvers.gies) against the reference package gies 0.0.3, on random instances and
on the real Sachs data; input errors; the CLI; the causal-learn GES wrapper; Sachs loading."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import gies
import numpy as np
import pandas as pd
import pytest

from scir.data.sachs import (
    ENV_COLUMN,
    SIX_ENVIRONMENTS,
    ground_truth_edges,
    load_sachs,
    resolve_data_dir,
)
from scir.errors import ConfigError, ResourceError
from solvers.errors import SolverInputError
from solvers.gies import GaussIntScore, GiesResult, fit, fit_frame, fit_ges
from solvers.gies.cli import main as cli_main
from solvers.gies.graphs import PDAG, distinguishing_pairs, replace_unprotected
from solvers.gies.search import subsets_in_order
from solvers.gies.simulate import random_instance

N_RANDOM = 32


def _params(i: int) -> tuple[int, int, int, float]:
    """Instance i: every node count 5..12 with every environment count 1..4, four sample
    sizes, three densities."""
    return 5 + i % 8, 1 + (i // 8) % 4, (25, 60, 150, 400)[(i * 3) % 4], (1.5, 2.5, 3.5)[(i // 2) % 3]


def _instance(i: int):
    p, n_envs, n, degree = _params(i)
    return random_instance(p, n_envs, n, seed=i, expected_degree=degree)


@pytest.fixture(scope="module")
def our_results() -> dict[int, GiesResult]:
    return {i: fit(_instance(i).data, _instance(i).targets) for i in range(N_RANDOM)}


# ---------------------------------------------------------------------------------------------
# (a) random instances: same graph and score as the package


@pytest.mark.parametrize("i", range(N_RANDOM))
def test_matches_package_on_random_instance(i: int, our_results: dict[int, GiesResult]) -> None:
    inst = _instance(i)
    A_ref, score_ref = gies.fit_bic(inst.data, inst.targets)
    ours = our_results[i]
    np.testing.assert_array_equal(ours.adjacency != 0, A_ref != 0)
    assert ours.score == pytest.approx(score_ref, abs=1e-6)


def test_random_instances_cover_sizes_and_all_phases(our_results: dict[int, GiesResult]) -> None:
    combos = {(_params(i)[0], _params(i)[1]) for i in range(N_RANDOM)}
    assert combos == {(p, e) for p in range(5, 13) for e in range(1, 5)}
    phases = collections.Counter(step[0] for r in our_results.values() for step in r.steps)
    assert phases["forward"] > 0 and phases["backward"] > 0 and phases["turning"] > 0, phases
    assert sum(r.n_edges for r in our_results.values()) > 0


def test_score_matches_package_score_of_fixed_dag() -> None:
    inst = random_instance(7, 3, 80, seed=99)
    ref = gies.scores.GaussIntL0Pen(inst.data, inst.targets)
    ours = GaussIntScore(inst.data, inst.targets)
    assert ours.graph_score(inst.dag) == pytest.approx(ref.full_score(inst.dag), abs=1e-6)
    assert ours.local_score(3, 0b101) == pytest.approx(ref.local_score(3, {0, 2}), abs=1e-9)
    assert ours.lmbda == pytest.approx(0.5 * np.log(3 * 80))


def test_phase_options_match_package() -> None:
    inst = _instance(3)
    A_ref, s_ref = gies.fit_bic(inst.data, inst.targets, phases=["forward"], iterate=False)
    ours = fit(inst.data, inst.targets, phases=["forward"], iterate=False)
    np.testing.assert_array_equal(ours.adjacency != 0, A_ref != 0)
    assert ours.score == pytest.approx(s_ref, abs=1e-6)
    assert {s[0] for s in ours.steps} == {"forward"}


def test_deterministic_and_independent_of_column_dtype() -> None:
    inst = _instance(12)
    a = fit(inst.data, inst.targets)
    b = fit([d.astype(np.float32).astype(np.float64) for d in inst.data], [list(t) for t in inst.targets])
    c = fit(inst.data, inst.targets)
    np.testing.assert_array_equal(a.adjacency, c.adjacency)
    assert a.score == c.score and a.steps == c.steps
    assert b.adjacency.shape == a.adjacency.shape


# ---------------------------------------------------------------------------------------------
# graph utilities


def test_subsets_in_order_is_binary_counting_lowest_node_first() -> None:
    assert subsets_in_order(0) == [0]
    # nodes 1 and 4: [], [4], [1], [1, 4]
    assert subsets_in_order(0b10010) == [0, 0b10000, 0b00010, 0b10010]


def test_replace_unprotected_chain_collider_and_intervention() -> None:
    chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    collider = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]])
    undirected = replace_unprotected(PDAG.from_matrix(chain), distinguishing_pairs(3, [[]]))
    np.testing.assert_array_equal(undirected.to_matrix(), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    kept = replace_unprotected(PDAG.from_matrix(collider), distinguishing_pairs(3, [[]]))
    np.testing.assert_array_equal(kept.to_matrix(), collider)
    # an intervention on node 1 orients both chain edges (0 -> 1 by the target, 1 -> 2 too)
    oriented = replace_unprotected(PDAG.from_matrix(chain), distinguishing_pairs(3, [[], [1]]))
    np.testing.assert_array_equal(oriented.to_matrix(), chain)


def test_result_edge_helpers_and_dict() -> None:
    A = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]])
    named = GiesResult(adjacency=A, score=-1.5, names=["a", "b", "c"])
    assert named.directed_edges() == [("a", "b")]
    assert named.undirected_edges() == [("a", "c")]
    assert named.n_edges == 2
    plain = GiesResult(adjacency=A, score=-1.5)
    assert plain.directed_edges() == [(0, 1)] and type(plain.directed_edges()[0][0]) is int
    d = named.to_dict()
    assert d["directed"] == [["a", "b"]] and d["undirected"] == [["a", "c"]] and d["score"] == -1.5
    json.dumps(d)


# ---------------------------------------------------------------------------------------------
# (b) real Sachs data


@pytest.fixture(scope="module")
def sachs():
    # the real data: $SCIR_SACHS_DIR when set, else the copy shipped in scir/data/sachs/
    return load_sachs()


def _sachs_check(sachs, environments):
    data, targets = sachs.arrays(environments, log=True)
    ours = fit(data, targets, names=sachs.proteins)
    A_ref, score_ref = gies.fit_bic(data, targets)
    np.testing.assert_array_equal(ours.adjacency != 0, A_ref != 0)
    assert ours.score == pytest.approx(score_ref, abs=1e-6)
    consensus = set(ground_truth_edges("20"))
    skeleton = {frozenset(e) for e in consensus}
    found = ours.directed_edges() + ours.undirected_edges()
    in_skeleton = sum(frozenset(e) in skeleton for e in found)
    oriented = sum(e in consensus for e in ours.directed_edges())
    return len(found), in_skeleton, oriented, len(ours.directed_edges())


def test_sachs_nine_environments(sachs) -> None:
    assert sachs.counts() == {
        "observational": 853, "icam2": 902, "aktinhib": 911, "g0076": 723, "psitect": 810,
        "u0126": 799, "ly": 848, "pma": 913, "b2camp": 707,
    }
    found, in_skeleton, oriented, directed = _sachs_check(sachs, None)
    assert (found, in_skeleton) == (10, 9)
    assert (oriented, directed) == (6, 9)


def test_sachs_six_environments(sachs) -> None:
    found, in_skeleton, _, _ = _sachs_check(sachs, SIX_ENVIRONMENTS)
    assert (found, in_skeleton) == (10, 9)


def test_sachs_fit_frame_matches_arrays(sachs) -> None:
    frame = sachs.frame[sachs.proteins + [ENV_COLUMN]].copy()
    frame[sachs.proteins] = np.log(frame[sachs.proteins])
    by_frame = fit_frame(frame, ENV_COLUMN, sachs.targets)
    by_arrays = fit(*sachs.arrays(), names=sachs.proteins)
    assert by_frame.names == sachs.proteins
    assert by_frame.directed_edges() == by_arrays.directed_edges()
    assert by_frame.score == pytest.approx(by_arrays.score, abs=1e-9)


def test_sachs_ground_truth_lists(sachs) -> None:
    e20, e19, e17 = (ground_truth_edges(n) for n in ("20", "19", "17"))
    assert (len(e20), len(e19), len(e17)) == (20, 19, 17)
    assert ("pka", "raf") in e20 and set(e19) == set(e20) - {("pka", "raf")}
    assert {frozenset(e) for e in e17} <= {frozenset(e) for e in e20}
    assert ("plc", "pip3") in e17 and ("pip3", "plc") in e20
    assert len(set(e17) & set(e20)) == 16


def test_sachs_loader_reads_a_small_table(tmp_path: Path, monkeypatch) -> None:
    header = ["raf", "mek", "plc", "pip2", "pip3", "erk", "akt", "pka", "pkc", "p38", "jnk",
              "cd3_cd28", "icam2", "aktinhib", "g0076", "psitect", "u0126", "ly", "pma", "b2camp"]
    rows = [
        [1.0] * 11 + [0.99, 0.01, -0.02, 0, 0, 0, 0, 0, 0.01],   # cd3_cd28 alone
        [2.0] * 11 + [1.01, 0, 0, 0, 0, 0.98, 0, 0, 0],          # + u0126
        [3.0] * 11 + [0.02, 0, 0, 0, 0, 0, 0, 0.97, 0],           # pma
    ]
    (tmp_path / "sachs.2005.with.jittered.experimental.continuous.txt").write_text(
        "\t".join(header) + "\n" + "\n".join("\t".join(str(v) for v in r) for r in rows) + "\n")
    monkeypatch.setenv("SCIR_SACHS_DIR", str(tmp_path))
    assert resolve_data_dir() == tmp_path
    data = load_sachs()
    assert data.frame[ENV_COLUMN].tolist() == ["observational", "u0126", "pma"]
    assert data.frame["cd3_cd28"].tolist() == [1, 1, 0]
    arrays, targets = data.arrays(["u0126", "pma"], log=True)
    assert targets == [[1], [8]] and arrays[1][0, 0] == pytest.approx(np.log(3.0))
    rows.append([1.0] * 11 + [1, 0, 1, 0, 0, 1, 0, 0, 0])  # two reagents
    (tmp_path / "sachs.2005.with.jittered.experimental.continuous.txt").write_text(
        "\t".join(header) + "\n" + "\n".join("\t".join(str(v) for v in r) for r in rows) + "\n")
    with pytest.raises(ResourceError, match="two reagents"):
        load_sachs()
    with pytest.raises(ConfigError, match="Sachs data not found"):
        load_sachs(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="unknown Sachs edge list"):
        ground_truth_edges("18")


# ---------------------------------------------------------------------------------------------
# (c) input errors


def _two_envs(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((20, 3)), rng.standard_normal((15, 3))]


@pytest.mark.parametrize(
    ("data", "targets", "message"),
    [
        ([_two_envs()[0], np.ones((10, 4))], [[], []], "has 4 columns but environment 0 has 3"),
        (_two_envs(), [[1], [1]], "variable 1 is intervened on in every environment"),
        (_two_envs(), [[0]], "2 data environments but 1 target lists"),
        (_two_envs(), [[], [3]], "target 3 of environment 1 is out of range"),
        (_two_envs(), [[], [0, 0]], "listed twice"),
        (_two_envs(), [[], ["a"]], "is not a column index"),
        (_two_envs(), [[], [True]], "is not a column index"),
        ([_two_envs()[0], _two_envs()[1][:1]], [[], []], "needs at least 2 rows, got 1"),
        ([np.arange(10.0)], [[]], "expected a 2-D array"),
        ([], [], "no environment"),
        (np.zeros((5, 2)), [[]], "list of 2-D arrays"),
        ([np.array([["a", "b"], ["c", "d"]])], [[]], "not numeric"),
    ],
)
def test_bad_input_raises(data, targets, message: str) -> None:
    with pytest.raises(SolverInputError, match=message):
        fit(data, targets)


def test_nan_and_constant_columns_raise() -> None:
    data = _two_envs()
    data[1][4, 2] = np.nan
    with pytest.raises(SolverInputError, match=r"environment 1: non-finite value .* row 4, column 2"):
        fit(data, [[], []])
    data = _two_envs()
    data[0][:, 1] = 5.0
    data[1][:, 1] = 7.0  # constant within each environment
    with pytest.raises(SolverInputError, match="variable 1 is constant"):
        fit(data, [[], []])
    data = _two_envs()
    data[0][:, 2] = 2 * data[0][:, 0]
    data[1][:, 2] = 2 * data[1][:, 0]
    with pytest.raises(SolverInputError, match="linearly dependent|exact linear function"):
        fit(data, [[], []])


def test_package_rejects_the_same_unconservative_family() -> None:
    with pytest.raises(ValueError, match="not conservative"):
        gies.fit_bic(_two_envs(), [[1], [1]])


def test_names_and_phase_errors() -> None:
    with pytest.raises(SolverInputError, match="got 2 names for 3 variables"):
        fit(_two_envs(), [[], []], names=["a", "b"])
    with pytest.raises(SolverInputError, match="unknown phase 'sideways'"):
        fit(_two_envs(), [[], []], phases=["sideways"])


def test_fit_frame_errors() -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.standard_normal((30, 3)), columns=["a", "b", "c"])
    frame["env"] = ["obs"] * 15 + ["kd"] * 15
    result = fit_frame(frame, "env", {"obs": [], "kd": ["b"]})
    assert result.names == ["a", "b", "c"]
    with pytest.raises(SolverInputError, match="environment column 'cond' not in the table"):
        fit_frame(frame, "cond", {"obs": []})
    with pytest.raises(SolverInputError, match="environment 'kd' of the table has no entry"):
        fit_frame(frame, "env", {"obs": []})
    with pytest.raises(SolverInputError, match=r"targets \['z'\] of environment 'kd'"):
        fit_frame(frame, "env", {"obs": [], "kd": ["z"]})
    with pytest.raises(SolverInputError, match=r"environments \['ko'\] that are not in the table"):
        fit_frame(frame, "env", {"obs": [], "kd": [], "ko": ["a"]})


# ---------------------------------------------------------------------------------------------
# CLI


def _write_table(tmp_path: Path) -> tuple[Path, np.ndarray]:
    inst = random_instance(5, 2, 150, seed=4)
    names = ["v0", "v1", "v2", "v3", "v4"]
    frames = []
    for e, block in enumerate(inst.data):
        f = pd.DataFrame(block, columns=names)
        f.insert(0, "condition", [10 * e] * len(block))
        frames.append(f)
    path = tmp_path / "cells.csv"
    pd.concat(frames).to_csv(path, index=False)
    return path, inst


def test_cli_prints_edges_and_writes_json(tmp_path: Path, capsys) -> None:
    path, inst = _write_table(tmp_path)
    targets = {"0": [], "10": [f"v{t}" for t in inst.targets[1]]}
    out = tmp_path / "graph.json"
    argv = [str(path), "--env-column", "condition", "--targets", json.dumps(targets), "-o", str(out)]
    assert cli_main(argv) == 0
    printed = capsys.readouterr().out
    reference = fit(inst.data, inst.targets, names=[f"v{i}" for i in range(5)])
    summary = json.loads(out.read_text())
    assert summary["score"] == pytest.approx(reference.score, abs=1e-9)
    assert summary["directed"] == [list(e) for e in reference.directed_edges()]
    for a, b in reference.directed_edges():
        assert f"{a} -> {b}\n" in printed
    assert f"score: {reference.score:.6f}" in printed
    # targets from a file give the same answer
    tfile = tmp_path / "targets.json"
    tfile.write_text(json.dumps(targets))
    assert cli_main([str(path), "--env-column", "condition", "--targets", str(tfile)]) == 0
    assert capsys.readouterr().out == printed


def test_cli_errors_exit_2(tmp_path: Path, capsys) -> None:
    path, _ = _write_table(tmp_path)
    assert cli_main([str(path), "--env-column", "condition", "--targets", "{not json"]) == 2
    assert "--targets is not valid JSON" in capsys.readouterr().err
    assert cli_main([str(path), "--env-column", "condition", "--targets", '{"0": []}']) == 2
    assert "environment 10 of the table has no entry" in capsys.readouterr().err
    assert cli_main([str(path), "--env-column", "condition", "--targets", '{"0": [], "10": []}',
                     "--log"]) == 2
    assert "--log needs positive values" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    assert "example:" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# GES through causal-learn


def test_fit_ges_chain_and_collider() -> None:
    rng = np.random.default_rng(0)
    n = 2000
    a = rng.standard_normal(n)
    b = a + rng.standard_normal(n)
    c = b + rng.standard_normal(n)
    chain = np.c_[a, b, c]
    result = fit_ges(chain)
    assert result.directed_edges() == [] and result.undirected_edges() == [(0, 1), (1, 2)]
    score = GaussIntScore([chain], [[]])
    dag_score = score.local_score(0, 0) + score.local_score(1, 0b001) + score.local_score(2, 0b010)
    assert result.score == pytest.approx(dag_score, abs=1e-6)

    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    z = x - y + rng.standard_normal(n)
    collider = fit_ges(np.c_[x, y, z], names=["x", "y", "z"])
    assert collider.directed_edges() == [("x", "z"), ("y", "z")] and collider.undirected_edges() == []


def test_fit_ges_errors() -> None:
    with pytest.raises(SolverInputError, match="NaN"):
        fit_ges(np.array([[1.0, np.nan], [2.0, 3.0], [1.0, 0.0]]))
    with pytest.raises(SolverInputError, match="2-D"):
        fit_ges(np.arange(5.0))
