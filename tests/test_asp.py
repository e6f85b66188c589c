"""solvers.asp: clingo programs from resources and Python facts, models as typed records."""

from __future__ import annotations

import time

import clingo
import pytest

from solvers import asp, resources
from solvers.asp import AspProgram, Atom, from_symbol, sort_key, to_symbol
from solvers.errors import SolverInputError, SolverTimeout

# one value of every kind Python may pass, including strings clingo must quote
VALUES = [
    0, 7, -12, 2**31 - 1, -(2**31),
    "abc", "snake_case'", "_private",
    "Capital", "two words", "", 'say "hi"', "back\\slash", "new\nline", "ünï", "-minus", "1a",
    ("a", 1), ("only",), (), (("nested", "Tuple x"), -1),
    Atom("f", ("g", 3)), Atom("f", (Atom("h", ("Deep one", (1, "x"))),)),
    Atom("-neg", (1,)),
]

PIGEONHOLE = """
% n pigeons into n-1 holes, one pigeon per hole: unsatisfiable, and hard without symmetry
% breaking (far beyond a second for 12 pigeons)
pigeon(1..P) :- pigeons(P).
hole(1..H) :- holes(H).
1 { in(P, H) : hole(H) } 1 :- pigeon(P).
:- hole(H), 2 { in(P, H) : pigeon(P) }.
"""


def model_sets(models: list[asp.AspModel]) -> list[tuple[str, ...]]:
    """Models as a sorted list of sorted atom texts: independent of the solver's order."""
    return sorted(tuple(sorted(str(a) for a in m.atoms)) for m in models)


def test_values_round_trip_through_clingo():
    prog = AspProgram().add_program("out(X) :- in(X). #show out/1.")
    prog.add_facts("in", [(v,) for v in VALUES])
    (model,) = prog.models()
    assert {args[0] for args in model.by_name("out")} == set(VALUES)
    assert model.by_name("out") == sorted(((v,) for v in VALUES), key=sort_key)
    assert len(model.by_name("out")) == len(VALUES)


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_value_conversion(value):
    sym = to_symbol(value)
    assert from_symbol(sym) == value
    text = asp._show(value) if not isinstance(value, Atom) else str(value)
    assert text == str(sym)  # our printed form is clingo's own


def test_constants_and_zero_argument_atoms_are_one_term():
    assert to_symbol(Atom("c")) == to_symbol("c") == clingo.Function("c")
    assert from_symbol(to_symbol(Atom("c"))) == "c"
    assert to_symbol("C") == clingo.String("C")


def test_printed_atoms_parse_back():
    """``str(Atom)`` is valid clingo text that denotes the same term."""
    atoms = [Atom("in", (v,)) for v in VALUES]
    prog = AspProgram().add_program("\n".join(f"{a}." for a in atoms), origin="<printed>")
    (model,) = prog.models()
    assert sorted(model.atoms, key=sort_key) == sorted(atoms, key=sort_key)


def test_facts_rows_and_single_values():
    prog = AspProgram().add_program("pair(X, Y) :- edge(X, Y), node(X), node(Y).")
    prog.add_facts("node", ["a", "B node", 3]).add_facts("edge", [("a", "B node"), ["a", 3]])
    prog.add_atoms([Atom("edge", (3, "a"))])
    (model,) = prog.models()
    assert model.by_name("pair") == [(3, "a"), ("a", 3), ("a", "B node")]
    assert model.by_name("nothing") == []


def test_enumerate_models_as_sorted_sets():
    prog = AspProgram().add_program("{ pick(X) : item(X) } = 2. #show pick/1.")
    prog.add_facts("item", ["x", "y", "z"])
    assert model_sets(prog.models()) == [
        ("pick(x)", "pick(y)"), ("pick(x)", "pick(z)"), ("pick(y)", "pick(z)")]
    assert len(prog.models(limit=2)) == 2
    assert prog.satisfiable()


def test_mixed_argument_types_sort():
    prog = AspProgram().add_program('p(f(x)). p("S"). p(a). p(2). p((1,2)). p(-g).')
    (model,) = prog.models()
    assert model.by_name("p") == [(2,), ("S",), ("a",), ((1, 2),), (Atom("-g"),),
                                  (Atom("f", ("x",)),)]


def test_unsat():
    prog = AspProgram().add_program("a :- b. b. :- a.")
    assert prog.models() == []
    assert not prog.satisfiable()


def test_optimize():
    prog = AspProgram().add_program("1 { x(1..4) } 2. :~ x(I). [I@0, I] #show x/1.")
    models = prog.models(optimize=True)
    assert [(m.atoms, m.cost, m.optimal) for m in models] == [([Atom("x", (1,))], [1], True)]


def test_time_limit_raises_solver_timeout():
    prog = AspProgram().add_program(PIGEONHOLE, origin="<pigeonhole>")
    prog.add_facts("pigeons", [12]).add_facts("holes", [11])
    start = time.monotonic()
    with pytest.raises(SolverTimeout, match=r"clingo exceeded 0\.5 s"):
        prog.models(limit=1, time_limit=0.5)
    assert time.monotonic() - start < 5  # the search was cancelled, not waited for
    small = AspProgram().add_program(PIGEONHOLE).add_facts("pigeons", [5]).add_facts("holes", [4])
    assert small.models(time_limit=5) == []


def test_a_grounding_that_overruns_the_limit_times_out_near_it():
    # ~10^9 ground atoms: grounding alone would take hours; clingo cannot interrupt it
    huge = AspProgram().add_program("p(X,Y,Z) :- X=1..1000, Y=1..1000, Z=1..1000.")
    start = time.monotonic()
    with pytest.raises(SolverTimeout, match=r"clingo exceeded 1\.0 s"):
        huge.models(limit=1, time_limit=1.0)
    assert time.monotonic() - start < 1.0 + 4.0       # killed at the limit (not hours later)


def test_worker_results_and_errors_cross_back_with_their_types():
    prog = AspProgram().add_program("q(1..3). #show q/1.")
    in_worker = prog.models(time_limit=5)                    # forked worker
    assert in_worker == prog.models(time_limit=None)         # in this process: the same
    assert [a.args for a in in_worker[0].atoms] == [(1,), (2,), (3,)]
    with pytest.raises(SolverInputError, match="unsafe variables"):
        AspProgram().add_program("p(X) :- q.").models(time_limit=5)
    with pytest.raises(SolverInputError, match="unsafe variables"):
        AspProgram().add_program("p(X) :- q.").models(time_limit=None)


def test_a_forked_process_gets_its_own_worker():
    import os

    prog = AspProgram().add_program("q(1..3). #show q/1.")
    assert len(prog.models(time_limit=5)[0].atoms) == 3        # the worker is running
    pid = os.fork()
    if pid == 0:                                                # the child: a worker of its own
        try:
            os._exit(0 if len(prog.models(time_limit=5)[0].atoms) == 3 else 1)
        finally:
            os._exit(2)
    assert os.waitpid(pid, 0)[1] == 0
    assert len(prog.models(time_limit=5)[0].atoms) == 3        # the parent's still answers


def test_control_wrapper_for_multi_shot_use():
    from solvers.asp import AspControl

    asp = AspControl(["0"])
    asp.add("a(1). c.", "<base>")
    asp.add("b(X) :- a(X), c.", "<step>", part="step")       # grounded in a later step
    asp.add_facts([Atom("a", (2,))])
    asp.ground()
    asp.ground([("step", [])])
    with asp.control.solve(yield_=True) as handle:
        shown = [sorted(str(s) for s in m.symbols(atoms=True)) for m in handle]
    assert shown == [["a(1)", "a(2)", "b(1)", "b(2)", "c"]]
    with pytest.raises(SolverInputError, match=r"clingo cannot parse <bad>"):
        asp.add("p(", "<bad>")
    with pytest.raises(SolverInputError, match="invalid clingo arguments"):
        AspControl(["--no-such-option"])
    with pytest.raises(SolverInputError, match="bias statements do not parse"):
        AspControl().add_statements([], "p(", "bias statements")


def test_parse_error_names_origin_and_message():
    prog = AspProgram().add_program("ok.\np(X :- q.", origin="broken.lp")
    with pytest.raises(SolverInputError, match=r"clingo cannot parse broken\.lp: .*2:5-7: "
                                               r"error: syntax error, unexpected :-"):
        prog.models()


def test_grounding_error_is_an_input_error():
    prog = AspProgram().add_program("p(X) :- q.")
    with pytest.raises(SolverInputError, match="unsafe variables"):
        prog.models()


@pytest.mark.parametrize("value, message", [
    (True, "booleans have no clingo form"),
    (1.5, "cannot pass float value 1.5"),
    ([1, 2], "cannot pass list"),
    (2**31, "clingo numbers are 32-bit integers"),
    (Atom("Bad"), "invalid clingo function name 'Bad'"),
])
def test_values_clingo_cannot_take(value, message):
    prog = AspProgram().add_facts("p", [(value,)])
    with pytest.raises(SolverInputError, match=message):
        prog.models()


def test_bad_predicate_and_arguments():
    with pytest.raises(SolverInputError, match="invalid predicate name 'Foo'"):
        AspProgram().add_facts("Foo", [1])
    with pytest.raises(SolverInputError, match="model limit must be >= 0"):
        AspProgram().models(limit=-1)
    with pytest.raises(SolverInputError, match="invalid clingo arguments"):
        AspProgram(["--no-such-option"]).models()
    with pytest.raises(SolverInputError, match="cannot read ASP file"):
        AspProgram().load_path("/nonexistent/x.lp")


def test_load_resource(tmp_path, monkeypatch):
    """``load`` reads through solvers.resources (here pointed at a folder of our own)."""
    (tmp_path / "reach.lp").write_text(
        "% reachability\nreach(X) :- start(X).\nreach(Y) :- reach(X), edge(X, Y).\n"
        "#show reach/1.\n")
    monkeypatch.setattr(resources, "root", lambda kind: tmp_path)
    resources.read_text.cache_clear()
    try:
        prog = AspProgram().load("reach").add_facts("start", ["a"])
        prog.add_facts("edge", [("a", "b"), ("b", "c"), ("d", "a")])
        (model,) = prog.models()
    finally:
        resources.read_text.cache_clear()
    assert model.by_name("reach") == [("a",), ("b",), ("c",)]


def test_load_checkout_resources():
    """Every .lp file of asp/ parses (grounded without facts, first model only)."""
    names = resources.names("asp")
    assert names
    for name in names:
        try:
            AspProgram().load(name).models(limit=1, time_limit=5)
        except SolverTimeout:
            pass  # parsed and grounded; solving without facts is not what the file is for


def test_version():
    assert asp.version() == clingo.__version__
    assert asp.version().split(".")[0] == "5"


def test_worker_imports_the_callers_package_not_one_in_the_working_directory(tmp_path):
    """A `solvers` folder in the working directory (another checkout) must not shadow the
    caller's package in the clingo worker."""
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "solvers").mkdir()
    (tmp_path / "solvers" / "__init__.py").write_text("raise ImportError('the wrong solvers')\n")
    repo = Path(__file__).resolve().parents[1]
    code = ("from solvers.asp import AspProgram\n"
            "p = AspProgram().add_program('a(1). a(2).', 't')\n"
            "print(len(p.models(time_limit=5.0)))\n")
    out = subprocess.run([sys.executable, "-P", "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60, env={**__import__("os").environ,
                                                     "PYTHONPATH": str(repo)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"
