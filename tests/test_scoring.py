"""The scoring rules of scir.outcomes.scoring, applied through each built-in track's
``Track.scorer()``."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scir.errors import ConfigError
from scir.outcomes.scoring import EXACT, RULES, SUBSET, match_subset
from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.scoring import rule_scorer
from scir.tracks.causal.options import match_options


def make(domain, answer, pool, options=()):
    return Task(task_id=f"{domain}-t-0-0", domain=domain, difficulty="easy", tier="t", seed=0,
                params={}, question="?", answer=answer, answer_pool=list(pool), chance=0.5,
                formal={}, blocks=[], options=list(options))


def test_each_built_in_track_names_its_rule():
    assert {n: get_track(n).scoring for n in ("deduction", "induction", "causal",
                                               "equation")} == {
        "deduction": "label", "induction": "pool", "causal": "option", "equation": "equation"}
    for name in ("deduction", "induction", "causal", "equation"):
        assert get_track(name).scorer().rule == get_track(name).scoring
    assert set(RULES) == {"label", "pool", "option"}  # the generic ones


def test_label_is_exact():
    track, task = get_track("deduction").scorer(), make("deduction", "True", ["True"])
    assert track.score(task, "True")
    assert not track.score(task, "true") and not track.score(task, None)


def test_pool_accepts_any_pooled_answer():
    track = get_track("induction").scorer()
    task = make("induction", "a,b", ["a,b", "c,d"])
    assert track.score(task, "c,d") and track.score(task, "a,b")
    assert not track.score(task, "a,c") and not track.score(task, None)


def test_option_letters_and_stated_edges_with_subset_match():
    track = get_track("causal").scorer()
    options = ["XYZ -> Raf", "Mek -> XYZ", "XYZ -> Raf; XYZ -> Mek"]
    task = make("causal", "B", ["B"], options)
    assert track.score(task, "B") and not track.score(task, "A")
    assert not track.score(task, "none")                    # the solvers' "no match"
    assert track.score(task, "mek -> xyz")                  # the same set, any case
    assert track.score(task, "Mek -> XYZ; XYZ -> Erk")      # only B is strictly inside
    assert not track.score(task, "XYZ -> Raf; XYZ -> Mek")  # option C exactly
    assert not track.score(task, "XYZ -> Erk") and not track.score(task, "an edge")
    # two options strictly inside: no match
    assert not track.score(task, "XYZ -> Raf; Mek -> XYZ")


def test_an_unknown_rule_is_named():
    class Odd:
        name, scoring = "odd", "fuzzy"

    with pytest.raises(ConfigError, match="track 'odd' names the unknown scoring rule 'fuzzy' "
                       r"\(one of label, pool, option\)"):
        rule_scorer(Odd())


@given(st.frozensets(st.integers(0, 5)), st.lists(st.frozensets(st.integers(0, 5)),
                                                  min_size=1, max_size=6))
def test_subset_match_rule(found, options):
    m = match_subset(found, options)
    if found in options:
        assert (m.index, m.how) == (options.index(found), EXACT)
    else:
        inside = [i for i, o in enumerate(options) if o < found]
        want = (inside[0], SUBSET) if len(inside) == 1 else (None, None)
        assert (m.index, m.how) == want
    edges = [frozenset(("XYZ", f"P{i}") for i in o) for o in options]
    assert match_options({("xyz", f"p{i}") for i in found}, edges).index == m.index
