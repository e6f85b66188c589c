"""Deduction problems: proof trees grown from syllogisms, distractor trees, labels.

One problem is built from a private random generator:

1. pick a context that can supply enough fresh names, and a conclusion of a random form;
2. the proof: a syllogism concluding it, then ``depth`` expansions, each replacing a random
   leaf by the premises of a syllogism that concludes that leaf, with fresh predicates (and
   fresh individuals) only -- so no entailment appears between names already related;
3. ``width`` distractor trees grown the same way for the same conclusion, each with one leaf
   deleted (so each is Unknown on its own);
4. the target label (balanced over a file): True asks the conclusion, False its negation,
   Unknown deletes one leaf of the proof and asks either;
5. the stated leaves of all trees, shuffled together, are the premises.

The label is then established by ASP and Prover9 (:func:`checks.double_check`); a problem
whose established label differs from the target, whose premises are unsatisfiable, whose
distractor is not Unknown on its own, or on which Prover9 hits a limit is rebuilt from the
same generator (counted in :attr:`Problem.retries`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from scir.errors import ConfigError, GenerationError, SolverResourceLimit, SolverTimeout
from scir.tracks.deduction import checks
from scir.tracks.deduction.logic import Formula, Node, goal_kinds, instantiate, kinds, rules_for
from scir.tracks.deduction.validate import LABELS
from scir.tracks.deduction.vocabulary import Context, FreshNames, contexts

MAX_ATTEMPTS = 50
RETRY_REASONS = ("label_mismatch", "unsatisfiable", "distractor_not_unknown", "prover9_limit")


def requirements(depth: int, width: int) -> tuple[int, int]:
    """(predicates, individuals) a problem may need at most.

    A conclusion has two predicates (or a predicate and an individual); every syllogism
    brings at most one fresh predicate and one fresh individual; each of the ``1 + width``
    trees applies ``1 + depth`` syllogisms.
    """
    steps = (1 + width) * (1 + depth)
    return 2 + steps, 2 + steps


def eligible_contexts(depth: int, width: int) -> list[Context]:
    """The contexts large enough for ``depth`` and ``width`` (ConfigError if none is)."""
    preds, inds = requirements(depth, width)
    found = [c for c in contexts() if c.capacity >= preds and len(c.individuals) >= inds]
    if not found:
        best = max(c.capacity for c in contexts())
        raise ConfigError(
            f"depth {depth} and width {width} may need {preds} predicates and "
            f"{inds} individuals; the largest context offers {best} predicates",
            field="depth",
        )
    return found


def target_label(seed: int, index: int) -> str:
    """The label task ``index`` aims at: each run of three consecutive indices holds True,
    False and Unknown once, in an order shuffled by ``seed``."""
    order = list(LABELS)
    random.Random(f"deduction-labels:{seed}:{index // 3}").shuffle(order)
    return order[index % 3]


@dataclass
class Problem:
    """A generated problem with its established label."""

    context: Context
    conclusion: Formula
    proof: Node
    distractors: list[Node]
    premises: list[Formula]
    sources: list[str]
    statement: Formula
    label: str
    predicates: list[str]
    constants: list[str]
    retries: dict[str, int] = field(default_factory=dict)
    decoys: list[Node] = field(default_factory=list)  # balanced: one per tree, proof's first


def _expand(node: Node, rng: random.Random, fresh: FreshNames) -> None:
    rule = rng.choice(rules_for(node.formula.kind))
    existence = rng.choice(("exists", "fact"))
    premises = instantiate(rule, node.formula, fresh.predicate, fresh.individual, existence)
    node.rule = rule.name
    node.children = [Node(p) for p in premises]


def grow(conclusion: Formula, depth: int, rng: random.Random, fresh: FreshNames) -> Node:
    """A proof tree of ``conclusion``: one syllogism, then ``depth`` expansions of leaves."""
    root = Node(conclusion)
    _expand(root, rng, fresh)
    for _ in range(depth):
        leaves = [leaf for leaf in root.leaves() if leaf.formula.kind != "exists"]
        _expand(rng.choice(leaves), rng, fresh)
    return root


def _delete_leaf(tree: Node, counts: Counter, rng: random.Random) -> None:
    """Mark one leaf missing: one whose formula is no other leaf of any tree."""
    leaves = [leaf for leaf in tree.leaves() if counts[leaf.formula] == 1]
    if not leaves:
        raise GenerationError("every leaf of a tree is stated by another tree")
    rng.choice(leaves).missing = True


def start(depth: int, width: int, rng: random.Random) -> tuple[Context, FreshNames, Formula]:
    """A context large enough for ``depth`` and ``width``, its fresh-name stream, and a
    conclusion of a random goal form over fresh names (both constructions begin so; the
    balanced construction's decoys draw more names, and a draw that runs out is retried)."""
    context = rng.choice(eligible_contexts(depth, width))
    fresh = FreshNames(context, rng)
    kind = rng.choice(goal_kinds())
    draw = {"p": fresh.predicate, "c": fresh.individual}  # by the form's argument sorts
    conclusion = Formula(kind, tuple(draw[sort]() for sort in kinds()[kind]))
    return context, fresh, conclusion


def build(depth: int, width: int, target: str, rng: random.Random) -> Problem:
    """One candidate problem aiming at ``target`` (no solver involved)."""
    context, fresh, conclusion = start(depth, width, rng)
    proof = grow(conclusion, depth, rng, fresh)
    distractors = [grow(conclusion, depth, rng, fresh) for _ in range(width)]
    trees = [proof, *distractors]
    counts = Counter(leaf.formula for tree in trees for leaf in tree.leaves())
    for i, tree in enumerate(trees):
        if i > 0 or target == "Unknown":
            _delete_leaf(tree, counts, rng)
    if target == "True":
        statement = conclusion
    elif target == "False":
        statement = conclusion.negated()
    else:
        statement = rng.choice((conclusion, conclusion.negated()))
    stated: dict[Formula, str] = {}
    for i, tree in enumerate(trees):
        source = "proof" if i == 0 else f"distractor_{i}"
        for leaf in tree.leaves():
            if not leaf.missing:
                stated.setdefault(leaf.formula, source)
    premises = list(stated)
    rng.shuffle(premises)
    return Problem(
        context,
        conclusion,
        proof,
        distractors,
        premises,
        [stated[p] for p in premises],
        statement,
        target,
        sorted(set(fresh.predicates)),
        sorted(set(fresh.individuals)),
    )


def generate(
    depth: int,
    width: int,
    rng: random.Random,
    target: str,
    task_id: str | None = None,
    max_seconds: int = 10,
) -> Problem:
    """A problem whose label, established by ASP and Prover9, is ``target``.

    Raises GenerationError after MAX_ATTEMPTS candidates, VerificationError when the two
    solvers disagree.
    """
    retries = {reason: 0 for reason in RETRY_REASONS}
    for _ in range(MAX_ATTEMPTS):
        problem = build(depth, width, target, rng)
        if not all(_unknown_alone(tree) for tree in problem.distractors):
            retries["distractor_not_unknown"] += 1
            continue
        asp = checks.asp_label(problem.premises, problem.statement)
        if asp.label is None:
            retries["unsatisfiable"] += 1
            continue
        if asp.label != target:
            retries["label_mismatch"] += 1
            continue
        try:
            verdict = checks.double_check(
                problem.premises, problem.statement, max_seconds, task_id=task_id, asp=asp
            )
        except (SolverTimeout, SolverResourceLimit):
            retries["prover9_limit"] += 1
            continue
        assert verdict.label is not None  # ASP's label, the target (checked above)
        problem.label = verdict.label
        problem.retries = retries
        return problem
    raise GenerationError(
        f"no problem with label {target} after {MAX_ATTEMPTS} attempts ({retries})", task_id=task_id
    )


def _unknown_alone(tree: Node) -> bool:
    stated = [leaf.formula for leaf in tree.leaves() if not leaf.missing]
    return checks.asp_label(stated, tree.formula).label == "Unknown"
