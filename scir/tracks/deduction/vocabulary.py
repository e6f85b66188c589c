"""The deduction vocabulary: 20 developmental-biology contexts read from ``vocabulary/*.json``.

Each context file holds ``predicates`` (unary predicates over cells: ``id``, the English ``noun``
phrase, optional ``plural`` and ``article`` when the regular rules do not apply),
``exclusive_groups`` (predicates whose names alone relate them -- one phrase contains the other,
or they differ only by an opposite modifier such as anterior/posterior; at most one of a group
is used in a task, so wording cannot settle what the statements leave open) and
``individuals`` (named cells: ``id`` for the formulas, ``name`` for the text).

A task draws every predicate and individual fresh from one context (:class:`FreshNames`).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources as importlib_resources

from scir.errors import ConfigError, GenerationError, ResourceError

_ID = re.compile(r"[a-z][a-z0-9_]*\Z")
_CONSTANT = re.compile(r"[a-t][a-z0-9_]*\Z")  # Prover9 reads names starting u-z as variables
_RESERVED = {"all", "exists", "not", "none", "some", "no", "x"}


@dataclass(frozen=True)
class Predicate:
    """A unary predicate and its English noun phrase."""

    id: str
    noun: str
    plural: str
    article: str

    @property
    def with_article(self) -> str:
        """``a Sox10-positive cell``."""
        return f"{self.article} {self.noun}"


@dataclass(frozen=True)
class Individual:
    """A named cell: ``cell_a7`` / ``cell A7``."""

    id: str
    name: str


@dataclass(frozen=True)
class Context:
    """One developmental-biology context."""

    name: str
    title: str
    description: str
    predicates: tuple[Predicate, ...]
    groups: tuple[tuple[str, ...], ...]
    individuals: tuple[Individual, ...]

    def predicate(self, pid: str) -> Predicate:
        """The predicate with id ``pid``."""
        for p in self.predicates:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def individual(self, cid: str) -> Individual:
        """The individual with id ``cid``."""
        for i in self.individuals:
            if i.id == cid:
                return i
        raise KeyError(cid)

    @property
    def capacity(self) -> int:
        """How many predicates one task can draw (one per exclusive group)."""
        return len(self.predicates) - sum(len(g) - 1 for g in self.groups)


def plural_of(noun: str) -> str:
    """The regular English plural of a noun phrase (its last word inflected)."""
    if re.search(r"(s|x|z|ch|sh)\Z", noun):
        return noun + "es"
    if re.search(r"[^aeiou]y\Z", noun):
        return noun[:-1] + "ies"
    return noun + "s"


def article_of(noun: str) -> str:
    """``an`` before a vowel letter, else ``a`` (entries override it where sound differs)."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _fail(file: str, message: str) -> ResourceError:
    return ResourceError(message, file=file)


def _load(file: str, data: object) -> Context:
    if not isinstance(data, dict):
        raise _fail(file, "a vocabulary file holds one JSON object")
    for key in ("context", "title", "description", "predicates", "exclusive_groups", "individuals"):
        if key not in data:
            raise _fail(file, f"missing field {key!r}")
    preds = []
    for entry in data["predicates"]:
        pid, noun = entry.get("id"), entry.get("noun")
        if not (
            isinstance(pid, str)
            and _ID.match(pid)
            and pid not in _RESERVED
            and isinstance(noun, str)
            and noun.strip()
        ):
            raise _fail(file, f"bad predicate entry {entry!r}")
        preds.append(
            Predicate(
                pid,
                noun,
                entry.get("plural") or plural_of(noun),
                entry.get("article") or article_of(noun),
            )
        )
    ids = [p.id for p in preds]
    if len(set(ids)) != len(ids):
        raise _fail(file, "duplicate predicate ids")
    groups = []
    seen: set[str] = set()
    for group in data["exclusive_groups"]:
        if not group or any(g not in ids or g in seen for g in group):
            raise _fail(file, f"bad exclusive group {group!r} (unknown or repeated ids)")
        seen.update(group)
        groups.append(tuple(group))
    individuals = []
    for entry in data["individuals"]:
        cid, name = entry.get("id"), entry.get("name")
        if not (isinstance(cid, str) and _CONSTANT.match(cid) and isinstance(name, str)):
            raise _fail(file, f"bad individual entry {entry!r}")
        individuals.append(Individual(cid, name))
    cids = [i.id for i in individuals]
    if len(set(cids)) != len(cids) or set(cids) & set(ids):
        raise _fail(file, "individual ids must be unique and differ from predicate ids")
    return Context(
        data["context"],
        data["title"],
        data["description"],
        tuple(preds),
        tuple(groups),
        tuple(individuals),
    )


@cache
def contexts() -> tuple[Context, ...]:
    """Every context, sorted by name (read once)."""
    folder = importlib_resources.files("scir.tracks.deduction") / "vocabulary"
    found = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if not item.name.endswith(".json"):
            continue
        try:
            data = json.loads(item.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise _fail(str(item), f"cannot read vocabulary: {exc}") from exc
        context = _load(str(item), data)
        if context.name + ".json" != item.name:
            raise _fail(str(item), f"context {context.name!r} must be in {context.name}.json")
        found.append(context)
    if not found:
        raise ResourceError(f"no vocabulary files in {folder}")
    return tuple(found)


def get_context(name: str) -> Context:
    """The context called ``name`` (ConfigError naming the known ones)."""
    for c in contexts():
        if c.name == name:
            return c
    raise ConfigError(
        f"unknown deduction context {name!r} (known: {', '.join(c.name for c in contexts())})",
        field="context",
    )


class FreshNames:
    """Draws predicates and individuals of one context, never the same one twice and never two
    predicates of one exclusive group."""

    def __init__(self, context: Context, rng: random.Random) -> None:
        self.context = context
        self._rng = rng
        self._group = {pid: group for group in context.groups for pid in group}
        self._free_predicates = [p.id for p in context.predicates]
        self._free_individuals = [i.id for i in context.individuals]
        self.predicates: list[str] = []
        self.individuals: list[str] = []

    def predicate(self) -> str:
        """A fresh predicate id."""
        if not self._free_predicates:
            raise GenerationError(f"context {self.context.name} has no fresh predicate left")
        pid = self._rng.choice(self._free_predicates)
        blocked = set(self._group.get(pid, (pid,)))
        self._free_predicates = [p for p in self._free_predicates if p not in blocked]
        self.predicates.append(pid)
        return pid

    def individual(self) -> str:
        """A fresh individual id."""
        if not self._free_individuals:
            raise GenerationError(f"context {self.context.name} has no fresh individual left")
        cid = self._rng.choice(self._free_individuals)
        self._free_individuals.remove(cid)
        self.individuals.append(cid)
        return cid
