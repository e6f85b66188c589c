"""The balanced deduction construction: minimality and existential import on hand-made cases
(the expected answer stated in each test), converse breaks in Prolog, label-blind
construction (the three labels from one random state differ only where the label needs
it), generated tasks that verify, and the paper construction unchanged."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest

from scir.errors import ConfigError
from scir.tracks.reading import task_from_dict
from scir.tasks import Task
from scir.tracks.deduction import DeductionTrack, balanced, checks
from scir.tracks.deduction.logic import Formula, Node, converse, parse

TRACK = DeductionTrack(workers=1)


def F(kind: str, *args: str) -> Formula:
    return Formula(kind, args)


# ---------------------------------------------------------------- hand-made cases

def test_redundant_premise_found():
    """Two paths from a to c: each premise of the path a-b-c can be removed and
    "Every a is a c" still follows, so neither is necessary."""
    premises = [F("all", "a", "b"), F("all", "b", "c"), F("all", "a", "m"), F("all", "m", "c")]
    goal = F("all", "a", "c")
    assert checks.asp_label(premises, goal).label == "True"
    assert checks.redundant_premises(premises, goal, premises[:2]) == premises[:2]


def test_minimal_proof_has_no_redundant_premise():
    """One path a-b-c (plus an unrelated c-d premise): both proof premises are necessary."""
    premises = [F("all", "a", "b"), F("all", "b", "c"), F("all", "c", "d")]
    goal = F("all", "a", "c")
    assert checks.redundant_premises(premises, goal, premises[:2]) == []
    # "k is a b" stated outright makes the proof "every a is a b; k is an a" redundant
    singular = [F("all", "a", "b"), F("fact", "a", "k"), F("fact", "b", "k")]
    assert checks.redundant_premises(singular, F("fact", "b", "k"), singular[:2]) == \
        singular[:2]


def test_existential_import_flips_unknown_to_true():
    """ "Every a is a b" says nothing about whether some a is a b (Unknown) -- unless every
    universal statement implies that its subject exists (then True)."""
    premises, goal = [F("all", "a", "b")], F("some", "a", "b")
    assert checks.asp_label(premises, goal).label == "Unknown"
    assert checks.asp_label(premises, goal, existential_import=True).label == "True"
    assert not checks.import_agrees(premises, goal)


def test_existential_import_flips_unknown_to_false():
    """ "Every a is a b"; is "No a is a b"? Unknown (true when there is no a); with import
    False."""
    premises, goal = [F("all", "a", "b")], F("no", "a", "b")
    assert checks.asp_label(premises, goal).label == "Unknown"
    assert checks.asp_label(premises, goal, existential_import=True).label == "False"


def test_existential_import_agrees_when_existence_is_stated():
    """With "there is at least one a" stated, the label is True both ways; a chain of
    universals (Barbara) is True both ways too."""
    premises, goal = [F("all", "a", "b"), F("exists", "a")], F("some", "a", "b")
    assert checks.asp_label(premises, goal).label == "True"
    assert checks.import_agrees(premises, goal)
    chain = [F("all", "a", "b"), F("all", "b", "c")]
    assert checks.import_agrees(chain, F("all", "a", "c"), "True")


def test_existential_import_can_make_premises_inconsistent():
    """ "Every a is a b" and "No a is a b" are consistent (no a exists) -- not under import."""
    premises = [F("all", "a", "b"), F("no", "a", "b")]
    assert checks.asp_label(premises, F("fact", "c", "k")).label == "Unknown"
    assert checks.asp_label(premises, F("fact", "c", "k"), existential_import=True).label is None


def test_converse_and_replaced_leaves_in_prolog():
    """A leaf replaced by its converse: the converse must be stated and the leaf not."""
    assert converse(F("all", "a", "b")) == F("all", "b", "a")
    assert converse(F("some_not", "a", "b")) == F("some_not", "b", "a")
    with pytest.raises(ValueError, match="no non-equivalent converse"):
        converse(F("no", "a", "b"))
    tree = Node(F("all", "s", "p"), "barbara", [
        Node(F("all", "m", "p")),
        Node(F("all", "s", "m"), missing=True, replaced_by=F("all", "m", "s"))])
    assert Node.from_json(tree.to_json()).to_json() == tree.to_json()
    ok, = checks.check_trees([tree], [F("all", "m", "p"), F("all", "m", "s")])
    assert ok.ok and ok.missing == [F("all", "s", "m")]
    bad, = checks.check_trees([tree], [F("all", "m", "p")])
    assert not bad.ok and "all x (m(x) -> s(x))" in bad.error and "not among" in bad.error
    stated, = checks.check_trees([tree], [F("all", "m", "p"), F("all", "m", "s"),
                                          F("all", "s", "m")])
    assert not stated.ok and "missing leaf" in stated.error


# ---------------------------------------------------------------- label-blind construction

def _profile(premises: list[Formula]) -> tuple:
    mentions = Counter(a for p in premises for a in p.args)
    return (len(premises), sorted(Counter(p.kind for p in premises).items()),
            sorted(mentions.values()), len(mentions))


def _degree_profile(premises: list[Formula]) -> list[tuple]:
    """Per term, the forms and directions of the premises about it (``>`` subject, ``<``
    object, ``-`` either of a symmetric form, ``.`` a one-place form), as a sorted multiset
    over the terms: what the premise graph looks like at each term, names erased."""
    from scir.tracks.deduction.logic import CONVERSE_KINDS

    around: dict[str, list[str]] = {}
    for p in premises:
        for k, a in enumerate(p.args):
            if len(p.args) == 1:
                mark = "."
            elif p.kind in CONVERSE_KINDS or p.constants:
                mark = ">" if k == 0 else "<"
            else:
                mark = "-"
            around.setdefault(a, []).append(p.kind + mark)
    return sorted(tuple(sorted(v)) for v in around.values())


@pytest.mark.parametrize("depth, width, seeds", [(2, 3, range(3)), (4, 1, range(3)),
                                                 (6, 1, range(1))])
def test_three_labels_from_one_state_differ_only_where_needed(depth, width, seeds):
    """From the same random state the three targets give the same candidate: True and False
    the same premises (statements negations of each other), Unknown the same count profile
    (premises, forms, term-frequency profile): two premises differ, each the converse of the
    other (Unknown breaks the proof, True/False the proof's decoy: one converse per tree
    either way), and the same retries; the statement is the proof's conclusion
    or its negation."""
    for seed in seeds:
        made = {t: balanced.generate(depth, width, random.Random(seed), t)
                for t in ("True", "False", "Unknown")}
        yes, no, unknown = made["True"], made["False"], made["Unknown"]
        assert yes.premises == no.premises and no.statement == yes.statement.negated()
        assert _profile(unknown.premises) == _profile(yes.premises)
        assert _degree_profile(unknown.premises) == _degree_profile(yes.premises)
        changed = [(a, b) for a, b in zip(yes.premises, unknown.premises) if a != b]
        assert len(changed) == 2 and all(converse(a) == b for a, b in changed)
        assert unknown.statement in (yes.statement, no.statement)
        assert yes.retries == no.retries == unknown.retries
        assert yes.sources == unknown.sources


def test_even_width_is_refused():
    with pytest.raises(ConfigError, match="odd width") as info:
        list(TRACK.generate(1, 3, "easy", {"width": 2}))
    assert info.value.field == "width"


# ---------------------------------------------------------------- generated tasks

@pytest.fixture(scope="module")
def easy_tasks() -> list[Task]:
    return list(TRACK.generate(12, 4, "easy"))


def test_generated_tasks_verify_minimal_and_import_stable(easy_tasks):
    """Every task verifies (labels, trees, decoys, minimality, existential import); the trees
    split evenly between the conclusion and its negation; one converse per tree, decoys
    included: in an Unknown task's proof, or in a True/False task's proof's decoy."""
    assert Counter(t.answer for t in easy_tasks) == {"True": 4, "False": 4, "Unknown": 4}
    for task in easy_tasks:
        assert task.params == {"depth": 4, "width": 1, "construction": "balanced"}
        assert task.difficulty == "easy" and task.tier == "e4d1"
        check = TRACK.verify(task)
        assert check.ok, (task.task_id, check.message)
        assert check.details["import_agrees"]
        assert check.details.get("minimal", True)
        assert task.question.startswith("Read universal statements ('every ...', 'no ...', "
                                        "'if a cell is ...') as not implying that such cells "
                                        "exist. Based on the statements above")
        proof = Node.from_json(task.formal["proof"])
        trees = [proof] + [Node.from_json(d) for d in task.formal["distractors"]]
        decoys = [Node.from_json(d) for d in task.formal["decoys"]]
        roots = Counter(t.formula for t in trees)
        assert sorted(roots.values()) == [1, 1] and len(decoys) == len(trees)

        def replaced(tree):
            return sum(leaf.replaced_by is not None for leaf in tree.leaves())
        per_tree = [replaced(t) + replaced(d) for t, d in zip(trees, decoys)]
        assert per_tree == [1] * len(trees)
        assert replaced(proof) == (1 if task.answer == "Unknown" else 0)


def _components(premises: list[Formula], statement: Formula) -> list[list[Formula]]:
    """The premises split into the connected pieces they form without the statement's terms
    (what an answer-blind reader sees as the trees)."""
    keep = set(statement.args)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    for p in premises:
        inner = [a for a in p.args if a not in keep]
        for a in inner[1:]:
            parent[find(a)] = find(inner[0])
    groups: dict[str, list[Formula]] = {}
    for p in premises:
        inner = [a for a in p.args if a not in keep]
        groups.setdefault(find(inner[0]) if inner else "", []).append(p)
    return list(groups.values())


def _shapes(node: Node) -> tuple:
    """A tree's shape: its rules and forms, names erased."""
    return (node.formula.kind, node.rule, tuple(_shapes(c) for c in node.children))


def _subtrees(node: Node):
    yield node
    for child in node.children:
        yield from _subtrees(child)


def test_every_decoy_copies_a_branch_and_the_converse_sits_at_the_fork(easy_tasks):
    """The invariants of the construction, exact on every task whatever its label: every
    tree's decoy has the shape of one of the tree's subtrees (the route from the anchor to a
    hub) and shares exactly one term with the tree (the anchor, not a statement term); each
    tree and its decoy hold exactly one converse between them, at the anchor, at the same
    leaf of the two branches."""
    for task in easy_tasks:
        statement = parse(task.formal["goal"])
        trees = [Node.from_json(task.formal["proof"])] + [
            Node.from_json(d) for d in task.formal["distractors"]]
        decoys = [Node.from_json(d) for d in task.formal["decoys"]]
        for tree, decoy in zip(trees, decoys):
            copied = [s for s in _subtrees(tree) if _shapes(s) == _shapes(decoy)]
            assert copied, task.task_id
            terms = {a for f in tree.formulas() for a in f.args}
            shared = terms & {a for f in decoy.formulas() for a in f.args}
            assert len(shared) == 1 and not shared & set(statement.args), task.task_id
            replaced = [leaf for part in (tree, decoy) for leaf in part.leaves()
                        if leaf.replaced_by is not None]
            assert len(replaced) == 1 and shared <= set(replaced[0].formula.args), \
                task.task_id

            def at(node: Node) -> list[int]:
                return [k for k, leaf in enumerate(node.leaves())
                        if leaf.replaced_by is not None]
            # the same leaf of the two branches: k-th of the copied subtree or of the copy
            assert any(len(at(s) + at(decoy)) == 1 and (at(s) or at(decoy))
                       for s in copied), task.task_id


@pytest.mark.slow
def test_local_structure_is_distributed_alike_per_label():
    """Statistics of the premise graph's local structure, per label, over 48 tasks: the
    largest number of incoming "every" edges at one predicate of a piece, the pieces with a
    term met once (a decoy's free end), premise counts -- no label separates from the others
    (Kruskal-Wallis, p > 0.01; deterministic: same seed, same tasks)."""
    from scipy.stats import kruskal

    tasks = list(TRACK.generate(48, 9, "easy"))
    stats: dict[str, dict[str, list[float]]] = {}
    for task in tasks:
        premises = [parse(p) for p in task.formal["premises"]]
        statement = parse(task.formal["goal"])
        pieces = _components(premises, statement)
        in_all = []
        for piece in pieces:
            heads = Counter(p.args[1] for p in piece if p.kind == "all")
            in_all.append(max(heads.values(), default=0))
        mentions = Counter(a for p in premises for a in p.args)
        row = {"max_in_all": max(in_all), "pieces_in2": sum(v >= 2 for v in in_all),
               "once": sum(v == 1 for v in mentions.values()),
               "premises": len(premises)}
        for key, value in row.items():
            stats.setdefault(key, {}).setdefault(task.answer, []).append(float(value))
    for key, per_label in stats.items():
        samples = [per_label[label] for label in ("True", "False", "Unknown")]
        if len({v for s in samples for v in s}) > 1:
            assert kruskal(*samples).pvalue > 0.01, (key, per_label)


def test_verify_flags_a_redundant_proof_premise(easy_tasks):
    """Stating the statement itself in a True task makes every proof premise unnecessary."""
    task = task_from_dict(json.loads(next(t for t in easy_tasks
                                          if t.answer == "True").to_json()))
    task.formal["premises"].append(task.formal["goal"])
    task.formal["premise_sources"].append("distractor_1")
    check = TRACK.verify(task)
    assert not check.ok and check.found == "True"
    assert "premises not needed for the label" in check.message
    assert "premises in no tree" in check.message


def test_verify_flags_an_import_flip(easy_tasks):
    """An Unknown task plus "every e is a q" and "no e is a q" (e, q fresh): consistent and
    still Unknown when no e exists, inconsistent under existential import -- flagged."""
    task = task_from_dict(json.loads(next(t for t in easy_tasks
                                          if t.answer == "Unknown").to_json()))
    statement = parse(task.formal["goal"])
    premises = [parse(p) for p in task.formal["premises"]]
    extra = [F("all", "extra_e", "extra_q"), F("no", "extra_e", "extra_q")]
    assert checks.asp_label(premises + extra, statement).label == "Unknown"
    assert checks.asp_label(premises + extra, statement, existential_import=True).label is None
    task.formal["premises"] += [f.to_prover9() for f in extra]
    check = TRACK.verify(task)
    assert not check.ok and check.found == "Unknown"
    assert "the label changes under existential import" in check.message


# ---------------------------------------------------------------- paper construction kept

PAPER_DIGESTS = {   # the generator before the balanced construction existed (seed 5)
    ("easy", 6): "da28953f822d3638768405a70c2c4a31763ea2a3c06c3647d1e52f04b4601651",
    ("hard", 3): "72efd7401799e5a2ba28199d422b65ede40447c2a24a042e4e0ff8fa96e7ef66",
}


@pytest.mark.parametrize("level, n", sorted(PAPER_DIGESTS))
def test_paper_construction_unchanged(level, n):
    """``--construction paper`` reproduces the earlier generator's tasks (everything but
    the new ``params.construction`` key), with its own presets."""
    digest = hashlib.sha256()
    tasks = list(TRACK.generate(n, 5, level, {"construction": "paper"}))
    for t in tasks:
        digest.update(json.dumps([t.task_id, t.question, t.answer, t.formal, t.blocks,
                                  t.domain_metadata, t.provenance], sort_keys=True).encode())
    assert digest.hexdigest() == PAPER_DIGESTS[(level, n)]
    assert tasks[0].difficulty == level
    assert tasks[0].params["construction"] == "paper"


def test_presets_per_construction():
    assert TRACK.resolve_params("hard") == ("hard", {"depth": 6, "width": 1,
                                                     "construction": "balanced"})
    assert TRACK.resolve_params("hard", {"construction": "paper"}) == \
        ("hard", {"depth": 5, "width": 2, "construction": "paper"})
    assert TRACK.resolve_params("easy", {"construction": "paper", "depth": 3})[0] == "custom"
    assert TRACK.resolve_params("easy", {"construction": "paper", "depth": 4})[0] == "easy"
    assert TRACK.difficulty_of({"depth": 5, "width": 2}) == "hard"     # files without the key


@pytest.mark.parametrize("premises, goal, expected", [
    ([F("all", "a", "b")], F("some", "a", "b"), "True"),
    ([F("all", "a", "b")], F("no", "a", "b"), "False"),
    ([F("all", "a", "b")], F("some_not", "a", "b"), "False"),
    ([F("all", "a", "b"), F("exists", "a")], F("some", "a", "b"), "True"),
    ([F("all", "a", "b"), F("all", "b", "c")], F("all", "a", "c"), "True"),
    ([F("some", "a", "b")], F("all", "a", "c"), "Unknown"),
    ([F("all", "a", "b"), F("no", "a", "b")], F("fact", "c", "k"), None),
])
def test_prover9_agrees_with_asp_under_existential_import(premises, goal, expected):
    """The import reading is double-checked: Prover9 (premises plus their subjects'
    existence; the statement or its negation asserted with its own) gives the ASP label."""
    assert checks.asp_label(premises, goal, existential_import=True).label == expected
    assert checks.prover9_import_label(premises, goal) == expected


def test_verify_flags_a_decoy_of_the_wrong_shape(easy_tasks):
    """A True task whose proof's decoy is swapped with a distractor's (intact, attached to
    another tree) fails the shape check, naming the decoys; a decoy list one short too."""
    task = task_from_dict(json.loads(next(t for t in easy_tasks
                                          if t.answer == "True").to_json()))
    decoys = task.formal["decoys"]
    task.formal["decoys"] = [decoys[1], decoys[0], *decoys[2:]]
    check = TRACK.verify(task)
    assert not check.ok and "decoy 1:" in check.message and "decoy 2:" in check.message
    task.formal["decoys"] = decoys[:-1]
    check = TRACK.verify(task)
    assert not check.ok and "one decoy per tree" in check.message
