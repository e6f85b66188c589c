"""``scir export FILE [FILE ...] --format scir -o OUT.json``: one JSON array.

Each record starts with the SciR release's seven fields (:data:`SCIR_FIELDS`, in the
release's order) and goes on with what a task needs to be used alone (:data:`EXTRA_FIELDS`):
the question and options a causal letter refers to, the answer pool an induction answer is
scored against, the chance levels and the scoring rule. :func:`record_task` turns a record
back into a task that the track's scorer (``Track.scorer()``) scores exactly as the full task.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scir.errors import TaskFormatError
from scir.tasks import SCHEMA_VERSION, Task
from scir.tracks import get_track

SCIR_FIELDS = (
    "task_id",
    "domain",
    "tier",
    "problem_nl",
    "problem_obfuscated",
    "answer",
    "domain_metadata",
)
EXTRA_FIELDS = (
    "difficulty",
    "question",
    "options",
    "answer_pool",
    "scoring",
    "chance",
    "chance_constrained",
)


def record(task: Task) -> dict[str, Any]:
    """The record of one task: the release's fields, then :data:`EXTRA_FIELDS`."""
    data = task.to_dict()
    data["scoring"] = get_track(task.domain).scorer().rule_of(task)
    return {k: data[k] for k in SCIR_FIELDS + EXTRA_FIELDS}


def export_scir(tasks: list[Task], out: Path) -> int:
    """The records of ``tasks`` as one JSON array in the file ``out``."""
    rows = [record(t) for t in tasks]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 1


def record_task(data: dict[str, Any]) -> Task:
    """A task rebuilt from a record (of this export or a row of the hf export): enough to
    score answers (question, options, answer, pool, chance, metadata); no formal object, so
    not enough to verify or solve symbolically. TaskFormatError for a record that lacks a
    field or has a wrong type."""
    try:
        fields = {
            k: data[k]
            for k in (
                "task_id",
                "domain",
                "difficulty",
                "tier",
                "question",
                "answer",
                "answer_pool",
                "chance",
                "options",
            )
        }
    except (KeyError, TypeError) as exc:
        raise TaskFormatError(
            f"a release record needs the field {exc}", field=str(exc).strip("'")
        ) from exc
    metadata = data.get("domain_metadata") or {}
    if isinstance(metadata, str):  # the hf export stores it as JSON text
        from scir.bounded import parse_json
        from scir.jsonl import MAX_DEPTH

        try:
            metadata = parse_json(metadata, error=TaskFormatError, max_depth=MAX_DEPTH)
        except TaskFormatError as exc:
            raise TaskFormatError(
                f"domain_metadata is not JSON: {exc.message}", field="domain_metadata"
            ) from None
    constrained = data.get("chance_constrained")
    return Task.from_dict(
        {
            **fields,
            "schema_version": SCHEMA_VERSION,
            "seed": 0,
            "params": {},
            "formal": {},
            "blocks": [],
            "domain_metadata": metadata,
            "chance_constrained": fields["chance"] if constrained is None else constrained,
        },
        check=None,
    )
