"""README.md's "Using it" block is a tutorial that runs: this test takes the block (the ``sh``
fence after the ``<!-- tutorial ... -->`` marker), rewrites it mechanically and runs each
command line, in order, in one empty temporary folder, with ``bash -c`` and the venv's ``scir``
first on ``PATH``. Any line that exits non-zero fails the test, naming the line; so a line that
reads a file no line above made, or a task id the generator does not give, fails it.

The rewriting, and nothing else (each rule is a function below):

- lines ending in ``\\`` are joined with the next one; blank lines are skipped;
- ``. .venv/bin/activate`` is not run: the venv's ``bin`` folder (this interpreter's) is put
  first on ``PATH`` instead;
- models: every ``--model M`` / ``--models M`` becomes ``tiny`` (the random-weight model, built
  once per session), so paid APIs, GPU servers and ``smollm2`` are not called;
- sizes: ``-n N`` becomes at most :data:`AUDIT_N` (10: the fewest tasks ``scir audit``
  cross-validates), ``--limit N`` at most :data:`SMALL_N` (2); ``--symreg-seconds`` 1;
  ``--iterations`` 1; ``--agent-steps`` 2;
- ``scir solve`` without ``--limit`` gets ``--limit 2``; with ``--arch sr-agent`` also
  ``--iterations 1`` and ``--agent-steps 2`` where not given (the paid lines keep the
  defaults a real model should have);
- experiment files (``experiments/NAME.toml``) are replaced by shrunk copies in the folder
  (:func:`shrink_experiment`): one task per cell and per generation spec, the first
  presentation and the first constrained value only, the model list replaced by ``tiny``, short model calls, a one-iteration agent, one-second baselines.

Besides running the block, the test checks the README's promise about paid lines: a line
that calls a paid API or a GPU server (a model name of a hosted or served provider, or an
experiment whose models are such) says ``needs ...`` in its comment, and the line above it is
its offline twin (the same command).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKER = "<!-- tutorial:"
AUDIT_N = 10           # scir audit cross-validates groups of at least 10 distinct tasks
SMALL_N = 2
SIZES = {"-n": AUDIT_N, "--limit": SMALL_N, "--symreg-seconds": 1, "--iterations": 1,
         "--agent-steps": 2}
REMOTE = ("openrouter:", "openai:", "vllm:", "sglang:", "ollama:", "llamacpp:")
ACTIVATE = ". .venv/bin/activate"

pytestmark = pytest.mark.slow


def tutorial_lines(text: str) -> list[str]:
    """The command lines of the block after the marker (continuations joined)."""
    start = text.index(MARKER)
    fence = text.index("```sh\n", start) + len("```sh\n")
    block = text[fence:text.index("\n```", fence)]
    lines, pending = [], ""
    for raw in block.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1].rstrip() + " "
            continue
        line = (pending + raw.strip()).strip()
        pending = ""
        if line:
            lines.append(line)
    assert not pending, "the block ends in a continuation"
    return lines


def _words(line: str) -> list[str]:
    return shlex.split(line, comments=True)


def is_remote(model: str) -> bool:
    return model.startswith(REMOTE)


def experiment_models(path: Path) -> list[str]:
    return [m["name"] for m in tomllib.loads(path.read_text(encoding="utf-8")).get("models", [])]


def needs_remote(line: str) -> bool:
    """Whether the line calls a paid API or a GPU server: a remote model name on the command
    line, or ``scir eval`` of an experiment whose models are remote (without ``--models`` or
    ``--dry-run``)."""
    words = _words(line)
    for flag in ("--model", "--models"):
        if flag in words and any(is_remote(m) for m in words[words.index(flag) + 1].split(",")):
            return True
    if words[:2] == ["scir", "eval"] and "--models" not in words and "--dry-run" not in words:
        return any(is_remote(m) for m in experiment_models(ROOT / words[2]))
    return False


def substitute(line: str, experiments: dict[str, str]) -> str:
    """The line as the test runs it (the rules of the module docstring)."""
    words = _words(line)
    out = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--model", "--models") and i + 1 < len(words):
            out += [word, "tiny"]
            i += 2
            continue
        if word in SIZES and i + 1 < len(words):
            value = words[i + 1]
            small = SIZES[word]
            number = float(value)
            out += [word, str(min(int(number) if number.is_integer() else number, small))]
            i += 2
            continue
        out.append(experiments.get(word, word))
        i += 1
    if out[:2] == ["scir", "solve"]:
        added = {"--limit": SMALL_N}
        if "sr-agent" in out:
            added.update({"--iterations": 1, "--agent-steps": 2})
        for flag, value in added.items():
            if flag not in out:
                out += [flag, str(value)]
    # the shell's own syntax (redirection) is kept: only quote what needs it
    return " ".join(w if w in (">", ">>") else shlex.quote(w) for w in out)


def shrink_experiment(source: Path, target: Path) -> None:
    """A copy of an experiment file at ``target`` with one task per cell and per generation
    spec, its first presentation and first constrained value only, ``tiny`` as its only model, model calls of at most 32 tokens (64 for a
    formalization), a one-iteration two-step agent and one-second baselines."""
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    lines = []
    for key in ("presentations", "constrained"):       # the first of each only
        if key in data:
            data[key] = data[key][:1]
    for key in ("name", "presentations", "architectures", "constrained", "seeds", "repeats",
                "backup"):
        if key in data:
            lines.append(f"{key} = {_toml(data[key])}")
    lines += ["tasks_per_cell = 1", "", "[generation]", "max_tokens = 32", "max_retries = 0",
              "max_formalization_tokens = 64", "", "[agent]", "iterations = 1", "steps = 2",
              "", "[symreg]", "seconds = 1", "", "[[models]]", 'name = "tiny"']
    for track, tiers in data["tasks"].items():
        for tier, spec in tiers.items():
            lines += ["", f"[tasks.{track}.{tier}]"]
            assert "file" not in spec, f"{source}: a task file is not shrunk"
            spec = {**spec, "n": 1}
            lines += [f"{k} = {_toml(v)}" for k, v in spec.items()]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def test_block_is_found_and_starts_with_the_venv():
    lines = tutorial_lines(README.read_text(encoding="utf-8"))
    assert lines[0] == ACTIVATE
    assert all(line.split()[0] in ("scir", "printf") for line in lines[1:]), lines


def test_paid_lines_say_so_and_have_an_offline_twin_above():
    lines = tutorial_lines(README.read_text(encoding="utf-8"))
    remote = [i for i, line in enumerate(lines) if needs_remote(line)]
    assert remote, "the block shows no paid model at all"
    for i in remote:
        line = lines[i]
        assert re.search(r"#.*\bneeds\b", line), f"a paid line does not say so: {line}"
        twin = lines[i - 1]
        assert not needs_remote(twin), f"the line above a paid line is not offline: {twin}"
        # the same command (for a grid: the demo grid is the paper grid's offline twin)
        assert _words(twin)[:2] == _words(line)[:2], (twin, line)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_tutorial_runs(tmp_path, tiny_cache_dir):
    lines = tutorial_lines(README.read_text(encoding="utf-8"))
    experiments = {}
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        name = f"experiments/{path.name}"
        if any(name in _words(line) for line in lines):
            target = tmp_path / "experiments" / path.name
            target.parent.mkdir(exist_ok=True)
            shrink_experiment(path, target)
            experiments[name] = name
    env = dict(os.environ, SCIR_CACHE_DIR=str(tiny_cache_dir))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                      if env.get("PYTHONPATH") else []))
    for key in ("SCIR_TRACKS", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "VLLM_API_KEY"):
        env.pop(key, None)
    for line in lines:
        if line == ACTIVATE:
            continue
        command = substitute(line, experiments)
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (f"README line failed (exit {done.returncode}):\n  {line}\n"
                                      f"run as:\n  {command}\n{done.stdout[-2000:]}\n"
                                      f"{done.stderr[-2000:]}")
