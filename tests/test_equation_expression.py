"""solvers.equation.expression: the whitelisted equation language.

The independent check of evaluation is ``sympy.lambdify``: random expression trees over the
whitelist, built as sympy expressions and printed by sympy, parse and evaluate to what
lambdify computes from the same sympy expression.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.equation import Equation, parse_equation
from solvers.equation.expression import MAX_DEPTH
from solvers.errors import ConfigError, FormalizationError

INPUTS = ["x", "t"]
x, t = sympy.symbols("x t", real=True)


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('touch /tmp/scir_pwned')", "only calls of the whitelisted"),
    ("x.__class__", "attribute access"),
    ("np.linalg.det(x)", "only calls of the whitelisted"),
    ("(lambda: 1)()", "only calls"),
    ("lambda: x", "Lambda is not allowed"),
    ("[x for x in t]", "ListComp is not allowed"),
    ("sum(i for i in (1, 2))", "function 'sum' is not allowed"),
    ("eval('1')", "function 'eval' is not allowed"),
    ("open('f')", "function 'open' is not allowed"),
    ("x if t else 1", "IfExp"),
    ("x < t", "Compare"),
    ("x ^ 2", "use \\*\\* for powers"),
    ("x % 2", "Mod is not allowed"),
    ("~x", "Invert"),
    ("2**10**10", "exponent 1e\\+10 exceeds"),
    ("x**1000", "exponent 1000 exceeds"),
    ("(((2**100)**100)**100)**100", "not finite"),
    ("1/0", "not finite"),
    ("log(0)", "not finite"),
    ("1e400", "too large"),
    ("9" * 400, "too large"),
    ("1j*x", "not a real number"),
    ("'x'", "not a real number"),
    ("True", "not a real number"),
    ("y", "unknown name 'y'"),
    ("p10", "parameter index 10"),
    ("params[x]", "params\\[<int>\\]"),
    ("params[-1]", "params\\[<int>\\]"),
    ("sin(x, t)", "exactly one positional argument"),
    ("sin(*x)", "exactly one positional argument"),
    ("sin", "without an argument"),
    ("x; import os", "syntax error"),
    ("x = 1", "syntax error"),
    ("sin(" * 110 + "x" + ")" * 110, "deeper than 100"),
    ("(" * 300 + "x" + ")" * 300, "syntax error"),
    ("-" * 1990 + "x", "deeper than 100"),
    ("x + " * 600 + "x", "characters long"),
    ("", "empty"),
    ("x\0", "null bytes"),
])
def test_hostile_text_is_rejected(text: str, message: str) -> None:
    with pytest.raises(FormalizationError, match=message):
        parse_equation(text, INPUTS)


def test_error_has_a_column() -> None:
    with pytest.raises(FormalizationError) as info:
        parse_equation("x + foo(t)", INPUTS)
    assert (info.value.line, info.value.column) == (1, 5)


@pytest.mark.parametrize("names", [["x", "x"], ["sin"], ["p0"], ["pi"], ["np"], ["1x"],
                                   ["lambda"], "xt"])
def test_bad_input_names(names) -> None:
    with pytest.raises(ConfigError):
        parse_equation("1", names)


@pytest.mark.parametrize("text, canonical, n", [
    ("params[0]*x*np.exp(-params[1]*t)", "p0*x*exp(-p1*t)", 2),
    ("numpy.arcsin(x) + Abs(t) + asin(x) + atan(t)", "arcsin(x) + abs(t) + arcsin(x) + arctan(t)", 0),
    ("+x - (t - x)", "x - (t - x)", 0),
    ("-(x*t)", "-(x*t)", 0),
    ("(-x)**2", "(-x)**2", 0),
    ("x**-2", "x**(-2)", 0),
    ("x**t**2", "x**t**2", 0),
    ("(x**t)**2", "(x**t)**2", 0),
    ("x/(t*x)", "x/(t*x)", 0),
    ("p3*x", "p3*x", 4),
    ("np.pi*E + np.e", "pi*E + E", 0),
    ("1.50*x + 2", "1.5*x + 2", 0),
])
def test_canonical_text(text: str, canonical: str, n: int) -> None:
    eq = parse_equation(text, INPUTS)
    assert (eq.text, eq.n_params) == (canonical, n)
    assert parse_equation(eq.text, INPUTS).text == canonical


def test_evaluate_and_substitute() -> None:
    eq = parse_equation("p0*x*exp(-p1*t)", INPUTS)
    X = np.array([[1.0, 0.0], [2.0, 1.0], [-3.0, 2.0]])
    expected = 1.5 * X[:, 0] * np.exp(-0.25 * X[:, 1])
    np.testing.assert_allclose(eq.evaluate(X, [1.5, 0.25]), expected, rtol=1e-15)
    assert eq.substitute([1.5, -0.25]) == "1.5*x*exp(-(-0.25)*t)"
    np.testing.assert_allclose(
        parse_equation(eq.substitute([1.5, -0.25]), INPUTS).evaluate(X),
        eq.evaluate(X, [1.5, -0.25]), rtol=1e-15)
    assert parse_equation("p0**x", ["x"]).substitute([-2.0]) == "(-2.0)**x"
    with pytest.raises(ConfigError, match="takes 2 parameters"):
        eq.evaluate(X, [1.0])
    with pytest.raises(ConfigError, match="shape"):
        eq.evaluate(X[:, :1], [1.0, 1.0])


def test_constant_and_one_input_shapes() -> None:
    assert parse_equation("pi", ["x"]).evaluate(np.zeros((4, 1))).shape == (4,)
    np.testing.assert_allclose(parse_equation("x**2", ["x"]).evaluate(np.array([1.0, 3.0])),
                               [1.0, 9.0])


def test_floating_errors_are_silent(recwarn) -> None:
    eq = parse_equation("log(x) + 1/(x - 1) + exp(1000*x)", ["x"])
    with np.errstate(all="raise"):           # evaluate sets its own errstate
        out = eq.evaluate(np.array([[-1.0], [1.0], [2.0]]))
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == np.inf
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("expr", [
    x**2 / 2 - sympy.sqrt(x) * sympy.exp(-t),
    sympy.Float(1.5) * sympy.asin(x) + sympy.pi,
    sympy.Abs(x - t) ** sympy.Rational(1, 3),
    sympy.E ** x + sympy.log(t) / (x + 1),
    -x * t * sympy.atan(x) + sympy.acos(t / 3),
    sympy.Float("1.234e-5") * sympy.tanh(x) * sympy.cosh(t) - sympy.sinh(x) ** (-2),
    sympy.cos(x) * sympy.tan(t) + sympy.Symbol("p0", real=True) * x,
])
def test_sympy_round_trip(expr) -> None:
    eq = parse_equation(str(expr), INPUTS)
    assert eq.to_sympy() == expr
    assert parse_equation(eq.text, INPUTS).to_sympy() == expr


# -- property test: evaluation agrees with sympy.lambdify ----------------------------------

UNARY = [sympy.sin, sympy.cos, sympy.tan, sympy.exp, sympy.log, sympy.sqrt, sympy.Abs,
         sympy.tanh, sympy.sinh, sympy.cosh, sympy.asin, sympy.acos, sympy.atan]
LEAVES = st.sampled_from([x, t, sympy.Integer(2), sympy.Integer(-3), sympy.Rational(1, 2),
                          sympy.Float(0.75), sympy.pi, sympy.E])


def _combine(children):
    binary = st.tuples(st.sampled_from(["+", "-", "*", "/", "**"]), children, children).map(
        lambda o: {"+": o[1] + o[2], "-": o[1] - o[2], "*": o[1] * o[2],
                   "/": o[1] / o[2] if o[2] != 0 else o[1],
                   "**": o[1] ** sympy.Integer(2) if o[2].has(x, t) else o[1] ** o[2]}[o[0]])
    unary = st.tuples(st.sampled_from(UNARY), children).map(lambda o: o[0](o[1]))
    return binary | unary


EXPRS = st.recursive(LEAVES, _combine, max_leaves=8).filter(
    lambda e: e.has(x, t) and not e.has(sympy.zoo, sympy.nan, sympy.oo, sympy.I)
    and len(str(e)) < 400)


@settings(max_examples=30, deadline=None)
@given(EXPRS)
def test_evaluation_matches_lambdify(expr) -> None:
    X = np.random.default_rng(0).uniform(-2.0, 2.0, size=(50, 2))
    try:
        eq = parse_equation(str(expr), INPUTS)
    except FormalizationError as exc:         # only the documented bounds may refuse
        assert "exponent" in str(exc) or "not finite" in str(exc), exc
        return
    with np.errstate(all="ignore"):
        fn = sympy.lambdify((x, t), expr, modules="numpy")
        expected = np.broadcast_to(np.asarray(fn(X[:, 0], X[:, 1]), dtype=complex), (50,))
    expected = np.where(np.abs(expected.imag) > 0, np.nan, expected.real)
    got = eq.evaluate(X)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_equation_is_frozen() -> None:
    eq = parse_equation("x", ["x"])
    assert isinstance(eq, Equation)
    with pytest.raises(AttributeError):
        eq.text = "y"                          # type: ignore[misc]


def test_long_sums_within_the_depth_bound() -> None:
    text = " + ".join([f"p{i % 10}*x**{i % 7}" for i in range(MAX_DEPTH - 2)])
    eq = parse_equation(text, ["x"])
    assert eq.evaluate(np.array([1.0]), np.ones(10))[0] == MAX_DEPTH - 2
    with pytest.raises(FormalizationError, match="deeper than"):
        parse_equation(" + ".join(["x"] * (MAX_DEPTH + 5)), ["x"])


# -- property test: canonical text is a fixed point and means the same ---------------------

SPELLINGS = ["sin", "np.cos", "numpy.exp", "Abs", "sqrt", "asin", "np.arctan", "tanh", "log"]
TEXT_LEAVES = st.sampled_from(["x", "t", "p0", "params[1]", "2", "0.5", "pi", "np.e", "3.25"])


def _text_combine(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "**"]), children).map(
        lambda o: f"({o[0]} {o[1]} {o[2]})" if o[1] != "**" else f"({o[0]})**2")
    unary = st.tuples(st.sampled_from(SPELLINGS), children).map(lambda o: f"{o[0]}({o[1]})")
    neg = children.map(lambda c: f"-({c})")
    return binary | unary | neg


@settings(max_examples=30, deadline=None)
@given(st.recursive(TEXT_LEAVES, _text_combine, max_leaves=10))
def test_canonical_text_is_a_fixed_point(text: str) -> None:
    try:
        eq = parse_equation(text, INPUTS)
    except FormalizationError as exc:
        assert "not finite" in str(exc), exc
        return
    again = parse_equation(eq.text, INPUTS)
    assert again.text == eq.text and again.n_params == eq.n_params
    X = np.random.default_rng(1).uniform(-2.0, 2.0, size=(20, 2))
    p = np.linspace(0.5, 1.5, eq.n_params)
    np.testing.assert_array_equal(again.evaluate(X, p), eq.evaluate(X, p))
    if eq.n_params:
        fixed = parse_equation(eq.substitute(p), INPUTS)
        np.testing.assert_allclose(fixed.evaluate(X), eq.evaluate(X, p), rtol=1e-12,
                                   equal_nan=True)


def test_equation_pickles() -> None:
    import pickle
    eq = parse_equation("p0*sin(p1*x) + abs(t)", INPUTS)
    back = pickle.loads(pickle.dumps(eq))
    X = np.array([[1.0, -2.0], [0.5, 3.0]])
    assert back == eq and back.text == eq.text
    np.testing.assert_array_equal(back.evaluate(X, [1.0, 2.0]), eq.evaluate(X, [1.0, 2.0]))
