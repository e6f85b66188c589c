"""The causal track's formal object, typed: :class:`CausalFormal` (``Track.formal_type``).

``load`` reads ``Task.formal`` (or a hand-written formal object) and is the one place it is
validated: ``nodes`` (protein names, unique ignoring case), optional ``columns`` (the order of
the values in every row; every node once), ``known_edges`` and ``xyz_edges`` as ``[from, to]``
pairs of nodes, and ``environments``, each with a unique ``name``, an optional ``kind``, its
intervention ``targets`` and at least 2 ``rows`` of one finite number per column. Names are
matched ignoring case (a formalization may write ``raf`` for ``Raf``); sizes are bounded; errors
are TaskFormatError naming the field (``formal.environments[1].rows[3]``). ``dump`` writes the
JSON form back, key order included (the generator builds the object and dumps it). A
formalization (``parse_formalization``) is the same class without ``xyz_edges``, built by the
parser (which checks its own text). :func:`scir.tracks.causal.solve.dataset` turns the object
into solver input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scir.errors import TaskFormatError
from scir.tracks.causal.scm import KINDS
from scir.tracks.shapes import bounded_list, number_row

MAX_NODES = 64  # Sachs has 11 proteins, plus XYZ
MAX_ENVIRONMENTS = 64
MAX_ROWS = 100_000  # rows per environment (the default is 16)

Edge = tuple[str, str]


@dataclass(frozen=True)
class CausalEnvironment:
    """One experimental condition of a formal object: its rows, columns in the object's
    ``columns`` order (else ``nodes``)."""

    name: str
    targets: tuple[str, ...]
    rows: tuple[tuple[float, ...], ...]
    kind: str | None = None  # observational | inhibition | activation (optional)

    def dump(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "targets": list(self.targets)}
        if self.kind is not None:
            out["kind"] = self.kind
        out["rows"] = [list(r) for r in self.rows]
        return out


@dataclass(frozen=True)
class CausalFormal:
    """Proteins, known edges, environments (and for a gold object XYZ's edges)."""

    nodes: tuple[str, ...]
    environments: tuple[CausalEnvironment, ...]
    known_edges: tuple[Edge, ...] = ()
    xyz_edges: tuple[Edge, ...] | None = None
    columns: tuple[str, ...] | None = None

    @property
    def column_order(self) -> tuple[str, ...]:
        """The order of the values in every row: ``columns``, else ``nodes``."""
        return self.columns if self.columns is not None else self.nodes

    def dump(self) -> dict[str, Any]:
        """The JSON form stored in ``Task.formal`` (fields that are None are left out)."""
        out: dict[str, Any] = {
            "nodes": list(self.nodes),
            "known_edges": [list(e) for e in self.known_edges],
        }
        if self.xyz_edges is not None:
            out["xyz_edges"] = [list(e) for e in self.xyz_edges]
        out["environments"] = [e.dump() for e in self.environments]
        if self.columns is not None:
            out["columns"] = list(self.columns)
        return out

    @classmethod
    def load(cls, data: Any) -> CausalFormal:
        """Validate a formal object (TaskFormatError naming the field) and read it."""
        if not isinstance(data, dict):
            raise _fail("a causal formal object must be an object", "formal")
        nodes = _names(bounded_list(data.get("nodes"), "formal.nodes", MAX_NODES), "formal.nodes")
        known = {v.casefold() for v in nodes}
        columns = None
        if data.get("columns") is not None:
            columns = _names(data["columns"], "formal.columns")
            if sorted(c.casefold() for c in columns) != sorted(known):
                raise _fail("columns must name every node exactly once", "formal.columns")
        known_edges = _edges(data.get("known_edges", []), "formal.known_edges", nodes)
        xyz = data.get("xyz_edges")
        xyz_edges = None if xyz is None else _edges(xyz, "formal.xyz_edges", nodes)
        envs = bounded_list(data.get("environments"), "formal.environments", MAX_ENVIRONMENTS)
        if not envs:
            raise _fail("expected a non-empty list of environments", "formal.environments")
        width = len(columns if columns is not None else nodes)
        environments: list[CausalEnvironment] = []
        for e, env in enumerate(envs):
            environments.append(
                _environment(
                    env, f"formal.environments[{e}]", nodes, width, {x.name for x in environments}
                )
            )
        return cls(nodes, tuple(environments), known_edges, xyz_edges, columns)


def _fail(message: str, field: str) -> TaskFormatError:
    return TaskFormatError(message, field=field)


def _names(value: Any, field: str) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, str) and v.strip() for v in value)
    ):
        raise _fail("expected a non-empty list of protein names", field)
    bounded_list(value, field, MAX_NODES)
    folded = [v.casefold() for v in value]
    if len(set(folded)) != len(folded):
        dup = next(v for v in value if folded.count(v.casefold()) > 1)
        raise _fail(f"protein {dup!r} is listed twice", field)
    return tuple(value)


def _node(name: Any, nodes: tuple[str, ...], field: str) -> str:
    if not isinstance(name, str) or name.casefold() not in {n.casefold() for n in nodes}:
        raise _fail(f"unknown protein {name!r} (known: {', '.join(nodes)})", field)
    return name


def _edges(value: Any, field: str, nodes: tuple[str, ...]) -> tuple[Edge, ...]:
    if not isinstance(value, list):
        raise _fail("expected a list of [from, to] pairs", field)
    bounded_list(value, field, MAX_NODES * MAX_NODES)
    edges = []
    for i, e in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            raise _fail("expected a [from, to] pair", where)
        edges.append((_node(e[0], nodes, where), _node(e[1], nodes, where)))
    return tuple(edges)


def _environment(
    env: Any, where: str, nodes: tuple[str, ...], width: int, seen: set[str]
) -> CausalEnvironment:
    if not isinstance(env, dict):
        raise _fail("an environment must be an object", where)
    name = env.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail("expected a non-empty name", where + ".name")
    if name in seen:
        raise _fail(f"environment {name!r} appears twice", where + ".name")
    kind = env.get("kind")
    if "kind" in env and kind not in KINDS:
        raise _fail(f"kind must be one of {', '.join(KINDS)}", where + ".kind")
    raw_targets = env.get("targets")
    if not isinstance(raw_targets, list):
        raise _fail("expected a list of protein names", where + ".targets")
    targets = tuple(_node(t, nodes, where + ".targets") for t in raw_targets)
    if len({t.casefold() for t in targets}) != len(targets):
        raise _fail("a target is listed twice", where + ".targets")
    rows = env.get("rows")
    if "rows" in env:
        bounded_list(rows, where + ".rows", MAX_ROWS)
    if not isinstance(rows, list) or len(rows) < 2:
        raise _fail("expected a list of at least 2 rows", where + ".rows")
    table = []
    for r, row in enumerate(rows):
        table.append(number_row(row, f"{where}.rows[{r}]", width, "column"))
    return CausalEnvironment(name, targets, tuple(table), kind)


__all__ = ["CausalEnvironment", "CausalFormal", "MAX_ENVIRONMENTS", "MAX_NODES", "MAX_ROWS"]
