"""The run store: one SQLite file (WAL) per run directory holding every LLM call and every
pipeline result, so that a run killed at any moment (even SIGKILL) and restarted loses no
finished result and repeats no finished call.

:class:`RunStore` is the call cache of :mod:`scir.llm.cache` (calls, tool results; the file
opened, its schema made or migrated by :mod:`scir.llm.store_db`) with the run's other tables.
Results are keyed by (task_id, arch, presentation, model, constrained, seed) and read back as
dicts (:meth:`RunStore.results`) or as :class:`~scir.pipelines.result.PipelineResult` records
(:meth:`RunStore.records`); ``trajectories`` hold the SR agent's iterations. The ``plan``
table holds what an experiment set out to run (cells and their planned task counts), so that a
report can tell a finished cell from an incomplete one. A schema-1 store (results keyed without
constrained and seed) is migrated in place when opened for writing: its results keep their
values with ``constrained`` 1 and ``seed`` 0.

Every write is its own committed transaction, made as soon as the result is finished; a write
that fails is rolled back by SQLite and raised as one StoreError. Every row read is checked
(:mod:`scir.runs.rows`): a damaged one is a StoreError naming the store, the table and the row.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from scir.errors import StoreError
from scir.llm.cache import STORE_NAME, CallCache
from scir.llm.store_rows import to_json
from scir.pipelines.result import PipelineResult
from scir.runs.rows import (
    RESULT_KEY,
    read_invocation,
    read_plan,
    read_provenance,
    read_result,
    read_trajectory,
)

__all__ = ["RESULT_KEY", "STORE_NAME", "RunStore", "result_key"]


class RunStore(CallCache):
    """A run's SQLite store: its calls, results, trajectories, plan and invocations; safe to
    share between threads of one process."""

    # ---- results -------------------------------------------------------------------------------
    def put_result(self, result: dict[str, Any]) -> None:
        """Store (or replace) one pipeline result, given as its JSON-ready dict."""
        key = result_key(result)
        self._write(
            "INSERT OR REPLACE INTO results (task_id, arch, presentation, model, constrained, "
            "seed, status, correct, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*key, result["status"], int(bool(result["correct"])), to_json(result), time.time()),
        )

    def get_result(
        self,
        task_id: str,
        arch: str,
        presentation: str,
        model: str,
        constrained: bool = True,
        seed: int = 0,
    ) -> dict[str, Any] | None:
        """One stored result, or None."""
        rows = self._select(
            "results",
            "SELECT rowid, result FROM results WHERE task_id = ? AND arch = ? AND "
            "presentation = ? AND model = ? AND constrained = ? AND seed = ?",
            (task_id, arch, presentation, model, int(bool(constrained)), seed),
        )
        found = self._rows("results", rows, read_result)
        return found[0] if found else None

    def results(
        self,
        arch: str | None = None,
        presentation: str | None = None,
        model: str | None = None,
        constrained: bool | None = None,
        seed: int | None = None,
    ) -> list[dict[str, Any]]:
        """Stored results, optionally filtered, in key order (:data:`RESULT_KEY`); statuses
        read in the current vocabulary (:func:`scir.outcomes.status.normalise`)."""
        clauses, params = [], []
        for column, value in (
            ("arch", arch),
            ("presentation", presentation),
            ("model", model),
            ("constrained", None if constrained is None else int(constrained)),
            ("seed", seed),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._select(
            "results",
            f"SELECT rowid, result FROM results{where} ORDER BY {', '.join(RESULT_KEY)}",
            tuple(params),
        )
        return self._rows("results", rows, read_result)

    def get_record(
        self,
        task_id: str,
        arch: str,
        presentation: str,
        model: str,
        constrained: bool = True,
        seed: int = 0,
    ) -> PipelineResult | None:
        """:meth:`get_result` as a typed record, or None."""
        data = self.get_result(task_id, arch, presentation, model, constrained, seed)
        return None if data is None else PipelineResult.from_dict(data)

    def records(
        self,
        arch: str | None = None,
        presentation: str | None = None,
        model: str | None = None,
        constrained: bool | None = None,
        seed: int | None = None,
    ) -> list[PipelineResult]:
        """:meth:`results` as typed records (fields the record does not know are left out)."""
        return [
            PipelineResult.from_dict(data)
            for data in self.results(arch, presentation, model, constrained, seed)
        ]

    # ---- agent trajectories ------------------------------------------------------------------
    def put_trajectory(self, key: dict[str, Any], iteration: int, record: dict[str, Any]) -> None:
        """Store (or replace) one iteration of an agent's run on a task; ``key`` holds
        task_id, arch, presentation, model and seed."""
        self._write(
            "INSERT OR REPLACE INTO trajectories VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key["task_id"],
                key["arch"],
                key["presentation"],
                key["model"],
                int(key["seed"]),
                int(iteration),
                to_json(record),
                time.time(),
            ),
        )

    def trajectories(
        self, arch: str | None = None, skip: Callable[[StoreError], None] | None = None
    ) -> list[dict[str, Any]]:
        """The stored iterations (of one arch, or all), ordered by task, cell and iteration;
        a damaged one is a StoreError, or handed to ``skip`` and left out."""
        where, params = ("WHERE arch = ?", (arch,)) if arch is not None else ("", ())
        rows = self._select(
            "trajectories",
            f"SELECT rowid, record FROM trajectories {where} "
            "ORDER BY task_id, arch, presentation, model, seed, iteration",
            params,
        )
        return self._rows("trajectories", rows, read_trajectory, skip)

    # ---- the plan of an experiment -------------------------------------------------------
    def put_plan(self, cell: dict[str, Any], planned: int) -> None:
        """Record that ``planned`` tasks are to be run in ``cell`` (a JSON-ready dict of the
        cell's key fields; replaces an earlier count for the same cell)."""
        self._write(
            "INSERT OR REPLACE INTO plan VALUES (?, ?, ?)",
            (json.dumps(cell, sort_keys=True), int(planned), time.time()),
        )

    def plan(self) -> list[tuple[dict[str, Any], int]]:
        """The planned cells and task counts, in the order of their keys."""
        rows = self._select("plan", "SELECT rowid, cell, planned FROM plan ORDER BY cell")
        return self._rows("plan", rows, read_plan)

    # ---- bookkeeping -------------------------------------------------------------------------
    def log_invocation(
        self, config: dict[str, Any], provenance: dict[str, Any] | None = None
    ) -> None:
        """Record one command invocation in the run: its settings and what produced it
        (:func:`scir.provenance.probe` with the models' identities; None: not known)."""
        self._write(
            "INSERT INTO invocations (started_at, config, provenance) VALUES (?, ?, ?)",
            (
                time.time(),
                json.dumps(config, sort_keys=True),
                None if provenance is None else to_json(provenance),
            ),
        )

    def invocations(self) -> list[dict[str, Any]]:
        """The recorded invocations' settings (with ``started_at``), oldest first."""
        rows = self._select(
            "invocations", "SELECT rowid, started_at, config FROM invocations ORDER BY id"
        )
        return self._rows("invocations", rows, read_invocation)

    def provenances(self) -> list[dict[str, Any] | None]:
        """What produced each recorded invocation (:meth:`log_invocation`), oldest first; None
        for an invocation recorded before provenance was (or without it)."""
        rows = self._select("invocations", "SELECT rowid, provenance FROM invocations ORDER BY id")
        return self._rows("invocations", rows, read_provenance)


def result_key(result: dict[str, Any]) -> tuple:
    """The run-store key of a result dict (:data:`RESULT_KEY`; constrained and seed default
    to True and 0, as in results stored before they were recorded)."""
    return (
        result["task_id"],
        result["arch"],
        result["presentation"],
        result["model"],
        bool(result.get("constrained", True)),
        int(result.get("seed", 0)),
    )
