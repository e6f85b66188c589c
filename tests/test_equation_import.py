"""``scir import llmsr`` on the public layouts, written here small: LLM-SR's data folders (no
ground truth, a specification file with the variables' meanings), LSR-Synth copies
(``<domain>/<problem>/{train,test_id,test_ood}.csv`` at any depth, a UTF-8 BOM in the header,
a folder missing a split, an extra file), LLM-SRBench's HDF5 file (output in column 0,
float32) with its problem table (parquet and JSON); and symbolic accuracy "n/a" -- never 0 --
in the report (Markdown, JSON) and the explorer when no problem has a ground truth."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scir.cli import main
from scir.errors import ConfigError, TaskFormatError
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks
from scir.tracks import get_track
from scir.tracks.equation.llmsr import import_llmsr

TRACK = get_track("equation")
BOM = "\ufeff"


def _law(domain: str, X: np.ndarray) -> np.ndarray:
    if domain == "chem_react":                       # t, A -> dA_dt
        return -0.7 * X[:, 1] + 0.2 * X[:, 1] ** 2 * np.sin(X[:, 0])
    if domain == "bio_pop_growth":                   # t, P -> dP_dt
        return 0.3 * X[:, 1] * (1 - X[:, 1] / 40.0) + 0.1 * X[:, 1] * np.exp(-0.2 * X[:, 0])
    if domain == "phys_osc":                         # x, t, v -> dv_dt
        return -1.2 * X[:, 0] - 0.3 * X[:, 2] + 0.5 * np.sin(0.8 * X[:, 1])
    return 2.5 * X[:, 0] - 0.01 * X[:, 0] * X[:, 1]     # matsci: epsilon, T -> sigma


HEADERS = {"chem_react": ["t", "A", "dA_dt"], "bio_pop_growth": ["t", "P", "dP_dt"],
           "phys_osc": ["x", "t", "v", "dv_dt"], "matsci": ["epsilon", "T", "sigma"]}
TRUTHS = {"chem_react": "-0.7*A(t) + 0.2*A(t)**2*sin(t)",
          "bio_pop_growth": "0.3*P*(1 - P/40.0) + 0.1*P*exp(-0.2*t)",
          "phys_osc": "-1.2*x - 0.3*v + 0.5*sin(0.8*t)",
          "matsci": "2.5*epsilon - 0.01*epsilon*T"}


def _split(domain: str, n: int, seed: int, ood: bool = False) -> np.ndarray:
    """Rows (inputs then target), float32 values as LLM-SRBench stores them."""
    rng = np.random.default_rng(seed)
    width = len(HEADERS[domain]) - 1
    X = rng.uniform(2.0 if ood else 0.5, 3.0 if ood else 2.0, (n, width)).astype(np.float32)
    y = _law(domain, X.astype(np.float64)).astype(np.float32)
    return np.column_stack([X, y])


def _write_csv(folder: Path, domain: str, splits=("train", "test_id", "test_ood"),
               bom: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, split in enumerate(splits):
        rows = _split(domain, 40, i, ood=split == "test_ood")
        lines = [(BOM if bom else "") + ",".join(HEADERS[domain])]
        lines += [",".join(repr(float(v)) for v in r) for r in rows]
        (folder / f"{split}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def lsr_synth(tmp_path: Path) -> Path:
    """An LSR-Synth copy: domains at two depths, BOM headers, no ground truth, one folder
    missing test_ood, one extra file."""
    root = tmp_path / "copies"
    _write_csv(root / "lsr_synth" / "chem_react" / "CRK0", "chem_react")
    _write_csv(root / "lsr_synth" / "chem_react" / "CRK1", "chem_react", bom=False)
    _write_csv(root / "mirror" / "v2" / "lsr_synth" / "bio_pop_growth" / "BPG0",
               "bio_pop_growth")
    _write_csv(root / "lsr_synth" / "phys_osc" / "PO0", "phys_osc")
    (root / "lsr_synth" / "phys_osc" / "PO0" / "valid.csv").write_text("x\n1\n")
    _write_csv(root / "lsr_synth" / "matsci" / "MatSci9", "matsci",
               splits=("train", "test_id"))
    transform = root / "lsr_transform" / "II.6.15a_2_0"          # no OOD split: an empty
    _write_csv(transform, "matsci", splits=("train", "test_id"))  # test_ood.csv
    (transform / "test_ood.csv").write_text("")
    return root


def test_lsr_synth_folders_any_depth_bom_no_truth(lsr_synth: Path, capsys) -> None:
    out = lsr_synth.parent / "lsr.jsonl"
    assert main(["import", "llmsr", str(lsr_synth), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "imported 4 equation tasks" in captured.out
    assert "4 without ground truth: symbolic accuracy n/a" in captured.out
    assert ("skipped lsr_synth/matsci/MatSci9: missing test_ood.csv (a problem needs "
            "train.csv, test_id.csv, test_ood.csv; found train.csv, test_id.csv)") in captured.err
    assert "note lsr_synth/phys_osc/PO0: ignored valid.csv" in captured.err
    assert ("skipped lsr_transform/II.6.15a_2_0: empty test_ood.csv (a problem needs "
            "train.csv, test_id.csv, test_ood.csv; found train.csv, test_id.csv)") in captured.err
    tasks = {t.domain_metadata["problem"]: t for t in read_tasks(out)}
    assert sorted(tasks) == ["BPG0", "CRK0", "CRK1", "PO0"]
    expected = {"CRK0": ("chemistry", "chem_react"), "CRK1": ("chemistry", "chem_react"),
                "BPG0": ("biology", "bio_pop_growth"), "PO0": ("physics", "phys_osc")}
    for name, (science, domain) in expected.items():
        task = tasks[name]
        formal = TRACK.formal(task)
        assert (formal.science, task.domain_metadata["domain"]) == (science, domain)
        assert list(formal.inputs) + [formal.output] == HEADERS[domain]     # BOM dropped
        assert task.answer == "" and task.answer_pool == [] and not formal.has_truth
        assert task.domain_metadata["ground_truth"] is False
        assert len(formal.splits["train"].X) == 40
    assert tasks["BPG0"].domain_metadata["source"] == \
        "mirror/v2/lsr_synth/bio_pop_growth/BPG0"
    assert main(["verify", str(out)]) == 0
    again = lsr_synth.parent / "again.jsonl"
    assert main(["import", "llmsr", str(lsr_synth), "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()                 # same input, same bytes


def test_no_truth_metrics_symbolic_is_not_applicable(lsr_synth: Path) -> None:
    task = import_llmsr(lsr_synth).tasks[0]
    right = TRACK.scorer().assess(task, "-0.7*A + 0.2*A**2*sin(t)")
    assert right.correct and right.metrics["acc_0.001"]
    assert right.metrics["symbolic"] is None                     # n/a, not False
    wrong = TRACK.scorer().assess(task, "p0*A")
    assert wrong.metrics["symbolic"] is None
    assert TRACK.scorer().assess(task, None).metrics["symbolic"] is None
    with pytest.raises(Exception, match="no ground truth"):
        TRACK.solve_formal(task, TRACK.formal(task))


def test_table_gives_truth_and_descriptions_to_csv_folders(lsr_synth: Path, tmp_path) -> None:
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"lsr_synth_chem_react": [
        {"name": "CRK0", "symbols": ["dA_dt", "t", "A"],
         "symbol_descs": ["Rate of change of concentration", "Time", "Concentration at time t"],
         "symbol_properties": ["O", "V", "V"], "expression": TRUTHS["chem_react"]}]}))
    out = tmp_path / "t.jsonl"
    assert main(["import", "llmsr", str(lsr_synth), "--table", str(table), "-o", str(out)]) == 0
    tasks = {t.domain_metadata["problem"]: t for t in read_tasks(out)}
    crk0 = tasks["CRK0"]
    assert crk0.answer == "-0.7*A + 0.2*A**2*sin(t)" and crk0.domain_metadata["ground_truth"]
    assert "t (Time); A (Concentration at time t)" in crk0.blocks[0]
    assert "Output: dA_dt (Rate of change of concentration)" in crk0.blocks[0]
    assert not tasks["CRK1"].domain_metadata["ground_truth"]     # not in the table


def test_llmsr_repository_layout_with_specs(tmp_path: Path) -> None:
    repo = tmp_path / "LLM-SR"
    _write_csv(repo / "data" / "oscillator1", "phys_osc", bom=False)
    (repo / "specs").mkdir()
    (repo / "specs" / "specification_oscillator1_numpy.txt").write_text(
        '"""\nFind the mathematical function skeleton that represents acceleration in a '
        'damped nonlinear oscillator system with driving force, given data on position, '
        'time, and velocity.\n"""\n\nimport numpy as np\n\n@equation.evolve\n'
        'def equation(x: np.ndarray, t: np.ndarray, v: np.ndarray, params: np.ndarray) '
        '-> np.ndarray:\n    """ Mathematical function for acceleration in a damped '
        'nonlinear oscillator\n\n    Args:\n        x: A numpy array representing '
        'observations of current position.\n        t: A numpy array representing time.\n'
        '        v: A numpy array representing observations of velocity.\n'
        '        params: Array of numeric constants or parameters to be optimized\n\n'
        '    Return:\n        A numpy array representing acceleration as the result of '
        'applying the mathematical function to the inputs.\n    """\n    return x\n')
    task, = import_llmsr(repo).tasks
    assert TRACK.formal(task).science == "physics" and not TRACK.formal(task).has_truth
    assert task.domain_metadata["domain"] == "oscillator1"
    context = task.blocks[0]
    assert "The equation sought gives acceleration in a damped nonlinear oscillator" in context
    assert "x (current position); t (time); v (velocity)" in context
    assert "Output: dv_dt (acceleration)" in context
    tasks, rendered = tmp_path / "t.jsonl", tmp_path / "r.jsonl"
    write_tasks(tasks, [task])
    assert main(["render", str(tasks), "--renderer", "template", "-o", str(rendered)]) == 0
    document = read_tasks(rendered)[0].documents[0].text     # the meanings stay, and
    assert "current position" in document and "velocity" in document   # the rows read back


def _write_hdf5(path: Path, groups: dict[str, dict[str, np.ndarray]]) -> None:
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w") as f:
        for group, datasets in groups.items():
            for name, array in datasets.items():
                f.create_dataset(f"{group}/{name}", data=array)


def _output_first(rows: np.ndarray) -> np.ndarray:
    return np.column_stack([rows[:, -1], rows[:, :-1]]).astype(np.float32)


@pytest.fixture
def hdf5_file(tmp_path: Path) -> Path:
    """LLM-SRBench's layout: /lsr_synth/<domain>/<problem>/{train_data, id_test_data,
    ood_test_data}, output in column 0, float32; one problem without its OOD split."""
    groups = {}
    for domain, name in (("chem_react", "CRK3"), ("matsci", "MatSci2"),
                         ("phys_osc", "PO7")):
        groups[f"lsr_synth/{domain}/{name}"] = {
            "train_data": _output_first(_split(domain, 60, 0)),
            "id_test_data": _output_first(_split(domain, 30, 1)),
            "ood_test_data": _output_first(_split(domain, 30, 2, ood=True))}
    groups["lsr_synth/bio_pop_growth/BPG1"] = {
        "train_data": _output_first(_split("bio_pop_growth", 60, 0))}
    path = tmp_path / "lsr_bench_data.hdf5"
    _write_hdf5(path, groups)
    return path


def test_hdf5_with_parquet_table(hdf5_file: Path, tmp_path: Path, capsys) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "table" / "data"
    folder.mkdir(parents=True)
    for domain, name, descs in (
            ("chem_react", "CRK3", ["Rate of change of concentration", "Time",
                                    "Concentration at time t"]),
            ("matsci", "MatSci2", ["Stress", "Strain", "Temperature"])):
        symbols = HEADERS[domain][-1:] + HEADERS[domain][:-1]
        record = {"name": name, "symbols": symbols, "symbol_descs": descs,
                  "symbol_properties": ["O"] + ["V"] * (len(symbols) - 1),
                  "expression": TRUTHS[domain]}
        pq.write_table(pa.Table.from_pylist([record]),
                       folder / f"lsr_synth_{domain}-00000-of-00001.parquet")
    out = tmp_path / "h5.jsonl"
    assert main(["import", "llmsr", str(hdf5_file), "--table", str(tmp_path / "table"),
                 "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "skipped lsr_synth/bio_pop_growth/BPG1: missing the test_id, test_ood split(s)" \
        in captured.err
    assert "note lsr_synth/phys_osc/PO7: 'PO7' is not in the problem table; phys_osc's " \
           "default names" in captured.err
    tasks = {t.domain_metadata["problem"]: t for t in read_tasks(out)}
    assert sorted(tasks) == ["CRK3", "MatSci2", "PO7"]
    crk, mat, po = tasks["CRK3"], tasks["MatSci2"], tasks["PO7"]
    assert TRACK.formal(crk).inputs == ("t", "A") and TRACK.formal(crk).output == "dA_dt"
    assert crk.answer == "-0.7*A + 0.2*A**2*sin(t)"              # A(t) read as A
    assert (TRACK.formal(mat).science, mat.domain_metadata["domain"]) == ("materials",
                                                                          "matsci")
    assert "epsilon (Strain); T (Temperature)" in mat.blocks[0]
    assert TRACK.formal(po).inputs == ("x", "t", "v") and po.answer == ""
    assert TRACK.formal(crk).splits["train"].y[0] == pytest.approx(
        float(_split("chem_react", 60, 0)[0, -1]), rel=1e-5)      # output column moved last
    assert main(["verify", str(out)]) == 0                       # truths reproduce float32 data
    assert TRACK.scorer().score(crk, TRUTHS["chem_react"].replace("A(t)", "A"))


def test_hdf5_without_table_uses_defaults_or_generic_names(hdf5_file: Path) -> None:
    imported = import_llmsr(hdf5_file)
    tasks = {t.domain_metadata["problem"]: t for t in imported.tasks}
    assert TRACK.formal(tasks["CRK3"]).inputs == ("t", "A")
    assert TRACK.formal(tasks["MatSci2"]).inputs == ("x1", "x2")
    assert TRACK.formal(tasks["MatSci2"]).output == "y"
    assert ("lsr_synth/matsci/MatSci2", "no names known: x1 .. xk and y (give --table)") \
        in imported.notes


@pytest.mark.parametrize("make,error,match", [
    (lambda p: p / "nothing", ConfigError, "neither a folder"),
    (lambda p: _file(p / "bad.hdf5", b"not hdf5"), TaskFormatError, "not a readable HDF5"),
])
def test_bad_sources_are_clear_errors(tmp_path: Path, make, error, match) -> None:
    pytest.importorskip("h5py")
    with pytest.raises(error, match=match):
        import_llmsr(make(tmp_path))


def _file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_cli_errors_exit_2_without_traceback(tmp_path: Path, lsr_synth: Path, capsys) -> None:
    only = tmp_path / "only"
    _write_csv(only / "chem_react" / "C0", "chem_react", splits=("train",))
    assert main(["import", "llmsr", str(only), "-o", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing test_id.csv, test_ood.csv" in err and "Traceback" not in err
    assert "no complete problem found" in err
    assert main(["import", "llmsr", str(lsr_synth), "--table", str(tmp_path / "none.json"),
                 "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_report_and_explorer_show_symbolic_not_applicable(lsr_synth: Path, tmp_path: Path
                                                           ) -> None:
    tasks = tmp_path / "t.jsonl"
    assert main(["import", "llmsr", str(lsr_synth), "-o", str(tasks)]) == 0
    run = tmp_path / "run"
    assert main(["solve", str(tasks), "--arch", "pyoperon", "--symreg-seconds", "1",
                 "--run", str(run)]) == 0
    out = tmp_path / "rep"
    assert main(["report", str(run), "-o", str(out), "--no-figures"]) == 0
    md = (out / "report.md").read_text()
    section = md.split("## Equation discovery")[1].split("\n## ")[0]
    row = next(line for line in section.splitlines() if "pyoperon" in line)
    assert row.rstrip(" |").endswith("n/a"), row
    equation = json.loads((out / "report.json").read_text())["equation"][0]
    assert equation["symbolic"]["estimate"] is None and equation["symbolic"]["not_applicable"]
    # by discipline: the fixture's problems are chemistry (2), biology, physics
    by = md.split("By discipline")[1].split("\n## ")[0]
    disciplines = [line.split("|")[2].strip() for line in by.splitlines()
                   if "pyoperon" in line]
    assert disciplines == ["biology", "chemistry", "physics"], by
    split = json.loads((out / "report.json").read_text())["equation_by_discipline"]
    assert {d["discipline"]: d["n"] for d in split} == {"biology": 1, "chemistry": 2,
                                                       "physics": 1}
    assert all(d["symbolic"]["not_applicable"] for d in split)
    site = tmp_path / "site"
    assert main(["explore", str(run), "-o", str(site)]) == 0
    page = next((site / "tasks").glob("*.html")).read_text()
    assert "none (no ground truth)" in page
    assert 'data-metric="symbolic">n/a<' in page
