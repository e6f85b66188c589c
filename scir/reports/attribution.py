"""Automatic error attribution: why a task failed, read from its stored result.

Every result that is not ``ok`` gets one *kind* (the paper classified 30 failure trajectories
per track by hand into extraction and reasoning errors):

- ``format``: no usable output -- a formalization that does not parse under the track's
  grammar (``parse_error``; symbcot: whatever it answered after one), or a response without
  an answer line (``no_answer``);
- ``extraction``: the formalization parsed but is not the gold one (the track's extraction
  check found items missing or extra, or a goal that is not the gold goal; ns and symbcot);
- ``solver``: ns with a formalization equivalent to the gold one and still no right answer
  (the solver failed, hit its limit or answered wrong);
- ``reasoning``: symbcot with a formalization equivalent to the gold one and a wrong answer
  (the model reasoned wrongly over a right formalization); cot wrong on a task it also got
  wrong in NL (the paper's paired control: not the documents' fault);
- ``obfuscation``: cot wrong in Obf on a task it got right in NL (same model, seed and
  settings) -- the rendering, not the reasoning, is what failed;
- ``backend``: the model could not be reached;
- ``unknown``: nothing stored tells (e.g. results stored before extraction was checked,
  cot without its NL twin, other architectures).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from scir.outcomes.status import Status
from scir.pipelines.registry import FORMALIZING

KINDS = ("format", "extraction", "solver", "reasoning", "obfuscation", "backend", "unknown")
EXAMPLES = 3  # task ids kept per kind and cell


def exact(extraction: dict[str, Any] | None) -> bool | None:
    """Whether a stored extraction check found the formalization equivalent to the gold
    (nothing missing, nothing extra, the goal equivalent when there is one); None when
    there is no check."""
    if not isinstance(extraction, dict):
        return None
    return (
        extraction.get("correct") == extraction.get("items")
        and extraction.get("recalled") == extraction.get("gold_items")
        and extraction.get("goal") in (None, "equivalent")
    )


def attribute(result: dict[str, Any], nl_twin: dict[str, Any] | None = None) -> str | None:
    """The kind of failure of one stored result (None when it is ``ok``); ``nl_twin`` the
    same task's result in the same cell with the NL presentation (cot's paired control)."""
    status = result.get("status")
    if status == Status.OK.value:
        return None
    if status == Status.BACKEND_ERROR.value:
        return "backend"
    if status in (Status.PARSE_ERROR.value, Status.NO_ANSWER.value):
        return "format"
    arch = result.get("arch")
    if arch == "symbcot" and result.get("executable") is False:
        return "format"  # its formalization did not parse; it answered anyway
    if arch in FORMALIZING:
        same = exact(result.get("extraction"))
        if same is None:
            return "unknown"
        if not same:
            return "extraction"
        return "solver" if arch == "ns" else "reasoning"
    if arch == "cot":
        if result.get("presentation") == "nl":
            return "reasoning"
        if nl_twin is None or nl_twin.get("status") == Status.BACKEND_ERROR.value:
            return "unknown"
        return "obfuscation" if nl_twin.get("status") == Status.OK.value else "reasoning"
    return "unknown"


@dataclass
class CellFailures:
    """The failures of one cell by kind, with a few example task ids per kind."""

    failed: int = 0
    kinds: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, kind: str, task_id: str) -> None:
        self.failed += 1
        self.kinds[kind] += 1
        if len(self.examples[kind]) < EXAMPLES:
            self.examples[kind].append(task_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "failed": self.failed,
            **{k: self.kinds.get(k, 0) for k in KINDS},
            "examples": {k: list(v) for k, v in self.examples.items()},
        }


def _twin_key(result: dict[str, Any]) -> tuple:
    return (
        result.get("task_id"),
        result.get("arch"),
        result.get("model"),
        bool(result.get("constrained", True)),
        int(result.get("seed") or 0),
    )


def attributions(results: list[dict[str, Any]]) -> list[str | None]:
    """The kind of failure of each of ``results`` (None for ``ok``), cot's Obf results
    paired with the NL result of the same task, model, constraint and seed."""
    nl = {_twin_key(r): r for r in results if r.get("presentation") == "nl"}
    return [attribute(r, nl.get(_twin_key(r))) for r in results]


def failures(items: list[tuple[Any, dict[str, Any]]]) -> dict[Any, CellFailures]:
    """Per cell, the attributed failures of ``items`` ((cell, result) pairs)."""
    out: dict[Any, CellFailures] = {}
    for (cell, result), kind in zip(items, attributions([r for _, r in items])):
        if kind is not None:
            out.setdefault(cell, CellFailures()).add(kind, str(result.get("task_id")))
    return out
