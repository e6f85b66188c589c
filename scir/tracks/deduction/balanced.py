"""Deduction problems, balanced construction: every answer-blind statistic, of the counts and
of the local structure of the premise graph, is independent of the label by construction (the
paper construction, in :mod:`generator`, is kept as it was).

One candidate is built from a private random generator, without looking at the label:

1. a context, a conclusion ``G`` of a random form, and ``1 + width`` trees (``width`` odd),
   half concluding ``G`` and half its negation (in a shuffled order), each grown like the
   paper's proof tree (one syllogism, then ``depth`` expansions with fresh names only);
2. every tree gets a *decoy*: a tree grown the same way (:func:`decoy_depth` expansions)
   concluding a formula of the other polarity (``negative/1`` of ``asp/deduction.lp``) about
   one term of the tree's main piece (:func:`main_piece`) and a fresh term -- so the main
   piece and the decoy form one piece of the premise graph with exactly one negative
   premise, whatever the tree concludes;
3. the proof is one of the trees, drawn uniformly (so its polarity is random);
4. every tree gets a *route break* (in its main piece) and every decoy a *decoy break*: an
   ``all``/``some_not`` leaf replaced by its converse (same form, same terms: premise counts, forms, negations,
   the term-frequency profile and the undirected term graph unchanged) that leaves the tree
   (decoy) alone Unknown;
5. the premise order is shuffled once, over the leaves of trees and decoys.

The three label variants of a candidate differ only where the label needs them to: True and
False apply every distractor's route break and the proof's *decoy* break, and ask the proof's
conclusion or its negation (they differ only in the statement); Unknown applies every tree's
route break, the proof's included, and asks ``G`` or its negation (a coin drawn for every
candidate). So every variant states exactly one converse in every piece: the motif a
converse leaves sits in the proof's piece either way, in its decoy or in the proof itself.
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

from scir.errors import (ConfigError, GenerationError, SolverResourceLimit, SolverTimeout,
                         VerificationError)
from scir.tracks.deduction import checks
from scir.tracks.deduction.generator import Problem, grow, start
from scir.tracks.deduction.logic import (CONVERSE_KINDS, Formula, Node, converse, goal_kinds,
                                        kinds, negative_kinds)
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


def decoy_depth(depth: int) -> int:
    """Expansions of a decoy: one (two syllogisms), whatever the tree's depth, so a decoy has
    room for a break matching its tree's and the Hard sizes stay within the paper's."""
    return 1


Break = tuple[Node, Formula]                # a leaf and the converse stated instead


@dataclass
class Candidate:
    """A label-blind candidate: trees, each tree's decoy (attached to one of its inner
    terms, of the other polarity), the proof's index, each tree's route break and decoy
    break, premise order."""

    context: Context
    fresh: FreshNames
    conclusion: Formula
    trees: list[Node]
    decoys: list[Node]
    proof_index: int
    route_breaks: list[Break]
    decoy_breaks: list[Break]
    order: list[tuple[int, int, int]]      # (part: 0 tree / 1 decoy, tree, leaf)
    coin: bool                             # Unknown asks the conclusion (True) or its negation

    def applied(self, break_proof: bool) -> list[Break]:
        """The breaks of a variant, one per tree: Unknown (``break_proof``) every tree's
        route break; True/False every distractor's route break and the proof's decoy
        break."""
        if break_proof:
            return list(self.route_breaks)
        return [self.decoy_breaks[i] if i == self.proof_index else b
                for i, b in enumerate(self.route_breaks)]

    def premises(self, break_proof: bool) -> list[Formula]:
        """The stated premises of the Unknown (``break_proof``) or the True/False variant."""
        parts = [[list(tree.leaves()) for tree in self.trees],
                 [list(decoy.leaves()) for decoy in self.decoys]]
        replaced = {id(leaf): new for leaf, new in self.applied(break_proof)}
        return [replaced.get(id(parts[p][t][k]), parts[p][t][k].formula)
                for p, t, k in self.order]

    @property
    def proof(self) -> Node:
        return self.trees[self.proof_index]


def main_piece(tree: Node) -> set[str]:
    """The terms of the tree's main piece: the premise graph of its leaves without its
    conclusion's terms falls into pieces; the main one holds the root syllogism's new term
    (its middle predicate, else its fresh individual) and every negative premise. The others,
    if any, are existence premises about a conclusion term (``fact(S, d)``, d fresh) and
    their expansions, all affirmative."""
    outer = set(tree.formula.args)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    for leaf in tree.leaves():
        inner = [a for a in leaf.formula.args if a not in outer]
        for a in inner:
            find(a)
        for a in inner[1:]:
            parent[find(a)] = find(inner[0])
    new = [a for child in tree.children for a in child.formula.args if a not in outer]
    middle = next((a for a in new if any(a in c.formula.predicates for c in tree.children)),
                  new[0])
    root = find(middle)
    return {a for a in parent if find(a) == root}


def hub_distances(trees: list[Node], hubs: tuple[str, ...]) -> dict[str, int]:
    """Each term's distance, in the undirected premise graph of the leaves of ``trees``, from
    the nearest of ``hubs`` (the conclusion's terms, shared by every tree)."""
    neighbours: dict[str, set[str]] = {}
    for tree in trees:
        for leaf in tree.leaves():
            for a in leaf.formula.args:
                neighbours.setdefault(a, set()).update(leaf.formula.args)
    distance = {h: 0 for h in hubs}
    frontier = list(hubs)
    while frontier:
        following = []
        for n in frontier:
            for m in sorted(neighbours.get(n, ())):
                if m not in distance:
                    distance[m] = distance[n] + 1
                    following.append(m)
        frontier = following
    return distance


def leaf_distance(leaf: Node, distance: dict[str, int]) -> int:
    """A leaf's distance from the conclusion's terms: its nearest term's."""
    return min(distance.get(a, 1 << 20) for a in leaf.formula.args)


def _near_terms(tree: Node) -> set[str]:
    """The terms of the tree's main piece next to a conclusion term (hub distance 1)."""
    distance = hub_distances([tree], tree.formula.args)
    return {t for t in main_piece(tree) if distance.get(t) == 1}


def _decoy(tree: Node, depth: int, rng: random.Random, fresh: FreshNames) -> Node:
    """A decoy for ``tree``: a tree grown like any other, concluding a formula of the other
    polarity about one term of the tree's main piece (:func:`main_piece`, drawn uniformly)
    and a fresh one (a predicate, or an individual for a singular form), oriented at
    random."""
    near = _near_terms(tree)
    anchor = rng.choice(sorted(near or main_piece(tree)))
    constant = any(anchor in leaf.formula.constants for leaf in tree.leaves())
    negative = negative_kinds()
    polarity = tree.formula.kind not in negative          # the decoy's: the other one
    sorts = kinds()
    wanted = [k for k in goal_kinds() if (k in negative) == polarity
              and (not constant or sorts[k] == ("p", "c"))]
    kind = rng.choice(wanted)
    if sorts[kind] == ("p", "c"):
        args = (fresh.predicate(), anchor) if constant else (anchor, fresh.individual())
    else:
        other = fresh.predicate()
        args = (anchor, other) if rng.random() < 0.5 else (other, anchor)
    return grow(Formula(kind, args), depth, rng, fresh)


def _shape(depth: int, width: int, rng: random.Random) -> Candidate:
    """Trees, decoys, proof index, premise order and coin (GenerationError when names run
    out)."""
    context, fresh, conclusion = start(depth, width, rng)
    half = (1 + width) // 2
    roots = [conclusion] * half + [conclusion.negated()] * half
    rng.shuffle(roots)
    trees = [grow(root, depth, rng, fresh) for root in roots]
    decoys = [_decoy(tree, decoy_depth(depth), rng, fresh) for tree in trees]
    proof_index = rng.randrange(len(trees))
    coin = rng.random() < 0.5
    return Candidate(context, fresh, conclusion, trees, decoys, proof_index, [], [], [], coin)


def _shuffle_order(candidate: Candidate, rng: random.Random) -> None:
    """The premise order: every leaf of the trees and the decoys, shuffled once."""
    order = [(p, t, k) for p, part in enumerate((candidate.trees, candidate.decoys))
             for t, tree in enumerate(part) for k in range(len(list(tree.leaves())))]
    rng.shuffle(order)
    candidate.order = order


def _unknown_alone(tree: Node, replaced: dict[int, Formula]) -> bool:
    stated = [replaced.get(id(leaf), leaf.formula) for leaf in tree.leaves()]
    return checks.asp_label(stated, tree.formula).label == "Unknown"


def signature(stated: list[Formula], leaf: Formula) -> tuple:
    """What a converse of ``leaf`` leaves at its two terms, among ``stated`` (a tree and its
    decoy): per term its incoming and outgoing ``all`` premises and whether an existence
    premise or a fact is about it, sorted -- the motif a reader of
    local structure sees."""
    after = [converse(f) if f == leaf else f for f in stated]

    def profile(term: str) -> tuple[int, int, bool]:
        ins = sum(1 for f in after if f.kind == "all" and f.args[1] == term)
        outs = sum(1 for f in after if f.kind == "all" and f.args[0] == term)
        marked = any(f.kind in ("exists", "fact") and f.args[0] == term for f in after)
        return ins, outs, marked
    return tuple(sorted(profile(t) for t in leaf.args))


def _motif(sig: tuple) -> bool:
    """Whether a :func:`signature` shows the converse motif: a term with two incoming ``all``
    premises, or two outgoing ones and no existence premise or fact about it."""
    return any(ins >= 2 or (outs >= 2 and not marked) for ins, outs, marked in sig)


def _breakable(tree: Node, leaves: list[Node], taken: set[Formula]) -> list[Node]:
    """Those of ``leaves`` (of ``tree``) whose converse is no formula of the task already and
    leaves the tree alone Unknown (one ASP call each, so the cheap filters come first)."""
    return [leaf for leaf in leaves if leaf.formula.kind in BREAKABLE
            and converse(leaf.formula) not in taken
            and _unknown_alone(tree, {id(leaf): converse(leaf.formula)})]


def _breaks(tree: Node, decoy: Node, taken: set[Formula], rng: random.Random
            ) -> tuple[Break, Break] | None:
    """A route break (a leaf of the tree's main piece, not touching the conclusion's terms)
    and a decoy break at the same distance from the conclusion's terms, both leaving the
    converse motif (:func:`_motif`) and the same :func:`signature` where such a pair exists,
    drawn at random among such pairs: a True/False task's proof is broken (in its decoy)
    where an Unknown task's proof would be (in the proof), as a reader of local structure
    sees it. None when no pair exists."""
    distance = hub_distances([tree, decoy], tree.formula.args)
    hubs, piece = set(tree.formula.args), main_piece(tree)
    stated = [leaf.formula for t in (tree, decoy) for leaf in t.leaves()]
    sig = {id(leaf): signature(stated, leaf.formula)
           for t in (tree, decoy) for leaf in t.leaves() if leaf.formula.kind in BREAKABLE}
    route = _breakable(tree, [leaf for leaf in tree.leaves() if id(leaf) in sig
                              and set(leaf.formula.args) & piece
                              and not set(leaf.formula.args) & hubs
                              and _motif(sig[id(leaf)])], taken)
    twin = _breakable(decoy, [leaf for leaf in decoy.leaves() if id(leaf) in sig
                              and _motif(sig[id(leaf)])], taken)
    pairs = [(a, b) for a in route for b in twin
             if leaf_distance(a, distance) == leaf_distance(b, distance)
             and converse(a.formula) != converse(b.formula)]
    pairs = [(a, b) for a, b in pairs if sig[id(a)] == sig[id(b)]] or pairs
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    return (a, converse(a.formula)), (b, converse(b.formula))


MAX_ATTEMPTS = 200      # candidates per task: most retries are cheap (names run out, no
#                         solver called), and decoys redrawn use names up
DECOY_REDRAWS = 3       # a tree whose decoy offers no matching break gets a new decoy


def _break_all(candidate: Candidate, depth: int, rng: random.Random) -> bool:
    """Every tree's route and decoy breaks (:func:`_breaks`); a tree without a matching pair
    gets a new decoy, up to DECOY_REDRAWS times (label-blind: the same for every variant).
    False when some tree has none (or names run out)."""
    conclusion = candidate.conclusion
    for i, tree in enumerate(candidate.trees):
        for redraw in range(1 + DECOY_REDRAWS):
            if redraw:
                try:
                    candidate.decoys[i] = _decoy(tree, decoy_depth(depth), rng,
                                                 candidate.fresh)
                except GenerationError:
                    return False
            taken = {conclusion, conclusion.negated()}
            taken |= {leaf.formula for part in (candidate.trees, candidate.decoys)
                      for t in part for leaf in t.leaves()}
            taken |= {new for _, new in candidate.route_breaks + candidate.decoy_breaks}
            found = _breaks(tree, candidate.decoys[i], taken, rng)
            if found is not None:
                candidate.route_breaks.append(found[0])
                candidate.decoy_breaks.append(found[1])
                break
        else:
            return False
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
        if not _break_all(candidate, depth, rng):
            retries["unbreakable_tree"] += 1
            continue
        leaves = [leaf.formula for part in (candidate.trees, candidate.decoys)
                  for tree in part for leaf in tree.leaves()]
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
    if retries["vocabulary"] == MAX_ATTEMPTS:
        raise ConfigError(f"depth {depth} and width {width} need more names than a context "
                          f"offers once every tree has its decoy ({MAX_ATTEMPTS} draws ran out "
                          f"of names); lower depth or width", field="depth")
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
    sources = [names[t] + ("_decoy" if p else "") for p, t, _ in candidate.order]
    distractors = [tree for t, tree in enumerate(candidate.trees) if t != candidate.proof_index]
    decoys = [candidate.decoys[candidate.proof_index]] + [
        d for t, d in enumerate(candidate.decoys) if t != candidate.proof_index]
    fresh = candidate.fresh
    return Problem(candidate.context, goal, candidate.proof, distractors, premises,
                   sources, statement, target, sorted(set(fresh.predicates)),
                   sorted(set(fresh.individuals)), decoys=decoys)
