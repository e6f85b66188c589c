"""Typed predicates (solvers.records) across the Python/clingo and Python/Prolog boundaries:
declared once, checked going in and coming back, with the solvers themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from solvers.asp import AspProgram
from solvers.errors import SolverError, SolverInputError
from solvers.prolog import Engine
from solvers.records import Record


@dataclass(frozen=True)
class Edge(Record, predicate="edge"):
    source: str
    target: str


@dataclass(frozen=True)
class Reach(Record, predicate="reach"):
    source: str
    target: str


@dataclass(frozen=True)
class Weight(Record, predicate="weight"):
    source: str
    target: str
    value: int


@dataclass(frozen=True)
class Tagged(Record, predicate="tagged"):
    node: str
    tag: Any


REACH = "reach(X,Y) :- edge(X,Y). reach(X,Z) :- reach(X,Y), edge(Y,Z). #show reach/2."


def test_records_go_into_clingo_and_come_back_typed():
    prog = AspProgram().add_program(REACH)
    prog.add_records([Edge("a", "b"), Edge("b", "c"), Edge("c", "Big City")])
    (model,) = prog.models(time_limit=10)
    got = model.records(Reach)
    assert set(got) == {Reach("a", "b"), Reach("a", "c"), Reach("a", "Big City"),
                        Reach("b", "c"), Reach("b", "Big City"), Reach("c", "Big City")}
    assert all(isinstance(r, Reach) for r in got) and len(got) == 6
    assert got == model.records(Reach)                     # a fixed order
    assert model.records(Edge) == []                       # not shown: none


def test_a_record_with_a_wrong_value_never_reaches_the_solver():
    with pytest.raises(SolverInputError, match=r"weight/3: argument 3 \(value\) must be int, "
                                               r"got str 'heavy'"):
        AspProgram().add_records([Weight("a", "b", "heavy")])   # type: ignore[arg-type]
    with pytest.raises(SolverInputError, match="must be int, got bool True"):
        Weight("a", "b", True).args()


def test_an_answer_set_out_of_step_with_the_declaration_is_one_clear_error():
    # the program derives weight/3 with a string where the record says int
    prog = AspProgram().add_program('weight(a,b,"x"). #show weight/3.')
    (model,) = prog.models(time_limit=10)
    with pytest.raises(SolverError, match=r"weight/3: argument 3 \(value\) must be int, "
                                          r"got str 'x'"):
        model.records(Weight)
    # the program has edge/3 where the record declares edge/2
    prog = AspProgram().add_program("edge(a,b,c). #show edge/3.")
    (model,) = prog.models(time_limit=10)
    with pytest.raises(SolverError, match=r"edge/2 is declared, but the answer set has edge/3"):
        model.records(Edge)


def test_any_fields_take_function_terms_and_numbers():
    prog = AspProgram().add_program("tagged(n1, w(3)). tagged(n2, 7). #show tagged/2.")
    (model,) = prog.models(time_limit=10)
    got = {t.node: t.tag for t in model.records(Tagged)}
    assert got["n2"] == 7 and str(got["n1"]) == "w(3)"


def test_the_same_records_go_into_prolog(tmp_path):
    rules = tmp_path / "reach.pl"
    rules.write_text(":- dynamic edge/2.\nreach(X,Y) :- edge(X,Y).\n"
                     "reach(X,Z) :- edge(X,Y), reach(Y,Z).\n")
    with Engine().module() as m:
        m.consult_path(rules)
        assert m.add_records([Edge("a", "b"), Edge("b", "c")]) == 2
        rows = m.query("reach(a, Z)")
        assert sorted(str(r["Z"]) for r in rows) == ["b", "c"]
        assert m.add_records([], Weight) == 0              # declared: asking fails, no error
        assert m.query("weight(_, _, _)") == []


def test_declarations_are_checked():
    with pytest.raises(TypeError, match="name its predicate"):
        class Nameless(Record):                              # noqa: F841
            pass
    with pytest.raises(TypeError, match="is not a predicate name"):
        class Upper(Record, predicate="Edge"):               # noqa: F841
            pass

    @dataclass(frozen=True)
    class Clash(Record, predicate="clash"):
        predicate_: str

    assert Clash.signature() == "clash/1"

    @dataclass(frozen=True)
    class Floaty(Record, predicate="floaty"):
        value: list

    with pytest.raises(TypeError, match="has no logic form"):
        Floaty([1]).args()


def test_a_field_cannot_shadow_the_predicate_name():
    @dataclass(frozen=True)
    class Holds(Record, predicate="holds"):
        predicate: str                                       # type: ignore[misc]

    with pytest.raises(TypeError, match="cannot be called 'predicate'"):
        Holds.fields()


def test_clingo_atoms_and_prolog_terms_are_one_structure():
    from solvers.asp import Atom
    from solvers.prolog.terms import Term
    from solvers.terms import Compound

    a, t = Atom("p", ("x", ("y", 1))), Term("p", ("x", ["y", 1]))
    assert isinstance(a, Compound) and isinstance(t, Compound)
    assert a.args == t.args == ("x", ("y", 1)) and a.arity == t.arity == 2
    assert Atom("p", ["x"]).args == ("x",)                           # args always a tuple
    assert hash(a) and sorted([Atom("b"), Atom("a", (1,))]) == [Atom("a", (1,)), Atom("b")]
    assert str(Atom("p", ("Big City",))) == 'p("Big City")'                   # clingo's syntax
    assert str(Term("p", ("Big City",))) == "p('Big City')"                   # Prolog's
    with pytest.raises(TypeError, match="Atom name must be a str"):
        Atom(3)                                                      # type: ignore[arg-type]
