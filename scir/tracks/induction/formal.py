"""The induction track's formal object, typed: :class:`InductionProblem` (``Track.formal_type``).

``load`` reads ``Task.formal`` and is the one place it is validated: ``facts`` triples of
identifiers over known relation types, ``pos`` / ``neg`` lists of drug pairs (none both), and the
optional ``category``, ``target`` and ``distractors``; sizes are bounded; errors are
TaskFormatError naming the field (``formal.facts``, ...). ``dump`` writes the JSON form back, key
order included (the generator builds the object and dumps it). A formalization
(``parse_formalization``) is the same class with ``facts``, ``pos`` and ``neg`` only, built by
the parser (which checks its own text); contradictory examples are then the solver's
concern (``solve.check_examples``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scir.errors import TaskFormatError
from scir.tracks.induction.world import IDENT, Rule, World, load_world

Fact = tuple[str, str, str]  # (relation, drug, protein)
Pair = tuple[str, str]  # an unordered drug pair, stored sorted

MAX_FACTS = 100_000  # a Hard task has about 140
MAX_EXAMPLES = 10_000  # positives or negatives (Hard: under 10)
MAX_RULES = 100  # distractor rules
LIST_KEYS = {"facts": MAX_FACTS, "pos": MAX_EXAMPLES, "neg": MAX_EXAMPLES, "distractors": MAX_RULES}


def pair(a: str, b: str) -> Pair:
    """The canonical (sorted) form of an unordered drug pair."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class InductionProblem:
    """An induction formal object: background facts, examples, optional target info."""

    facts: tuple[Fact, ...]
    pos: tuple[Pair, ...]
    neg: tuple[Pair, ...]
    category: str | None = None
    target: Rule | None = None
    distractors: tuple[Rule, ...] = ()

    @property
    def relations(self) -> list[str]:
        """The relation types used by the background facts, sorted."""
        return sorted({f[0] for f in self.facts})

    def dump(self) -> dict[str, Any]:
        """The JSON form stored in ``Task.formal``: facts, pos, neg, then (a gold object, with
        a target) target and distractors, and the category when there is one."""
        out: dict[str, Any] = {
            "facts": [list(f) for f in self.facts],
            "pos": [list(p) for p in self.pos],
            "neg": [list(p) for p in self.neg],
        }
        if self.target is not None:
            out["target"] = list(self.target)
            out["distractors"] = [list(r) for r in self.distractors]
        if self.category is not None:
            out["category"] = self.category
        return out

    @classmethod
    def formalization(cls, facts: Any, pos: Any, neg: Any) -> InductionProblem:
        """A formalization's object: facts and examples only, each kept once, pairs sorted;
        the names are the parser's to check, and contradictory examples the solver's."""
        return cls(
            tuple(dict.fromkeys(tuple(f) for f in facts)),
            tuple(dict.fromkeys(pair(*p) for p in pos)),
            tuple(dict.fromkeys(pair(*p) for p in neg)),
        )

    @classmethod
    def load(cls, data: Any, world: World | None = None) -> InductionProblem:
        """Validate a formal object (TaskFormatError naming the field and item of the first
        problem) and read it: facts and pairs kept once each, pairs sorted."""
        world = world or load_world()
        if not isinstance(data, dict):
            raise TaskFormatError(
                f"formal object must be a mapping, got {type(data).__name__}", field="formal"
            )
        relations = set(world.relation_names)
        for key, limit in LIST_KEYS.items():
            value = data.get(key, [])
            if not isinstance(value, list):
                raise _fail(f"expected a list, got {type(value).__name__}", key)
            if len(value) > limit:
                raise _fail(f"more than {limit} items", key)

        def atom(value: Any, key: str, index: int) -> str:
            if not isinstance(value, str) or not IDENT.match(value):
                raise _fail(f"item {index}: {value!r} is not a lowercase identifier", key)
            return value

        facts: list[Fact] = []
        for i, item in enumerate(data.get("facts", [])):
            if not isinstance(item, (list, tuple)) or len(item) != 3:
                raise _fail(f"item {i}: expected [relation, drug, protein], got {item!r}", "facts")
            rel, drug, protein = (atom(v, "facts", i) for v in item)
            if rel not in relations:
                raise _fail(
                    f"item {i}: unknown relation {rel!r} (known: "
                    f"{', '.join(world.relation_names)})",
                    "facts",
                )
            facts.append((rel, drug, protein))
        examples: dict[str, list[Pair]] = {}
        for kind in ("pos", "neg"):
            pairs = []
            for i, item in enumerate(data.get(kind, [])):
                if not isinstance(item, (list, tuple)) or len(item) != 2:
                    raise _fail(f"item {i}: expected [drug, drug], got {item!r}", kind)
                a, b = (atom(v, kind, i) for v in item)
                pairs.append(pair(a, b))
            examples[kind] = pairs
        both = set(examples["pos"]) & set(examples["neg"])
        if both:
            raise _fail(f"pair {sorted(both)[0]} is both a positive and a negative", "neg")
        category = data.get("category")
        if category is not None and category not in world.categories:
            raise _fail(f"unknown category {category!r}", "category")
        target = _rule(data.get("target"), "target", relations)
        distractors = tuple(_rule(r, "distractors", relations) for r in data.get("distractors", []))
        return cls(
            tuple(dict.fromkeys(facts)),
            tuple(dict.fromkeys(examples["pos"])),
            tuple(dict.fromkeys(examples["neg"])),
            category,
            target,
            tuple(r for r in distractors if r is not None),
        )


def problem_from_formal(formal: Any, world: World | None = None) -> InductionProblem:
    """:meth:`InductionProblem.load` (a formal object in its JSON form, checked)."""
    return InductionProblem.load(formal, world)


def _fail(message: str, key: str) -> TaskFormatError:
    return TaskFormatError(message, field=f"formal.{key}")


def _rule(value: Any, key: str, relations: set[str]) -> Rule | None:
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, str) and v in relations for v in value)
    ):
        raise _fail(f"expected a pair of relation names, got {value!r}", key)
    return tuple(sorted(value))


__all__ = ["Fact", "InductionProblem", "Pair", "pair", "problem_from_formal"]
