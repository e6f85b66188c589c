"""The FOL grammar (grammars/fol.lark), its parser and printer, and per-task grammars."""

from __future__ import annotations

import importlib.util
from functools import lru_cache

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers import resources
from solvers.errors import ConfigError, SolverInputError
from solvers.fol import (
    And, Atom, Const, Eq, Exists, Forall, Iff, Implies, Not, Or, Var, format_formulas,
    free_variables, grammar_bounds, instantiate_grammar, parse_formula, parse_formulas,
    signature, to_prover9, universal_closure,
)
from solvers.fol_grammar import lark_literal
from solvers.grammar_check import llguidance_available, validate_lark

p, q, r, s = (Atom(name) for name in "pqrs")
a, b, x, y = Const("a"), Const("b"), Var("x"), Var("y")


def px(term=x):
    return Atom("p", (term,))


def test_grammar_file_starts_with_a_comment_and_has_one_signature_section():
    text = resources.read_text("grammars", "fol.lark")
    assert text.startswith("// fol.lark -- first-order formulas in Prover9")
    assert text.count("// ---- signature: begin") == 1
    assert text.count("// ---- signature: end ----") == 1


@pytest.mark.parametrize("text, expected", [
    ("all x (man(x) -> mortal(x)).",
     Forall("x", Implies(Atom("man", (x,)), Atom("mortal", (x,))))),
    ("p & q | r", Or(And(p, q), r)),
    ("p | q & r", Or(p, And(q, r))),
    ("p & q & r", And(p, And(q, r))),
    ("(p & q) & r", And(And(p, q), r)),
    ("p & q -> r | s", Implies(And(p, q), Or(r, s))),
    ("all x p(x) & q", And(Forall("x", px()), q)),
    ("all x p(x) -> q", Implies(Forall("x", px()), q)),
    ("all x x = a & p", And(Forall("x", Eq(x, a)), p)),
    ("all x -p(x) & q", And(Forall("x", Not(px())), q)),
    ("exists x exists y r(x,y)", Exists("x", Exists("y", Atom("r", (x, y))))),
    ("- -p", Not(Not(p))),
    ("-(all x p(x))", Not(Forall("x", px()))),
    ("a != b", Not(Eq(a, b))),
    ("-(a = b)", Not(Eq(a, b))),
    ("p <-> (q -> r)", Iff(p, Implies(q, r))),
    ("p(a, b,\n  x)", Atom("p", (a, b, x))),
    ("zebra(tadpole)", Atom("zebra", (Const("tadpole"),))),
])
def test_parse_follows_prover9_precedence(text, expected):
    assert parse_formula(text) == expected


@pytest.mark.parametrize("text, canonical", [
    ("all x (man(x) -> mortal(x)).", "all x (man(x) -> mortal(x))"),
    ("all x (p(x))", "all x p(x)"),
    ("(p | q) | r", "(p | q) | r"),
    ("p | (q | r)", "p | q | r"),
    ("- -p", "-(-p)"),
    ("-(a=b)", "a != b"),
    ("(p -> q) <-> r", "(p -> q) <-> r"),
    ("all x -(p(x) & q(x))", "all x -(p(x) & q(x))"),
    ("p  &\n\tq", "p & q"),
])
def test_print_is_canonical_and_round_trips(text, canonical):
    formula = parse_formula(text)
    assert to_prover9(formula) == canonical
    assert parse_formula(canonical) == formula


@pytest.mark.parametrize("text, line, column, match", [
    ("p -> q -> r", 1, 8, "unexpected '->'"),      # -> is not associative in Prover9
    ("-a = b", 1, 4, "unexpected '='"),             # Prover9 reads (-a) = b, a term
    ("- all x p(x)", 1, 7, "unexpected 'x'"),       # Prover9 needs -(all x p(x))
    ("allx p(x)", 1, 6, "unexpected 'p'"),          # allx is one symbol
    ("p(A)", 1, 3, "unexpected 'A'; expected a name starting with a-t, a variable"),
    ("p(a", 1, 4, "end of input; expected"),
    ("man(x) &\n  & q", 2, 3, "unexpected '&'"),
    ("x", 1, 2, "end of input; expected '!=', '\\(', '='"),  # x is a variable, not a formula
    ("vertebrate(x) & z", 1, 18, "end of input"),
    ("all(a)", 1, 1, "reserved word"),
    ("q(exists)", 1, 3, "reserved word"),
    ("p & end_of_list", 1, 5, "reserved word"),
])
def test_parse_errors_carry_line_and_column(text, line, column, match):
    with pytest.raises(SolverInputError, match=match) as info:
        parse_formula(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_parse_formulas_reads_a_dot_terminated_list_and_reports_the_failing_line():
    text = "all x (man(x) -> mortal(x)).\nman(socrates).\n"
    assert parse_formulas(text) == [parse_formula("all x (man(x) -> mortal(x))"),
                                    Atom("man", (Const("socrates"),))]
    assert parse_formulas("") == []
    with pytest.raises(SolverInputError, match="unexpected") as info:
        parse_formulas("p(a).\nq(b) r(c).\n")
    assert (info.value.line, info.value.column) == (2, 6)
    with pytest.raises(SolverInputError, match="unexpected"):
        parse_formula("p(a). q(b).")


def test_signature_collects_arities_and_constants_sorted():
    formulas = parse_formulas("all x (man(x) -> mortal(x)). man(socrates). likes(plato, x). "
                              "b = a. rains.")
    assert signature(formulas) == ({"likes": 2, "man": 1, "mortal": 1, "rains": 0},
                                   ["a", "b", "plato", "socrates"])
    with pytest.raises(SolverInputError, match="arities 1 and 2"):
        signature(parse_formulas("p(a). p(a,b)."))
    with pytest.raises(SolverInputError, match="both as predicate and constant: a"):
        signature(parse_formulas("p(a). a."))


def test_free_variables_and_universal_closure():
    formula = parse_formula("all x r(x,y) & q(z, y)")
    assert free_variables(formula) == ["y", "z"]
    assert universal_closure(formula) == Forall("y", Forall("z", formula))


# ---------------------------------------------------------------- random formulas

PREDICATES = {"p": 0, "q": 1, "r": 2}
CONSTANTS = ["a", "b", "c1"]
VARIABLES = ["x", "y", "z", "u1"]
terms = st.one_of(st.sampled_from(CONSTANTS).map(Const), st.sampled_from(VARIABLES).map(Var))
literals = st.one_of(
    st.just(Atom("p")),
    terms.map(lambda t: Atom("q", (t,))),
    st.tuples(terms, terms).map(lambda ts: Atom("r", ts)),
    st.tuples(terms, terms).map(lambda ts: Eq(*ts)),
)
formulas = st.recursive(literals, lambda inner: st.one_of(
    inner.map(Not),
    st.tuples(st.sampled_from([And, Or, Implies, Iff]), inner, inner)
      .map(lambda t: t[0](t[1], t[2])),
    st.tuples(st.sampled_from([Forall, Exists]), st.sampled_from(VARIABLES), inner)
      .map(lambda t: t[0](t[1], t[2])),
), max_leaves=8)


@lru_cache(maxsize=None)
def _explicit_parser() -> lark.Lark:
    return lark.Lark(resources.read_text("grammars", "fol.lark"), parser="earley",
                     ambiguity="explicit")


@lru_cache(maxsize=None)
def _bounded_parser(depth: int, width: int) -> lark.Lark:
    grammar = instantiate_grammar(PREDICATES, CONSTANTS, max_formulas=2, max_depth=depth,
                                  max_operands=width, validate=False)
    return lark.Lark(grammar, parser="earley")


def _accepts(parser: lark.Lark, text: str) -> bool:
    try:
        parser.parse(text)
    except lark.exceptions.UnexpectedInput:
        return False
    return True


@settings(max_examples=30, deadline=None)
@given(formulas)
def test_random_formulas_print_and_parse_back_unambiguously(formula):
    text = to_prover9(formula)
    assert parse_formula(text) == formula
    assert parse_formulas(format_formulas([formula, formula])) == [formula, formula]
    tree = _explicit_parser().parse(f"{text}.")
    assert not any(t.data == "_ambig" for t in tree.iter_subtrees()), text


@settings(max_examples=30, deadline=None)
@given(formulas)
def test_bounded_grammar_accepts_exactly_within_its_bounds(formula):
    depth, width = grammar_bounds([formula])
    text = format_formulas([formula])
    assert _accepts(_bounded_parser(depth, width), text)
    if depth > 0:
        assert not _accepts(_bounded_parser(depth - 1, width), text)
    if width > 1:
        assert not _accepts(_bounded_parser(depth, width - 1), text)


# ---------------------------------------------------------------- per-task grammars

SIGNATURE = {"man": 1, "mortal": 1, "likes": 2, "rains": 0}
TASK_CONSTANTS = ["socrates", "plato"]


@pytest.fixture(scope="module", params=["unbounded", "bounded"])
def task_parser(request) -> lark.Lark:
    bound = None if request.param == "unbounded" else 3
    return lark.Lark(instantiate_grammar(SIGNATURE, TASK_CONSTANTS, max_formulas=bound),
                     parser="earley")


@pytest.mark.parametrize("text, ok", [
    ("all x (man(x) -> mortal(x)).\nman(socrates).\n", True),
    ("likes(plato,socrates) & rains.\n", True),
    ("x != socrates.\n", True),
    ("woman(socrates).\n", False),        # unknown predicate
    ("man(xanthippe).\n", False),         # unknown constant
    ("man(socrates,plato).\n", False),    # wrong arity
    ("likes(plato).\n", False),
    ("rains(socrates).\n", False),
])
def test_task_grammar_accepts_only_the_signature(task_parser, text, ok):
    assert _accepts(task_parser, text) is ok
    assert _accepts(_explicit_parser(), text)   # the generic grammar accepts all of them


def test_bounded_task_grammar_limits_the_number_of_formulas():
    parser = lark.Lark(instantiate_grammar(SIGNATURE, TASK_CONSTANTS, max_formulas=2),
                       parser="earley")
    assert _accepts(parser, "rains.\nman(plato).\n")
    assert not _accepts(parser, "rains.\nman(plato).\nmortal(plato).\n")
    assert not _accepts(parser, "")


def test_task_grammar_without_constants_has_variables_only():
    parser = lark.Lark(instantiate_grammar({"man": 1}, []), parser="earley")
    assert _accepts(parser, "all x man(x).")
    assert not _accepts(parser, "man(socrates).")


@pytest.mark.parametrize("predicates, constants, match", [
    ({"Man": 1}, [], "invalid predicate name"),
    ({"man x": 1}, [], "invalid predicate name"),
    ({'man"|/.*/': 1}, [], "invalid predicate name"),
    ({"all": 1}, [], "invalid predicate name"),
    ({"end_of_list": 0}, [], "invalid predicate name"),
    ({"x1": 1}, [], "looks like a variable"),
    ({"vague": 0}, [], "Prover9 would read it as a variable"),
    ({"man": -1}, [], "invalid arity"),
    ({"man": True}, [], "invalid arity"),
    ({}, [], "at least one predicate"),
    ({"man": 1}, ["Socrates"], "invalid constant name"),
    ({"man": 1}, ['s" | /.+/'], "invalid constant name"),
    ({"man": 1}, ["zeno"], "would read it as a variable"),
    ({"man": 1}, ["man"], "both a predicate and a constant"),
    ({"man": 1}, ["plato", "plato"], "duplicate"),
    ({"man": 1}, "plato", "not a string"),
])
def test_instantiate_grammar_rejects_invalid_names(predicates, constants, match):
    with pytest.raises(SolverInputError, match=match):
        instantiate_grammar(predicates, constants)


@pytest.mark.parametrize("text", ['plain', 'quo"te', 'back\\slash', '\\"', 'a|b /x/'])
def test_lark_literal_matches_exactly_its_text(text):
    parser = lark.Lark(f"start: {lark_literal(text)}", parser="lalr")
    parser.parse(text)
    with pytest.raises(lark.exceptions.UnexpectedInput):
        parser.parse(text + "x")


@pytest.mark.parametrize("kwargs", [{"max_formulas": 0}, {"max_formulas": 2, "max_depth": -1},
                                    {"max_formulas": 2, "max_operands": 0}])
def test_instantiate_grammar_rejects_bad_bounds(kwargs):
    with pytest.raises(ConfigError, match="must be an integer"):
        instantiate_grammar(SIGNATURE, TASK_CONSTANTS, **kwargs)


# ---------------------------------------------------------------- llguidance

needs_llguidance = pytest.mark.skipif(not llguidance_available(),
                                      reason="llguidance is not installed (llm extra)")


@pytest.mark.llm
@needs_llguidance
def test_validate_lark_accepts_the_fol_grammars():
    validate_lark(resources.read_text("grammars", "fol.lark"))
    validate_lark(instantiate_grammar(SIGNATURE, TASK_CONSTANTS, validate=False))
    validate_lark(instantiate_grammar(SIGNATURE, TASK_CONSTANTS, max_formulas=4,
                                      validate=False))


@pytest.mark.llm
@needs_llguidance
def test_validate_lark_rejects_a_broken_grammar_with_its_position():
    with pytest.raises(SolverInputError, match="unknown name") as info:
        validate_lark('start: formula "."\nformula: atom\n')
    assert info.value.line == 2


@pytest.mark.llm
@pytest.mark.skipif(not (llguidance_available() and importlib.util.find_spec("tokenizers")),
                    reason="llguidance and tokenizers are needed (llm extra)")
def test_llguidance_matcher_follows_the_bounded_task_grammar():
    from llguidance import LLMatcher, LLTokenizer, grammar_from
    from tokenizers import Tokenizer, decoders, models
    from tokenizers.pre_tokenizers import ByteLevel

    alphabet = sorted(ByteLevel.alphabet())   # one token per byte, plus end of sequence
    vocab = {char: i for i, char in enumerate(alphabet)} | {"<eos>": len(alphabet)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens(["<eos>"])
    tokenizer = LLTokenizer(backend.to_str(), eos_token=vocab["<eos>"])
    grammar = grammar_from("lark", instantiate_grammar(SIGNATURE, TASK_CONSTANTS,
                                                       max_formulas=2))

    def accepts(text: str) -> bool:
        matcher = LLMatcher(tokenizer, grammar, log_level=0)
        return matcher.consume_tokens(tokenizer.tokenize_str(text)) and matcher.is_accepting()

    good = [parse_formula("all x (man(x) -> mortal(x))"), parse_formula("man(socrates)")]
    assert accepts(format_formulas(good))
    assert not accepts("woman(socrates).\n")
    assert not accepts("man(socrates).\n" * 3)
