"""The ILP learner (solvers.ilp): Popper-format fixtures, the generator against a brute-force
enumeration of the bias, the learner against exhaustive search, the induction cross-check
pattern, bias/example parsing errors and the command line.

Each folder under tests/fixtures/ilp/ with an ``% Expected:`` line states its expected outcome
in the header of exs.pl (the others are the feature problems of tests/test_ilp_problems.py):
    % Expected: solution | no_solution | timeout | SolverInputError <file>:<line>
    % Clause: <a clause of the expected program>          (zero or more)
    % Score: tp=.. fn=.. tn=.. fp=..                        (optional)
    % Timeout: <seconds>                                    (optional, default 30)
"""

from __future__ import annotations

import itertools
import random
import re
import time
from pathlib import Path

import pytest

from solvers.errors import ConfigError, SolverInputError
from solvers.ilp import (IlpBias, IlpProblem, IlpSession, learn, learn_problem, load_problem,
                         parse_bias)
from solvers.ilp.__main__ import main
from solvers.ilp.clauses import Clause, Literal, canonical, show
from solvers.ilp.generate import Generator
from solvers.ilp import tester as ilp_tester

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ilp"
HEADER = re.compile(r"\A% (Expected|Clause|Score|Timeout): (.+?)\s*\Z")
EXPECTED_ERROR = re.compile(r"\ASolverInputError (\S+):(\d+)\Z")
SCORE = re.compile(r"\Atp=(\d+) fn=(\d+) tn=(\d+) fp=(\d+)\Z")


def _header(folder: Path) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for line in (folder / "exs.pl").read_text().splitlines():
        match = HEADER.match(line)
        if match:
            fields.setdefault(match.group(1), []).append(match.group(2))
    return fields


def _norm(clause: str) -> str:
    return re.sub(r"\s+", "", clause)


# Folders whose exs.pl states "% Expected:"; the feature problems (headers in bias.pl) are run
# by tests/test_ilp_problems.py.
FOLDERS = sorted(p for p in FIXTURES.iterdir() if (p / "exs.pl").is_file()
                 and "Expected" in _header(p))


def test_fixture_set_is_complete() -> None:
    expected = {_header(f)["Expected"][0].split()[0] for f in FOLDERS}
    assert {"solution", "no_solution", "timeout", "SolverInputError"} <= expected
    assert len(FOLDERS) >= 7


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_fixture(folder: Path) -> None:
    header = _header(folder)
    expected = header["Expected"][0]
    timeout = float(header.get("Timeout", ["30"])[0])
    error = EXPECTED_ERROR.match(expected)
    if error:
        with pytest.raises(SolverInputError) as info:
            learn(folder, timeout=timeout)
        assert info.value.file is not None and Path(info.value.file).name == error.group(1)
        assert info.value.line == int(error.group(2)), str(info.value)
        return
    start = time.monotonic()
    result = learn(folder, timeout=timeout)
    elapsed = time.monotonic() - start
    assert result.status == expected, result
    assert sorted(_norm(c) for c in result.program) == sorted(_norm(c) for c in
                                                              header.get("Clause", []))
    if "Score" in header:
        score = SCORE.match(header["Score"][0])
        assert score, header["Score"]
        assert (result.tp, result.fn, result.tn, result.fp) == tuple(map(int, score.groups()))
    if expected == "timeout":
        assert timeout <= elapsed < timeout + 2.0
    else:
        assert result.candidates_tested >= 1


# ------------------------------------------------------------------ generator vs brute force

def _brute_force(bias: IlpBias, size: int) -> set[Clause]:
    """Every clause of ``size`` literals the bias admits, enumerated directly in Python."""
    name, arity = bias.head_pred
    head = Literal(name, tuple(range(arity)))
    # a literal's arguments are distinct variables (Popper's generator)
    literals = [Literal(p, vs) for p, a in bias.body_preds
                for vs in itertools.permutations(range(bias.max_vars), a)]
    found = set()
    for body in itertools.combinations(literals, size - 1):
        clause = Clause(head, body)
        if _admissible(clause, bias):
            found.add(clause)
    return found


def _admissible(clause: Clause, bias: IlpBias) -> bool:
    head_vars = set(clause.head.args)
    body_vars = {v for lit in clause.body for v in lit.args}
    all_vars = head_vars | body_vars
    if not bias.non_datalog and not head_vars <= body_vars:
        return False
    if any(v > 0 and v - 1 not in all_vars for v in all_vars):
        return False
    if not bias.allow_singletons:
        for v in body_vars - head_vars:
            if sum(lit.args.count(v) for lit in clause.body) == 1:
                return False
    if not set(bias.required_preds) <= {lit.pred for lit in clause.body}:
        return False
    connected = set(head_vars)
    changed = True
    while changed:
        changed = False
        for lit in clause.body:
            if connected & set(lit.args) and not set(lit.args) <= connected:
                connected |= set(lit.args)
                changed = True
    if not body_vars <= connected:
        return False
    types: dict[int, str] = {}
    for lit in (clause.head, *clause.body):
        for v, t in zip(lit.args, bias.types.get(lit.pred, ())):
            if types.setdefault(v, t) != t:
                return False
    head_modes = bias.directions.get(clause.head.pred)
    bound = {v for i, v in enumerate(clause.head.args) if head_modes is None
             or head_modes[i] == "in"}
    pending = list(clause.body)
    while pending:
        ready = [lit for lit in pending if all(
            m != "in" or v in bound
            for m, v in zip(bias.directions.get(lit.pred, ("out",) * len(lit.args)), lit.args))]
        if not ready:
            return False
        for lit in ready:
            bound |= set(lit.args)
            pending.remove(lit)
    return head_vars <= bound


def _generated(bias: IlpBias, size: int, constraints=()) -> set[Clause]:
    """The clauses the generator enumerates at ``size`` after the given constraints (kind,
    clause) were added."""
    from solvers.ilp.constraints import constraint_rule

    generator = Generator(bias)
    try:
        generator.add_constraints(constraint_rule([(0, clause)], kind, generator.slots)
                                  for kind, clause in constraints)
        found = set()
        for program, _model in generator.programs(size, time.monotonic() + 30):
            assert len(program) == 1
            clause = program[0][1]
            assert clause not in found
            found.add(clause)
        return found
    finally:
        generator.close()


BIASES = {
    "untyped": IlpBias(head_pred=("h", 2), body_preds=(("p", 2), ("q", 1)), max_vars=4,
                       max_body=3),
    "typed_directed": IlpBias(head_pred=("h", 2), body_preds=(("p", 2), ("q", 2), ("r", 1)),
                              types={"h": ("a", "b"), "p": ("a", "b"), "q": ("b", "b"),
                                     "r": ("a",)},
                              directions={"h": ("in", "out"), "p": ("in", "out"),
                                          "q": ("in", "out"), "r": ("in",)},
                              max_vars=4, max_body=3),
    "flags": IlpBias(head_pred=("h", 1), body_preds=(("p", 2), ("q", 2)), max_vars=3,
                     max_body=2, allow_singletons=True, non_datalog=True,
                     required_preds=("q",)),
}


@pytest.mark.parametrize("name", sorted(BIASES))
def test_generator_matches_brute_force(name: str) -> None:
    bias = BIASES[name]
    for size in range(2, bias.max_body + 2):
        brute = _brute_force(bias, size)
        # the spec_ban of each clause only removes supersets (larger sizes), so at one size
        # the generator must produce exactly the admissible clauses
        assert _generated(bias, size) == brute, (name, size)


def test_constraints_remove_variants_and_specialisations() -> None:
    bias = BIASES["untyped"]
    head = Literal("h", (0, 1))
    failed = Clause(head, (Literal("p", (0, 2)), Literal("p", (2, 1))))
    useless = Clause(head, (Literal("p", (0, 1)),))
    brute = _brute_force(bias, 3)
    variants = {Clause(head, (Literal("p", (0, 3)), Literal("p", (3, 1)))), failed}
    expected = {c for c in brute if c not in variants and Literal("p", (0, 1)) not in c.body}
    assert variants & brute and len(expected) < len(brute) - 2
    found = _generated(bias, 3, [("gen", failed), ("spec", useless)])
    assert found == expected
    # a specialisation constraint at one size prunes the supersets at the next
    bigger = _brute_force(bias, 4)
    assert _generated(bias, 4, [("spec", useless)]) == {
        c for c in bigger if Literal("p", (0, 1)) not in c.body}


# ------------------------------------------------------------------ learner vs exhaustive search

def _py_covers(facts: dict[str, set[tuple]], clause: Clause, example: tuple) -> bool:
    """Independent coverage check (facts-only background knowledge), by backtracking."""
    def solve(literals: tuple[Literal, ...], binding: dict[int, str]) -> bool:
        if not literals:
            return True
        lit, rest = literals[0], literals[1:]
        for row in facts.get(lit.pred, ()):
            new = dict(binding)
            if all(new.setdefault(v, value) == value for v, value in zip(lit.args, row)):
                if solve(rest, new):
                    return True
        return False

    binding: dict[int, str] = {}
    if not all(binding.setdefault(v, value) == value
               for v, value in zip(clause.head.args, example)):
        return False
    return solve(clause.body, binding)


def _random_problem(seed: int, mode: str, max_clauses: int = 1,
                    planted: int = 1) -> tuple[IlpProblem, dict]:
    """Random facts over six constants; positives covered by ``planted`` random admissible
    clauses (so classic mode usually has a solution), negatives covered by none of them;
    in partial mode one positive is noise (covered by no planted clause)."""
    from solvers.ilp.clauses import sort_key

    rng = random.Random(seed)
    consts = ["a", "b", "c", "d", "e", "f"]
    bias = IlpBias(head_pred=("h", 2), body_preds=(("p", 2), ("q", 2), ("r", 1)), max_vars=3,
                   max_body=2, max_clauses=max_clauses, mode=mode)
    space = sorted((c for size in (2, 3) for c in _brute_force(bias, size)), key=sort_key)
    pairs = [(x, y) for x in consts for y in consts]
    while True:
        facts = {"p": {(x, y) for x in consts for y in consts if rng.random() < 0.25},
                 "q": {(x, y) for x in consts for y in consts if rng.random() < 0.2},
                 "r": {(x,) for x in consts if rng.random() < 0.5}}
        target = rng.sample(space, planted)
        by_clause = [[e for e in pairs if _py_covers(facts, c, e)] for c in target]
        # positives covered by exactly one planted clause: two for each clause
        only = [[e for e in cov if sum(e in other for other in by_clause) == 1]
                for cov in by_clause]
        uncovered = [e for e in pairs if not any(e in cov for cov in by_clause)]
        if all(len(o) >= 2 for o in only) and len(uncovered) >= 5:
            break
    pos = [e for o in only for e in rng.sample(o, 2)]
    rng.shuffle(uncovered)
    neg = uncovered[:4]
    if mode == "partial":
        pos.append(uncovered[4])
    bk = {pred: sorted(rows) for pred, rows in facts.items()}
    return IlpProblem(bias=bias, pos=pos, neg=neg, bk_facts=bk, name=f"random{seed}"), facts


def _exhaustive(problem: IlpProblem, facts: dict) -> dict[Clause, frozenset[int]]:
    """Every admissible clause covering no negative -> the positives it covers."""
    good = {}
    for size in range(2, problem.bias.max_body + 2):
        for clause in _brute_force(problem.bias, size):
            if any(_py_covers(facts, clause, e) for e in problem.neg):
                continue
            good[clause] = frozenset(i for i, e in enumerate(problem.pos)
                                     if _py_covers(facts, clause, e))
    return good


@pytest.mark.parametrize("seed", range(8))
def test_partial_mode_matches_exhaustive_search(seed: int) -> None:
    from solvers.ilp.clauses import sort_key

    problem, facts = _random_problem(seed, "partial")
    good = {c: p for c, p in _exhaustive(problem, facts).items() if p}
    result = learn_problem(problem, timeout=30)
    if not good:
        assert result.status == "no_solution" and result.program == []
        return
    best = min(good, key=lambda c: (-len(good[c]), sort_key(c)))
    assert result.status == "solution"
    assert result.tp == len(good[best]) and result.fp == 0
    assert canonical(result.clauses[0]) == canonical(best)
    assert result.program == [show(canonical(best))]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("max_clauses", [1, 2])
def test_classic_mode_matches_exhaustive_search(seed: int, max_clauses: int) -> None:
    problem, facts = _random_problem(seed, "classic", max_clauses, planted=1 + seed % 2)
    good = {c: p for c, p in _exhaustive(problem, facts).items() if p}
    everything = frozenset(range(len(problem.pos)))
    sizes = [sum(c.size for c in combo)
             for k in range(1, max_clauses + 1)
             for combo in itertools.combinations(good, k)
             if frozenset().union(*(good[c] for c in combo)) == everything]
    result = learn_problem(problem, timeout=30)
    if not sizes:
        assert result.status == "no_solution"
        return
    assert result.status == "solution", result
    assert sum(c.size for c in result.clauses) == min(sizes)
    assert (result.tp, result.fn, result.fp) == (len(problem.pos), 0, 0)
    for clause in result.clauses:
        assert not any(_py_covers(facts, clause, e) for e in problem.neg)


@pytest.mark.parametrize("seed", range(6))
def test_restricted_runs_match_separate_runs(seed: int) -> None:
    # learn_restricted (one enumeration, one batch) against a separate partial-mode run per
    # restriction: the same verdict and the same clause
    problem, _facts = _random_problem(seed, "partial")
    preds = [p for p, _ in problem.bias.body_preds]
    runs = [([(p, a) for p, a in problem.bias.body_preds if p in chosen], tuple(required))
            for k in (1, 2) for chosen in itertools.combinations(preds, k)
            for required in (chosen, chosen[:1])]
    with IlpSession(problem) as session:
        together = session.learn_restricted(runs, timeout=30)
        for (body, required), joint in zip(runs, together):
            alone = session.learn(problem.bias.restricted(body, required_preds=required),
                                  timeout=30)
            assert (joint.status, joint.program, joint.tp) == (alone.status, alone.program,
                                                               alone.tp), (body, required)


@pytest.mark.parametrize("seed", range(6))
def test_noisy_mode_matches_exhaustive_search(seed: int) -> None:
    # the least FN + FP + size over every program of at most two clauses, by brute force
    problem, facts = _random_problem(seed, "partial")
    bias = problem.bias.restricted(problem.bias.body_preds, mode="classic", max_clauses=2)
    problem = IlpProblem(bias=bias, pos=problem.pos, neg=problem.neg + problem.pos[-1:],
                         bk_facts=problem.bk_facts, name=problem.name)
    clauses = [c for size in range(2, bias.max_body + 2) for c in _brute_force(bias, size)]
    cover = {c: (frozenset(i for i, e in enumerate(problem.pos) if _py_covers(facts, c, e)),
                 frozenset(i for i, e in enumerate(problem.neg) if _py_covers(facts, c, e)))
             for c in clauses}

    def score(combo) -> int:
        pos = frozenset().union(*(cover[c][0] for c in combo)) if combo else frozenset()
        neg = frozenset().union(*(cover[c][1] for c in combo)) if combo else frozenset()
        return len(problem.pos) - len(pos) + len(neg) + sum(c.size for c in combo)

    best = min(score(combo) for k in range(3) for combo in itertools.combinations(clauses, k))
    result = learn_problem(problem, timeout=30, noisy=True)
    assert result.status in ("solution", "no_solution") and result.noisy
    assert result.fn + result.fp + result.size == best, result


def test_counts_agree_with_prolog_scoring() -> None:
    problem = load_problem(FIXTURES / "parent_disjunction")
    result = learn_problem(problem, timeout=30)
    tester = ilp_tester.Tester(problem, time.monotonic() + 30)
    try:
        pos, neg = tester.score(result.clauses, problem.bias.directions, time.monotonic() + 30)
    finally:
        tester.close()
    assert (len(pos), len(neg)) == (result.tp, result.fp) == (7, 0)


# ------------------------------------------------------------------ the induction cross-check

RELATIONS = ["agonist_of", "antagonist_of", "binds", "induces_enzyme", "induces_transporter",
             "inhibits_enzyme", "inhibits_transporter", "substrate_of", "transported_by"]


def _induction_like(seed: int):
    rng = random.Random(seed)
    drugs = [f"d{i}" for i in range(24)]
    proteins = [f"p{i}" for i in range(14)]
    used = rng.sample(RELATIONS, 4)
    facts = {(rng.choice(used), rng.choice(drugs), rng.choice(proteins)) for _ in range(90)}

    def covers(r1: str, r2: str, a: str, b: str) -> bool:
        return any(((r1, a, p) in facts and (r2, b, p) in facts)
                   or ((r2, a, p) in facts and (r1, b, p) in facts) for p in proteins)

    pairs = list(itertools.combinations(drugs, 2))
    target = tuple(sorted(used[:2]))
    pos = [e for e in pairs if covers(*target, *e)][:3]
    neg = [e for e in pairs if not covers(*target, *e)
           and any(covers(r1, r2, *e) for r1, r2 in itertools.combinations(used, 2))][:4]
    return facts, pos, neg, covers


@pytest.mark.parametrize("seed", [1, 2])
def test_cross_check_pattern_finds_exactly_the_valid_pairs(seed: int) -> None:
    facts, pos, neg, covers = _induction_like(seed)
    assert pos and neg
    both = sorted({*pos, *[(b, a) for a, b in pos]}), sorted({*neg, *[(b, a) for a, b in neg]})
    rows: dict[str, list] = {r: [] for r in RELATIONS}
    for rel, drug, protein in sorted(facts):
        rows[rel].append((drug, protein))
    base = IlpBias(head_pred=("interacts", 2), body_preds=tuple((r, 2) for r in RELATIONS),
                   types={"interacts": ("drug", "drug"),
                          **{r: ("drug", "protein") for r in RELATIONS}},
                   max_vars=3, max_body=2, mode="partial")
    problem = IlpProblem(bias=base, pos=both[0], neg=both[1], bk_facts=rows)
    found, valid = set(), set()
    start = time.monotonic()
    with IlpSession(problem) as session:
        for r1, r2 in itertools.combinations_with_replacement(RELATIONS, 2):
            bias = base.restricted(sorted({(r1, 2), (r2, 2)}), required_preds=(r1, r2))
            result = session.learn(bias, timeout=10)
            assert result.status in ("solution", "no_solution")
            if result.found:
                found.add((r1, r2))
                assert sorted(lit.pred for lit in result.clauses[0].body) == [r1, r2]
            if any(covers(r1, r2, *e) for e in pos) and not any(covers(r1, r2, *e) for e in neg):
                valid.add((r1, r2))
    assert found == valid and valid
    assert time.monotonic() - start < 20


# ------------------------------------------------------------------ parsing

def test_bias_parsing_reads_popper_syntax() -> None:
    bias = parse_bias("""% comment
head_pred(f,2).
body_pred(empty,1).
body_pred(tail,2).
type(f,(list,element)).
type(empty,(list,)).
type(tail,(list,list)).
direction(tail,(in,out)).
max_vars(5). max_body(4). max_clauses(2).
mode(partial).
allow_singletons.
required_pred(tail).
""")
    assert bias.head_pred == ("f", 2)
    assert bias.body_preds == (("empty", 1), ("tail", 2))
    assert bias.types["empty"] == ("list",) and bias.directions["tail"] == ("in", "out")
    assert (bias.max_vars, bias.max_body, bias.max_clauses) == (5, 4, 2)
    assert bias.mode == "partial" and bias.allow_singletons and not bias.non_datalog
    assert bias.required_preds == ("tail",)


@pytest.mark.parametrize("text, line, message", [
    ("head_pred(f,2).\nbody_pred(g,2).\ncustom_max_size(0).\n", 3,
     "custom_max_size must be a positive integer"),
    ("head_pred(f,2).\nbody_pred(g,2).\nmagic_value_type(t).\n", 3, "magic_value_type/1"),
    ("head_pred(f,2).\nbody_pred(g,2).\nmax_vars(3,4).\n", 3, "wrong arity"),
    ("head_pred(f,2).\nbody_pred(g,2).\n#minimize{ 1 : clause(C) }.\n", 3,
     "#minimize / weak constraints"),
    ("head_pred(f,2).\nbody_pred(g,2).\nmax_vars(3).\nmax_vars(4).\n", 4, "conflicting"),
    ("head_pred(f,2).\nbody_pred(g,2).\ntype(g,(a,b,c)).\n", 3, "has 3 entries"),
    ("head_pred(f,2).\nbody_pred(g,2).\nmode(noisy).\n", 3, "mode must be one of"),
    ("head_pred(f,2).\nbody_pred(g,2).\nrequired_pred(h).\n", 3, "not a body_pred"),
    ("head_pred(f,2).\nbody_pred(g,2).\nmax_body(X).\n", 3, "unsafe"),
    ("head_pred(f,2).\nbody_pred(g,2).\n{ max_body(3); max_body(4) } = 1.\n", 3,
     "conflicting max_body"),
    ("head_pred(f,2).\n\nbody_pred(g,2\n", 4, "syntax error"),
])
def test_bias_errors_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(SolverInputError, match=re.escape(message)) as info:
        parse_bias(text, file="bias.pl")
    assert info.value.line == line and info.value.file == "bias.pl"


def test_bias_needs_exactly_one_head() -> None:
    with pytest.raises(SolverInputError, match="exactly one head_pred"):
        parse_bias("body_pred(g,2).\n")


def _folder(tmp_path: Path, exs: str) -> Path:
    (tmp_path / "bk.pl").write_text("edge(a, b).\n")
    (tmp_path / "bias.pl").write_text("head_pred(f,2).\nbody_pred(edge,2).\n")
    (tmp_path / "exs.pl").write_text(exs)
    return tmp_path


@pytest.mark.parametrize("exs, line, message", [
    ("pos(f(a, b)).\npos(g(a, b)).\n", 2, "not an atom of the head predicate f/2"),
    ("pos(f(a, b)).\n\nneg(f(X, b)).\n", 3, "not ground"),
    ("pos(f(a, b)).\nexample(f(a, b)).\n", 2, "expected pos(Atom) or neg(Atom)"),
    ("pos(f(a, b)).\n:- initialization(main).\n", 2, "unsupported directive"),
])
def test_example_errors_name_the_line(tmp_path: Path, exs: str, line: int, message: str) -> None:
    with pytest.raises(SolverInputError, match=re.escape(message)) as info:
        load_problem(_folder(tmp_path, exs))
    assert info.value.line == line and Path(info.value.file).name == "exs.pl"


def test_examples_keep_prolog_values(tmp_path: Path) -> None:
    problem = load_problem(_folder(tmp_path, ":- discontiguous pos/1.\n"
                                              "pos(f([1, 2], 'Big Atom')).\nneg(f(a, -3)).\n"))
    assert problem.pos == [((1, 2), "Big Atom")] and problem.neg == [("a", -3)]


# ------------------------------------------------------------------ API details

def test_in_memory_problem_with_absent_body_predicate() -> None:
    bias = IlpBias(head_pred=("grandparent", 2), body_preds=(("parent", 2), ("unknown", 2)),
                   max_vars=3, max_body=2)
    problem = IlpProblem(bias=bias, pos=[("a", "c"), ("b", "d")], neg=[("a", "b")],
                         bk_facts={"parent": [("a", "b"), ("b", "c"), ("c", "d")]})
    result = learn_problem(problem, timeout=30)
    assert result.status == "solution"
    assert [_norm(c) for c in result.program] == [_norm(
        "grandparent(A,B) :- parent(A,C), parent(C,B).")]
    assert (result.tp, result.fn, result.tn, result.fp) == (2, 0, 1, 0)


def test_session_modes_and_errors() -> None:
    problem = load_problem(FIXTURES / "partial_noisy")
    with IlpSession(problem) as session:
        assert session.learn(mode="classic", timeout=30).status == "no_solution"
        partial = session.learn(timeout=30)
        assert partial.mode == "partial" and (partial.tp, partial.fn) == (6, 2)
        with pytest.raises(ConfigError, match="unknown ILP mode"):
            session.learn(mode="noisy")
        other = IlpBias(head_pred=("hates", 2), body_preds=(("friend", 2),))
        with pytest.raises(ConfigError, match="differs from the session"):
            session.learn(other)


def test_zero_timeout_gives_timeout_status() -> None:
    problem = load_problem(FIXTURES / "grandparent")
    result = learn_problem(problem, timeout=0.0)
    assert result.status == "timeout" and result.program == []


def test_problem_needs_a_positive_example() -> None:
    bias = IlpBias(head_pred=("f", 1), body_preds=(("g", 1),))
    with pytest.raises(SolverInputError, match="no positive example"):
        IlpProblem(bias=bias, pos=[], neg=[("a",)])


def test_canonical_forms() -> None:
    head = Literal("h", (0, 1))
    one = Clause(head, (Literal("p", (0, 2)), Literal("q", (2, 3)), Literal("p", (3, 1))))
    two = one.rename({2: 3, 3: 2})
    assert one != two and canonical(one) == canonical(two)
    assert show(canonical(one)) == show(canonical(two))
    assert show(Clause(head, (Literal("p", (0, 1)),))) == "h(A,B) :- p(A,B)."


# ------------------------------------------------------------------ command line

def test_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(FIXTURES / "grandparent"), "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "grandparent(A,B) :- parent(A,C), parent(C,B)." in out
    assert "TP=6 FN=0 TN=8 FP=0" in out
    assert main([str(FIXTURES / "partial_noisy"), "--mode", "classic"]) == 1
    assert main([str(FIXTURES / "timeout"), "--timeout", "0.5"]) == 3
    assert main([str(FIXTURES / "malformed_bias")]) == 2
    assert "bias.pl:4" in capsys.readouterr().err


def test_cli_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "example: python -m solvers.ilp" in capsys.readouterr().out


# ------------------------------------------------------------------ Popper adapter

def test_popper_bias_round_trip() -> None:
    from solvers.ilp.popper_adapter import popper_bias

    bias = parse_bias((FIXTURES / "second_element" / "bias.pl").read_text())
    assert parse_bias(popper_bias(bias)) == bias
    with pytest.raises(ConfigError, match="no partial mode"):
        popper_bias(parse_bias((FIXTURES / "partial_noisy" / "bias.pl").read_text()))


def _popper_available() -> bool:
    from solvers.ilp.popper_adapter import popper_available

    return popper_available()


@pytest.mark.skipif(not _popper_available(), reason="Popper is not installed")
def test_popper_agrees_on_grandparent() -> None:
    from solvers.ilp.popper_adapter import learn_with_popper

    ours = learn(FIXTURES / "grandparent", timeout=30)
    theirs = learn_with_popper(FIXTURES / "grandparent", timeout=60)
    assert theirs.status == ours.status == "solution"
    assert (theirs.tp, theirs.fp) == (ours.tp, ours.fp)


def test_non_terminating_and_failing_background_code(tmp_path: Path) -> None:
    bk = tmp_path / "bk.pl"
    bk.write_text("parent(a, b).\nparent(b, c).\nparent(c, d).\n"
                  "spin(X, Y) :- spin(X, Y).\n"          # never terminates
                  "plus_one(X, Y) :- Y is X + 1.\n")     # type error on atoms
    bias = IlpBias(head_pred=("grandparent", 2),
                   body_preds=(("parent", 2), ("spin", 2), ("plus_one", 2)),
                   max_vars=3, max_body=2)
    problem = IlpProblem(bias=bias, pos=[("a", "c"), ("b", "d")], neg=[("a", "b")],
                         bk_files=[bk])
    start = time.monotonic()
    result = learn_problem(problem, timeout=30, example_time_limit=0.02)
    assert result.status == "solution"
    assert [_norm(c) for c in result.program] == [_norm(
        "grandparent(A,B) :- parent(A,C), parent(C,B).")]
    assert time.monotonic() - start < 15


def test_runs_are_deterministic() -> None:
    first = learn(FIXTURES / "parent_disjunction", timeout=30)
    second = learn(FIXTURES / "parent_disjunction", timeout=30)
    assert (first.program, first.candidates_tested) == (second.program, second.candidates_tested)


def test_timeouts_are_a_status_never_an_error() -> None:
    # however little time is left for the re-check of the best program so far
    for timeout in (0.3, 0.6, 1.0):
        result = learn(FIXTURES / "timeout", timeout=timeout)
        assert result.status == "timeout", (timeout, result)
        assert result.tp + result.fn == 1 and result.tn + result.fp == 1


# ------------------------------------------------------------------ unions of recursive programs

FILTER_BK = """empty([]).
head([H|_], H).
tail([_|T], T).
odd(X) :- integer(X), 1 is X mod 2.
even(X) :- integer(X), 0 is X mod 2.
prepend(X, T, [X|T]).
"""


def test_unions_of_recursive_programs(tmp_path: Path) -> None:
    from solvers.ilp.combine import unite_pairs

    (tmp_path / "bk.pl").write_text(FILTER_BK)
    bias = IlpBias(head_pred=("f", 2), body_preds=(("empty", 1),), enable_recursion=True)
    pos = [([1, 2, 3, 4], [2, 4]), ([1, 1], []), ([2], [2]), ([6, 1], [6])]
    neg = [([1, 2], [1, 2]), ([4], [])]
    problem = IlpProblem(bias=bias, pos=pos, neg=neg, bk_files=[tmp_path / "bk.pl"])
    tester = ilp_tester.Tester(problem, time.monotonic() + 30)
    head = Literal("f", (0, 1))
    base = Clause(head, (Literal("empty", (0,)), Literal("empty", (1,))))
    skip_odd = Clause(head, (Literal("head", (0, 2)), Literal("odd", (2,)),
                             Literal("tail", (0, 3)), Literal("f", (3, 1))))
    keep_even = Clause(head, (Literal("head", (0, 2)), Literal("even", (2,)),
                              Literal("tail", (0, 3)), Literal("f", (3, 4)),
                              Literal("prepend", (2, 4, 1))))
    directions = {"head": ("in", "out"), "tail": ("in", "out"), "prepend": ("in", "in", "out")}

    def test(clauses: list[Clause]) -> tuple[bool, frozenset[int]]:
        outcome = tester.test_program(clauses, directions, time.monotonic() + 30)
        return outcome.neg is None, outcome.pos

    try:
        programs = {}
        for rec in (skip_odd, keep_even):
            consistent, covered = test([base, rec])
            assert consistent and 0 < len(covered) < len(pos)       # each alone: incomplete
            programs[frozenset({canonical(base), canonical(rec)})] = covered
        # together they cover every positive, more than their coverages put together
        assert len(frozenset().union(*programs.values())) < len(pos)
        union = unite_pairs(dict(programs), list(programs), len(pos), 3, None, test)
        assert union is not None and set(union) == {canonical(c) for c in (base, skip_odd, keep_even)}
        assert test(union) == (True, frozenset(range(len(pos))))
        # a bound at the union's size (14 literals) or below: no union is tested
        assert unite_pairs(dict(programs), list(programs), len(pos), 3, 14, test) is None
        # max_clauses 2: the union (3 clauses) is out of the space
        assert unite_pairs(dict(programs), list(programs), len(pos), 2, None, test) is None
    finally:
        tester.close()


def test_subsumption_found_later_bans_specialisations() -> None:
    """A clause covering a negative gets its specialisations banned once a good clause
    covering all its positives turns up, also when that clause comes after it (the
    generator then no longer builds them)."""
    from solvers.ilp.constraints import constraint_rule
    from solvers.ilp.search import SearchState, _Loop

    bias = IlpBias(head_pred=("h", 2), body_preds=(("p", 2), ("q", 1)), max_vars=3,
                   max_body=3)
    facts = {"p": [("a", "b"), ("c", "d"), ("e", "f")], "q": [("a",), ("e",)]}
    pos, neg = [("a", "b"), ("e", "f"), ("x", "y")], [("c", "d")]     # x, y: no clause
    problem = IlpProblem(bias=bias, pos=pos, neg=neg, bk_facts=facts)
    tester = ilp_tester.Tester(problem, time.monotonic() + 30)
    head = Literal("h", (0, 1))
    loose = Clause(head, (Literal("p", (0, 1)),))                      # covers the negative
    tight = Clause(head, (Literal("p", (0, 1)), Literal("q", (0,))))   # good, same positives
    generator = Generator(bias)
    try:
        loop = _Loop(bias, tester, generator, time.monotonic() + 30, SearchState(), False)
        deadline = time.monotonic() + 30
        loose_outcome, tight_outcome = tester.test_many([loose, tight], {}, deadline,
                                                        negatives_without_positives=False)
        assert loose_outcome.neg == 0 and loose_outcome.pos == frozenset({0, 1})
        assert tight_outcome.neg is None and tight_outcome.pos == frozenset({0, 1})
        ban = constraint_rule([(0, loose)], "spec", generator.slots)
        loop.visit(((0, loose),), loose_outcome)
        assert ban not in generator._pending          # no good clause covers its positives yet
        loop.visit(((0, tight),), tight_outcome)
        assert ban in generator._pending
        built = {program[0][1] for program, _ in generator.programs(3, time.monotonic() + 30)}
        assert built and not any(set(loose.body) <= set(c.body) for c in built)
    finally:
        generator.close()
        tester.close()


def test_time_out_combines_the_good_clauses_found_since_the_last_combination() -> None:
    """A search that times out reports the best program its good clauses make, also when
    they were found after the last combination (iggp-rps had 13 good clauses at its time-out
    and 4 at its last combination, and reported no program)."""
    from solvers.ilp.search import SearchState, _Loop

    bias = IlpBias(head_pred=("h", 1), body_preds=(("p", 1), ("q", 1), ("r", 1)),
                   max_body=2, max_clauses=2)
    facts = {"p": [("a",)], "q": [("b",)], "r": [("a",), ("b",), ("c",)]}
    problem = IlpProblem(bias=bias, pos=[("a",), ("b",)], neg=[("c",)], bk_facts=facts)
    tester = ilp_tester.Tester(problem, time.monotonic() + 30)
    head = Literal("h", (0,))
    first, second = Clause(head, (Literal("p", (0,)),)), Clause(head, (Literal("q", (0,)),))
    generator = Generator(bias)
    try:
        state = SearchState()
        loop = _Loop(bias, tester, generator, time.monotonic() + 30, state, False)
        for clause in (first, second):
            [outcome] = tester.test_many([clause], {}, time.monotonic() + 30)
            loop.visit(((0, clause),), outcome)
        assert loop.combined == 0 and state.program == []     # not combined yet
        loop.combine_at_time_out()
        assert sorted(state.program, key=str) == sorted([first, second], key=str)
        assert state.covered == frozenset({0, 1})
    finally:
        generator.close()
        tester.close()
