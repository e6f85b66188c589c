"""The wheel: logic files inside ``solvers/_data/``, loadable from an installed copy.

Builds the wheel from this checkout, installs it (without dependencies, from the file only)
into a fresh venv, and reads one file of each kind through ``solvers.resources`` there.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from solvers import resources

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import hashlib, json, sys, sysconfig
import solvers
from solvers import resources
out = {"solvers": solvers.__file__, "purelib": sysconfig.get_paths()["purelib"], "kinds": {}}
for kind, name in json.loads(sys.argv[1]).items():
    text = resources.read_text(kind, name)
    out["kinds"][kind] = {"path": str(resources.path(kind, name)), "names": resources.names(kind),
                          "sha": hashlib.sha256(text.encode()).hexdigest()}
print(json.dumps(out))
"""


def run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd[:4]} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.slow
def test_wheel_installs_and_loads_logic_files(tmp_path):
    first: dict[str, str] = {}
    for kind in sorted(resources.KINDS):
        first[kind] = resources.names(kind)[0]

    # build (without build isolation when hatchling is installed: fast and offline)
    dist = tmp_path / "dist"
    if importlib.util.find_spec("hatchling") is not None:
        build = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                 str(dist), str(ROOT)]
    else:
        build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist),
                 str(ROOT)]
    run(build, cwd=tmp_path, timeout=240)
    (wheel,) = dist.glob("*.whl")

    with zipfile.ZipFile(wheel) as zf:
        members = zf.namelist()
        entry_points = next(zf.read(n).decode() for n in members
                            if n.endswith(".dist-info/entry_points.txt"))
    for kind, ext in resources.KINDS.items():
        packaged = sorted(n.rsplit("/", 1)[1] for n in members
                          if n.startswith(f"solvers/_data/{kind}/") and n.endswith(ext))
        assert packaged == resources.names(kind), f"wheel lacks some {kind} files"
    top_level = {n.split("/", 1)[0] for n in members}
    assert not top_level & {"prolog", "asp", "grammars"}, sorted(top_level)
    assert {"scir", "solvers"} <= top_level
    # package data, e.g. each track's genres beside its rendering codec
    data = sorted(str(f.relative_to(ROOT)) for f in (ROOT / "scir").rglob("*.json"))
    assert "scir/tracks/deduction/codec/genres.json" in data
    assert set(data) <= set(members), sorted(set(data) - set(members))
    assert "scir = scir.cli:main" in entry_points

    # a fresh venv without pip; the project's pip installs into it from the wheel file only
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path, timeout=120)
    vpython = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(vpython), "install", "-q", "--no-deps",
         "--no-index", "--no-cache-dir", str(wheel)], cwd=tmp_path, timeout=120)

    # -I: isolated mode, so neither the cwd nor PYTHONPATH can bring in the checkout
    proc = run([str(vpython), "-I", "-c", PROBE, json.dumps(first)], cwd=tmp_path, timeout=60)
    info = json.loads(proc.stdout)
    purelib = Path(info["purelib"]).resolve()
    assert purelib.is_relative_to(venv.resolve())
    assert Path(info["solvers"]).resolve().is_relative_to(purelib)
    for kind, name in first.items():
        got = info["kinds"][kind]
        loaded = Path(got["path"]).resolve()
        assert loaded == purelib / "solvers" / "_data" / kind / name
        assert got["names"] == resources.names(kind)
        assert got["sha"] == hashlib.sha256(resources.read_text(kind, name).encode()).hexdigest()
