"""Deduction semantics: the formula forms, the syllogism catalogue (valid, every premise
needed, identical in Python and in prolog/deduction.pl), the ASP countermodel search against
Prover9, and the proof-tree checks in Prolog."""

from __future__ import annotations

import itertools

import pytest

from scir.errors import TaskFormatError, VerificationError
from scir.tracks.deduction import checks
from scir.tracks.deduction.logic import (
    CONVERSE_KINDS, KINDS, RULES, Formula, Node, catalogue, converse, fragment, from_ast,
    goal_kinds, instantiate, negation_table, parse, rules_for,
)
from solvers.fol import parse_formula, to_prover9


def F(kind: str, *args: str) -> Formula:
    return Formula(kind, tuple(args))


SAMPLES = [F("all", "s", "p"), F("no", "s", "p"), F("some", "s", "p"), F("some_not", "s", "p"),
           F("fact", "p", "cell_a1"), F("neg_fact", "p", "cell_a1"), F("exists", "s")]


@pytest.mark.parametrize("formula", SAMPLES, ids=lambda f: f.kind)
def test_prover9_text_is_canonical_and_parses_back(formula):
    text = formula.to_prover9()
    assert to_prover9(parse_formula(text)) == text
    assert parse(text) == formula
    assert from_ast(parse_formula(text)) == formula


@pytest.mark.parametrize("text", ["all x (s(x) & p(x))", "exists x (s(x) -> p(x))",
                                  "all x all y (s(x) -> p(y))", "p(cell_a1, cell_a2)",
                                  "-(all x (s(x) -> p(x)))", "s(x) -> p(x)"])
def test_formulas_outside_the_fragment_are_rejected(text):
    with pytest.raises(TaskFormatError, match="not one of the deduction forms"):
        parse(text, task_id="t-1", field="formal.goal")


def test_unparsable_text_names_the_field():
    with pytest.raises(TaskFormatError, match="does not parse") as info:
        parse("all x (s(x) ->", task_id="t-1", field="formal.premises[3]")
    assert info.value.field == "formal.premises[3]" and info.value.task_id == "t-1"


def test_negation_pairs():
    for formula in SAMPLES[:-1]:
        assert formula.negated().negated() == formula
        assert formula.negated().kind != formula.kind
    with pytest.raises(ValueError, match="not in the fragment"):
        F("exists", "s").negated()


def test_forms_and_universal_forms_are_read_from_asp():
    """form/4 and universal/1 of asp/deduction.lp are the one table of the forms: in its
    order, each form's argument sorts (arity, which argument is a constant); the universal
    forms (those that carry their subject's existence under import, for ASP's reading(import)
    and the Prover9 check of it alike) are exactly those Prover9 writes with ``all``."""
    frag = fragment()
    assert list(frag.kinds) == [f.kind for f in SAMPLES] and KINDS == frag.kinds
    for formula in SAMPLES:
        assert len(formula.args) == len(frag.kinds[formula.kind])
        assert formula.constants == tuple(a for a in formula.args if a.startswith("cell_"))
    assert frag.universal == {f.kind for f in SAMPLES if f.to_prover9().startswith("all ")}
    assert goal_kinds() == tuple(f.kind for f in SAMPLES[:-1])
    with pytest.raises(ValueError, match="not a formula"):
        F("exists", "s", "p")
    assert checks._import_of(F("no", "s", "p")) == F("exists", "s")
    assert checks._import_of(F("some", "s", "p")) is None


def test_converse_kinds_are_exactly_the_asymmetric_binary_forms_for_prover9():
    """CONVERSE_KINDS (the leaves the balanced construction breaks) are the binary forms whose
    converse Prover9 does not prove equivalent; the other binary forms are symmetric."""
    from solvers.prover9 import proves

    for formula in SAMPLES:
        if fragment().kinds[formula.kind] != ("p", "p"):
            continue
        swapped = F(formula.kind, *reversed(formula.args))
        equivalent = proves([], f"({formula.to_prover9()}) <-> ({swapped.to_prover9()})")
        assert equivalent == (formula.kind not in CONVERSE_KINDS), formula.kind
        if not equivalent:
            assert converse(formula) == swapped


def test_negation_table_is_read_from_asp_and_each_entry_is_a_negation_for_prover9():
    """The table comes from ``negation/2`` of asp/deduction.lp (every kind but ``exists``,
    whose negation is outside the fragment), and Prover9 proves each entry: F <-> -(neg F)."""
    from solvers.prover9 import proves

    table = negation_table()
    assert set(table) == set(KINDS) - {"exists"}
    for formula in SAMPLES[:-1]:
        negation = formula.negated()
        assert negation.kind == table[formula.kind]
        assert proves([], f"({formula.to_prover9()}) <-> -({negation.to_prover9()})")
        # and it is not the formula itself: F & neg F is inconsistent, F alone is not
        assert not proves([formula.to_prover9()], f"-({formula.to_prover9()})")


def _conclusion_args(rule):
    return ("p", "cell_c") if rule.conclusion[0] in ("fact", "neg_fact") else ("s", "p")


def _instances(rule):
    """The rule's conclusion and its premises, with both ways of stating existence."""
    conclusion = Formula(rule.conclusion[0], _conclusion_args(rule))
    out: list[list[Formula]] = []
    for existence in ("exists", "fact"):
        premises = instantiate(rule, conclusion, lambda: "m", lambda: "cell_d", existence)
        if premises not in out:
            out.append(premises)
    return conclusion, out


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_is_valid_and_needs_each_premise(name):
    """Each instance: the premises entail the conclusion (ASP and Prover9 agree), they are
    satisfiable, and dropping any one premise loses the entailment."""
    conclusion, instances = _instances(RULES[name])
    for premises in instances:
        verdict = checks.double_check(premises, conclusion)
        assert verdict.label == "True", (name, premises)
        for i in range(len(premises)):
            rest = premises[:i] + premises[i + 1:]
            verdict = checks.double_check(rest, conclusion)
            assert verdict.label == "Unknown", (name, premises[i])


def test_existential_import_is_not_assumed():
    """Darapti without its existence premise proves nothing: All M are P, All M are S."""
    premises = [F("all", "m", "p"), F("all", "m", "s")]
    assert checks.double_check(premises, F("some", "s", "p")).label == "Unknown"
    assert checks.double_check([F("all", "s", "p")], F("some", "s", "p")).label == "Unknown"


def test_asp_models_are_real_countermodels():
    premises = [F("all", "a", "b"), F("some", "c", "a")]
    verdict = checks.asp_label(premises, F("all", "c", "b"))
    assert verdict.label == "Unknown"
    deny = set(verdict.deny)   # a model where some c is not b
    elements = {e for _, e in deny}
    assert any(("c", e) in deny and ("b", e) not in deny for e in elements)
    for e in elements:
        assert ("a", e) not in deny or ("b", e) in deny


def test_unsatisfiable_premises_have_no_label():
    premises = [F("fact", "a", "cell_a1"), F("no", "a", "b"), F("all", "a", "b")]
    verdict = checks.asp_label(premises, F("exists", "b"))
    assert verdict.label is None and verdict.affirm is None and verdict.deny is None
    assert checks.double_check(premises, F("some", "a", "b")).label is None


def test_double_check_raises_on_disagreement(monkeypatch):
    """A real disagreement: Prover9 is (wrongly) asked about the negated statement."""
    real = checks.prover9_label
    monkeypatch.setattr(checks, "prover9_label",
                        lambda premises, statement, max_seconds: real(premises,
                                                                      statement.negated()))
    with pytest.raises(VerificationError, match="ASP says True, Prover9 says False"):
        checks.double_check([F("all", "a", "b"), F("fact", "a", "cell_a1")],
                            F("fact", "b", "cell_a1"), task_id="deduction-e0d0-1-0")


def test_catalogue_read_from_prolog_instantiates_to_prolog_rules():
    """The generator's catalogue is rule_schema/3 of prolog/deduction.pl (30 rules in clause
    order); every instance the generator builds from a schema (both existence forms) is an
    instance of rule/3 under its name, and nothing else is."""
    assert list(RULES) == list(catalogue()) and len(RULES) == 30
    assert list(RULES)[:3] == ["barbara", "celarent", "cesare"]
    assert RULES["darapti"].premises == (("all", "M", "P"), ("all", "M", "S"),
                                         ("existence", "M"))
    engine = checks.prolog_engine()
    with engine.module("test_deduction_") as module:
        module.consult("deduction")
        names = sorted(a["N"] for a in module.query("rule_name(N)"))
        assert names == sorted(RULES)
        for name, rule in RULES.items():
            conclusion, instances = _instances(rule)
            for premises in instances:
                answer = module.query_once("rule(R, C, Ps)", {
                    "R": name, "C": conclusion.to_term(),
                    "Ps": [p.to_term() for p in premises]})
                assert answer is not None, (name, premises)
                found = module.query("rule(R, C, Ps)", {
                    "C": conclusion.to_term(), "Ps": [p.to_term() for p in premises]})
                assert name in {a["R"] for a in found}
        # premises in the wrong order, or a wrong mood, are not instances
        assert module.query_once("rule(barbara, C, Ps)", {
            "C": F("all", "s", "p").to_term(),
            "Ps": [F("all", "s", "m").to_term(), F("all", "m", "p").to_term()]}) is None
        assert module.query_once("rule(darii, C, Ps)", {
            "C": F("some", "s", "p").to_term(),
            "Ps": [F("some", "m", "p").to_term(), F("all", "s", "m").to_term()]}) is None


def test_every_goal_kind_has_rules():
    assert {kind for kind in KINDS if kind != "exists"} == \
        {r.conclusion[0] for r in RULES.values()}
    assert [r.name for r in rules_for("all")] == ["barbara"]


def _chain() -> Node:
    """all(s, p) from all(m, p) and all(s, m), the latter from all(n, m), all(s, n)."""
    inner = Node(F("all", "s", "m"), "barbara", [Node(F("all", "n", "m")),
                                                 Node(F("all", "s", "n"))])
    return Node(F("all", "s", "p"), "barbara", [Node(F("all", "m", "p")), inner])


def test_check_trees_accepts_a_proof_and_reports_missing_leaves():
    tree = _chain()
    premises = [F("all", "m", "p"), F("all", "n", "m"), F("all", "s", "n")]
    assert checks.check_trees([tree], premises) == [checks.TreeCheck(True, [])]
    tree.children[1].children[0].missing = True
    result = checks.check_trees([tree], premises[:1] + premises[2:])[0]
    assert result.ok and result.missing == [F("all", "n", "m")]


@pytest.mark.parametrize("damage, message", [
    ("rule", "does not follow by celarent"),
    ("leaf", "is not among the premises"),
    ("missing", "missing leaf all x (n(x) -> m(x)) is among the premises"),
])
def test_check_trees_names_the_fault(damage, message):
    tree = _chain()
    premises = [F("all", "m", "p"), F("all", "n", "m"), F("all", "s", "n")]
    if damage == "rule":
        tree.rule = "celarent"
    elif damage == "leaf":
        premises = premises[1:]
    else:
        tree.children[1].children[0].missing = True
    result = checks.check_trees([tree], premises)[0]
    assert not result.ok and message in result.error


def test_proof_steps_in_reading_order():
    steps = checks.proof_steps(_chain())
    assert [(c, r) for c, r, _ in steps] == [(F("all", "s", "m"), "barbara"),
                                             (F("all", "s", "p"), "barbara")]
    assert steps[0][2] == [F("all", "n", "m"), F("all", "s", "n")]


def test_tree_json_round_trip():
    tree = _chain()
    tree.children[0].missing = True
    data = tree.to_json()
    assert data["premises"][0] == {"conclusion": "all x (m(x) -> p(x))", "rule": "missing"}
    assert Node.from_json(data) == tree
    with pytest.raises(TaskFormatError, match="needs a non-empty premises list"):
        Node.from_json({"conclusion": "all x (s(x) -> p(x))", "rule": "barbara"})


def test_instantiate_uses_fresh_names_only():
    counter = itertools.count()
    for rule in RULES.values():
        conclusion = Formula(rule.conclusion[0], _conclusion_args(rule))
        premises = instantiate(rule, conclusion, lambda: f"m{next(counter)}",
                               lambda: f"cell_d{next(counter)}", "fact")
        names = {a for p in premises for a in p.args}
        assert set(conclusion.args) <= names
        fresh = names - set(conclusion.args)
        assert all(n.startswith(("m", "cell_d")) for n in fresh)


def test_prover9_proof_found_while_processing_input_counts_as_proved():
    """Regression: a Horn problem with several negative clauses, where Prover9's auto_denials
    would raise max_proofs and end with 'sos_empty' (exit 2) after a proof; the premises
    entail the negation of the goal (found by the property test, seed 39, index 110)."""
    premises = [
        "all x (cxcr4_positive(x) -> stra8_positive(x))",
        "all x (esrrb_positive(x) -> nanos2_positive(x))",
        "all x (nanos2_positive(x) -> tex14_positive(x))",
        "rec8_positive(cell_g2)",
        "all x (prdm14_positive(x) -> -tex14_positive(x))",
        "all x (esrrb_positive(x) -> prospermatogonium(x))",
        "all x (meiotic_germ_cell(x) -> stra8_positive(x))",
        "all x (sycp3_positive(x) -> meiotic_germ_cell(x))",
        "all x (sox2_positive(x) -> cxcr4_positive(x))",
        "all x (meiotic_germ_cell(x) -> -esrrb_positive(x))",
        "exists x (sox2_positive(x) & -prospermatogonium(x))",
    ]
    goal = "all x (stra8_positive(x) -> esrrb_positive(x))"
    assert checks.prover9_entails(premises, goal) == "False"
    assert checks.asp_label([parse(p) for p in premises], parse(goal)).label == "False"


def test_tree_shapes_per_label_come_from_prolog():
    """shape_error/8 of prolog/deduction.pl on hand-built trees: a barbara proof of all(s, p)
    is the right shape for True, not for False or Unknown; a paper distractor needs exactly one
    missing leaf; the balanced construction needs half the trees negated and one converse per
    tree."""
    stmt = F("all", "s", "p")
    proof = Node(stmt, "barbara", [Node(F("all", "m", "p")), Node(F("all", "s", "m"))])
    broken = Node(stmt, "barbara", [Node(F("all", "n", "p")),
                                    Node(F("all", "s", "n"), missing=True)])
    complete = Node(stmt, "barbara", [Node(F("all", "n", "p")), Node(F("all", "s", "n"))])
    premises = [F("all", "m", "p"), F("all", "s", "m"), F("all", "n", "p")]
    assert checks.shape_problems("paper", "True", stmt, [proof, broken], premises) == []
    assert checks.shape_problems("paper", "False", stmt, [proof], premises) == [
        "proof: a False task needs a complete proof of exists x (s(x) & -p(x))"]
    assert checks.shape_problems("paper", "Unknown", stmt, [proof], premises) == [
        "proof: an Unknown task needs a proof of the statement or its negation with exactly "
        "one premise missing"]
    assert checks.shape_problems("paper", "Unknown", stmt, [broken], premises) == []
    both = premises + [F("all", "s", "n")]
    assert checks.shape_problems("paper", "True", stmt, [proof, complete], both) == [
        "distractor 1: needs the proof's conclusion and exactly one missing premise"]
    assert checks.shape_problems("balanced", "True", stmt, [proof, complete], both) == [
        "distractor 1: needs the proof's conclusion or its negation and one or two premises "
        "replaced by their converses",
        "trees: half of them must conclude the negation of the others",
        "trees: there must be as many converse premises as trees"]


def test_decoy_shapes_come_from_prolog():
    """shape_error/9 on a hand-built proof with decoys: a decoy about an inner term and a
    fresh one, holding the proof's one converse in a True task, passes when it copies a
    subtree's shape (balanced 4.x) or has the other polarity (3.x); one of the same polarity
    and no subtree's shape, or without the converse, or a decoy list one short, is named."""
    stmt = F("all", "s", "p")
    proof = Node(stmt, "barbara", [Node(F("all", "m", "p")), Node(F("all", "s", "m"))])
    # no m is a q (q fresh): from "no r is a q" and "every m is an r" -- the latter stated as
    # its converse "every r is an m"
    decoy = Node(F("no", "m", "q"), "celarent",
                 [Node(F("no", "r", "q")),
                  Node(F("all", "m", "r"), missing=True, replaced_by=F("all", "r", "m"))])
    premises = [F("all", "m", "p"), F("all", "s", "m"), F("no", "r", "q"), F("all", "r", "m")]
    found = checks.shape_problems("balanced", "True", stmt, [proof], premises, [decoy])
    assert not [p for p in found if p.startswith("decoy")], found
    # a copy of the proof's one step about an inner term and a fresh one (balanced 4.x)
    copy = Node(F("all", "m", "q"), "barbara",
                [Node(F("all", "r", "q")),
                 Node(F("all", "m", "r"), missing=True, replaced_by=F("all", "r", "m"))])
    found = checks.shape_problems("balanced", "True", stmt, [proof],
                                  premises[:2] + [F("all", "r", "q"), F("all", "r", "m")],
                                  [copy])
    assert not [p for p in found if p.startswith("decoy")], found
    # the same polarity and no subtree's shape: some m is a q, from "every r is a q" and
    # "some m is an r" -- the former stated as its converse
    same = Node(F("some", "m", "q"), "darii",
                [Node(F("all", "r", "q"), missing=True, replaced_by=F("all", "q", "r")),
                 Node(F("some", "m", "r"))])
    found = checks.shape_problems("balanced", "True", stmt, [proof],
                                  premises[:2] + [F("all", "q", "r"), F("some", "m", "r")],
                                  [same])
    assert any(p.startswith("decoy 1: needs the shape of a subtree") for p in found), found
    intact = Node(F("no", "m", "q"), "celarent",
                  [Node(F("no", "r", "q")), Node(F("all", "m", "r"))])
    found = checks.shape_problems("balanced", "True", stmt, [proof],
                                  premises[:3] + [F("all", "m", "r")], [intact])
    assert any(p.startswith("decoy 1:") and "one converse premise" in p for p in found)
    found = checks.shape_problems("balanced", "True", stmt, [proof, proof], premises, [decoy])
    assert "decoys: there must be one decoy per tree" in found
