"""NS with a backup answer (Logic-LM's backup): the one place that says what "with backup"
counts.

An ``ns`` result run with ``backup = "cot"`` keeps its own outcome (status, answer, verdict,
formalization, solver log) and, when no formalization attempt got an answer from the solver,
the backup's answer in its ``backup_*`` fields (:class:`scir.pipelines.result.PipelineResult`).
*Without backup* a task counts as the solver's verdict alone (the result as stored); *with
backup* (:func:`with_backup`) a task whose backup was used counts as the backup's status and
verdict instead. A report shows the second view as its own cell, the ns cell's key with
``backup`` set (row ``ns+backup``).
"""

from __future__ import annotations

from typing import Any


def arch_label(arch: str, backup: str) -> str:
    """The architecture as reports name it: ``ns+backup`` for the with-backup view."""
    return f"{arch}+backup" if backup else arch


def backup_of(result: dict[str, Any]) -> str:
    """The backup a result was run with (``""``: none; results stored before backups existed
    have none)."""
    return result.get("backup") or ""


def used(result: dict[str, Any]) -> bool:
    """Whether the result's answer came from the backup in the with-backup view."""
    return bool(result.get("backup_used"))


def with_backup(result: dict[str, Any]) -> dict[str, Any]:
    """The result as the with-backup view counts it: a result whose backup was used has the
    backup's answer, verdict and status; any other result is returned as it is."""
    if not used(result):
        return result
    return {
        **result,
        "answer": result.get("backup_answer"),
        "correct": bool(result.get("backup_correct")),
        "status": result["backup_status"],
    }
