"""The causal track's pipeline hooks: the per-task grammar, the parser, the gold formalization,
the prompts; the oracle pipeline; hostile formalizations through NS; ``scir solve`` with the
tiny model (the grammar/parser agreement is tested with generated sentences:
tests/test_grammar.py).

Tiny-model tests use small Easy-derived tasks (``SMALL``: 3 proteins + XYZ, 6 options, 1
intervention, 3 cells per environment; tier n3c1, difficulty custom): their grammars accept at
most ~290 characters, so ``max_tokens = max_formalization_chars(task) + 1`` can never cut a
formalization (every token of the byte-level tiny tokenizer is at least one byte). Default
Easy tasks (64 rows) accept up to ~2,900 characters, too many
tokens for a quick test; see docs/tracks/causal.md.
"""

from __future__ import annotations

import copy
import re

import pytest

from formalize_helpers import (HAVE_LLG, check_prompt_edges, lark_accepts, llguidance_accepts,
                               run_hostile, run_oracle, solve_with_tiny)
from scir.prompts import PromptArgs
from scir.errors import FormalizationError, TaskFormatError
from scir.tasks import write_tasks
from scir.tracks import get_track
from scir.tracks.causal import formalize as F
from scir.tracks.causal.graph import ORDER

TRACK = get_track("causal")
SEED = 11
SMALL = {"nodes": 3, "options": 6, "samples": 3, "interventions": 1}


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


# ---- helpers -------------------------------------------------------------------------------
def longest_text(b: F.GrammarBounds) -> str:
    """A longest text of the grammar of ``b``, built by hand."""
    subs = sorted((n for n in b.nodes if n != b.new_protein), key=len, reverse=True)
    big = max(b.nodes, key=len)
    text = "columns: " + ", ".join(b.nodes) + "\n"
    text += f"{subs[0]} -> {subs[1]}\n" * b.max_edges
    header = "environment: inhibition of " + ", ".join([big] * b.max_targets) + "\n"
    row = " ".join(["9" * b.int_digits + ".99"] * b.width) + "\n"
    return text + (header + row * b.max_rows) * b.max_environments


# ---- the gold formalization ------------------------------------------------------------------
@pytest.mark.slow
def test_gold_formalization_parses_and_solves(tasks, level):
    for task in tasks[level]:
        grammar = TRACK.formalizer().grammar(task)
        text = F.format_formal(task)
        assert lark_accepts(grammar, text), task.task_id
        assert not HAVE_LLG or llguidance_accepts(grammar, text), task.task_id
        assert len(text) <= F.max_formalization_chars(task)
        parsed = TRACK.formalizer().parse(task, text)
        gold, got = task.formal, parsed.formal.dump()
        assert got["nodes"] == gold["nodes"] and got["columns"] == gold["columns"]
        assert got["known_edges"] == gold["known_edges"]
        assert "xyz_edges" not in got
        assert got["environments"] == [{k: e[k] for k in ("name", "kind", "targets", "rows")}
                                       for e in gold["environments"]]
        assert parsed.items == TRACK.formalizer().count_items(TRACK.formal(task))
        assert TRACK.solve_formal(task, parsed.formal) == task.answer


def test_grammar_is_specialised_and_bounded(tasks, level):
    for task in tasks[level]:
        grammar = TRACK.formalizer().grammar(task)
        b = F.grammar_bounds(task)
        nodes = task.formal["nodes"]
        assert set(re.findall(r'^node: (.*)$', grammar, re.M)[0].split(" | ")) == {
            f'"{n}"' for n in nodes}
        others = [p for p in ORDER if p not in nodes]
        assert not any(f'"{p}' in grammar for p in others)
        assert b.max_edges == len(task.formal["known_edges"]) + F.EDGE_MARGIN
        assert (b.max_environments, b.max_rows, b.max_targets) == (4, 16, 1)
        assert f"edge ~ 0..{b.max_edges} environment ~ 1..4" in grammar
        assert "row ~ 2..16" in grammar and "*" not in grammar and "+" not in grammar
        longest = longest_text(b)
        assert len(longest) == F.max_output_chars(b)
        assert lark_accepts(grammar, longest)
        assert not HAVE_LLG or llguidance_accepts(grammar, longest)
        for more in ("\n", longest[longest.rindex("environment:"):]):
            assert not lark_accepts(grammar, longest + more)
        assert len(TRACK.formalizer().parse(task, longest).formal.dump()["environments"]) == 4


def _variants(task):
    """Texts the task grammar must reject (every one is a small edit of the gold text)."""
    text = F.format_formal(task)
    lines = text.splitlines(keepends=True)
    cols = task.formal["columns"]
    sub = task.formal["nodes"][:-1]
    stranger = next(p for p in ORDER if p not in task.formal["nodes"])
    first_row = next(i for i, s in enumerate(lines) if s[0].isdigit())
    second_env = [i for i, s in enumerate(lines) if s.startswith("environment")][1]
    row = lines[first_row]
    return {
        "duplicate column": text.replace(cols[1], cols[0], 1),
        "unknown protein": text.replace(cols[0], stranger, 1),
        "edge at XYZ": text.replace("\n", f"\nXYZ -> {sub[0]}\n", 1),
        "self-loop": text.replace("\n", f"\n{sub[0]} -> {sub[0]}\n", 1),
        "short row": text.replace(row, row.rsplit(" ", 1)[0] + "\n", 1),
        "other precision": text.replace(row, row.replace(".", ".0", 1), 1),
        "free spacing": text.replace(row, row.replace(" ", "  ", 1), 1),
        "negative number": text.replace(row, "-" + row, 1),
        "one row": "".join(lines[:first_row + 1] + lines[second_env:]),
        "17 rows": "".join(lines[:first_row] + [row] + lines[first_row:]),
        "5 environments": text + "".join(lines[second_env:second_env + 3]),
        "no final newline": text[:-1],
    }


def test_grammar_rejects_what_the_parser_would_reject(tasks):
    for task in tasks["easy"][:3]:
        grammar = TRACK.formalizer().grammar(task)
        for why, text in _variants(task).items():
            assert not lark_accepts(grammar, text), why
            assert not HAVE_LLG or not llguidance_accepts(grammar, text), why


# ---- parsing untrusted text ------------------------------------------------------------------
@pytest.fixture(scope="module")
def one(tasks):
    return tasks["easy"][0]


FIRST_NUMBER = re.compile(r"(?m)^[0-9.]+ ")


def _first_number(text: str, new: str) -> str:
    return FIRST_NUMBER.sub(new, text, count=1)


@pytest.mark.parametrize("edit, message, line, column", [
    pytest.param(lambda t, c, s: t.replace(c[0], "Foo", 1), r"unknown protein 'Foo' in columns",
                 1, 10, id="unknown column"),
    pytest.param(lambda t, c, s: t.replace(c[1], c[0], 1), r"column \w+ is listed twice", 1,
                 None, id="repeated column"),
    pytest.param(lambda t, c, s: t.replace(", " + c[-1], "", 1), r"missing {last}", 1, 1,
                 id="missing column"),
    pytest.param(lambda t, c, s: t.replace("\n", f"\nXYZ -> {s[0]}\n", 1),
                 r"the edges of XYZ are unknown", 2, 1, id="edge at XYZ"),
    pytest.param(lambda t, c, s: t.replace("\n", f"\n{s[0]} -> {s[0]}\n", 1), r"self-loop", 2,
                 1, id="self-loop"),
    pytest.param(lambda t, c, s: t.replace("\n", f"\n{s[0]} -> Mystery\n", 1),
                 r"unknown protein 'Mystery' in a known edge", 2, None, id="unknown in edge"),
    pytest.param(lambda t, c, s: t.replace("observational\n", "inhibition of Nope\n", 1),
                 r"unknown protein 'Nope' in the targets", None, None, id="unknown target"),
    pytest.param(lambda t, c, s: _first_number(t, "nan "), r"'nan' is not a finite", None, 1,
                 id="nan"),
    pytest.param(lambda t, c, s: _first_number(t, "1e400 "), r"'1e400' is not a finite", None,
                 1, id="1e400"),
    pytest.param(lambda t, c, s: _first_number(t, "-2e7 "), r"out of range", None, 1,
                 id="out of range"),
    pytest.param(lambda t, c, s: _first_number(t, ""),
                 r"a row has {short} numbers; expected {width}", None, 1, id="ragged row"),
    pytest.param(lambda t, c, s: t.replace("environment:", "environment =", 1),
                 r"syntax error: unexpected character '='", None, 13, id="bad header"),
    pytest.param(lambda t, c, s: "", r"syntax error: unexpected end of text", None, None,
                 id="empty"),
    pytest.param(lambda t, c, s: "columns: Raf\n:- shell('rm -rf /').\n", r"syntax error", 2,
                 1, id="prolog directive"),
    pytest.param(lambda t, c, s: t.replace("columns:", "columns: __import__('os').system('id'),",
                                           1), r"syntax error", 1, None, id="python call"),
])
def test_parse_errors_name_line_and_column(one, edit, message, line, column):
    text = F.format_formal(one)
    cols, sub = one.formal["columns"], one.formal["nodes"][:-1]
    bad = edit(text, cols, sub)
    message = message.format(last=cols[-1], short=len(cols) - 1, width=len(cols))
    with pytest.raises(FormalizationError, match=message) as info:
        TRACK.formalizer().parse(one, bad)
    if line is not None:
        assert info.value.line == line
    if column is not None:
        assert info.value.column == column


def test_one_row_environment_and_limits(one):
    text = F.format_formal(one)
    lines = text.splitlines(keepends=True)
    header = next(i for i, s in enumerate(lines) if s.startswith("environment"))
    cut = "".join(lines[:header + 2] + lines[header + 17:])
    with pytest.raises(FormalizationError, match="has 1 row; at least 2") as info:
        TRACK.formalizer().parse(one, cut)
    assert info.value.line == header + 1
    with pytest.raises(FormalizationError, match="too long"):
        TRACK.formalizer().parse(one, text + " " * F.MAX_TEXT_CHARS)
    with pytest.raises(FormalizationError, match="is text"):
        TRACK.formalizer().parse(one, None)


def test_parser_is_lenient_about_layout_only(one):
    text = F.format_formal(one)
    cols = one.formal["columns"]
    gold = TRACK.formalizer().parse(one, text)
    loose = ("\n\n```text\n" + text.replace(", ", " ,  ").replace(cols[0], cols[0].upper(), 1)
             .replace("\n", "  \n\n") + "```\n")
    parsed = TRACK.formalizer().parse(one, loose)
    assert parsed.formal == gold.formal and parsed.items == gold.items
    edge = "{} -> {}\n".format(*one.formal["known_edges"][0])
    twice = TRACK.formalizer().parse(one, text.replace(edge, edge * 3, 1))
    assert twice.formal.known_edges == gold.formal.known_edges
    assert twice.items == gold.items
    same_kind = text.replace("observational\n", "inhibition of {0}, {0}\n".format(cols[0]), 1)
    envs = TRACK.formalizer().parse(one, same_kind).formal.dump()["environments"]
    assert envs[0]["targets"] == [cols[0]] and envs[0]["name"] == f"inhibit_{cols[0]}"
    assert F.environment_name("inhibition", ["Raf"], ["inhibit_Raf", "inhibit_Raf_2"]) == \
        "inhibit_Raf_3"


def test_hostile_protein_names_never_reach_a_grammar(one):
    bad = copy.deepcopy(one)
    bad.domain_metadata["subgraph_nodes"][0] = 'Raf" | /(.|\\n)*/ | "'
    with pytest.raises(TaskFormatError, match="cannot be formalized"):
        TRACK.formalizer().grammar(bad)
    bad.domain_metadata["subgraph_nodes"][0] = "environment"
    with pytest.raises(TaskFormatError, match="not a keyword"):
        TRACK.formalizer().grammar(bad)


# ---- prompts -------------------------------------------------------------------------------
def test_prompts(one):
    problem = one.problem_nl
    cot = TRACK.formalizer().prompt("cot", one, "nl", PromptArgs(problem=problem))
    assert problem in cot and one.question in cot
    assert all(f"{'ABCDEFGHIJ'[i]}. {o}\n" in cot + "\n" for i, o in enumerate(one.options))
    assert 'a line of the form "Answer: X"' in cot and "$" not in cot
    form = TRACK.formalizer().prompt("formalize", one, "nl", PromptArgs(problem=problem))
    assert problem in form and "columns: Beta, XYZ, Alpha, Gamma" in form
    assert ", ".join(one.formal["nodes"]) in form and "2 decimals" in form
    assert not any(o in form for o in one.options)          # no options in the formalize prompt
    formal_text = F.format_formal(one)
    symb = TRACK.formalizer().prompt("symbcot", one, "nl", PromptArgs(problem=problem, formalization=formal_text))
    assert formal_text in symb and one.blocks[0] not in symb and one.options[0] in symb
    assert 'a line of the form "Answer: X"' in symb and "$" not in symb
    check_prompt_edges(TRACK, one, "cot", "LAB RECORD 7: see the attached tables.")


# ---- pipelines with a scripted model ---------------------------------------------------------
def test_oracle_solves_every_task(tasks, tmp_path):
    summary = run_oracle(tasks["easy"] + tasks["hard"], tmp_path)
    assert (summary.total, summary.correct) == (20, 20)


def _hostile(task):
    """name -> (formalization text, expected status, expected error fragment)."""
    text = F.format_formal(task)
    cols = task.formal["columns"]
    first = FIRST_NUMBER.search(text)
    constant = FIRST_NUMBER.sub("1.00 ", text)
    everywhere = re.sub(r"(?m)^environment: .*$", f"environment: inhibition of {cols[0]}", text)
    return {
        "gold": (text, "ok", ""),
        "garbage": ("}{ DROP TABLE results; --\x00\x1b[2J", "parse_error", "syntax error"),
        "unknown names": (text.replace(cols[0], "Protein42", 1), "parse_error",
                          "unknown protein 'Protein42'"),
        "NaN": (text[:first.start()] + "NaN " + text[first.end():], "parse_error",
                "not a finite number"),
        "1e400": (text[:first.start()] + "1e400 " + text[first.end():], "parse_error",
                  "not a finite number"),
        "huge": (text[:first.start()] + "123456789.00 " + text[first.end():], "parse_error",
                 "out of range"),
        "ragged": (text[:first.start()] + text[first.end():], "parse_error",
                   f"expected {len(cols)}"),
        "prolog": (text + ":- shell('rm -rf /').\n", "parse_error", "syntax error"),
        "python": ("columns: __import__('os').system('touch pwned')\n", "parse_error",
                   "syntax error"),
        "answer smuggled": (text.replace("\n", f"\nXYZ -> {task.formal['nodes'][0]}\n", 1),
                            "parse_error", "edges of XYZ are unknown"),
        "constant column": (constant, "solver_error", "constant"),
        "target everywhere": (everywhere, "solver_error", "intervened on in every environment"),
        "oversized": ("columns: " + "Raf, " * 500_000, "parse_error", "too long"),
    }


def test_hostile_formalizations_are_typed_failures(tasks, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan, results = run_hostile(tasks["easy"] + tasks["hard"], _hostile, tmp_path / "run")
    assert len(plan) == 13
    for task_id, (name, task, text, status, fragment) in plan.items():
        assert results[task_id]["calls"] == (1 if status == "ok" else 3)   # 2 retries
    assert results[next(iter(plan))]["correct"]
    assert not (tmp_path / "pwned").exists()


# ---- the tiny model --------------------------------------------------------------------------
@pytest.mark.llm
def test_scir_solve_with_the_tiny_model(small_tasks, tiny_cache, tmp_path, capsys):
    path = tmp_path / "causal.jsonl"
    write_tasks(path, small_tasks[:4])
    assert max(F.max_formalization_chars(t) for t in small_tasks[:3]) < 300
    results = solve_with_tiny(path, tmp_path, capsys, dict.fromkeys(("cot", "ns", "symbcot"), 300),
                              ns_statuses=("ok", "wrong", "solver_error"))
    assert all(r["items"] is not None for r in results["symbcot"])
