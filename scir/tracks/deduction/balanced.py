"""Deduction problems, balanced construction: every answer-blind statistic is independent of
the label by construction (the paper construction, in :mod:`generator`, is kept as it was).

One candidate is built from a private random generator, without looking at the label:

1. a context, a conclusion ``G`` of a random form, and ``1 + width`` trees (``width`` odd),
   half concluding ``G`` and half its negation (in a shuffled order), each grown like the
   paper's proof tree (one syllogism, then ``depth`` expansions with fresh names only);
2. the proof is one of the trees, drawn uniformly (so its polarity is random);
3. every tree, the proof included, gets two *breaks* on leaves with no tree-local term in
   common: an ``all``/``some_not`` leaf replaced by its converse (same form, same terms, so
   premise counts, forms, negations and the whole term-frequency profile are unchanged; the
   undirected term graph too), each alone and both together leaving the tree Unknown; which
   of the two is the *primary* one is a coin;
4. one distractor concluding what the proof concludes is the *spare* tree; the premise order
   is shuffled once, over tree leaves.

The three label variants of a candidate differ only where the label needs them to: True and
False keep the proof intact, break every distractor by its primary break and the spare tree
also by its secondary one, and ask the proof's conclusion or its negation (they differ only in
the statement); Unknown breaks every tree, the proof included, by its primary break only, and
asks ``G`` or its negation (a coin drawn for every candidate). So every variant states as
many converses as there are trees, half on each side (the trees concluding ``G`` and those
concluding its negation), and the subject/object counts of every term, which a converse
moves, are distributed the same. A candidate is kept only if
**all three** variants pass every check, so the rejections are label-blind too:

* the intact premises are satisfiable and prove the proof's conclusion (ASP);
* every proof premise is necessary (removing it makes the statement Unknown) and the other
  trees together decide nothing;
* the broken premises leave the statement Unknown;
* each label is the same under existential import (``asp/deduction.lp`` ``reading(import)``).

Only then is the target variant double-checked with Prover9 (a limit rebuilds it, counted).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scir.errors import (ConfigError, GenerationError, SolverResourceLimit, SolverTimeout,
                         VerificationError)
from scir.tracks.deduction import checks
from scir.tracks.deduction.generator import MAX_ATTEMPTS, Problem, grow, start
from scir.tracks.deduction.logic import CONVERSE_KINDS, Formula, Node, converse
from scir.tracks.deduction.vocabulary import Context, FreshNames

RETRY_REASONS = ("vocabulary", "duplicate_premise", "unbreakable_tree", "unsatisfiable",
                 "not_proved", "redundant_premise", "distractors_decide", "unknown_decided",
                 "import_flip", "prover9_limit")
BREAKABLE = CONVERSE_KINDS          # a leaf is broken by stating its (non-equivalent) converse


def check_width(width: int) -> None:
    """ConfigError unless ``1 + width`` trees split evenly between the two polarities."""
    if width < 1 or width % 2 == 0:
        raise ConfigError(f"the balanced construction needs an odd width (the proof and the "
                          f"distractor trees split evenly between the conclusion and its "
                          f"negation), got {width}", field="width")


@dataclass
class Candidate:
    """A label-blind candidate: trees, the proof's and the spare tree's index, each tree's
    (primary, secondary) break, premise order."""

    context: Context
    fresh: FreshNames
    conclusion: Formula
    trees: list[Node]
    proof_index: int
    spare_index: int
    breaks: list[tuple[tuple[Node, Formula], tuple[Node, Formula]]]
    order: list[tuple[int, int]]           # (tree, leaf) per premise position
    coin: bool                             # Unknown asks the conclusion (True) or its negation

    def applied(self, break_proof: bool) -> list[tuple[Node, Formula]]:
        """The breaks of a variant: Unknown (``break_proof``) every tree's primary one;
        True/False every distractor's primary one plus the spare tree's secondary one."""
        if break_proof:
            return [primary for primary, _ in self.breaks]
        out = [primary for i, (primary, _) in enumerate(self.breaks) if i != self.proof_index]
        return out + [self.breaks[self.spare_index][1]]

    def premises(self, break_proof: bool) -> list[Formula]:
        """The stated premises of the Unknown (``break_proof``) or the True/False variant."""
        leaves = [list(tree.leaves()) for tree in self.trees]
        replaced = {id(leaf): new for leaf, new in self.applied(break_proof)}
        return [replaced.get(id(leaves[t][k]), leaves[t][k].formula) for t, k in self.order]

    @property
    def proof(self) -> Node:
        return self.trees[self.proof_index]


def _shape(depth: int, width: int, rng: random.Random) -> Candidate:
    """Trees, proof index, premise order and coin (GenerationError when names run out)."""
    context, fresh, conclusion = start(depth, width, rng)
    half = (1 + width) // 2
    roots = [conclusion] * half + [conclusion.negated()] * half
    rng.shuffle(roots)
    trees = [grow(root, depth, rng, fresh) for root in roots]
    proof_index = rng.randrange(len(trees))
    # the spare tree is on the proof's side: then each side states (1 + width) / 2 converses
    # in every variant, and the converses' spread over the statement's side and the other
    # side says nothing about the label
    spare_index = rng.choice([i for i, root in enumerate(roots)
                              if i != proof_index and root == roots[proof_index]])
    order = [(t, k) for t, tree in enumerate(trees) for k in range(len(list(tree.leaves())))]
    rng.shuffle(order)
    coin = rng.random() < 0.5
    return Candidate(context, fresh, conclusion, trees, proof_index, spare_index, [], order,
                     coin)


def _unknown_alone(tree: Node, replaced: dict[int, Formula]) -> bool:
    stated = [replaced.get(id(leaf), leaf.formula) for leaf in tree.leaves()]
    return checks.asp_label(stated, tree.formula).label == "Unknown"


def _breaks(tree: Node, taken: set[Formula], rng: random.Random
            ) -> tuple[tuple[Node, Formula], tuple[Node, Formula]] | None:
    """Two leaves of ``tree`` whose converses (no formula of the task already) each, and both
    together, leave the tree alone Unknown, sharing no term but the conclusion's, in a random
    (primary, secondary) order; None when there are no such two."""
    shared = set(tree.formula.args)
    choices = [leaf for leaf in tree.leaves() if leaf.formula.kind in BREAKABLE
               and converse(leaf.formula) not in taken]
    rng.shuffle(choices)
    single = [leaf for leaf in choices
              if _unknown_alone(tree, {id(leaf): converse(leaf.formula)})]
    for i, first in enumerate(single):
        for second in single[i + 1:]:
            if (set(first.formula.args) & set(second.formula.args)) - shared:
                continue
            both = {id(first): converse(first.formula), id(second): converse(second.formula)}
            if _unknown_alone(tree, both):
                pair = [(first, converse(first.formula)), (second, converse(second.formula))]
                rng.shuffle(pair)
                return pair[0], pair[1]
    return None


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
    if not (checks.import_agrees(intact, goal, "True")
            and checks.import_agrees(intact, goal.negated(), "False")
            and checks.import_agrees(broken, goal, "Unknown")):
        return "import_flip"
    return None


def generate(depth: int, width: int, rng: random.Random, target: str,
             task_id: str | None = None, max_seconds: int = 10) -> Problem:
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
        leaves = [leaf.formula for tree in candidate.trees for leaf in tree.leaves()]
        taken = {*leaves, candidate.conclusion, candidate.conclusion.negated()}
        if len(set(leaves)) != len(leaves):
            retries["duplicate_premise"] += 1
            continue
        for tree in candidate.trees:
            found = _breaks(tree, taken, rng)
            if found is None:
                break
            taken.update(new for _, new in found)
            candidate.breaks.append(found)
        if len(candidate.breaks) != len(candidate.trees):
            retries["unbreakable_tree"] += 1
            continue
        reason = _reject(candidate)
        if reason is not None:
            retries[reason] += 1
            continue
        problem = _variant(candidate, target)
        try:
            verdict = checks.double_check(problem.premises, problem.statement, max_seconds,
                                          task_id=task_id)
            # the import reading, double-checked too (ASP already agreed, label-blind)
            with_import = checks.prover9_import_label(problem.premises, problem.statement,
                                                      max_seconds)
        except (SolverTimeout, SolverResourceLimit):
            retries["prover9_limit"] += 1
            continue
        if verdict.label != target:
            raise GenerationError(f"ASP and Prover9 establish {verdict.label}, the balanced "
                                  f"construction built {target}", task_id=task_id)
        if with_import != target:
            raise VerificationError(f"under existential import ASP agrees with {target}, "
                                    f"Prover9 says {with_import}", task_id=task_id)
        problem.retries = retries
        return problem
    raise GenerationError(f"no balanced problem with label {target} after {MAX_ATTEMPTS} "
                          f"attempts ({retries})", task_id=task_id)


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
    sources = [names[t] for t, _ in candidate.order]
    distractors = [tree for t, tree in enumerate(candidate.trees) if t != candidate.proof_index]
    fresh = candidate.fresh
    return Problem(candidate.context, goal, candidate.proof, distractors, premises,
                   sources, statement, target, sorted(set(fresh.predicates)),
                   sorted(set(fresh.individuals)))
