"""Optional adapter to an installed Popper (Cropper & Morel), for side-by-side runs.

Popper is not on PyPI (see DESIGN section 3); when it is importable (``import popper``) or
its command (``popper-ilp`` / ``popper``) is on PATH, :func:`learn_with_popper` runs it on a
Popper-format folder in a subprocess with a timeout (killed on expiry) and returns an
:class:`IlpResult`. Our bias extensions (``mode(partial)``, ``required_pred``) have no Popper
equivalent and are refused; the folder's bias is re-written from the parsed
:class:`IlpBias`, bk.pl and exs.pl are copied unchanged.

The child process (``python -m solvers.ilp.popper_adapter --child DIR TIMEOUT``) calls
Popper's library and prints one JSON line ``{"program": [...], "score": [...]}``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from solvers.errors import ConfigError, SolverError
from solvers.ilp.bias import UNBOUNDED_CLAUSES, IlpBias, read_bias
from solvers.ilp.learner import IlpResult

COMMANDS = ("popper-ilp", "popper")
_SCORE = re.compile(
    r"\A\s*Precision:\S+\s+Recall:\S+\s+TP:(\d+)\s+FN:(\d+)\s+TN:(\d+)\s+"
    r"FP:(\d+)\s+Size:(\d+)\s*\Z"
)
_CLAUSE = re.compile(r"\A\s*([a-z]\w*\(.*\)\s*:-.*\.)\s*\Z")
GRACE_SECONDS = 10.0


def popper_importable() -> bool:
    """Whether ``import popper`` (the ILP system, with ``popper.loop``) works here."""
    try:
        return importlib.util.find_spec("popper.loop") is not None
    except (ImportError, ValueError):
        return False


def popper_command() -> str | None:
    """The path of a Popper command on PATH, if any."""
    for name in COMMANDS:
        found = shutil.which(name)
        if found:
            return found
    return None


def popper_available() -> bool:
    """Whether Popper can be run (importable or on PATH)."""
    return popper_importable() or popper_command() is not None


def popper_bias(bias: IlpBias) -> str:
    """The bias as a Popper ``bias.pl`` (facts printed from the parsed record)."""
    if bias.mode != "classic":
        raise ConfigError("Popper has no partial mode (mode(partial) is our extension)")
    if bias.required_preds:
        raise ConfigError("Popper has no required_pred (our extension)")

    def tuple_text(values: tuple[str, ...]) -> str:
        return "(" + ",".join(values) + ("," if len(values) == 1 else "") + ")"

    name, arity = bias.head_pred
    lines = [f"head_pred({name},{arity})."]
    lines += [f"body_pred({p},{a})." for p, a in bias.body_preds]
    lines += [f"type({p},{tuple_text(t)})." for p, t in sorted(bias.types.items())]
    lines += [f"direction({p},{tuple_text(d)})." for p, d in sorted(bias.directions.items())]
    lines += [f"max_vars({bias.max_vars}).", f"max_body({bias.max_body})."]
    if bias.multi_clause or bias.max_clauses < UNBOUNDED_CLAUSES:
        # (Popper: "do not supply max_clauses if you are learning non-recursive programs")
        lines.append(f"max_clauses({bias.max_clauses}).")
    if bias.max_size is not None:
        lines.append(f"custom_max_size({bias.max_size}).")
    for flag in ("allow_singletons", "non_datalog", "enable_recursion", "enable_pi"):
        if getattr(bias, flag):
            lines.append(f"{flag}.")
    if bias.user_asp:
        lines.append(bias.user_asp)  # the bias file's own ASP statements, as read
    return "\n".join(lines) + "\n"


def learn_with_popper(folder: Path | str, timeout: float = 60.0) -> IlpResult:
    """Run Popper on a Popper-format folder; raises ConfigError when Popper is absent."""
    folder = Path(folder)
    bias = read_bias(folder / "bias.pl")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="scir_popper_") as tmp:
        work = Path(tmp)
        (work / "bias.pl").write_text(popper_bias(bias), encoding="utf-8")
        for name in ("bk.pl", "exs.pl"):
            shutil.copyfile(folder / name, work / name)
        if popper_importable():
            argv = [
                sys.executable,
                "-m",
                "solvers.ilp.popper_adapter",
                "--child",
                str(work),
                str(timeout),
            ]
        elif (command := popper_command()) is not None:
            argv = [command, str(work), "--timeout", str(int(max(timeout, 1)))]
        else:
            raise ConfigError("Popper is not installed (neither importable nor on PATH)")
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout + GRACE_SECONDS
            )
        except subprocess.TimeoutExpired:
            return IlpResult("timeout", [], 0, 0, 0, 0, time.monotonic() - start, 0, bias.mode)
    if done.returncode != 0:
        raise SolverError(f"Popper failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    program, score = (
        _read_child(done.stdout)
        if argv[1:3] == ["-m", "solvers.ilp.popper_adapter"]
        else _read_cli(done.stdout)
    )
    seconds = time.monotonic() - start
    tp, fn, tn, fp = score if score else (0, 0, 0, 0)
    status = "solution" if program and fn == 0 and fp == 0 else "no_solution"
    if seconds >= timeout and status != "solution":
        status = "timeout"
    return IlpResult(status, program, tp, fn, tn, fp, seconds, 0, bias.mode)


def _four(values: Any) -> tuple[int, int, int, int]:
    """The confusion counts (TP, FN, TN, FP): the first four values, as integers."""
    tp, fn, tn, fp = (int(x) for x in list(values)[:4])
    return tp, fn, tn, fp


def _read_child(stdout: str) -> tuple[list[str], tuple[int, int, int, int] | None]:
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SolverError("Popper adapter child printed no result")
    data = json.loads(lines[-1])
    score = data.get("score")
    return list(data["program"]), (_four(score) if score else None)


def _read_cli(stdout: str) -> tuple[list[str], tuple[int, int, int, int] | None]:
    program: list[str] = []
    score = None
    for line in stdout.splitlines():
        if (match := _SCORE.match(line)) is not None:
            score = _four(match.groups())
        elif (match := _CLAUSE.match(line)) is not None:
            program.append(match.group(1))
    return program, score


def _child(folder: str, timeout: float) -> int:
    """Run Popper's library in this process and print the JSON result line."""
    from popper.loop import learn_solution
    from popper.util import Settings

    settings = Settings(kbpath=folder, timeout=timeout, quiet=True)
    prog, score, _stats = learn_solution(settings)
    program: list[str] = []
    if prog:
        from popper import util

        if hasattr(util, "format_prog"):
            program = [line for line in util.format_prog(prog).splitlines() if line.strip()]
        else:
            program = [util.format_rule(rule) for rule in prog]
    print(json.dumps({"program": program, "score": list(score)[:5] if score else None}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        sys.exit(_child(sys.argv[2], float(sys.argv[3])))
    print("usage: python -m solvers.ilp.popper_adapter --child DIR TIMEOUT", file=sys.stderr)
    sys.exit(2)
