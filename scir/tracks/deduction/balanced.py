"""Deduction problems, balanced construction: every answer-blind statistic, of the counts and
of the local structure of the premise graph, is independent of the label by construction (the
paper construction, in :mod:`generator`, is kept as it was).

One candidate is built from a private random generator, without looking at the label:

1. a context, a conclusion ``G`` of a random form, and ``1 + width`` trees (``width`` odd),
   half concluding ``G`` and half its negation (in a shuffled order), each grown like the
   paper's proof tree (one syllogism, then ``depth`` expansions with fresh names only);
2. every tree gets a *decoy*, a copy of its route's far part: the subtree concluding a
   formula about an inner term of the route (the *anchor*) and one of the tree's conclusion
   terms (the *hub*), the longest such (:func:`spots`), with every term but the anchor
   renamed to a fresh one (:func:`copy_decoy`). The anchor then forks into two branches
   that are the same premise for premise: the route's, which ends at the hub, and the
   decoy's, which ends at a fresh term;
3. the proof is one of the trees, drawn uniformly (so its polarity is random);
4. every tree gets a *route break*, a leaf of the copied subtree at the anchor replaced by its
   converse (an ``all``/``some_not`` leaf: same form, same terms, so premise counts, forms,
   negations, the term-frequency profile and the undirected term graph are unchanged) that
   leaves the tree alone Unknown, and the decoy the *decoy break*, the same leaf of the
   copy (:func:`_fork_breaks`);
5. the premise order is shuffled once, over the leaves of trees and decoys.

The three label variants of a candidate differ only where the label needs them to: True and
False apply every distractor's route break and the proof's *decoy* break, and ask the proof's
conclusion or its negation (they differ only in the statement); Unknown applies every tree's
route break, the proof's included, and asks ``G`` or its negation (a coin drawn for every
candidate). So every variant states exactly one converse in every piece, at its fork, in one
of two branches that are the same premise for premise: whatever the label, every term has
the same forms and directions of premises around it (the degree profile of the premise
graph is the same multiset in the three variants), and the neighbourhoods of the converse
look alike up to the branch ends. What tells the variants apart is only which branch
reaches the statement's term: following the chain, the task's reasoning.
A candidate is kept only if **all three** variants pass every check, so the rejections are
label-blind too:

* the intact premises are satisfiable and prove the proof's conclusion (ASP);
* every proof premise is necessary (removing it makes the statement Unknown) and the other
  premises (distractors and decoys) together decide nothing;
* the broken premises leave the statement Unknown;
* each label is the same under existential import (``asp/deduction.lp`` ``reading(import)``).

Only then is the target variant double-checked with Prover9 (a limit rebuilds it, counted).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scir.errors import (
    ConfigError,
    GenerationError,
    SolverResourceLimit,
    SolverTimeout,
    VerificationError,
)
from scir.tracks.deduction import checks
from scir.tracks.deduction.generator import Problem, grow, start
from scir.tracks.deduction.logic import (
    CONVERSE_KINDS,
    Formula,
    Node,
    converse,
)
from scir.tracks.deduction.vocabulary import Context, FreshNames

RETRY_REASONS = (
    "vocabulary",
    "duplicate_premise",
    "unbreakable_tree",
    "unsatisfiable",
    "not_proved",
    "redundant_premise",
    "distractors_decide",
    "unknown_decided",
    "import_flip",
    "prover9_limit",
)
BREAKABLE = CONVERSE_KINDS  # a leaf is broken by stating its (non-equivalent) converse


def check_width(width: int) -> None:
    """ConfigError unless ``1 + width`` trees split evenly between the two polarities."""
    if width < 1 or width % 2 == 0:
        raise ConfigError(
            f"the balanced construction needs an odd width (the proof and the "
            f"distractor trees split evenly between the conclusion and its "
            f"negation), got {width}",
            field="width",
        )


Break = tuple[Node, Formula]  # a leaf and the converse stated instead


@dataclass
class Candidate:
    """A label-blind candidate: trees, the subtree of each that its decoy copies, the
    decoys, the proof's index, each tree's route break and decoy break, premise order."""

    context: Context
    fresh: FreshNames
    conclusion: Formula
    trees: list[Node]
    subs: list[Node]  # per tree, the subtree its decoy copies
    decoys: list[Node]
    proof_index: int
    route_breaks: list[Break]
    decoy_breaks: list[Break]
    order: list[tuple[int, int, int]]  # (part: 0 tree / 1 decoy, tree, leaf)
    coin: bool  # Unknown asks the conclusion (True) or its negation

    def applied(self, break_proof: bool) -> list[Break]:
        """The breaks of a variant, one per tree: Unknown (``break_proof``) every tree's
        route break; True/False every distractor's route break and the proof's decoy
        break."""
        if break_proof:
            return list(self.route_breaks)
        return [
            self.decoy_breaks[i] if i == self.proof_index else b
            for i, b in enumerate(self.route_breaks)
        ]

    def premises(self, break_proof: bool) -> list[Formula]:
        """The stated premises of the Unknown (``break_proof``) or the True/False variant."""
        parts = [
            [list(tree.leaves()) for tree in self.trees],
            [list(decoy.leaves()) for decoy in self.decoys],
        ]
        replaced = {id(leaf): new for leaf, new in self.applied(break_proof)}
        return [replaced.get(id(parts[p][t][k]), parts[p][t][k].formula) for p, t, k in self.order]

    @property
    def proof(self) -> Node:
        return self.trees[self.proof_index]


def spots(tree: Node) -> list[Node]:
    """The subtrees of ``tree`` that a decoy may copy: derived (not leaves), concluding a
    formula about one of the tree's conclusion terms (the *hub*) and one inner term (the
    *anchor*) -- the route's remainder from the anchor to the hub -- and of the most leaves
    among such subtrees (the anchor as far from the hub as the tree allows)."""
    hubs = set(tree.formula.args)
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        for child in node.children:
            stack.append(child)
            args = child.formula.args
            if (
                child.rule is not None
                and len(args) == 2
                and len(set(args) & hubs) == 1
                and len(set(args) - hubs) == 1
            ):
                found.append(child)
    most = max((len(list(s.leaves())) for s in found), default=0)
    return [s for s in found if len(list(s.leaves())) == most]


def anchor_of(tree: Node, sub: Node) -> str:
    """The inner term of a :func:`spots` subtree's conclusion."""
    return next(a for a in sub.formula.args if a not in tree.formula.args)


def copy_decoy(tree: Node, sub: Node, fresh: FreshNames) -> Node:
    """The decoy of ``tree``: ``sub`` (one of :func:`spots`) with every term but the anchor
    renamed to a fresh one of its sort (predicate or individual), in the order the terms
    first occur: a second branch at the anchor, premise for premise like the route's
    remainder, ending at a fresh term instead of the hub (GenerationError when names run
    out)."""
    anchor = anchor_of(tree, sub)
    constants = {c for f in sub.formulas() for c in f.constants}
    renaming = {anchor: anchor}
    for f in sub.formulas():
        for a in f.args:
            if a not in renaming:
                renaming[a] = fresh.individual() if a in constants else fresh.predicate()

    def copy(node: Node) -> Node:
        formula = Formula(node.formula.kind, tuple(renaming[a] for a in node.formula.args))
        return Node(formula, node.rule, [copy(c) for c in node.children])

    return copy(sub)


def _shape(depth: int, width: int, rng: random.Random) -> Candidate:
    """Trees, their copied subtrees and decoys, proof index and coin (GenerationError when
    names run out or a tree has no subtree to copy)."""
    context, fresh, conclusion = start(depth, width, rng)
    half = (1 + width) // 2
    roots = [conclusion] * half + [conclusion.negated()] * half
    rng.shuffle(roots)
    trees = [grow(root, depth, rng, fresh) for root in roots]
    subs = []
    for tree in trees:
        found = spots(tree)
        if not found:
            raise GenerationError("a tree has no subtree from an inner term to a hub")
        subs.append(rng.choice(found))
    decoys = [copy_decoy(tree, sub, fresh) for tree, sub in zip(trees, subs)]
    proof_index = rng.randrange(len(trees))
    coin = rng.random() < 0.5
    return Candidate(context, fresh, conclusion, trees, subs, decoys, proof_index, [], [], [], coin)


def _shuffle_order(candidate: Candidate, rng: random.Random) -> None:
    """The premise order: every leaf of the trees and the decoys, shuffled once."""
    order = [
        (p, t, k)
        for p, part in enumerate((candidate.trees, candidate.decoys))
        for t, tree in enumerate(part)
        for k in range(len(list(tree.leaves())))
    ]
    rng.shuffle(order)
    candidate.order = order


def _unknown_alone(tree: Node, replaced: dict[int, Formula]) -> bool:
    stated = [replaced.get(id(leaf), leaf.formula) for leaf in tree.leaves()]
    return checks.asp_label(stated, tree.formula).label == "Unknown"


def _fork_breaks(
    tree: Node, sub: Node, decoy: Node, taken: set[Formula], rng: random.Random
) -> tuple[Break, Break] | None:
    """A route break and its decoy break: a leaf of ``sub`` at the anchor (not at a hub; a
    form with a non-equivalent converse, stated nowhere else in the task) whose converse
    leaves the tree alone Unknown, and the same leaf of the copy, whose converse leaves the
    decoy alone Unknown; drawn uniformly among such leaves. None when there is none."""
    hubs, anchor = set(tree.formula.args), anchor_of(tree, sub)
    pairs = [
        (a, b)
        for a, b in zip(sub.leaves(), decoy.leaves())
        if a.formula.kind in BREAKABLE
        and anchor in a.formula.args
        and not set(a.formula.args) & hubs
        and converse(a.formula) not in taken
        and converse(b.formula) not in taken
    ]
    pairs = [
        (a, b)
        for a, b in pairs
        if _unknown_alone(tree, {id(a): converse(a.formula)})
        and _unknown_alone(decoy, {id(b): converse(b.formula)})
    ]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    return (a, converse(a.formula)), (b, converse(b.formula))


MAX_ATTEMPTS = 200  # candidates per task: most retries are cheap (names run out, no
#                         solver called)


def _break_all(candidate: Candidate, rng: random.Random) -> bool:
    """Every tree's route break and decoy break (:func:`_fork_breaks`); False when some
    tree has none."""
    taken = {candidate.conclusion, candidate.conclusion.negated()}
    taken |= {
        leaf.formula
        for part in (candidate.trees, candidate.decoys)
        for t in part
        for leaf in t.leaves()
    }
    for tree, sub, decoy in zip(candidate.trees, candidate.subs, candidate.decoys):
        found = _fork_breaks(tree, sub, decoy, taken, rng)
        if found is None:
            return False
        taken |= {found[0][1], found[1][1]}
        candidate.route_breaks.append(found[0])
        candidate.decoy_breaks.append(found[1])
    return True


def _reject(candidate: Candidate) -> str | None:
    """The first check a label variant of ``candidate`` fails (a RETRY_REASONS entry)."""
    proof = candidate.proof
    goal = proof.formula
    intact = candidate.premises(break_proof=False)
    broken = candidate.premises(break_proof=True)
    verdict = checks.asp_label(intact, goal)
    if verdict.label is None:
        return "unsatisfiable"
    if verdict.label != "True":
        return "not_proved"
    used = [leaf.formula for leaf in proof.leaves()]
    if checks.redundant_premises(intact, goal, used):
        return "redundant_premise"
    others = [p for p in intact if p not in set(used)]
    if checks.asp_label(others, goal).label != "Unknown":
        return "distractors_decide"
    if checks.asp_label(broken, goal).label != "Unknown":
        return "unknown_decided"
    # True asks goal, False its negation: the same premises, both read with import; Unknown
    # asks goal or its negation (the same models either way)
    if not (
        checks.import_agrees(intact, goal, "True")
        and checks.import_agrees(intact, goal.negated(), "False")
        and checks.import_agrees(broken, goal, "Unknown")
    ):
        return "import_flip"
    return None


def generate(
    depth: int,
    width: int,
    rng: random.Random,
    target: str,
    task_id: str | None = None,
    max_seconds: int = 10,
) -> Problem:
    """A balanced problem whose label, established by ASP and Prover9, is ``target``.

    Raises GenerationError after MAX_ATTEMPTS candidates, VerificationError when the two
    solvers disagree.
    """
    check_width(width)
    retries = {reason: 0 for reason in RETRY_REASONS}
    for _ in range(MAX_ATTEMPTS):
        try:
            candidate = _shape(depth, width, rng)
        except GenerationError:
            retries["vocabulary"] += 1
            continue
        if not _break_all(candidate, rng):
            retries["unbreakable_tree"] += 1
            continue
        leaves = [
            leaf.formula
            for part in (candidate.trees, candidate.decoys)
            for tree in part
            for leaf in tree.leaves()
        ]
        if len(set(leaves)) != len(leaves):
            retries["duplicate_premise"] += 1
            continue
        _shuffle_order(candidate, rng)
        reason = _reject(candidate)
        if reason is not None:
            retries[reason] += 1
            continue
        problem = _variant(candidate, target)
        try:
            verdict = checks.double_check(
                problem.premises, problem.statement, max_seconds, task_id=task_id
            )
            # the import reading, double-checked too (ASP already agreed, label-blind)
            with_import = checks.prover9_import_label(
                problem.premises, problem.statement, max_seconds
            )
        except (SolverTimeout, SolverResourceLimit):
            retries["prover9_limit"] += 1
            continue
        if verdict.label != target:
            raise GenerationError(
                f"ASP and Prover9 establish {verdict.label}, the balanced "
                f"construction built {target}",
                task_id=task_id,
            )
        if with_import != target:
            raise VerificationError(
                f"under existential import ASP agrees with {target}, Prover9 says {with_import}",
                task_id=task_id,
            )
        problem.retries = retries
        return problem
    if retries["vocabulary"] >= MAX_ATTEMPTS * 9 // 10:
        raise ConfigError(
            f"depth {depth} and width {width} need more names than a context "
            f"offers once every tree has its decoy ({MAX_ATTEMPTS} draws ran out "
            f"of names); lower depth or width",
            field="depth",
        )
    raise GenerationError(
        f"no balanced problem with label {target} after {MAX_ATTEMPTS} attempts ({retries})",
        task_id=task_id,
    )


def _variant(candidate: Candidate, target: str) -> Problem:
    """The ``target`` variant of a checked candidate, as a Problem (trees marked)."""
    for leaf, new in candidate.applied(break_proof=target == "Unknown"):
        leaf.missing, leaf.replaced_by = True, new
    goal = candidate.proof.formula
    if target == "True":
        statement = goal
    elif target == "False":
        statement = goal.negated()
    else:
        statement = candidate.conclusion if candidate.coin else candidate.conclusion.negated()
    premises = candidate.premises(break_proof=target == "Unknown")
    names = ["proof" if t == candidate.proof_index else "" for t in range(len(candidate.trees))]
    k = 0
    for t in range(len(names)):
        if not names[t]:
            k += 1
            names[t] = f"distractor_{k}"
    sources = [names[t] + ("_decoy" if p else "") for p, t, _ in candidate.order]
    distractors = [tree for t, tree in enumerate(candidate.trees) if t != candidate.proof_index]
    decoys = [candidate.decoys[candidate.proof_index]] + [
        d for t, d in enumerate(candidate.decoys) if t != candidate.proof_index
    ]
    fresh = candidate.fresh
    return Problem(
        candidate.context,
        goal,
        candidate.proof,
        distractors,
        premises,
        sources,
        statement,
        target,
        sorted(set(fresh.predicates)),
        sorted(set(fresh.individuals)),
        decoys=decoys,
    )
