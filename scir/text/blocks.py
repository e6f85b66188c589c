"""The formal content of each clean-NL block: what a rendering of that block must keep.

* deduction (2 blocks): ``{"premises": [...]}`` -- the Prover9 strings of the premises the
  block states, found by matching the block against the track's own sentence templates;
* induction (3 blocks): ``{"facts": [[relation, drug, protein], ...]}``, ``{"pos": [[a, b],
  ...]}``, ``{"neg": [[a, b], ...]}``;
* causal (2 blocks): block 1 ``{"nodes", "new_protein", "connections", "known_edges",
  "environments": [{"name", "kind", "targets"}], "samples"}``, block 2 ``{"columns",
  "environments": [{"name", "rows"}]}``.

:func:`canonical` puts a block's content in a normal form (sets sorted, columns sorted), so
two contents hold the same information iff their canonical forms are equal;
:func:`differences` says how they differ.
"""

from __future__ import annotations

from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import Task

TRACKS = ("deduction", "induction", "causal")


def block_contents(task: Task) -> list[dict[str, Any]]:
    """The formal content of every block of ``task`` (TaskFormatError if it cannot be told)."""
    if task.domain == "deduction":
        contents = _deduction(task)
    elif task.domain == "induction":
        f = task.formal
        contents = [{"facts": [list(x) for x in f.get("facts", [])]},
                    {"pos": [sorted(p) for p in f.get("pos", [])]},
                    {"neg": [sorted(p) for p in f.get("neg", [])]}]
    elif task.domain == "causal":
        contents = _causal(task)
    else:
        raise TaskFormatError(f"no block contents for track {task.domain!r}",
                              task_id=task.task_id, field="domain")
    if len(contents) != len(task.blocks):
        raise TaskFormatError(f"expected {len(contents)} blocks, found {len(task.blocks)}",
                              task_id=task.task_id, field="blocks")
    return contents


def deduction_lexicon(task: Task):
    """The task's :class:`~scir.tracks.deduction.templates.Lexicon` (from its metadata)."""
    from scir.tracks.deduction.templates import Lexicon

    lex = task.domain_metadata.get("lexicon")
    if not isinstance(lex, dict) or not isinstance(lex.get("predicates"), dict):
        raise TaskFormatError("deduction tasks need domain_metadata.lexicon",
                              task_id=task.task_id, field="domain_metadata")
    return Lexicon.from_json(lex)


def _deduction(task: Task) -> list[dict[str, Any]]:
    """Split the premises into the blocks' consecutive runs, checked sentence by sentence."""
    from scir.tracks.deduction.logic import parse
    from scir.tracks.deduction.templates import sentence

    lexicon = deduction_lexicon(task)
    premises = task.formal.get("premises")
    if not isinstance(premises, list):
        raise TaskFormatError("deduction tasks need formal.premises", task_id=task.task_id,
                              field="formal")
    sentences = [sentence(parse(p, task_id=task.task_id), lexicon) for p in premises]
    out, start = [], 0
    for i, block in enumerate(task.blocks):
        end, text = start, ""
        while end < len(sentences) and len(text) < len(block):
            text = f"{text} {sentences[end]}" if text else sentences[end]
            end += 1
        if text != block:
            raise TaskFormatError(f"block {i + 1} is not a run of the premises' sentences",
                                  task_id=task.task_id, field="blocks")
        out.append({"premises": premises[start:end]})
        start = end
    if start != len(sentences):
        raise TaskFormatError("the blocks do not state every premise", task_id=task.task_id,
                              field="blocks")
    return out


def _causal(task: Task) -> list[dict[str, Any]]:
    f, meta = task.formal, task.domain_metadata
    new = meta.get("new_protein", "XYZ")
    try:
        envs = f["environments"]
        first = {"nodes": [n for n in f["nodes"] if n != new], "new_protein": new,
                 "connections": int(task.params.get("connections", len(f["xyz_edges"]))),
                 "known_edges": [list(e) for e in f["known_edges"]],
                 "environments": [{"name": e["name"], "kind": e["kind"],
                                   "targets": list(e["targets"])} for e in envs],
                 "samples": [len(e["rows"]) for e in envs]}
        second = {"columns": list(f["columns"]),
                  "environments": [{"name": e["name"], "rows": [list(r) for r in e["rows"]]}
                                   for e in envs]}
    except (KeyError, TypeError) as exc:
        raise TaskFormatError(f"causal formal object lacks {exc}", task_id=task.task_id,
                              field="formal") from exc
    return [first, second]


def canonical(domain: str, index: int, content: dict[str, Any]) -> dict[str, Any]:
    """The normal form of a block's content (unordered collections sorted, rows re-ordered to
    sorted columns); equal normal forms mean the same information."""
    if domain == "deduction":
        return {"premises": sorted(content.get("premises", []))}
    if domain == "induction":
        key = ("facts", "pos", "neg")[index]
        return {key: sorted(list(x) for x in content.get(key, []))}
    if domain == "causal" and index == 0:
        return {"nodes": list(content.get("nodes", [])),
                "new_protein": content.get("new_protein"),
                "connections": content.get("connections"),
                "known_edges": sorted(list(e) for e in content.get("known_edges", [])),
                "environments": [{"name": e.get("name"), "kind": e.get("kind"),
                                  "targets": sorted(e.get("targets", []))}
                                 for e in content.get("environments", [])],
                "samples": list(content.get("samples", []))}
    if domain == "causal":
        columns = list(content.get("columns", []))
        order = sorted(range(len(columns)), key=lambda i: columns[i])
        return {"columns": [columns[i] for i in order],
                "environments": [{"name": e.get("name"),
                                  "rows": [[r[i] for i in order] for r in e.get("rows", [])]}
                                 for e in content.get("environments", [])]}
    raise TaskFormatError(f"no block contents for track {domain!r}", field="domain")


def differences(domain: str, index: int, expected: dict[str, Any],
                found: dict[str, Any]) -> list[str]:
    """What differs between two contents of one block (empty: the same information)."""
    a, b = canonical(domain, index, expected), canonical(domain, index, found)
    out = []
    for key in a:
        if a[key] == b.get(key):
            continue
        if isinstance(a[key], list) and isinstance(b.get(key), list):
            missing = [x for x in a[key] if x not in b[key]]
            extra = [x for x in b[key] if x not in a[key]]
            detail = []
            if missing:
                detail.append(f"{len(missing)} missing (e.g. {_short(missing[0])})")
            if extra:
                detail.append(f"{len(extra)} unexpected (e.g. {_short(extra[0])})")
            out.append(f"{key}: " + ("; ".join(detail) or "different order or counts"))
        else:
            out.append(f"{key}: expected {_short(a[key])}, found {_short(b.get(key))}")
    return out


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
