"""The deduction track's pipeline hooks: the per-task grammar, the parser, the gold
formalization, the prompts; the oracle pipeline; hostile formalizations through NS (Prover9
commands smuggled in, inconsistent premises, a Prover9 time limit); ``scir solve`` with the
tiny model (real constrained decoding under the task grammar). The agreement of the task
grammar with the parser is tested with sentences generated from the grammar
(tests/test_grammar.py).

The bounded FOL grammar is a finite language, but its longest sentence grows exponentially
with the nesting bound (hundreds of thousands of characters even at the gold bounds), so no
``max_tokens`` excludes a cut by construction; the ns run uses 1024 tokens, see
docs/tracks/deduction.md.
"""

from __future__ import annotations

import copy
import re

import pytest

from formalize_helpers import (HAVE_LLG, accepts, check_prompt_edges, lark_accepts,
                               llguidance_accepts, run_hostile, run_oracle,
                               solve_with_tiny)
from scir.prompts import PromptArgs
from scir.errors import FormalizationError, SolverError, SolverTimeout, TaskFormatError
from scir.pipelines import STATUSES
from scir.tasks import write_tasks
from scir.tracks import get_track
from scir.tracks.deduction import formalize as F

TRACK = get_track("deduction")
SEED = 11


@pytest.fixture(scope="module")
def tasks():
    """10 Easy and 10 Hard tasks."""
    return {level: list(TRACK.generate(10, SEED, level)) for level in ("easy", "hard")}


@pytest.fixture(params=["easy", "hard"])
def level(request):
    return request.param


@pytest.fixture(scope="module")
def one(tasks):
    """An Easy task with at least one individual (its goal or a premise names a cell)."""
    return next(t for t in tasks["easy"] if t.formal["constants"])


# ---- helpers -------------------------------------------------------------------------------
def quoted_names(grammar: str, rule: str) -> list[str]:
    """The string literals of one rule of a per-task grammar (its alternatives' names)."""
    match = re.search(rf"^{rule}: (.*?)(?=^\S)", grammar, re.M | re.S)
    return re.findall(r'"([a-z][a-z0-9_]*)"', match.group(1)) if match else []


# ---- the gold formalization -----------------------------------------------------------------
@pytest.mark.slow
def test_gold_formalization_parses_and_solves(tasks, level):
    for task in tasks[level]:
        grammar = TRACK.formalizer().grammar(task)
        text = F.format_formal(task)
        assert text.endswith(f"goal: {task.formal['goal']}.\n")
        assert lark_accepts(grammar, text), task.task_id
        assert not HAVE_LLG or llguidance_accepts(grammar, text), task.task_id
        parsed = TRACK.formalizer().parse(task, text)
        assert parsed.formal.dump() == {"premises": task.formal["premises"],
                                        "goal": task.formal["goal"]}
        assert parsed.items == TRACK.formalizer().count_items(TRACK.formal(task))
        assert TRACK.solve_formal(task, parsed.formal) == task.answer


def test_grammar_is_specialised_and_bounded(tasks, level):
    for task in tasks[level]:
        grammar = TRACK.formalizer().grammar(task)
        b = F.grammar_bounds(task)
        assert quoted_names(grammar, "atom") == sorted(task.formal["predicates"])
        assert quoted_names(grammar, "constant") == sorted(task.formal["constants"])
        premises = len(task.formal["premises"])
        assert b.max_premises == premises + F.PREMISE_MARGIN
        assert (b.max_depth, b.max_operands) == (2 + F.DEPTH_MARGIN, 2 + F.OPERAND_MARGIN)
        assert f"start: premise_line ~ 1..{b.max_premises} goal_line" in grammar
        assert "*" not in grammar and "+" not in grammar
        lines = F.format_formal(task).splitlines(keepends=True)
        longest = lines[:1] * b.max_premises + lines[-1:]
        assert accepts(grammar, "".join(longest))
        assert not accepts(grammar, "".join(lines[:1] + longest))


def test_grammar_rejects_what_it_does_not_allow(one):
    grammar = TRACK.formalizer().grammar(one)
    a, b, c = sorted(one.formal["predicates"])[:3]
    cell = one.formal["constants"][0]
    goal = f"goal: {a}({cell}).\n"
    ok = {
        "the canonical forms": f"premise: all x ({a}(x) -> -{b}(x)).\npremise: {c}({cell}).\n"
                               f"premise: exists x ({a}(x) & -{b}(x)).\n" + goal,
        "one level more": f"premise: -(exists x ({a}(x) & {b}(x))).\n" + goal,
        "nested chain": f"premise: exists x (({a}(x) & {b}(x)) & {c}(x)).\n" + goal,
        "free variable, equality": f"premise: {a}(x) | y = {cell}.\n" + goal,
    }
    bad = {
        "two levels more": f"premise: -(-(exists x ({a}(x) & {b}(x)))).\n" + goal,
        "three operands": f"premise: exists x ({a}(x) & {b}(x) & {c}(x)).\n" + goal,
        "unknown predicate": f"premise: neuron({cell}).\n" + goal,
        "unknown individual": f"premise: {a}(cell_q99).\n" + goal,
        "free spacing": f"premise: all x({a}(x) -> {b}(x)).\n" + goal,
        "no goal": f"premise: {a}({cell}).\n",
        "goal first": goal + f"premise: {a}({cell}).\n",
        "two goals": f"premise: {a}({cell}).\n" + goal + goal,
        "no final newline": f"premise: {a}({cell}).\n" + goal[:-1],
        "prover9 command": f"premise: {a}({cell}).\nend_of_list.\n" + goal,
        "no period": f"premise: {a}({cell})\n" + goal,
    }
    for why, text in ok.items():
        assert accepts(grammar, text), why
        TRACK.formalizer().parse(one, text)
    for why, text in bad.items():
        assert not accepts(grammar, text), why


# ---- parsing untrusted text -----------------------------------------------------------------
@pytest.mark.parametrize("bad, message, line, column", [
    ("premise: neuron({c}).\ngoal: {a}({c}).", r"unknown predicate 'neuron'; this problem's "
     r"predicates are [a-z0-9_, ]+", 1, 10),
    ("premise: {a}({c}, {c}).\ngoal: {a}({c}).", r"predicate {a} takes 1 argument, not 2", 1,
     10),
    ("premise: {a}.\ngoal: {a}({c}).", r"predicate {a} takes 1 argument, not 0", 1, 10),
    ("premise: all x ({a}(x) -> {b}(cell_q99)).\ngoal: {a}({c}).",
     r"unknown individual 'cell_q99'", 1, None),
    ("premise: {a}({c}).\npremise: all x (end_of_list(x)).\ngoal: {a}({c}).",
     r"end_of_list is a reserved word", 2, 17),
    ("premise: {a}({c}).\nend_of_list.\nformulas(sos).\ngoal: {a}({c}).",
     r"expected a line 'premise: FORMULA.' or 'goal: FORMULA.'", 2, 1),
    ("premise: set(auto).\ngoal: {a}({c}).", r"unknown predicate 'set'", 1, 10),
    ("premise: {a}({c}).\n  assign(max_seconds, 999999).\ngoal: {a}({c}).",
     r"expected a line", 2, 3),
    ("premise: assign(max_seconds, 999999).\ngoal: {a}({c}).", r"unexpected '9'", 1, 30),
    ("premise: formulas(sos).\ngoal: {a}({c}).", r"unknown predicate 'formulas'", 1, 10),
    ("premise: {a}({c}). end_of_list. formulas(sos). {b}({c}).\ngoal: {a}({c}).",
     r"unexpected '\.'", 1, None),
    ("premise: {a}(1e400).\ngoal: {a}({c}).", r"unexpected '1'", 1, None),
    ("premise: \u2200x {a}(x).\ngoal: {a}({c}).", "character '\u2200' is not allowed", 1, 10),
    ("premise: {a}({c}).\ngoal: {a}(c\u00e9ll).", "character '\u00e9' is not allowed", 2,
     None),
    ("premise: {a}({c}).\x00\ngoal: {a}({c}).", r"character '\\x00' is not allowed", 1, None),
    ("premise: {a}({c}) & " + "{a}({c}) | " * 100 + "{a}({c}).\ngoal: {a}({c}).",
     r"formula too long \(\d+ characters; at most 1000\)", 1, 10),
    ("premise: " + "-(" * 400 + "{a}({c})" + ")" * 400 + ".\ngoal: {a}({c}).",
     r"formula too long", 1, 10),
    ("premise: {a}({c}).\n", r"no goal line", 2, 1),
    ("goal: {a}({c}).", r"no premise line", 1, 1),
    ("premise: {a}({c}).\ngoal: {a}({c}).\ngoal: {b}({c}).",
     r"a second goal line \(the goal is on line 2\)", 3, 1),
    ("premise: all x ({a}(x) ->\n{b}(x)).\ngoal: {a}({c}).", r"unexpected end of input", 1,
     None),
    ("", r"no goal line", 1, 1),
    ("premise: {a}({c}). % comment\ngoal: {a}({c}).", r"unexpected '\.'", 1, None),
])
def test_parse_errors_name_line_and_column(one, bad, message, line, column):
    a, b = sorted(one.formal["predicates"])[:2]
    names = {"a": a, "b": b, "c": one.formal["constants"][0]}
    with pytest.raises(FormalizationError, match=message.format(**names)) as info:
        TRACK.formalizer().parse(one, bad.format(**names))
    assert info.value.line == line
    if column is not None:
        assert info.value.column == column


def test_deep_nesting_is_answered_or_a_typed_failure(one):
    from scir.pipelines.ns import solve

    a = sorted(one.formal["predicates"])[0]
    atom = f"{a}(x)"
    room = F.MAX_FORMULA_CHARS - len(atom) - 1            # the final period counts
    shapes = {"negations": lambda n: "-" * n + atom,
              "negated groups": lambda n: "-(" * (n // 3) + atom + ")" * (n // 3),
              "groups": lambda n: "(" * (n // 2) + atom + ")" * (n // 2),
              "quantifiers": lambda n: "all x " * (n // 6) + atom}
    outcomes = set()
    for name, shape in shapes.items():
        for size in (room // 4, room // 2, room):
            text = f"premise: {shape(size)}.\ngoal: {atom}.\n"
            try:
                parsed = TRACK.formalizer().parse(one, text)
            except FormalizationError as exc:
                assert exc.line == 1 and "nested too deeply" in exc.message, name
                outcomes.add("parse_error")
                continue
            outcome = solve(TRACK, one, parsed.formal)    # answered, or a typed failure
            assert outcome.status in STATUSES, name
            outcomes.add(outcome.status)
    assert {"ok", "parse_error"} <= outcomes


def test_size_limits(one):
    a = sorted(one.formal["predicates"])[0]
    many = f"premise: {a}(x).\n" * (F.MAX_PREMISES + 1) + f"goal: {a}(x).\n"
    with pytest.raises(FormalizationError, match="more than 500 premises") as info:
        TRACK.formalizer().parse(one, many)
    assert info.value.line == F.MAX_PREMISES + 1
    with pytest.raises(FormalizationError, match="formalization too long"):
        TRACK.formalizer().parse(one, " " * (F.MAX_TEXT_CHARS + 1))
    with pytest.raises(FormalizationError, match="is text, got NoneType"):
        TRACK.formalizer().parse(one, None)


def test_parser_is_lenient_about_layout_only(one):
    text = F.format_formal(one)
    gold = TRACK.formalizer().parse(one, text)
    loose = ("\n```prover9\n" + text.replace("premise: ", "  Premise :").replace(" -> ", "->")
             .replace(".\n", " \r\n\n") + "```\n\n")
    parsed = TRACK.formalizer().parse(one, loose)
    assert parsed.formal == gold.formal and parsed.items == gold.items
    shuffled = text.replace("goal:", "GOAL:")
    assert TRACK.formalizer().parse(one, shuffled).formal == gold.formal


def test_hostile_signature_names_never_reach_a_grammar(one):
    bad = copy.deepcopy(one)
    bad.formal["predicates"] = {'p" | /(.|\\n)*/ | "': 1}
    with pytest.raises(TaskFormatError, match="cannot be formalized") as info:
        TRACK.formalizer().grammar(bad)
    assert info.value.task_id == one.task_id
    bad.formal["predicates"] = {"end_of_list": 1}
    with pytest.raises(TaskFormatError, match="invalid predicate name"):
        TRACK.formalizer().grammar(bad)
    bad.formal["predicates"], bad.formal["constants"] = dict(one.formal["predicates"]), ["x1"]
    with pytest.raises(TaskFormatError, match="would read it as a variable"):
        TRACK.formalizer().parse(bad, F.format_formal(one))


def test_signature_falls_back_to_the_gold_formulas(one):
    bare = copy.deepcopy(one)
    del bare.formal["predicates"], bare.formal["constants"]
    preds, consts = F.task_signature(bare)
    used = set(re.findall(r"([a-z0-9_]+)\(", " ".join(one.formal["premises"] +
                                                     [one.formal["goal"]])))
    assert set(preds) == used and set(preds) <= set(one.formal["predicates"])
    assert set(consts) <= set(one.formal["constants"])


# ---- prompts -------------------------------------------------------------------------------
def test_prompts(one):
    problem = one.problem_nl
    cot = TRACK.formalizer().prompt("cot", one, "nl", PromptArgs(problem=problem))
    assert problem in cot and one.question in cot
    assert 'a line of the form "Answer: X"' in cot and "$" not in cot
    form = TRACK.formalizer().prompt("formalize", one, "nl", PromptArgs(problem=problem))
    assert problem in form and one.question in form and "$" not in form
    assert "premise: all x (neuron(x) -> excitable_cell(x)).\n" in form
    assert "goal: -glial_cell(cell_k1).\n" in form
    lexicon = one.domain_metadata["lexicon"]
    for pid, entry in lexicon["predicates"].items():
        assert f"{pid}(x): x is {entry['article']} {entry['noun']}\n" in form
    for cid, name in lexicon["individuals"].items():
        assert f"{cid}: {name}\n" in form
    formal_text = F.format_formal(one)
    symb = TRACK.formalizer().prompt("symbcot", one, "nl", PromptArgs(problem=problem, formalization=formal_text))
    assert formal_text in symb and one.blocks[0] not in symb and one.question in symb
    assert 'a line of the form "Answer: X"' in symb and "$" not in symb
    check_prompt_edges(TRACK, one, "formalize",
                       "SINGLE-CELL REPORT 7: see the attached annotations.")


def test_the_prompt_example_is_a_valid_formalization():
    """The formalize prompt's example parses, and Prover9 finds its answer True."""
    from scir.tasks import Task

    example = Task(task_id="deduction-e0d0-0-0", domain="deduction", difficulty="custom",
                   tier="e0d0", seed=0, params={}, question="?", answer="True",
                   answer_pool=["True"], chance=1 / 3, blocks=[],
                   formal={"premises": ["neuron(cell_k1)"], "goal": "excitable_cell(cell_k1)",
                           "predicates": {"neuron": 1, "glial_cell": 1, "excitable_cell": 1},
                           "constants": ["cell_k1"]})
    form = TRACK.formalizer().prompt("formalize", example, "nl", PromptArgs(problem=""))
    text = re.search(r"(?ms)^(premise: .*?^goal: [^\n]*\n)", form).group(1)
    parsed = TRACK.formalizer().parse(example, text)
    assert parsed.items == 4 and TRACK.solve_formal(example, parsed.formal) == "True"


# ---- pipelines with a scripted model --------------------------------------------------------
def test_oracle_solves_every_task(tasks, tmp_path):
    summary = run_oracle(tasks["easy"] + tasks["hard"], tmp_path)
    assert (summary.total, summary.correct) == (20, 20)


def _pigeonhole(preds: list[str]) -> str:
    """Five individuals in four predicates, each holding at most one: unsatisfiable, and hard
    for resolution (Prover9 runs into its time limit)."""
    holes = preds[:4]
    xs = [f"x{i}" for i in range(1, 6)]
    distinct = " & ".join(f"{u} != {v}" for i, u in enumerate(xs) for v in xs[i + 1:])
    lines = ["premise: " + "".join(f"exists {x} " for x in xs) + f"({distinct}).",
             "premise: all x (" + " | ".join(f"{h}(x)" for h in holes) + ")."]
    lines += [f"premise: all x all y ({h}(x) & {h}(y) -> x = y)." for h in holes]
    return "\n".join(lines + [f"goal: {preds[4]}(x)."]) + "\n"


def _hostile(task):
    """name -> (formalization text, expected status, expected error fragment)."""
    text = F.format_formal(task)
    a, b = sorted(task.formal["predicates"])[:2]
    first = text.index("\n") + 1
    return {
        "gold": (text, "ok", ""),
        "garbage": ("}{ DROP TABLE results; --\x1b[2J", "parse_error", "not allowed"),
        "prose": ("The statement is True.\n", "parse_error", "expected a line 'premise:"),
        "unknown names": (text.replace(f"{a}(", "neuron(", 1), "parse_error",
                          "unknown predicate 'neuron'"),
        "end_of_list": (text[:first] + "end_of_list.\nformulas(sos).\n" + text[first:],
                        "parse_error", "expected a line"),
        "end_of_list in a formula": (text.replace(".\n", ". end_of_list.\n", 1), "parse_error",
                                     "unexpected '.'"),
        "set(auto)": (text[:first] + "premise: set(auto).\n" + text[first:], "parse_error",
                      "unknown predicate 'set'"),
        "assign": (text[:first] + "premise: assign(max_seconds, 999999).\n" + text[first:],
                   "parse_error", "unexpected '9'"),
        "huge number": (text[:first] + f"premise: {a}(99999999999999999999).\n" + text[first:],
                        "parse_error", "unexpected '9'"),
        "non-ASCII": (text.replace("all x", "\u2200x", 1) if "all x" in text
                      else "\u2200" + text, "parse_error", "is not allowed"),
        "overlong formula": ("premise: " + " & ".join([f"{a}(x)"] * 300) + ".\n" + text,
                             "parse_error", "formula too long"),
        "inconsistent": (f"premise: {a}(x).\npremise: -{a}(x).\ngoal: {b}(x).\n",
                         "solver_error", "inconsistent"),
        "time limit": (_pigeonhole(sorted(task.formal["predicates"])), "timeout",
                       "max_seconds"),
    }


def test_hostile_formalizations_are_typed_failures(tasks, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(TRACK, "prover9_seconds", 1)
    pool = tasks["easy"] + tasks["hard"]
    plan, results = run_hostile(pool, _hostile, tmp_path / "run")
    assert len(plan) == 13
    for task_id, (name, task, text, status, fragment) in plan.items():
        assert results[task_id]["calls"] == (3 if status == "parse_error" else 1), name  # retries
    assert results[next(iter(plan))]["correct"]
    # the process is intact: Prover9 still answers the gold formalization
    assert TRACK.solve_formal(pool[0], TRACK.formal(pool[0])) == pool[0].answer


def test_solver_failures_keep_their_types(one, monkeypatch):
    a, b = sorted(one.formal["predicates"])[:2]
    inconsistent = TRACK.formalizer().parse(one, f"premise: {a}(x).\npremise: -{a}(x).\n"
                                                  f"goal: {b}(x).\n")
    with pytest.raises(SolverError, match="premises are inconsistent"):
        TRACK.solve_formal(one, inconsistent.formal)
    monkeypatch.setattr(TRACK, "prover9_seconds", 1)
    hard = TRACK.formalizer().parse(one, _pigeonhole(sorted(one.formal["predicates"])))
    with pytest.raises(SolverTimeout, match="Prover9 on the goal: max_seconds reached"):
        TRACK.solve_formal(one, hard.formal)


# ---- the tiny model -------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.llm
def test_scir_solve_with_the_tiny_model(tasks, tiny_cache, tmp_path, capsys):
    path = tmp_path / "deduction.jsonl"
    write_tasks(path, tasks["easy"][:4])
    solve_with_tiny(path, tmp_path, capsys, {"cot": 128, "ns": 1024, "symbcot": 128},
                    ns_statuses=("ok", "wrong", "solver_error", "timeout"))
