"""The induction track's world: relation types, invented drugs and proteins (read lazily from
the JSON files in ``world/``), and the 45 candidate rules.

A rule is a sorted pair of relation types with repetition, ``(r1, r2)`` with ``r1 <= r2``,
standing for ``interacts(A, B) :- r1(A, P), r2(B, P)`` read symmetrically. The candidates and
their categories are defined by ``rule/2`` and ``rule_category/3`` of ``prolog/induction.pl``;
a :class:`World` asks Prolog for them once (:func:`rule_table`). Every id (relation, drug, protein) is a plain lowercase identifier,
so it is the same atom in Prolog, clingo and the Popper export.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources as importlib_resources

from scir.errors import ResourceError
from scir.tracks.induction import predicates as preds

IDENT = re.compile(r"[a-z][a-z0-9_]*\Z")

Rule = tuple[str, str]

_ASK_LOCK = threading.Lock()  # the runner solves tasks in threads: ask Prolog once


@dataclass(frozen=True)
class Relation:
    """One relation type: ``name(Drug, Protein)`` of a category, with its NL forms."""

    name: str
    category: str
    sentence: str  # "{drug} is a substrate of the enzyme {protein}."
    gloss: str  # explanation used in the question


@dataclass(frozen=True)
class Protein:
    """An invented protein: its id (lowercase), display name and categories (roles)."""

    id: str
    name: str
    roles: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class World:
    """Everything the generator draws from."""

    categories: tuple[str, ...]
    relations: tuple[Relation, ...]
    drugs: tuple[str, ...]
    proteins: tuple[Protein, ...]
    _relations: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    _proteins: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    _rules: list = field(default_factory=list, init=False, compare=False, repr=False)
    _rule_categories: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._relations.update((r.name, r) for r in self.relations)
        self._proteins.update((p.id, p) for p in self.proteins)

    @property
    def relation_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.relations)

    def relation(self, name: str) -> Relation:
        """The relation called ``name`` (KeyError if unknown)."""
        return self._relations[name]

    def category_of(self, name: str) -> str:
        """The category of relation ``name``."""
        return self.relation(name).category

    def _ask_rules(self) -> None:
        with _ASK_LOCK:
            if not self._rules:
                rules, categories = rule_table(self)
                self._rule_categories.update(categories)
                self._rules.extend(rules)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The candidate rules, sorted: ``rule/2`` of ``prolog/induction.pl`` (the one
        definition) over this world's relations, asked once per world."""
        self._ask_rules()
        return tuple(self._rules)

    def rule_category(self, rule: Rule) -> str | None:
        """The category shared by both relations of ``rule``; None for a mixed pair. Asked of
        ``rule_category/3`` in ``prolog/induction.pl`` (the one definition) once per world,
        with the candidates (:func:`rule_table`)."""
        self._ask_rules()
        a, b = rule
        return self._rule_categories.get((a, b) if a <= b else (b, a))

    def relations_of(self, category: str) -> tuple[str, ...]:
        """The relation names of ``category`` in file order."""
        return tuple(r.name for r in self.relations if r.category == category)

    def proteins_with_role(self, category: str) -> tuple[Protein, ...]:
        """Proteins that take part in relations of ``category``."""
        return tuple(p for p in self.proteins if category in p.roles)

    def protein(self, pid: str) -> Protein:
        """The protein with id ``pid`` (KeyError if unknown)."""
        return self._proteins[pid]

    def protein_name(self, pid: str) -> str:
        """Display name of a protein id (``kx3a1`` -> ``KX3A1``)."""
        return self._proteins[pid].name


def _read(name: str) -> dict:
    try:
        text = (importlib_resources.files("scir.tracks.induction") / "world" / name).read_text(
            encoding="utf-8"
        )
        return json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise ResourceError(f"cannot read induction world file {name}: {exc}") from exc


@lru_cache(maxsize=1)
def load_world() -> World:
    """The world read from ``world/*.json`` (cached; validated: ids are safe identifiers)."""
    rel = _read("relations.json")
    categories = tuple(c["name"] for c in rel["categories"])
    relations = tuple(
        Relation(r["name"], r["category"], r["sentence"], r["gloss"]) for r in rel["relations"]
    )
    drugs = tuple(_read("drugs.json")["drugs"])
    proteins = tuple(
        Protein(p["name"].lower(), p["name"], tuple(p["roles"]))
        for p in _read("proteins.json")["proteins"]
    )
    world = World(categories, relations, drugs, proteins)
    _check(world)
    return world


def _check(world: World) -> None:
    ids = list(world.relation_names) + list(world.drugs) + [p.id for p in world.proteins]
    bad = [i for i in ids if not IDENT.match(i)]
    if bad:
        raise ResourceError(f"induction world ids must be lowercase identifiers: {bad[:5]}")
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise ResourceError(f"induction world ids must be unique: {dup[:5]}")
    for r in world.relations:
        if r.category not in world.categories:
            raise ResourceError(f"relation {r.name} has unknown category {r.category}")
    for p in world.proteins:
        if not p.roles or any(c not in world.categories for c in p.roles):
            raise ResourceError(f"protein {p.name} has bad roles {p.roles}")


def all_rules(world: World | None = None) -> list[Rule]:
    """The candidate rules, sorted (45: every sorted pair of relation types with repetition,
    as ``rule/2`` of ``prolog/induction.pl`` defines them; :attr:`World.rules`)."""
    return list((world or load_world()).rules)


def category_rules(category: str, world: World | None = None) -> list[Rule]:
    """The candidate rules whose two relations both belong to ``category``."""
    world = world or load_world()
    return [r for r in all_rules(world) if world.rule_category(r) == category]


def allowed_answers(world: World | None = None) -> list[Rule]:
    """The rules the question allows as answers: both relation types of one category (the
    question says so; 3 categories x 6 sorted pairs = 18). ``chance_constrained`` is the answer
    pool's share of these."""
    world = world or load_world()
    return [r for c in world.categories for r in category_rules(c, world)]


def rule_key(rule: Rule) -> str:
    """The answer string of a rule: the sorted pair ``"r1,r2"``."""
    a, b = sorted(rule)
    return f"{a},{b}"


def display_drug(drug: str) -> str:
    """A drug id as written in text: ``velorastat`` -> ``Velorastat``."""
    return drug[:1].upper() + drug[1:]


def _relation_rows(world: World) -> list[preds.Relation]:
    return [preds.Relation(r.name, r.category) for r in world.relations]


def rule_table(world: World) -> tuple[list[Rule], dict[Rule, str]]:
    """The candidate rules, sorted, and rule -> category for those that have one: ``rule/2``
    and ``rule_category/3`` of ``prolog/induction.pl`` (the one definition of both) over the
    world's relations, in one Prolog module. :attr:`World.rules` and
    :meth:`World.rule_category` ask this once per world."""
    from solvers.prolog import Engine  # SWI-Prolog starts on first use, not on import

    with Engine().module() as m:
        m.consult("induction")
        m.add_records(_relation_rows(world), preds.Relation)
        rules = sorted((str(row["R1"]), str(row["R2"])) for row in m.query("rule(R1, R2)"))
        rows = m.query("rule(R1, R2), rule_category(R1, R2, C)")
    return rules, {(str(row["R1"]), str(row["R2"])): str(row["C"]) for row in rows}
