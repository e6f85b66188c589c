"""Bias files read as Popper reads them (issue #31): the file is grounded, never solved, so
constraints over the generator's vocabulary -- negated atoms included -- reach the generator;
``#const``, choice rules, ``custom_max_size/1`` and ``bad_body/2`` keep Popper's meaning;
what is still unsupported is a SolverInputError naming the statement.

One small problem (written for this file), run with the real learner (clingo + SWI-Prolog):

    tagged(A,B): A is red; B plays no part in the plain optimum
    red:   a1 a2 a3          heavy: a1 a2 a3 c1 c2     small: b1 b2 b3 d2
    vip:   a1 a2 a3 e1
    pos:   (a1,b1) (a2,b2) (a3,b3) (a1,b2)
    neg:   (c1,d1) (e1,b1) (c2,b2)

- plain (non_datalog): the unique optimum is ``tagged(A,B) :- red(A).`` (size 2);
- with ``:- not body_var(_,1).`` (B must occur in a body): ``red(A), small(B)`` (size 3;
  ``heavy(A), small(B)`` covers (c2,b2), ``vip(A), small(B)`` covers (e1,b1));
- with red banned by ``bad_body/2``: ``vip(A), heavy(A)`` (size 3; nothing of size 2 is
  exact: heavy(A) covers c1, small(B) and vip(A) cover e1).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from solvers.errors import SolverInputError
from solvers.ilp import learn, parse_bias
from solvers.ilp.generate import Generator

BK = """red(a1). red(a2). red(a3).
heavy(a1). heavy(a2). heavy(a3). heavy(c1). heavy(c2).
small(b1). small(b2). small(b3). small(d2).
vip(a1). vip(a2). vip(a3). vip(e1).
"""
EXS = """pos(tagged(a1,b1)). pos(tagged(a2,b2)). pos(tagged(a3,b3)). pos(tagged(a1,b2)).
neg(tagged(c1,d1)). neg(tagged(e1,b1)). neg(tagged(c2,b2)).
"""
BIAS = """head_pred(tagged,2).
body_pred(red,1). body_pred(heavy,1). body_pred(small,1). body_pred(vip,1).
max_vars(2). max_body(2).
non_datalog.
"""
NEEDS_B = ":- not body_var(_,1).\n"                     # as in Popper's 1d_flip
NO_RED = "bad_body(red, Vs) :- vars(1, Vs).\n"          # Popper's later bad_body/2


def _norm(clause: str) -> str:
    return re.sub(r"\s+", "", clause)


def _learn(tmp_path: Path, extra: str) -> tuple[str, list[str]]:
    (tmp_path / "bk.pl").write_text(BK)
    (tmp_path / "exs.pl").write_text(EXS)
    (tmp_path / "bias.pl").write_text(BIAS + extra)
    result = learn(tmp_path, timeout=20)
    return result.status, sorted(_norm(c) for c in result.program)


@pytest.mark.parametrize("extra, status, program", [
    ("", "solution", ["tagged(A,B):-red(A)."]),
    (NEEDS_B, "solution", ["tagged(A,B):-red(A),small(B)."]),
    (NO_RED, "solution", ["tagged(A,B):-heavy(A),vip(A).", "tagged(A,B):-vip(A),heavy(A)."]),
    # #const: a name for a constant, in the bias reading and in the generator alike
    ("#const banned = red.\nbad_body(banned, Vs) :- vars(1, Vs).\n", "solution",
     ["tagged(A,B):-heavy(A),vip(A).", "tagged(A,B):-vip(A),heavy(A)."]),
    # a choice rule over an atom of the user's own: every program still comes once
    ("{ extra_flag }.\n:- extra_flag, body_literal(_,small,_,_).\n", "solution",
     ["tagged(A,B):-red(A)."]),
    # custom_max_size(K): generated programs of at most K literals (Popper d48951f)
    (NO_RED + "custom_max_size(2).\n", "no_solution", []),
    (NO_RED + "custom_max_size(3).\n", "solution",
     ["tagged(A,B):-heavy(A),vip(A).", "tagged(A,B):-vip(A),heavy(A)."]),
    (NEEDS_B + NO_RED, "no_solution", []),
])
def test_bias_statements_reach_the_generator(tmp_path: Path, extra: str, status: str,
                                             program: list[str]) -> None:
    found_status, found = _learn(tmp_path, extra)
    assert found_status == status
    if program:        # either body order: the learner prints literals in its own order
        assert len(found) == 1 and found[0] in program
    else:
        assert found == []


def test_popper_reading_of_directives() -> None:
    bias = parse_bias("""#const k = 3.
head_pred(f,2). body_pred(g,2).
max_body(k). max_vars(k + 1).
{ non_datalog }.
enable_recursion :- not clause(0).
:- not body_var(_,1).
custom_max_size(5).
#show head_pred/2.
""")
    # a #const is substituted; an atom of a choice rule is declared (it is in the ground
    # program); a rule over the generator's (empty) vocabulary derives what it derives
    assert (bias.max_body, bias.max_vars, bias.max_size) == (3, 4, 5)
    assert bias.non_datalog and bias.enable_recursion
    # statements that are not directives go to the generator, #const included; #show not
    assert "#const k = 3." in bias.user_asp and "not body_var(_,1)" in bias.user_asp
    assert "#show" not in bias.user_asp and "max_body" not in bias.user_asp
    gen = Generator(bias)
    try:
        assert list(gen.sizes()) == [2, 3, 4, 5]
    finally:
        gen.close()


@pytest.mark.parametrize("statement, message", [
    ("#script (python)\nx = 1\n#end.", "#script (a bias file runs no code)"),
    ("#heuristic body_literal(C,g,2,V) : clause(C), vars(2,V). [1,true]", "#heuristic"),
    ("#external flag.", "#external"),
    ("#program step(t).", "only the base program part is read"),
    ("{ enable_pi; helper }.", "mixes bias directives with other atoms (helper/0)"),
    ("magic_value_type(t).", "magic_value_type/1 is not supported"),
    ("bounds(g,0,(1,2)).", "bounds/3 is not supported"),
])
def test_unsupported_statements_are_named(statement: str, message: str) -> None:
    text = "head_pred(f,2).\nbody_pred(g,2).\n" + statement + "\n"
    with pytest.raises(SolverInputError, match=re.escape(message)) as info:
        parse_bias(text, file="bias.pl")
    assert info.value.line == 3 and info.value.file == "bias.pl"
