"""Causal exports: the data of each task as CSV, readable by ``python -m solvers.gies``.

Per task, into the output folder:

- ``<task_id>.csv``: an ``environment`` column, then one column per protein in the task's column
  order (``formal.columns``), one row per cell; values printed with the task's precision.
- ``<task_id>.json``: the task's nodes, new protein, known edges, options and, per environment,
  its intervention targets and kind.
- ``<task_id>.targets.json``: only environment -> targets, the ``--targets`` file of
  ``python -m solvers.gies <task_id>.csv --env-column environment --targets <task_id>.targets.json``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from scir.outputs import contained
from scir.tasks import Task
from scir.tracks.base import load_formal
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.scm import DECIMALS

ENV_COLUMN = "environment"


def _formal(task: Task) -> CausalFormal:
    return load_formal(CausalFormal, task)


def csv_rows(task: Task) -> list[list[str]]:
    """The CSV of a task as rows of strings, header first."""
    formal = _formal(task)
    out = [[ENV_COLUMN, *formal.column_order]]
    for env in formal.environments:
        for row in env.rows:
            out.append([env.name, *(f"{v:.{DECIMALS}f}" for v in row)])
    return out


def metadata(task: Task) -> dict[str, Any]:
    """The ``<task_id>.json`` content (everything but the data and the answer)."""
    formal = _formal(task)
    return {
        "task_id": task.task_id,
        "nodes": list(formal.nodes),
        "columns": list(formal.column_order),
        "new_protein": task.domain_metadata.get("new_protein", "XYZ"),
        "known_edges": [list(e) for e in formal.known_edges],
        "environments": [
            {"name": e.name, "kind": e.kind, "targets": list(e.targets), "rows": len(e.rows)}
            for e in formal.environments
        ],
        "targets": {e.name: list(e.targets) for e in formal.environments},
        "options": list(task.options),
    }


def export_csv(tasks: list[Task], out_dir: Path) -> int:
    """Write ``<task_id>.csv``, ``<task_id>.json`` and ``<task_id>.targets.json`` per task into
    ``out_dir`` (paths checked to stay inside it: :func:`scir.outputs.contained`); returns the
    number of files written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for task in tasks:
        rows, meta = csv_rows(task), metadata(task)

        def path(suffix: str, task_id: str = task.task_id) -> Path:
            return contained(out_dir, f"{task_id}{suffix}", task_id=task_id)

        with path(".csv").open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
        path(".json").write_text(
            json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        path(".targets.json").write_text(
            json.dumps(meta["targets"], ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written += 3
    return written
