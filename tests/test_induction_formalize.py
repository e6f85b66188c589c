"""The induction track's pipeline hooks: the per-task grammar, the parser, the gold
formalization, the solver of the pipelines, the prompts; the oracle pipeline; hostile
formalizations through NS; ``scir solve`` with the tiny model (the
grammar/parser agreement is tested with generated sentences: tests/test_grammar.py).

Tiny-model tests use small Easy-derived tasks (``SMALL``: 1 distractor, 1 positive per rule,
only the rules' own facts; tier d1p1, difficulty custom): their grammars accept at most ~700
characters, so ``max_tokens = max_formalization_chars(task) + 1`` can never cut a
formalization (every token of the byte-level tiny tokenizer is at least one byte). Default
Easy tasks (100 facts) accept up to ~5,600 characters, too many
tokens for a quick test; see docs/tracks/induction.md.
"""

from __future__ import annotations

import copy
import os
import re

import pytest

from formalize_helpers import (HAVE_LLG, check_prompt_edges, lark_accepts, llguidance_accepts,
                               run_hostile, run_oracle, solve_with_tiny)
from scir.prompts import PromptArgs
from scir.errors import FormalizationError, SolverError, SolverInputError, TaskFormatError
from scir.tasks import write_tasks
from scir.tracks import get_track
from scir.tracks.induction import formalize as F
from scir.tracks.induction.formal import InductionProblem
from scir.tracks.induction.solve import learn_rule
from scir.tracks.induction.world import load_world

TRACK = get_track("induction")
SEED = 21
SMALL = {"distractors": 1, "positives": 1, "facts": 0}


@pytest.fixture(scope="module")
def tasks():
    """10 Easy and 10 Hard tasks."""
    return {level: list(TRACK.generate(10, SEED, level)) for level in ("easy", "hard")}


@pytest.fixture(scope="module")
def small_tasks():
    """10 small Easy-derived tasks for the tiny model (see the module docstring)."""
    return list(TRACK.generate(10, 5, "easy", SMALL))


@pytest.fixture(params=["easy", "hard"])
def level(request):
    return request.param


@pytest.fixture(scope="module")
def one(tasks):
    return tasks["easy"][0]


@pytest.fixture(scope="module")
def paper_task():
    """A paper-construction task: its facts use only the rules' own relation types, so some
    relation type does not occur in the problem (balanced tasks use all nine)."""
    (task,) = TRACK.generate(1, SEED, "easy", {"construction": "paper"})
    return task


# ---- helpers -------------------------------------------------------------------------------
def longest_text(b: F.GrammarBounds) -> str:
    """A longest text of the grammar of ``b``, built by hand."""
    sig = b.signature
    rel, drug, protein = (max(names, key=len) for names in (sig.relations, sig.drugs,
                                                            sig.proteins))
    text = f"{rel}({drug}, {protein}).\n" * b.max_facts
    text += f"pos(interacts({drug}, {drug})).\n" * b.max_pos
    return text + f"neg(interacts({drug}, {drug})).\n" * b.max_neg


def gold_examples(task):
    return {k: task.formal[k] for k in ("facts", "pos", "neg")}


def examples(f):
    """A formalization's formal object with the facts and examples of ``f`` (a dict)."""
    return InductionProblem.formalization(f["facts"], f["pos"], f["neg"])


# ---- the gold formalization ------------------------------------------------------------------
def test_gold_formalization_parses_and_solves(tasks, level):
    """Every gold text parses back to the gold examples; the solver runs on half of them (the
    oracle test runs it on the same facts and examples of all of them)."""
    for index, task in enumerate(tasks[level]):
        grammar = TRACK.formalizer().grammar(task)
        text = F.format_formal(task)
        assert lark_accepts(grammar, text), task.task_id
        assert not HAVE_LLG or llguidance_accepts(grammar, text), task.task_id
        assert len(text) <= F.max_formalization_chars(task)
        parsed = TRACK.formalizer().parse(task, text)
        assert parsed.formal.dump() == gold_examples(task)    # no target, no category
        assert parsed.items == TRACK.formalizer().count_items(TRACK.formal(task))
        if index % 2 == 0:
            answer = TRACK.solve_formal(task, parsed.formal)
            assert answer in task.answer_pool, (task.task_id, answer, task.answer_pool)


def test_grammar_is_specialised_and_bounded(tasks, level):
    world = load_world()
    for task in tasks[level][:4]:
        grammar = TRACK.formalizer().grammar(task)
        b = F.grammar_bounds(task)
        meta, formal = task.domain_metadata, task.formal

        def alternatives(rule):
            (line,) = re.findall(rf"^{rule}: (.*)$", grammar, re.M)
            return {s.strip('"') for s in line.split(" | ")}

        assert alternatives("drug") == set(meta["drugs"])
        assert alternatives("protein") == set(meta["proteins"])
        assert alternatives("relation") == set(meta["relations"])
        strangers = [d for d in world.drugs if d not in meta["drugs"]][:40]
        assert not any(f'"{d}"' in grammar for d in strangers)
        n = len(formal["facts"])
        assert (b.max_facts, b.max_pos, b.max_neg) == (
            n + max(3, -(-n // 10)), len(formal["pos"]) + 2, len(formal["neg"]) + 2)
        assert (f"start: fact ~ 0..{b.max_facts} pos ~ 1..{b.max_pos} neg ~ 0..{b.max_neg}"
                in grammar)
        assert "*" not in grammar and "+" not in grammar
        longest = longest_text(b)
        assert len(longest) == F.max_output_chars(b)
        assert lark_accepts(grammar, longest)
        assert not HAVE_LLG or llguidance_accepts(grammar, longest)
        pos_line = longest[longest.index("pos("):].split("\n")[0] + "\n"
        assert not lark_accepts(grammar, longest + "\n")
        assert not lark_accepts(grammar, longest.replace(pos_line, pos_line * 2, 1))
        assert TRACK.formalizer().parse(task, longest).items == 3    # duplicates kept once


def _variants(task):
    """Texts the task grammar must reject (each a small edit of the gold text)."""
    text = F.format_formal(task)
    world = load_world()
    drug = task.formal["pos"][0][0]
    protein = task.formal["facts"][0][2]
    stranger = next(d for d in world.drugs if d not in task.domain_metadata["drugs"])
    other_relation = next((r for r in world.relation_names
                           if r not in task.domain_metadata["relations"]), None)
    first = text.split("\n")[0] + "\n"
    pos_line = next(s for s in text.split("\n") if s.startswith("pos(")) + "\n"
    other = ({} if other_relation is None else   # balanced tasks use all nine relation types
             {"other relation type": text.replace(first,
                                                  f"{other_relation}({drug}, {protein}).\n")})
    return {
        "unknown drug": text.replace(f"({drug},", f"({stranger},", 1),
        "protein as drug": text.replace(f"({drug},", f"({protein},", 1),
        **other,
        "positive first": pos_line + text.replace(pos_line, "", 1),
        "free spacing": text.replace(", ", ",", 1),
        "capitals": text.replace(drug, drug.capitalize(), 1),
        "comment": "% background\n" + text,
        "rule": text + "interacts(A, B) :- substrate_of(A, P), substrate_of(B, P).\n",
        "bare example": text.replace("pos(interacts(", "interacts(", 1).replace(")).", ").", 1),
        "no positive": "".join(s + "\n" for s in text.split("\n") if s and "pos(" not in s),
        "no final newline": text[:-1],
    }


def test_grammar_rejects_what_the_parser_would_reject(tasks, paper_task):
    assert "other relation type" in _variants(paper_task)
    for task in tasks["easy"][:3] + [paper_task]:
        grammar = TRACK.formalizer().grammar(task)
        for why, text in _variants(task).items():
            assert not lark_accepts(grammar, text), why
            assert not HAVE_LLG or not llguidance_accepts(grammar, text), why


# ---- parsing untrusted text ------------------------------------------------------------------
@pytest.mark.parametrize("text, message, line, column", [
    ("{fact}\n:- shell('rm -rf /').\n{pos}\n", r"syntax error: unexpected character ':'", 2, 1),
    ("{pos}\nassert(pos(interacts({d0}, {d1}))).\n", r"syntax error: unexpected '\('", 2, 21),
    ("{pos}\nassertz({rel}({d0}, {p0})).\n", r"unknown predicate 'assertz'/1", 2, 1),
    ("{pos}\nhalt(0).\n", r"syntax error: unexpected character '0'", 2, 6),
    ("{pos}\nconsult(user).\n", r"unknown predicate 'consult'/1", 2, 1),
    ("{pos}\ninteracts(A, B) :- {rel}(A, P), {rel}(B, P).\n",
     r"syntax error: unexpected character ':'", 2, 17),
    ("{pos}\n{rel}('{d0}', {p0}).\n", r"unexpected character \"'\"", 2, None),
    ("{pos}\n{rel}({d0}, 1e400).\n", r"syntax error", 2, None),
    ("{pos}\n{rel}({d0}, X).\n", r"unknown protein 'X'", 2, None),
    ("{pos}\n{rel}({p0}, {p0}).\n", r"is a protein, not a drug", 2, None),
    ("{pos}\n{rel}({d0}, {d1}).\n", r"is a drug, not a protein", 2, None),
    ("{pos}\n{rel}({d0}).\n", r"takes 2 arguments \(drug, protein\), not 1", 2, 1),
    ("{pos}\n{rel}({d0}, f({p0})).\n", r"are names, not terms", 2, None),
    ("{pos}\n{other}({d0}, {p0}).\n", r"does not occur in this problem", 2, 1),
    ("{pos}\ninteracts({d0}, {d1}).\n", r"write examples as pos\(interacts", 2, 1),
    ("pos(interacts({d0}, {d1}), x).\n", r"pos takes 1 argument", 1, 1),
    ("pos({d0}).\n", r"takes a term interacts\(A, B\), not a name", 1, 5),
    ("neg(binds({d0}, {d1})).\n", r"examples are interacts\(A, B\) terms, not 'binds'", 1, 5),
    ("pos(interacts({d0})).\n", r"interacts takes 2 arguments \(two drugs\), not 1", 1, 5),
    ("pos(interacts({d0}, nobody)).\n", r"unknown drug 'nobody'", 1, None),
    ("{fact}\n", r"no positive example", 1, 1),
    ("", r"no positive example", None, None),
    ("{pos}\n{rel}({d0}, {p0})\n", r"unexpected end of text", None, None),
    ("{pos}\n{rel}(" + "a" * 100_000 + ", {p0}).\n", r"name of 100000 characters is too long",
     2, None),
])
def test_parse_errors_name_line_and_column(paper_task, text, message, line, column):
    one = paper_task            # it has a relation type that does not occur in the problem
    sig = F.task_signature(one)
    world = load_world()
    d0, d1 = one.formal["pos"][0]
    values = {"d0": d0, "d1": d1, "p0": one.formal["facts"][0][2],
              "rel": one.formal["facts"][0][0],
              "other": next(r for r in world.relation_names if r not in sig.relations),
              "fact": F.format_formal(one).split("\n")[0],
              "pos": f"pos(interacts({d0}, {d1}))."}
    bad = text.replace("{", "\x00").replace("}", "\x01")
    for key, value in values.items():
        bad = bad.replace(f"\x00{key}\x01", value)
    with pytest.raises(FormalizationError, match=message) as info:
        TRACK.formalizer().parse(one, bad)
    if line is not None:
        assert info.value.line == line
    if column is not None:
        assert info.value.column == column


def test_limits(one):
    text = F.format_formal(one)
    with pytest.raises(FormalizationError, match="too long"):
        TRACK.formalizer().parse(one, text + "%" * F.MAX_TEXT_CHARS)
    with pytest.raises(FormalizationError, match="too long"):
        TRACK.formalizer().parse(one, "pos(interacts(a, b)).\n" * 1_000_000)
    sig = F.task_signature(one)
    rel, drug, protein = (min(names, key=len) for names in (sig.relations, sig.drugs,
                                                            sig.proteins))
    short = f"{rel}({drug},{protein}).\n"
    assert len(short) * (F.MAX_CLAUSES + 1) < F.MAX_TEXT_CHARS
    with pytest.raises(FormalizationError, match=f"more than {F.MAX_CLAUSES} clauses") as info:
        TRACK.formalizer().parse(one, short * (F.MAX_CLAUSES + 1))
    assert info.value.line == F.MAX_CLAUSES + 1
    with pytest.raises(FormalizationError, match="is text"):
        TRACK.formalizer().parse(one, None)


def test_parser_is_lenient_about_layout_only(one):
    text = F.format_formal(one)
    gold = TRACK.formalizer().parse(one, text)
    lines = text.strip().split("\n")
    facts = [s for s in lines if not s.startswith(("pos(", "neg("))]
    examples = [s for s in lines if s.startswith(("pos(", "neg("))]
    loose = ("\n```prolog\n% examples first\n" + "\n".join(examples[::-1]) + "\n\n"
             + "  ".join(s.replace(", ", " ,\t") for s in facts) + "  % the facts\n```\n")
    d0 = one.formal["pos"][0][0]
    loose = loose.replace(f"({d0},", f"({d0.upper()},", 1)
    parsed = TRACK.formalizer().parse(one, loose)
    assert sorted(parsed.formal.facts) == sorted(gold.formal.facts)
    for kind in ("pos", "neg"):
        assert sorted(getattr(parsed.formal, kind)) == sorted(getattr(gold.formal, kind))
    assert parsed.items == gold.items
    a, b = one.formal["pos"][0]
    twice = TRACK.formalizer().parse(one, text + f"pos(interacts({b}, {a})).\n")
    assert twice.formal == gold.formal and twice.items == gold.items


def test_hostile_names_never_reach_a_grammar(one):
    bad = copy.deepcopy(one)
    bad.domain_metadata["drugs"] = {'x" | /(.|\\n)*/ | "': "X"}
    with pytest.raises(TaskFormatError, match="cannot be formalized"):
        TRACK.formalizer().grammar(bad)
    bad.domain_metadata["drugs"] = {"pos": "Pos"}
    with pytest.raises(TaskFormatError, match="cannot be formalized"):
        TRACK.formalizer().grammar(bad)
    bad = copy.deepcopy(one)
    protein = next(iter(bad.domain_metadata["proteins"]))
    bad.domain_metadata["drugs"][protein] = protein
    with pytest.raises(TaskFormatError, match="two kinds of things"):
        TRACK.formalizer().grammar(bad)
    bad = copy.deepcopy(one)
    bad.domain_metadata = {}
    assert F.task_signature(bad) == F.task_signature(one)      # names from the gold object


# ---- the pipelines' solver -------------------------------------------------------------------
def test_solver_uses_examples_only_and_picks_deterministically(one):
    f = {"facts": [["substrate_of", "aa", "p1"], ["inhibits_enzyme", "bb", "p1"],
                   ["substrate_of", "cc", "p2"], ["inhibits_enzyme", "dd", "p2"],
                   ["substrate_of", "ee", "p3"], ["substrate_of", "ff", "p3"],
                   ["agonist_of", "aa", "p4"], ["substrate_of", "gg", "p4"]],
         "pos": [["aa", "bb"], ["cc", "dd"], ["ee", "ff"], ["aa", "gg"]], "neg": []}
    # inhibits_enzyme,substrate_of covers 2 positives, substrate_of,substrate_of 1; the mixed
    # pair agonist_of,substrate_of is valid but has no category
    found = learn_rule(examples(f))
    assert found.answer == "inhibits_enzyme,substrate_of" and found.covered_positives == 2
    assert ("agonist_of", "substrate_of") in found.learned
    assert ("agonist_of", "substrate_of") not in found.candidates
    assert found.clause.startswith("interacts(")
    lure = dict(f, target=["agonist_of", "agonist_of"], category="target")
    assert TRACK.solve_formal(one, InductionProblem.load(lure)) == found.answer  # hints ignored
    tie = dict(f, pos=[["aa", "bb"], ["ee", "ff"]])              # 1 positive each: a-z first
    assert TRACK.solve_formal(one, examples(tie)) == "inhibits_enzyme,substrate_of"
    neg = dict(f, facts=f["facts"] + [["inhibits_enzyme", "hh", "p2"]],
               neg=[["cc", "hh"]])                               # now it covers a negative
    assert TRACK.solve_formal(one, examples(neg)) == "substrate_of,substrate_of"
    mixed = dict(f, pos=[["aa", "gg"]], neg=[["aa", "bb"], ["ee", "ff"]])
    with pytest.raises(SolverError, match="no rule of a single category"):
        TRACK.solve_formal(one, examples(mixed))


@pytest.mark.parametrize("change, message", [
    (lambda f: dict(f, neg=f["neg"] + [f["pos"][0][::-1]]), r"both as interacting .pos. and"),
    (lambda f: dict(f, pos=f["pos"] + [[f["pos"][0][0]] * 2]), r"pairs a drug with itself"),
    (lambda f: dict(f, pos=[]), r"no known interacting pair"),
])
def test_solver_input_errors(one, change, message):
    with pytest.raises(SolverInputError, match=message):
        TRACK.solve_formal(one, examples(change(gold_examples(one))))


# ---- prompts -------------------------------------------------------------------------------
def test_prompts(one):
    problem = one.problem_nl
    cot = TRACK.formalizer().prompt("cot", one, "nl", PromptArgs(problem=problem))
    assert problem in cot and one.question in cot and "$" not in cot
    for name in load_world().relation_names:
        assert name in cot
    assert cot.rstrip().endswith('"Answer: inhibits_enzyme,substrate_of").')
    assert '"Answer: r1,r2"' in cot
    form = TRACK.formalizer().prompt("formalize", one, "nl", PromptArgs(problem=problem))
    assert problem in form and "pos(interacts(dorvanil, ketrazine))." in form
    assert "$" not in form and one.question not in form
    sig = F.task_signature(one)
    assert all(d in form for d in sig.drugs) and all(r in form for r in sig.relations)
    assert "dorvanil" not in load_world().drugs
    formal_text = F.format_formal(one)
    symb = TRACK.formalizer().prompt("symbcot", one, "nl", PromptArgs(problem=problem, formalization=formal_text))
    assert formal_text in symb and one.blocks[0] not in symb and '"Answer: r1,r2"' in symb
    check_prompt_edges(TRACK, one, "cot", "DATABASE RECORD 7: see the interaction tables.")


# ---- pipelines with a scripted model ---------------------------------------------------------
def test_oracle_solves_every_task(tasks, tmp_path):
    summary = run_oracle(tasks["easy"] + tasks["hard"], tmp_path)
    assert (summary.total, summary.correct) == (20, 20)


def _hostile(task):
    """name -> (formalization text, expected status, expected error fragment)."""
    text = F.format_formal(task)
    a, b = task.formal["pos"][0]
    rel, drug, protein = task.formal["facts"][0]
    return {
        "gold": (text, "ok", ""),
        "garbage": ("}{ DROP TABLE results; --\x00\x1b[2J", "parse_error", "syntax error"),
        "unknown names": (text.replace(f"({a},", "(drug42,", 1), "parse_error",
                          "unknown drug 'drug42'"),
        "huge number": (text + f"{rel}({drug}, 1{'0' * 400}).\n", "parse_error",
                        "syntax error"),
        "shell": (":- shell('rm -rf /').\n" + text, "parse_error", "syntax error"),
        "touch": (text + ":- shell('touch pwned').\n", "parse_error", "syntax error"),
        "assert": (text + f"assertz({rel}({drug}, {protein})).\n", "parse_error",
                   "unknown predicate 'assertz'/1"),
        "rule": (text + f"interacts(X, Y) :- {rel}(X, P), {rel}(Y, P).\n", "parse_error",
                 "syntax error"),
        "huge atom": (text + f"{rel}({'z' * 200_000}, {protein}).\n", "parse_error",
                      "too long"),
        "million lines": (text + "a.\n" * 1_000_000, "parse_error", "too long"),
        "no positive": ("".join(s + "\n" for s in text.split("\n") if s and "pos(" not in s),
                        "parse_error", "no positive example"),
        "contradiction": (text + f"neg(interacts({b}, {a})).\n", "solver_error",
                          "listed both as interacting"),
        "self pair": (text + f"pos(interacts({a}, {a})).\n", "solver_error",
                      "pairs a drug with itself"),
    }


def test_hostile_formalizations_are_typed_failures(tasks, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pool = tasks["easy"] + tasks["hard"]
    pid = os.getpid()
    plan, results = run_hostile(pool, _hostile, tmp_path / "run")
    assert len(plan) == len(_hostile(pool[0])) == 13
    for task_id, (name, task, text, status, fragment) in plan.items():
        r = results[task_id]
        assert r["calls"] == (1 if status == "ok" else 3)       # parse/input errors: 2 retries
        if status == "solver_error":
            assert r["solver_status"] == "input_error" and r["items"] is not None
    assert results[next(iter(plan))]["correct"]
    assert os.getpid() == pid and not (tmp_path / "pwned").exists()


# ---- the tiny model --------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.llm
def test_scir_solve_with_the_tiny_model(small_tasks, tiny_cache, tmp_path, capsys):
    path = tmp_path / "induction.jsonl"
    write_tasks(path, small_tasks[:4])
    limit = max(F.max_formalization_chars(t) for t in small_tasks[:3]) + 1
    solve_with_tiny(path, tmp_path, capsys, {"cot": 120, "ns": limit, "symbcot": 120},
                    ns_statuses=("ok", "wrong", "solver_error", "timeout"))
