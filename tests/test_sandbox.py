"""solvers.sandbox: untrusted Prolog in a worker process, with a whitelist and limits.

Every hostile program is a fixture in tests/fixtures/sandbox/*.pl whose header states the
exact error it must raise (``% Expected:``), optionally a regex for the message
(``% Match:``), the declared predicates, the goal and non-default sandbox settings.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from pathlib import Path

import pytest

from solvers.errors import (ConfigError, SandboxCrash, SandboxViolation, SolverError,
                            SolverInputError, SolverResourceLimit, SolverTimeout)
from solvers.prolog import Engine, Term
from solvers.prolog.reader import read_program
from solvers.prolog.terms import to_flat_wire
from solvers.sandbox import Sandbox, SandboxResult, check_program

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "sandbox").glob("*.pl"))
ERRORS = {cls.__name__: cls for cls in (SandboxViolation, SolverInputError, SolverTimeout,
                                        SolverResourceLimit, SolverError, SandboxCrash)}
DEFAULTS = {"time_limit": 10.0, "inference_limit": 5_000_000}


def header(path: Path) -> dict[str, str]:
    return dict(re.findall(r"^% (\w+): (.*)$", path.read_text(encoding="utf-8"), re.M))


def declared_of(head: dict[str, str]) -> dict[str, int]:
    pairs = (item.strip().rsplit("/", 1) for item in head["Declared"].split(","))
    return {name: int(arity) for name, arity in pairs}


def settings_of(head: dict[str, str]) -> dict:
    settings = dict(DEFAULTS)
    for item in head.get("Sandbox", "").split():
        key, value = item.split("=")
        settings[key] = None if value == "none" else (
            float(value) if key == "time_limit" else int(value))
    return settings



@pytest.fixture(scope="module")
def sb(sandboxes) -> Sandbox:
    return sandboxes(**DEFAULTS)


def test_there_are_enough_hostile_fixtures():
    assert len(FIXTURES) >= 20
    for path in FIXTURES:
        head = header(path)
        assert head["Expected"] in ERRORS, path.name
        assert head["Goal"] and head["Declared"], path.name


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_hostile_program(path, sandboxes):
    head = header(path)
    box = sandboxes(**settings_of(head))
    with pytest.raises(SolverError) as info:
        box.run(path.read_text(encoding="utf-8"), declared_of(head), head["Goal"])
    assert type(info.value) is ERRORS[head["Expected"]], str(info.value)
    assert re.search(head.get("Match", ""), str(info.value)), str(info.value)
    # the worker survived (or was replaced) and answers the next request
    assert box.run("ok(yes).", {"ok": 1}, "ok(X)").answers == [{"X": "yes"}]


VIOLATIONS = [p for p in FIXTURES if header(p)["Expected"] == "SandboxViolation"]


@pytest.mark.parametrize("path", VIOLATIONS, ids=lambda p: p.stem)
def test_worker_check_agrees(path):
    """The Prolog-side check (prolog/sandbox.pl) rejects what the Python check rejects,
    given the same clause terms -- the defence in depth behind check_program."""
    clauses = [to_flat_wire(c.term) for c in read_program(path.read_text(encoding="utf-8"))]
    declared = [[n, a] for n, a in sorted(declared_of(header(path)).items())]
    engine = Engine()
    engine.load_support("sandbox.pl")
    with engine.module() as m:
        with pytest.raises(SandboxViolation, match=r"clause \d+: "):
            engine.invoke("sandbox_load", [m.name, declared, clauses])


def test_violations_are_found_before_any_worker_starts():
    with Sandbox() as box:
        with pytest.raises(SandboxViolation, match=r"line 2, column 6: halt/0 is not allowed"):
            box.run("p.\nq :- halt.\n", {"p": 0, "q": 0}, "q")
        assert box.worker_pid is None


PROGRAM = """
% induction-style rule over drug facts
substrate_of(d1, p1).  substrate_of('drug two', p1).  inhibits_enzyme(d3, p1).
substrate_of(d4, 'ünï protein').  inhibits_enzyme(d5, 'ünï protein').
covers(A, B) :- substrate_of(A, P), inhibits_enzyme(B, P).
covers(A, B) :- inhibits_enzyme(A, P), substrate_of(B, P).
count(N) :- aggregate_all(count, covers(_, _), N).
pairs(L) :- findall(A-B, (covers(A, B), A @< B), L0), msort(L0, L).
"""
DECLARED = {"substrate_of": 2, "inhibits_enzyme": 2, "covers": 2, "count": 1, "pairs": 1}


def test_benign_program_answers(sb):
    res = sb.run(PROGRAM, DECLARED, "covers(A, B)")
    assert isinstance(res, SandboxResult)
    assert sorted((a["A"], a["B"]) for a in res.answers) == sorted([
        ("d1", "d3"), ("drug two", "d3"), ("d4", "d5"),
        ("d3", "d1"), ("d3", "drug two"), ("d5", "d4")])
    assert res.seconds >= 0 and res.inferences > 0
    assert sb.run(PROGRAM, DECLARED, "count(N)").answers == [{"N": 6}]
    assert sb.run(PROGRAM, DECLARED, "pairs(L)").answers == [{"L": [
        Term("-", ("d1", "d3")), Term("-", ("d3", "drug two")), Term("-", ("d4", "d5"))]}]


def test_bindings_and_limits(sb):
    res = sb.run(PROGRAM, DECLARED, "covers(A, B)", {"A": "drug two"})
    assert res.answers == [{"B": "d3"}]
    assert sb.run(PROGRAM, DECLARED, "covers(A, B)", {"A": "ünï protein"}).answers == []
    assert len(sb.run(PROGRAM, DECLARED, "covers(A, B)", max_solutions=2).answers) == 2


def test_worker_is_reused_and_runs_are_isolated(sb):
    sb.run("p(1). p(2).", {"p": 1}, "p(X)")
    pid = sb.worker_pid
    assert sb.run("q(z).", {"p": 1, "q": 1}, "p(X)").answers == []   # no leftovers
    assert sb.worker_pid == pid


def test_declared_predicates_are_validated(sb):
    with pytest.raises(ConfigError, match="member/2 is a whitelisted built-in"):
        sb.run("member(a, b).", {"member": 2}, "member(X, Y)")
    with pytest.raises(SolverInputError, match="write/1 is a built-in"):
        sb.run("write(a).", {"write": 1}, "write(X)")


def test_check_program_reports_clauses():
    infos = check_program(PROGRAM, DECLARED)
    assert [i.head for i in infos[:2]] == [("substrate_of", 2), ("substrate_of", 2)]
    rule = next(i for i in infos if i.head == ("count", 1))
    assert not rule.is_fact and rule.calls == (("covers", 2),)
    assert rule.line == 7 and rule.column == 1
    assert infos[0].is_fact and infos[0].calls == ()
    with pytest.raises(SolverInputError) as info:
        check_program("p(a).\np(b) :- q(.\n", {"p": 1, "q": 1})
    assert (info.value.line, info.value.column) == (2, 11)


def test_crashed_worker_is_replaced(sandboxes):
    box = sandboxes(time_limit=20.0, inference_limit=None)
    spin = "spin(N) :- M is N + 1, spin(M)."
    box.run(spin, {"spin": 1}, "true")                     # start the worker
    pid = box.worker_pid
    killer = threading.Timer(0.5, os.kill, (pid, signal.SIGKILL))
    killer.start()
    with pytest.raises(SandboxCrash, match=r"died \(signal SIGKILL\).*replaced"):
        box.run(spin, {"spin": 1}, "spin(0)")
    killer.join()
    assert box.run("ok(yes).", {"ok": 1}, "ok(X)").answers == [{"X": "yes"}]
    assert box.worker_pid not in (None, pid)


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (the isolated worker runs under bwrap)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, parent in parents.items() if parent == p]
    return out


def test_unresponsive_worker_hits_the_hard_deadline():
    with Sandbox(time_limit=0.2, deadline_grace=0.5) as box:
        box.run("ok.", {"ok": 0}, "ok")
        pid = box.worker_pid
        for p in _descendants(pid):            # as if stuck in one uninterruptible call
            os.kill(p, signal.SIGSTOP)
        with pytest.raises(SolverTimeout, match="hard deadline.*killed and replaced"):
            box.run("ok.", {"ok": 0}, "ok")
        assert box.run("ok.", {"ok": 0}, "ok").answers == [{}]
        assert box.worker_pid != pid


def test_closed_sandbox_refuses_runs():
    box = Sandbox()
    box.run("ok.", {"ok": 0}, "ok")
    pid = box.worker_pid
    box.close()
    with pytest.raises(SolverError, match="closed"):
        box.run("ok.", {"ok": 0}, "ok")
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_whitelist_is_read_identically_by_python_and_prolog():
    from solvers.sandbox_policy import whitelist
    wl = whitelist()
    with Engine().module() as m:
        m.consult("sandbox_whitelist")
        builtins = {(a["N"], a["A"]) for a in m.query("safe_builtin(N, A)")}
        meta = {(a["N"], a["A"]): tuple(a["Modes"])
                for a in m.query("safe_meta(S), S =.. [N|Modes], length(Modes, A)")}
        invisible = m.query("(safe_builtin(N, A) ; safe_meta(S), functor(S, N, A)), "
                            "functor(H, N, A), \\+ predicate_property(H, visible)")
    assert builtins == set(wl.builtins) and meta == wl.meta
    assert invisible == []                  # every whitelisted goal exists in SWI-Prolog
    assert ("atom_concat", 3) not in builtins and ("sub_atom", 5) not in builtins


@pytest.mark.skipif(not __import__("solvers.isolation").isolation.isolation().available,
                    reason="no kernel isolation here")
def test_the_worker_runs_in_the_kernel_sandbox():
    """Where bubblewrap works, the Prolog worker runs under it as uid 65534 in its own pid
    namespace; ``isolate=False`` keeps the plain subprocess."""
    with Sandbox() as box:
        assert box.run("ok.", {"ok": 0}, "ok").answers == [{}]
        tree = _descendants(box.worker_pid)
        assert open(f"/proc/{tree[0]}/cmdline", "rb").read().split(b"\0")[0].endswith(b"bwrap")
        workers = [p for p in tree
                   if b"solvers._sandbox_worker" in open(f"/proc/{p}/cmdline", "rb").read()
                   and b"bwrap" not in open(f"/proc/{p}/cmdline", "rb").read()]
        (worker,) = workers
        status = dict(line.split(":\t", 1) for line in open(f"/proc/{worker}/status")
                      if ":\t" in line)
        assert status["Uid"].split()[0] == "65534"
        assert len(status["NSpid"].split()) == 2            # a pid namespace of its own
    with Sandbox(isolate=False) as box:
        assert box.run("ok.", {"ok": 0}, "ok").answers == [{}]
        assert b"bwrap" not in open(f"/proc/{box.worker_pid}/cmdline", "rb").read()
