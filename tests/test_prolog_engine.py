"""solvers.prolog: one Engine over SWI-Prolog, whichever bridge this process uses.

The suite runs in this process with the default bridge (or SCIR_PROLOG_BRIDGE). Every other
bridge that works on this machine gets the same suite in its own subprocess
(``test_suite_under_other_bridges``): pyswip and janus-swi cannot share a process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from solvers.errors import (ConfigError, ResourceError, SolverError, SolverInputError,
                            SolverTimeout)
from solvers.prolog import BRIDGES, ENV_VAR, Engine, Term, Var, available_bridges, select_bridge
from solvers.prolog.engine import loaded_bridge, swi_version_of_executable

FIXTURES = Path(__file__).parent / "fixtures" / "prolog"
CHILD_FLAG = "SCIR_PROLOG_SUITE_CHILD"


def _default_bridge() -> str:
    janus = loaded_bridge() is None and "janus" in available_bridges()
    return select_bridge(None, os.environ.get(ENV_VAR), loaded=loaded_bridge(),
                         janus_installed=janus,
                         swi_version=swi_version_of_executable() if janus else None)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture()
def m(engine):
    with engine.module() as module:
        yield module


# -- bridge selection -------------------------------------------------------------------------

def test_engine_reports_bridge_and_version(engine):
    assert engine.bridge in BRIDGES
    assert engine.bridge == _default_bridge()
    assert engine.swi_version >= (8, 5, 0)
    assert Engine().bridge == engine.bridge            # one transport per process


@pytest.mark.parametrize("requested, env, loaded, janus, version, expected", [
    (None, None, None, True, (9, 3, 2), "janus"),
    (None, None, None, True, (9, 1, 11), "pyswip"),
    (None, None, None, False, (9, 3, 2), "pyswip"),
    (None, None, None, True, None, "pyswip"),
    (None, "pyswip", None, True, (9, 3, 2), "pyswip"),
    (None, " JANUS ", None, False, (9, 0, 4), "janus"),
    ("pyswip", "janus", None, True, (9, 3, 2), "pyswip"),
    (None, None, "pyswip", True, (9, 3, 2), "pyswip"),
    (None, None, "janus", False, None, "janus"),
    (None, "", None, False, None, "pyswip"),
])
def test_select_bridge(requested, env, loaded, janus, version, expected):
    assert select_bridge(requested, env, loaded=loaded, janus_installed=janus,
                         swi_version=version) == expected


def test_select_bridge_refuses_unknown_and_conflicting():
    with pytest.raises(ConfigError, match="unknown Prolog bridge 'swipy'"):
        select_bridge("swipy", None, loaded=None, janus_installed=True, swi_version=(9, 3, 0))
    with pytest.raises(ConfigError, match="pyswip is already loaded"):
        select_bridge(None, "janus", loaded="pyswip", janus_installed=True,
                      swi_version=(9, 3, 0))


def test_other_bridge_cannot_join_this_process(engine):
    other = next(b for b in BRIDGES if b != engine.bridge)
    with pytest.raises(ConfigError, match="already loaded"):
        Engine(other)


# -- loading ----------------------------------------------------------------------------------

def test_consult_resource(m):
    m.consult("sandbox_whitelist")                     # a module file: imported into m
    assert m.query_once("safe_builtin(member, A)") == {"A": 2}
    assert m.query("safe_meta(findall(A, B, C))") == [{"A": "data", "B": "goal", "C": "data"}]


def test_consult_missing_resource_is_resource_error(m):
    with pytest.raises(ResourceError, match="no prolog resource"):
        m.consult("no_such_file")
    with pytest.raises(ResourceError, match="no Prolog file"):
        m.consult_path(FIXTURES / "no_such_file.pl")


def test_same_file_in_two_live_modules(engine):
    with engine.module() as m1, engine.module() as m2:
        m1.consult_path(FIXTURES / "family.pl")
        m2.consult_path(FIXTURES / "family.pl")
        m2.add_facts("parent", [("Carl Jr.", "dora")])
        assert sorted(a["Y"] for a in m1.query("ancestor(ann, Y)")) == ["Carl Jr.", "bob"]
        assert sorted(a["Y"] for a in m2.query("ancestor(ann, Y)")) == ["Carl Jr.", "bob",
                                                                         "dora"]
        assert m2.query_once("generations(ann, dora, N)") == {"N": 3}


def test_syntax_error_in_consulted_file(m):
    with pytest.raises(SolverInputError, match=r"broken\.pl: 1 error\(s\) while loading"):
        m.consult_path(FIXTURES / "broken.pl")


# -- data crossing ----------------------------------------------------------------------------

WEIRD_ATOMS = ["it's", 'say "hi"', "two words", "ünïcødé λ 😀", "", "[]", "{}", "back\\slash",
               "line\nbreak", "Capital", "_underscore", "a,b", "'", "%", ".", "f(x)", "\t"]


def test_atoms_round_trip(m):
    m.add_facts("name", [(a, i) for i, a in enumerate(WEIRD_ATOMS)])
    got = {a["I"]: a["A"] for a in m.query("name(A, I)")}
    assert got == dict(enumerate(WEIRD_ATOMS))
    for i, atom in enumerate(WEIRD_ATOMS):          # and they are atoms, not strings
        assert m.query_once("name(A, I), atom(A)", {"I": i}) == {"A": atom}


def test_numbers_round_trip(m):
    values = [0, -7, 2**62, -(2**63), 2**63, 10**40, -(10**40), 1.5, -0.0, 1e300]
    for v in values:
        got = m.query_once("Y = X", {"X": v})["Y"]
        assert got == v and type(got) is type(v)
    assert m.query_once("X is 2 ** 100") == {"X": 2**100}


def test_compound_terms_and_lists(m):
    term = Term("edge", ("a", Term("f", (1, [2, "x y"])), [], ("t", "u")))
    m.add_fact(term)
    got = m.query_once("edge(A, B, C, D)")
    assert got == {"A": "a", "B": Term("f", (1, (2, "x y"))), "C": [], "D": ["t", "u"]}
    assert got["B"] == Term("f", (1, [2, "x y"]))     # lists inside terms are tuples
    assert hash(got["B"]) == hash(Term("f", (1, (2, "x y"))))
    assert m.query_once("X = '[|]'(a, T)") == {"X": Term("[|]", ("a", Var("_G1"))),
                                                "T": Var("_G1")}


@pytest.mark.parametrize("term", [
    Term("f", ("a b", [1, 2.5], "it's")),
    Term("-", ("a", -3)),
    Term("g", ("h", "[]", [], "{}", "\\+", "λ", "A", "")),
    Term("k", ("line\nbreak", "tab\there")),
])
def test_term_str_is_prolog_syntax(m, term):
    canonical = m.query_once("with_output_to(string(S), write_canonical(T))", {"T": term})["S"]
    assert str(term) == canonical
    assert m.query_once("term_string(T, S)", {"S": str(term)})["T"] == term


def test_term_without_args_is_an_atom(m):
    assert str(Term("h")) == "h"
    assert m.query_once("atom(X), Y = X", {"X": Term("h")}) == {"Y": "h"}


def test_variables_in_bindings_and_answers(m):
    shared = Var("Q")
    answer = m.query_once("Y = X, Y = g(_, Z, Z)", {"X": Term("g", (shared, shared, Var("R")))})
    assert answer == {"Y": Term("g", (Var("_G1"), Var("_G1"), Var("_G1"))), "Z": Var("_G1")}
    fresh = m.query_once("length(L, 2)")
    assert fresh == {"L": [Var("_G1"), Var("_G2")]}


def test_bindings_are_inputs_not_outputs(m):
    m.add_facts("edge", [("a", "b"), ("b", "c"), ("a", "c")])
    assert m.query("edge(X, Y)", {"X": "a"}) == [{"Y": "b"}, {"Y": "c"}]
    assert m.query("edge(X, _Hidden)", {"X": "b"}) == [{}]
    assert m.query("edge(X, Y)", {"X": "c"}) == []
    assert m.query("edge(X, Y)", limit=2) == [{"X": "a", "Y": "b"}, {"X": "b", "Y": "c"}]
    assert m.query_once("edge(c, _)") is None
    assert m.call("edge", "a", "c") and not m.call("edge", "c", "a")


def test_bindings_validated(m):
    with pytest.raises(SolverInputError, match="binding for Z, which is not a variable"):
        m.query("X = 1", {"Z": 2})
    with pytest.raises(SolverInputError, match="not a Prolog value"):
        m.query("X = Y", {"Y": True})
    with pytest.raises(SolverInputError, match="cannot pass a dict"):
        m.query("X = Y", {"Y": {"a": 1}})


def test_empty_facts_with_arity_define_the_predicate(m):
    assert m.add_facts("none_yet", [], arity=2) == 0
    assert m.query("none_yet(X, Y)") == []
    assert m.add_facts("unary", ["x", "y"]) == 2
    assert m.query("unary(X)") == [{"X": "x"}, {"X": "y"}]


# -- isolation, limits, errors, cleanup -------------------------------------------------------

def test_modules_are_isolated(engine):
    with engine.module() as m1, engine.module() as m2:
        assert m1.name != m2.name
        m1.add_facts("secret", [("x",)])
        m2.add_facts("other", [("y",)])
        assert m1.query("secret(X)") == [{"X": "x"}]
        with pytest.raises(SolverInputError, match="Unknown procedure.*secret/1"):
            m2.query("secret(X)")
        with pytest.raises(SolverInputError, match="Unknown procedure.*pyrun/2"):
            m1.query("pyrun(A, B)")                  # nothing from module user leaks in


def test_time_limit(m):
    m.add_fact(Term(":-", (Term("spin", (Var("N"),)),
                           Term(",", (Term("is", (Var("M"), Term("+", (Var("N"), 1)))),
                                      Term("spin", (Var("M"),)))))))
    with pytest.raises(SolverTimeout, match="time limit exceeded"):
        m.query("spin(0)", time_limit=0.3)
    assert m.query_once("X = ok", time_limit=0.3) == {"X": "ok"}     # still usable
    with pytest.raises(ConfigError, match="time_limit must be positive"):
        m.query("true", time_limit=0)


def test_errors_are_typed(m):
    with pytest.raises(SolverInputError, match="Syntax error"):
        m.query("foo(")
    with pytest.raises(SolverInputError, match="Unknown procedure.*nope/1"):
        m.query("nope(X)")
    with pytest.raises(SolverError, match="not sufficiently instantiated") as info:
        m.query("atom_length(X, Y)")
    assert type(info.value) is SolverError
    with pytest.raises(SolverError, match="my_ball") as info:
        m.query("throw(my_ball)")
    assert type(info.value) is SolverError


def test_module_removed_on_exit(engine):
    with engine.module() as m:
        m.consult_path(FIXTURES / "family.pl")
        m.add_facts("extra", [(1,), (2,)])
        name = m.name
        assert m.query("current_predicate(M:P)", {"M": name})
    with engine.module() as probe:
        assert probe.query("current_predicate(M:P)", {"M": name}) == []
        assert probe.query("current_module(M)", {"M": name}) == []
        assert probe.query("source_file(M:P, F)", {"M": name}) == []
    with pytest.raises(SolverError, match="is closed"):
        m.query("true")


def test_module_usable_from_another_thread(engine):
    import threading
    out = []
    with engine.module() as m:
        m.add_facts("n", [(i,) for i in range(5)])
        threads = [threading.Thread(target=lambda: out.append(len(m.query("n(X)"))))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert out == [5, 5, 5, 5]


# -- the other bridges, each in its own process -----------------------------------------------

OTHER_BRIDGES = ([] if os.environ.get(CHILD_FLAG)
                 else [b for b in available_bridges() if b != _default_bridge()])


@pytest.mark.slow
@pytest.mark.parametrize("bridge", OTHER_BRIDGES)
def test_suite_under_other_bridges(bridge):
    env = dict(os.environ, **{ENV_VAR: bridge, CHILD_FLAG: "1"})
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           __file__], env=env, capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
