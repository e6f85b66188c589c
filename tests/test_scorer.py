"""Each track owns its scorer (``Track.scorer()``): the built-in tracks' scorers on real
generated tasks, the default scorer of a track written against the older scoring hooks, and
scir.outcomes knowing no track."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import pytest
from parity_track import ParityTrack

import scir.outcomes
from scir.cli import main
from scir.errors import ConfigError
from scir.outcomes.scoring import (Assessment, LabelScorer, OptionScorer, PoolScorer, Scorer,
                                   match_subset)
from scir.tasks import Task, write_tasks
from scir.tracks import get_track, register, unregister
from scir.tracks.base import Track
from scir.tracks.causal.scoring import CausalScorer
from scir.tracks.equation.scoring import EQUATION_TAU, EquationScorer
from scir.tracks.formalizer import OLDER_METHODS_REMOVED_IN
from scir.tracks.scoring import DEPRECATED, OLD_HOOKS, HookScorer, REMOVED_IN


@pytest.fixture(scope="module")
def made() -> dict[str, list[Task]]:
    """Two real tasks of each built-in track, and two open causal tasks."""
    out = {name: list(get_track(name).generate(2, seed=3)) for name in
           ("deduction", "induction", "causal", "equation")}
    out["open"] = list(get_track("causal").generate(2, seed=3, overrides={"answer": "open"}))
    return out


def test_each_built_in_track_owns_a_scorer_of_its_kind():
    kinds = {"deduction": LabelScorer, "induction": PoolScorer, "causal": CausalScorer,
             "equation": EquationScorer}
    for name, kind in kinds.items():
        scorer = get_track(name).scorer()
        assert type(scorer) is kind and isinstance(scorer, Scorer)
        assert scorer.rule == get_track(name).scoring
    assert isinstance(get_track("causal").scorer(), OptionScorer)
    # the Track face lost the hooks of the old dispatch
    assert not any(hasattr(Track, name) for name in OLD_HOOKS)


def test_label_and_pool_verdicts_on_generated_tasks(made):
    for name in ("deduction", "induction"):
        scorer = get_track(name).scorer()
        for task in made[name]:
            assert scorer.score(task, task.answer)
            assert scorer.assess(task, task.answer) == Assessment(True, None)
            assert not scorer.score(task, None) and not scorer.score(task, "")
            assert scorer.rule_of(task) == scorer.rule
    label = get_track("deduction").scorer()
    for task in made["deduction"]:
        wrong = next(x for x in ("True", "False", "Unknown") if x != task.answer)
        assert not label.score(task, wrong) and not label.score(task, task.answer.lower())
    pool = get_track("induction").scorer()
    for task in made["induction"]:
        assert all(pool.score(task, a) for a in task.answer_pool)
        assert not pool.score(task, "binds,binds") or "binds,binds" in task.answer_pool


def test_causal_letters_and_stated_edge_sets(made):
    scorer = get_track("causal").scorer()
    for task in made["causal"]:
        gold = ord(task.answer) - ord("A")
        wrong = next(chr(ord("A") + i) for i in range(len(task.options)) if i != gold)
        assert scorer.score(task, task.answer) and not scorer.score(task, wrong)
        assert not scorer.score(task, None) and not scorer.score(task, "none")
        # the gold option's edge set, stated: as written and in lower case
        stated = task.options[gold]
        assert scorer.score(task, stated) and scorer.score(task, stated.lower())
        assert not scorer.score(task, task.options[ord(wrong) - ord("A")])
        assert scorer.rule_of(task) == "option"
        assert scorer.assess(task, stated) == Assessment(True, None)


def test_causal_open_tasks_are_scored_by_the_exact_set_with_edge_metrics(made):
    scorer = get_track("causal").scorer()
    for task in made["open"]:
        assert scorer.rule_of(task) == "edges"
        got = scorer.assess(task, "Answer: " + task.answer)
        assert got.correct and got.metrics is not None and got.metrics["edge_f1"] == 1.0
        missing = task.answer.split(";")[0]
        half = scorer.assess(task, missing)
        assert half.correct is (missing == task.answer)
        none = scorer.assess(task, None)
        assert not none.correct and none.metrics["edge_recall"] == 0.0


def test_equation_right_and_wrong_formulas(made):
    scorer = get_track("equation").scorer()
    track = get_track("equation")
    for task in made["equation"]:
        formal = track.formal(task)
        assert scorer.score(task, formal.expression)
        assert scorer.score(task, formal.skeleton)  # its constants fitted on train
        assert not scorer.score(task, formal.expression + " + 1")
        assert not scorer.score(task, "not an equation") and not scorer.score(task, None)
        right = scorer.assess(task, formal.expression)
        assert right.correct and right.metrics[f"acc_{EQUATION_TAU:g}"]
        assert set(right.metrics) == set(scorer.metrics)
        wrong = scorer.assess(task, formal.expression + " + 1")
        assert not wrong.correct and wrong.metrics["symbolic"] is False
        assert EquationScorer(fit_strategy="bfgs").score(task, formal.skeleton)


class _Letters(ParityTrack):
    """A track written the old way: an ``option`` rule through the older item hooks."""

    name = "letters"
    scoring = "option"

    def option_items(self, task: Task) -> list[frozenset[str]]:
        return [frozenset(o.split("+")) for o in task.options]

    def answer_items(self, task: Task, answer: str) -> frozenset[str] | None:
        return frozenset(answer.split("+")) if "+" in answer else None

    def fold_item(self, item: str) -> str:
        return item.lower()


def _letters_task() -> Task:
    return Task(task_id="letters-t-0-0", domain="letters", difficulty="easy", tier="t", seed=0,
                params={}, question="?", answer="B", answer_pool=["B"], chance=0.5, formal={},
                blocks=["x"], options=["a+b", "c+d", "a+b+c+d"])


def test_an_old_style_track_scores_through_the_default_scorer_with_one_warning():
    track = _Letters()
    with pytest.warns(DeprecationWarning, match="override Track.scorer") as caught:
        scorer = track.scorer()
    assert len(caught) == 1 and "answer_items, fold_item, option_items" in str(caught[0].message)
    assert REMOVED_IN == OLDER_METHODS_REMOVED_IN == "0.2" and REMOVED_IN in DEPRECATED
    assert isinstance(scorer, HookScorer) and scorer.rule == "option"
    task = _letters_task()
    assert scorer.score(task, "B") and not scorer.score(task, "A")
    assert scorer.score(task, "C+D")                 # the same set, folded
    assert scorer.score(task, "c+d+e")               # only option B strictly inside
    assert not scorer.score(task, "a+b+c+d")         # option C exactly
    assert not scorer.score(task, "nothing") and not scorer.score(task, None)
    assert scorer.assess(task, "B") == Assessment(True, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # once per class: no second warning
        track.scorer()
        _Letters().scorer()


def test_old_score_and_answer_metrics_hooks_are_used():
    class OwnScore(ParityTrack):
        name = "ownscore"

        def score(self, task: Task, answer: str | None) -> bool:
            return answer == "yes"

        def scoring_of(self, task: Task) -> str:
            return "yes-rule"

        def answer_metrics(self, task: Task, answer: str | None) -> dict[str, Any] | None:
            return {"length": len(answer or "")}

    with pytest.warns(DeprecationWarning):
        scorer = OwnScore().scorer()
    task = _letters_task()
    assert scorer.score(task, "yes") and not scorer.score(task, "B")
    assert scorer.rule_of(task) == "yes-rule"
    assert scorer.assess(task, "yes") == Assessment(True, {"length": 3})


def test_a_track_on_the_new_face_gets_no_warning_and_a_bad_rule_is_named():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert type(ParityTrack().scorer()) is PoolScorer

    class Fuzzy(ParityTrack):
        name, scoring = "fuzzy", "fuzzy"

    with pytest.raises(ConfigError, match="track 'fuzzy' names the unknown scoring rule "
                                          r"'fuzzy' \(one of label, pool, option\)"):
        Fuzzy().scorer()


class _Fuzzy(ParityTrack):
    name, scoring = "fuzzy", "fuzzy"


def test_an_unknown_rule_stops_scir_solve_with_one_line(tmp_path, capsys):
    path = tmp_path / "fuzzy.jsonl"
    write_tasks(path, _Fuzzy().generate(1, seed=1))
    register("fuzzy", _Fuzzy)
    try:
        assert main(["solve", str(path), "--arch", "oracle", "--run", str(tmp_path / "r")]) == 2
    finally:
        unregister("fuzzy")
    err = capsys.readouterr().err
    assert "unknown scoring rule 'fuzzy'" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_option_scorer_is_given_its_items_and_defaults_to_letters():
    task = _letters_task()
    assert OptionScorer().score(task, "B") and not OptionScorer().score(task, "c+d")
    scorer = OptionScorer(option_items=lambda t: [set(o) for o in t.options],
                          answer_items=lambda t, a: set(a))
    assert scorer.score(task, "c+d") and not scorer.score(task, "C+D")
    assert match_subset({"x"}, [{"x"}]).index == 0


# names that only a track's scorer may know: the track names and the equation formal layout
_FORBIDDEN = ("deduction", "induction", "causal", "equation", "splits", "test_id", "test_ood",
              "train", "track")


def _code_words(path: Path) -> set[str]:
    """The names, attributes, arguments and string constants of a module's code (docstrings
    and imports left out), lower case."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    imports = {id(n) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
               for n in ast.walk(node)}
    words = set()
    for node in ast.walk(tree):
        if id(node) in imports or id(node) in docstrings:
            continue
        if isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.arg):
            words.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            words.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.add(node.value)
    return {w.lower() for w in words}


def test_outcomes_code_names_no_track_and_no_formal_layout():
    folder = Path(scir.outcomes.__file__).parent
    modules = sorted(folder.glob("*.py"))
    assert len(modules) >= 4
    for path in modules:
        words = _code_words(path)
        assert "score" in words or path.name != "scoring.py"   # the check reads real code
        hits = sorted(w for w in words for bad in _FORBIDDEN if bad in w)
        assert not hits, (path.name, hits)


def test_the_older_scoring_calls_forward_to_the_scorer_with_a_warning(made):
    track = get_track("deduction")
    task = made["deduction"][0]
    wrong = next(label for label in ("True", "False", "Unknown") if label != task.answer)
    with pytest.warns(DeprecationWarning, match=r"Track.score is deprecated: call "
                      r"track.scorer\(\).score \(removed in scir 0.2\)"):
        assert track.score(task, task.answer) and not track.score(task, wrong)
    with pytest.warns(DeprecationWarning, match="Track.scoring_of is deprecated"):
        assert track.scoring_of(task) == "label"
    eq = get_track("equation")
    formal = eq.formal(made["equation"][0])
    with pytest.warns(DeprecationWarning, match="Track.answer_metrics is deprecated"):
        metrics = eq.answer_metrics(made["equation"][0], formal.expression)
    assert metrics == eq.scorer().assess(made["equation"][0], formal.expression).metrics
    with pytest.raises(AttributeError, match="has no attribute 'option_items'"):
        track.option_items  # the option rule's item functions belong to its scorer now
