"""Benchmark: our ILP learner (solvers.ilp) beside Popper on a folder of Popper-format problems.

Each problem folder (bk.pl, exs.pl, bias.pl) is run by our learner, then Popper, one at a
time; each run is a subprocess timed as a whole and killed with its process group at
--timeout + --grace. Every learned program is re-checked independently by swipl
(benchmarks/ilp_check.pl); solved = all positives and no negative by that check. Prints one
row per problem, the totals and whether issue #11's goals hold (docs/ilp.md); on noisy
problems also each system's MDL (FN + FP + size, from the check) and issue #31's goal (ours
at most Popper's where both print a program). Exit status 0 (a benchmark, not a gate), 2 on
bad arguments.

    .venv/bin/python benchmarks/ilp_suite.py --examples ../popper/examples \\
        --popper ../popper --popper-python ../popenv/bin/python --timeout 60 --json out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solvers.errors import SolverError  # noqa: E402

CHECKER = Path(__file__).resolve().parent / "ilp_check.pl"
PROBLEM_FILES = ("bk.pl", "exs.pl", "bias.pl")
OURS_STATUS = {0: "solution", 1: "no_solution", 3: "timeout"}  # other codes: error
POPPER_BANNER = "*" * 10 + " SOLUTION " + "*" * 10
GOAL_MEDIAN, GOAL_MAX = 0.5, 2.0


@dataclass
class Check:
    """The independent swipl check of one program: counts, size and what went wrong."""
    tp: int
    fn: int
    tn: int
    fp: int
    size: int
    clauses: int
    skipped_terms: int
    timeouts: int
    errors: int
    program_errors: int

    @property
    def solved(self) -> bool:
        """Every positive covered, no negative covered, every clause read and asserted."""
        return self.fn == 0 and self.fp == 0 and self.program_errors == 0

    @property
    def mdl(self) -> int:
        """Popper's minimum description length score: FN + FP + size."""
        return self.fn + self.fp + self.size


@dataclass
class SystemRun:
    """One system's run on one problem: its status, time, program, claim and the check."""
    status: str  # solution, no_solution, timeout, error
    seconds: float
    program: list[str]
    claimed: dict[str, int] = field(default_factory=dict)
    check: Check | None = None
    check_error: str | None = None
    message: str = ""

    @property
    def solved(self) -> bool:
        return self.check is not None and self.check.solved

    @property
    def size(self) -> int | None:
        return self.check.size if self.check is not None else None

    @property
    def mdl(self) -> int | None:
        return self.check.mdl if self.check is not None else None


@dataclass
class Row:
    """One problem: our run, Popper's run (or None) and the time ratio ours / Popper."""
    problem: str
    noisy: bool
    ours: SystemRun
    popper: SystemRun | None

    @property
    def ratio(self) -> float | None:
        if self.popper is None or self.popper.seconds <= 0:
            return None
        return self.ours.seconds / self.popper.seconds


def find_problems(examples: Path, only: list[str] | None = None) -> list[Path]:
    """The sub-folders of ``examples`` holding bk.pl, exs.pl and bias.pl, sorted by name
    (restricted to ``only`` when given; a name not found raises ValueError)."""
    found = {p.name: p for p in sorted(examples.iterdir())
             if p.is_dir() and all((p / f).is_file() for f in PROBLEM_FILES)}
    if only is None:
        return list(found.values())
    missing = [n for n in only if n not in found]
    if missing:
        raise ValueError(f"no problem folder named {', '.join(missing)} under {examples}")
    return [found[n] for n in sorted(set(only))]


def run_timed(cmd: list[str], limit: float, env: dict[str, str] | None = None
              ) -> tuple[int | None, str, str, float]:
    """Run ``cmd`` in its own process group; kill the group after ``limit`` seconds.
    Returns (exit code or None when killed, stdout, stderr, wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = None
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a process that left the group holds the pipes
            for pipe in (proc.stdout, proc.stderr):
                pipe.close()
            proc.wait()
            out, err = "", ""
        _wait_group_gone(proc.pid)
    except BaseException:  # e.g. Ctrl-C: the group has its own session, so end it here
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    return code, out, err, time.perf_counter() - start


def _wait_group_gone(pgid: int, seconds: float = 2.0) -> None:
    """Wait (at most ``seconds``) until every process of the killed group ``pgid`` has
    exited (is gone or a zombie): SIGKILL is delivered asynchronously, and a grandchild may
    still be exiting when the pipes it held have closed (so the next run never shares the
    machine with it)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and _group_alive(pgid):
        time.sleep(0.01)


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is running (not a zombie), from /proc."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:                       # gone meanwhile
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def program_lines(text: str) -> list[str]:
    """Clauses of a learner's output: the non-empty lines not starting with ``%``."""
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("%")]


def parse_ours(code: int | None, out: str, err: str) -> SystemRun:
    """Our learner's run from its exit code (None: killed) and output; the caller sets
    the seconds."""
    if code is None:  # killed: whatever it printed is incomplete
        return SystemRun("timeout", 0.0, [])
    status = OURS_STATUS.get(code, "error")
    claim = re.search(r"TP=(\d+)\s+FN=(\d+)\s+TN=(\d+)\s+FP=(\d+)", out)
    claimed = dict(zip(("tp", "fn", "tn", "fp"), map(int, claim.groups()))) if claim else {}
    message = err.strip().splitlines()[-1] if status == "error" and err.strip() else ""
    return SystemRun(status, 0.0, program_lines(out), claimed, message=message)


def parse_popper(code: int | None, out: str, err: str) -> SystemRun:
    """Popper's run (killed: a timeout): the program between its SOLUTION banner and the
    closing row of stars, its claimed scores from the ``TP:.. FN:..`` line."""
    lines = out.splitlines()
    if code is None:
        return SystemRun("timeout", 0.0, [])
    if POPPER_BANNER in lines:
        start = lines.index(POPPER_BANNER) + 1
        score = re.findall(r"(TP|FN|TN|FP|Size):(\d+)", lines[start]) if start < len(lines) else []
        claimed = {k.lower(): int(v) for k, v in score}
        program = []
        for ln in lines[start + 1:]:
            if set(ln.strip()) == {"*"}:
                break
            if ln.strip():  # Popper prints a body-less clause as "h(A):- ."
                program.append(re.sub(r":-\s*\.$", ".", ln.strip()))
        return SystemRun("solution", 0.0, program, claimed)
    if code == 0 and "NO SOLUTION" in lines:
        return SystemRun("no_solution", 0.0, [])
    tail = (err.strip() or out.strip()).splitlines()
    return SystemRun("error", 0.0, [], message=tail[-1] if tail else f"exit status {code}")


def check_program(folder: Path, clauses: list[str], example_limit: float = 0.5,
                  timeout: float = 600.0) -> Check:
    """Count TP/FN/TN/FP of ``clauses`` on ``folder``'s bk.pl and exs.pl with swipl
    (benchmarks/ilp_check.pl, ``example_limit`` seconds per example). Raises SolverError
    when swipl fails or runs past ``timeout``."""
    with tempfile.TemporaryDirectory(prefix="ilp_suite_") as tmp:
        program = Path(tmp) / "program.pl"
        program.write_text("".join(c + "\n" for c in clauses), encoding="utf-8")
        cmd = ["swipl", "--stack-limit=512m", str(CHECKER), "--", str(folder / "bk.pl"),
               str(folder / "exs.pl"), str(program), repr(example_limit)]
        code, out, err, _ = run_timed(cmd, timeout)
    if code is None:
        raise SolverError(f"the swipl check ran past {timeout:g} s", file=str(folder))
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if code != 0 or not last.startswith("{"):
        detail = (err.strip().splitlines() or [f"exit status {code}"])[-1]
        raise SolverError(f"the swipl check failed: {detail}", file=str(folder))
    return Check(**json.loads(last))


def run_system(name: str, cmd: list[str], folder: Path, args: argparse.Namespace,
               env: dict[str, str] | None = None) -> SystemRun:
    """Run one system on one problem, parse its output and check its program."""
    code, out, err, seconds = run_timed(cmd, args.timeout + args.grace, env)
    run = (parse_ours if name == "ours" else parse_popper)(code, out, err)
    run.seconds = seconds
    if run.program:
        try:
            run.check = check_program(folder, run.program, args.example_limit,
                                      args.check_timeout)
        except SolverError as exc:
            run.check_error = str(exc)
    return run


def run_problem(folder: Path, args: argparse.Namespace) -> Row:
    """Our learner then (when configured) Popper on ``folder``."""
    noisy = bool(args.noisy_prefix) and folder.name.startswith(args.noisy_prefix)
    extra = ["--timeout", f"{args.timeout:g}"] + (["--noisy"] if noisy else [])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    ours = run_system("ours", [sys.executable, "-m", "solvers.ilp", str(folder), *extra],
                      folder, args, env)
    popper = None
    if args.popper is not None:
        script = args.popper if args.popper.is_file() else args.popper / "popper.py"
        popper = run_system("popper", [args.popper_python, str(script), str(folder), *extra],
                            folder, args)
    return Row(folder.name, noisy, ours, popper)


# ---- reporting ---------------------------------------------------------------------------------
@dataclass
class Summary:
    """Totals over the rows and issue #11's goals (None when Popper did not run)."""
    problems: int
    ours_solved: list[str]
    popper_solved: list[str]
    both_solved: list[str]
    popper_only: list[str]
    ours_larger: list[str]
    claims_differ: list[str]
    median_ratio: float | None
    max_ratio: float | None
    goals: dict[str, bool] | None
    noisy_compared: list[str] = field(default_factory=list)   # noisy, both checked
    noisy_worse: list[str] = field(default_factory=list)      # there, our MDL larger


def summarise(rows: list[Row]) -> Summary:
    """The totals of the table (one computation for the text, markdown and JSON reports)."""
    ours = [r.problem for r in rows if r.ours.solved]
    popper = [r.problem for r in rows if r.popper is not None and r.popper.solved]
    both = [r for r in rows if r.ours.solved and r.popper is not None and r.popper.solved]
    ratios = [r.ratio for r in both if r.ratio is not None]
    larger = [r.problem for r in both if r.ours.size > r.popper.size]
    differ = [f"{r.problem} ({name})" for r in rows
              for name, run in (("ours", r.ours), ("popper", r.popper))
              if run is not None and run.check is not None
              and any(getattr(run.check, k) != v for k, v in run.claimed.items())]
    median = statistics.median(ratios) if ratios else None
    top = max(ratios) if ratios else None
    compared = [r for r in rows if r.noisy and r.ours.mdl is not None
                and r.popper is not None and r.popper.mdl is not None]
    worse = [r.problem for r in compared if r.ours.mdl > r.popper.mdl]
    goals = None
    if any(r.popper is not None for r in rows):
        goals = {"every Popper-solved problem solved": set(popper) <= set(ours),
                 "sizes <= Popper's": not larger,
                 f"median ratio <= {GOAL_MEDIAN:g}": median is not None
                 and median <= GOAL_MEDIAN,
                 f"max ratio <= {GOAL_MAX:g}": top is not None and top <= GOAL_MAX}
        if compared:
            goals["noisy MDL <= Popper's"] = not worse
    return Summary(len(rows), ours, popper, [r.problem for r in both],
                   [p for p in popper if p not in ours], larger, differ, median, top, goals,
                   [r.problem for r in compared], worse)


def _cells(run: SystemRun | None, noisy: bool) -> list[str]:
    if run is None:
        return ["", "", "", "", ""]
    if run.solved:
        solved = "yes"
    elif run.check_error:
        solved = "unchecked"
    else:
        solved = "inexact" if run.check is not None else run.status
    counts = (f"{run.check.tp}/{run.check.fn}/{run.check.tn}/{run.check.fp}"
              if run.check is not None else "")
    mdl = str(run.mdl) if noisy and run.mdl is not None else ""
    return [solved, f"{run.seconds:.1f}", "" if run.size is None else str(run.size), counts,
            mdl]


# MDL (FN + FP + size, from the check): noisy problems only
HEADER = ["problem", "ours", "s", "size", "TP/FN/TN/FP", "MDL", "Popper", "s", "size",
          "TP/FN/TN/FP", "MDL", "ours/Popper"]


def table_rows(rows: list[Row]) -> list[list[str]]:
    """The table's cells, one list per problem (the header is HEADER)."""
    return [[r.problem, *_cells(r.ours, r.noisy), *_cells(r.popper, r.noisy),
             "" if r.ratio is None else f"{r.ratio:.2f}"] for r in rows]


def summary_lines(s: Summary) -> list[str]:
    """The totals as text lines."""
    def fmt(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2f}"
    lines = [(f"problems: {s.problems}; solved by ours: {len(s.ours_solved)}; "
              f"by Popper: {len(s.popper_solved)}; by both: {len(s.both_solved)}"),
             f"solved by Popper, not by ours: {', '.join(s.popper_only) or '-'}",
             f"our program larger than Popper's: {', '.join(s.ours_larger) or '-'}",
             f"claimed scores differing from the check: {', '.join(s.claims_differ) or '-'}",
             (f"time ratio ours/Popper on problems both solve: median {fmt(s.median_ratio)}, "
              f"max {fmt(s.max_ratio)}")]
    if s.noisy_compared:
        lines.append(f"noisy problems where both print a program: {len(s.noisy_compared)}; "
                     f"our MDL larger on: {', '.join(s.noisy_worse) or '-'}")
    if s.goals is None:
        lines.append("goals: n/a (Popper not run)")
    else:
        lines += [f"goal {'holds' if ok else 'FAILS'}: {name}" for name, ok in s.goals.items()]
    return lines


def render_text(rows: list[Row], s: Summary) -> str:
    """A plain fixed-width table and the totals."""
    cells = [HEADER, *table_rows(rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADER))]
    text = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(text + [""] + summary_lines(s)) + "\n"


def render_markdown(rows: list[Row], s: Summary) -> str:
    """The table and totals as markdown (for docs)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(rows)]
    return "\n".join(lines + [""] + [f"- {ln}" for ln in summary_lines(s)]) + "\n"


def settings(args: argparse.Namespace) -> dict:
    """The run's settings for the JSON report, with Popper's git commit when it has one."""
    popper = None if args.popper is None else args.popper.resolve()
    commit = None
    if popper is not None:
        git = subprocess.run(["git", "-C", str(popper if popper.is_dir() else popper.parent),
                              "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
        commit = git.stdout.strip() if git.returncode == 0 else None
    return {"examples": str(args.examples.resolve()), "popper": popper and str(popper),
            "popper_commit": commit, "popper_python": args.popper_python,
            "timeout": args.timeout, "grace": args.grace, "example_limit": args.example_limit}


def to_json(rows: list[Row], s: Summary, meta: dict) -> str:
    """The settings, all rows (with programs, claims and checks) and the totals as JSON."""
    data = {**meta, "rows": [{**dataclasses.asdict(r), "ratio": r.ratio,
                      "ours_solved": r.ours.solved,
                      "popper_solved": r.popper.solved if r.popper else None} for r in rows],
            "summary": dataclasses.asdict(s)}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def progress(i: int, n: int, row: Row) -> str:
    """One stderr line per problem."""
    def part(name: str, run: SystemRun) -> str:
        size = "" if run.size is None else f", size {run.size}"
        verdict = "solved" if run.solved else "not solved"
        return f"{name} {run.status} {run.seconds:.1f} s ({verdict}{size})"
    parts = [part("ours", row.ours)] + ([part("popper", row.popper)] if row.popper else [])
    return f"[{i}/{n}] {row.problem}: " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=Path, required=True,
                        help="folder of problem folders (bk.pl, exs.pl, bias.pl)")
    parser.add_argument("--popper", type=Path, help="Popper checkout (or its popper.py)")
    parser.add_argument("--popper-python", default=sys.executable,
                        help="interpreter for Popper (default: this one)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run (60)")
    parser.add_argument("--grace", type=float, default=10.0,
                        help="seconds past --timeout before a run is killed (10)")
    parser.add_argument("--only", help="comma-separated problem names")
    parser.add_argument("--noisy-prefix", default="noisy",
                        help="folders named with this prefix get --noisy (default: noisy; "
                        "'' for none)")
    parser.add_argument("--example-limit", type=float, default=0.5,
                        help="seconds per example in the swipl check (0.5)")
    parser.add_argument("--check-timeout", type=float, default=600.0,
                        help="seconds for one swipl check (600)")
    parser.add_argument("--json", type=Path, help="write all rows and totals as JSON")
    parser.add_argument("--markdown", type=Path, help="write the table as markdown")
    args = parser.parse_args(argv)
    if not args.examples.is_dir():
        parser.error(f"--examples {args.examples}: not a folder")
    if args.popper is not None and not (args.popper.is_file()
                                        or (args.popper / "popper.py").is_file()):
        parser.error(f"--popper {args.popper}: no popper.py there")
    if shutil.which("swipl") is None:
        parser.error("swipl not found on PATH (needed for the independent check)")
    if args.timeout <= 0 or args.grace < 0 or args.example_limit <= 0:
        parser.error("--timeout and --example-limit must be positive, --grace >= 0")
    try:
        folders = find_problems(args.examples,
                                [n.strip() for n in args.only.split(",") if n.strip()]
                                if args.only is not None else None)
    except ValueError as exc:
        parser.error(str(exc))
    if not folders:
        parser.error(f"no problem folders (bk.pl, exs.pl, bias.pl) under {args.examples}")
    # a TERM (e.g. a batch job cancelled) unwinds like Ctrl-C, so run_timed ends the group
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    meta, rows = settings(args), []
    for i, folder in enumerate(folders, 1):
        rows.append(run_problem(folder, args))
        print(progress(i, len(folders), rows[-1]), file=sys.stderr, flush=True)
        summary = summarise(rows)  # the reports so far are rewritten after every problem
        if args.json is not None:
            args.json.write_text(to_json(rows, summary, meta), encoding="utf-8")
        if args.markdown is not None:
            args.markdown.write_text(render_markdown(rows, summary), encoding="utf-8")
    sys.stdout.write(render_text(rows, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
