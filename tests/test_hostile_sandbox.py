"""Hostile Prolog that once broke ``Sandbox.run``'s typed-error contract (RecursionError,
UnicodeEncodeError, a SIGSEGV or SIGABRT of the worker): one program per file in
tests/hostile/sandbox/*.pl, in the format of tests/fixtures/sandbox (``% Expected:`` an error
class, or ``ok`` with ``% Answers:`` the exact answers; ``% Match:``, ``% Declared:``,
``% Goal:``, ``% Sandbox:``). Every run must end in the stated outcome, and the worker must
not have crashed (same pid)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from solvers.errors import SolverError, SolverInputError
from solvers.prolog.terms import MAX_NESTED_DEPTH, Term, to_flat_wire, to_wire
from test_sandbox import DEFAULTS, ERRORS, declared_of, header, settings_of

FIXTURES = sorted((Path(__file__).parent / "hostile" / "sandbox").glob("*.pl"))



def test_the_corpus_describes_itself():
    assert len(FIXTURES) >= 10
    for path in FIXTURES:
        head = header(path)
        assert head["Expected"] == "ok" or head["Expected"] in ERRORS, path.name
        assert head["Goal"] and head["Declared"], path.name
        assert (head["Expected"] == "ok") == ("Answers" in head), path.name


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_hostile_program(path, sandboxes):
    head = header(path)
    box = sandboxes(**settings_of(head))
    box.run("ok.", {"ok": 0}, "ok")
    pid = box.worker_pid
    program = path.read_text(encoding="utf-8")
    if head["Expected"] == "ok":
        result = box.run(program, declared_of(head), head["Goal"])
        assert result.answers == ast.literal_eval(head["Answers"])
    else:
        with pytest.raises(SolverError) as info:
            box.run(program, declared_of(head), head["Goal"])
        assert type(info.value) is ERRORS[head["Expected"]], str(info.value)
        assert re.search(head.get("Match", ""), str(info.value)), str(info.value)
    assert box.worker_pid == pid                   # typed, not a crash and a new worker
    assert box.run("ok(yes).", {"ok": 1}, "ok(X)").answers == [{"X": "yes"}]


def test_unencodable_goal_and_bindings_are_input_errors(sandboxes):
    box = sandboxes(**DEFAULTS)
    with pytest.raises(SolverInputError, match="UTF-8 cannot encode"):
        box.run("p(a).", {"p": 1}, "p(X)", {"X": "bad \ud800 text"})
    with pytest.raises(SolverInputError, match="UTF-8 cannot encode"):
        box.run("p(a).", {"p": 1}, "p('\ud800')")
    assert box.run("p(a).", {"p": 1}, "p(X)").answers == [{"X": "a"}]


def test_a_binding_of_5001_digits_is_an_input_error(sandboxes):
    """An integer over Python's int-to-str limit in the bindings: a SolverInputError (it
    escaped Sandbox.run as an untyped ValueError), and the worker lives on."""
    box = sandboxes(**DEFAULTS)
    with pytest.raises(SolverInputError, match="more than 4300 digits cannot be sent"):
        box.run("p(1).", {"p": 1}, "p(X)", {"X": 10 ** 5000})
    assert box.run("p(a).", {"p": 1}, "p(X)").answers == [{"X": "a"}]


@pytest.mark.slow
def test_term_conversion_is_iterative():
    deep: object = "z"
    for _ in range(100_000):
        deep = Term("s", (deep,))
    kind, nodes = to_flat_wire(deep)               # no RecursionError at any depth
    assert kind == "f" and len(nodes) == 100_001 and nodes[-1] == ["c", "s", 1]
    with pytest.raises(SolverInputError, match=f"nested deeper than {MAX_NESTED_DEPTH}"):
        to_wire(deep)                              # the nested form is depth-checked
    shallow = Term("f", ("a", [1, Term("g", ("b",))]))
    assert to_wire(shallow) == ["c", "f", ["a", ["l", [1, ["c", "g", ["b"]]]]]]
