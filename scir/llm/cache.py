"""The run store: one SQLite file (WAL) per run directory holding every LLM call and every
pipeline result, so that a run killed at any moment (even SIGKILL) and restarted loses no
finished result and repeats no finished call.

Calls are keyed by :func:`scir.llm.base.request_key` -- sha256 of (backend, model, messages,
constraint, params) -- and store the response text, tokens, latency, cost and time. Results are
keyed by (task_id, arch, presentation, model, constrained, seed). Tool results (``tool_results``,
e.g. the SR agent's analyzer and evaluator) are keyed by their caller's digest of (tool, input,
data, limits); ``trajectories`` hold the SR agent's iterations. The ``plan`` table holds what
an experiment set out to run (cells and their planned task counts), so that a report can tell
a finished cell from an incomplete one. A schema-1 store (results keyed without constrained and
seed) is migrated in place on opening: its results keep their values with ``constrained`` 1
and ``seed`` 0. Every write is its own committed transaction
(autocommit, ``synchronous=FULL``), made as soon as the call or result is finished; a write that
fails (disk full, I/O error) is rolled back by SQLite and raised as one StoreError, so the store
keeps exactly what it held before. Only finished completions are stored: a backend that fails
(BackendError, a cancelled call) stores nothing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from scir.errors import ConfigError, StoreError
from scir.llm.base import Backend, LLMRequest, LLMResponse, ToolCall, request_key

STORE_NAME = "run.sqlite"
SCHEMA_VERSION = 2
RESULT_KEY = ("task_id", "arch", "presentation", "model", "constrained", "seed")

_RESULTS_TABLE = """
CREATE TABLE IF NOT EXISTS results (
    task_id TEXT NOT NULL,
    arch TEXT NOT NULL,
    presentation TEXT NOT NULL,
    model TEXT NOT NULL,
    constrained INTEGER NOT NULL DEFAULT 1,
    seed INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    correct INTEGER NOT NULL,
    result TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (task_id, arch, presentation, model, constrained, seed)
);
"""
_SCHEMA = _RESULTS_TABLE + """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    cost_usd REAL NOT NULL,
    finish_reason TEXT,
    created_at REAL NOT NULL,
    tool_calls TEXT
);
CREATE TABLE IF NOT EXISTS plan (
    cell TEXT PRIMARY KEY,
    planned INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_results (
    key TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    request TEXT NOT NULL,
    output TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS trajectories (
    task_id TEXT NOT NULL,
    arch TEXT NOT NULL,
    presentation TEXT NOT NULL,
    model TEXT NOT NULL,
    seed INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    record TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (task_id, arch, presentation, model, seed, iteration)
);
CREATE TABLE IF NOT EXISTS invocations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at REAL NOT NULL,
    config TEXT NOT NULL
);
"""


class RunStore:
    """A run's SQLite store; safe to share between threads of one process."""

    def __init__(self, path: str | Path) -> None:
        """Open (creating if needed) the store at ``path``: a run folder or a ``.sqlite`` file."""
        path = Path(path)
        if path.suffix != ".sqlite":
            path.mkdir(parents=True, exist_ok=True)
            path = path / STORE_NAME
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                       timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, 1, SCHEMA_VERSION):
                raise ConfigError(f"run store schema {version} is not supported (this toolkit "
                                  f"writes {SCHEMA_VERSION})", file=str(path))
            if version == 1:
                _migrate_v1(self._db)
            self._db.executescript(_SCHEMA)
            _add_tool_calls_column(self._db)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"cannot open run store: {exc}", file=str(path)) from exc

    def _write(self, sql: str, params: tuple) -> None:
        """One committed write; a failure leaves the store as it was and is a StoreError."""
        with self._lock:
            try:
                self._db.execute(sql, params)
            except sqlite3.DatabaseError as exc:
                raise _store_error(exc, self.path) from exc

    # ---- calls -------------------------------------------------------------------------------
    def get_call(self, key: str) -> LLMResponse | None:
        """The stored response of a call, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT backend, model, text, prompt_tokens, completion_tokens, latency_s, "
                "cost_usd, finish_reason, tool_calls FROM calls WHERE key = ?",
                (key,)).fetchone()
        if row is None:
            return None
        backend, model, text, pt, ct, latency, cost, finish, tools = row
        return LLMResponse(text=text, prompt_tokens=pt, completion_tokens=ct, latency_s=latency,
                           cost_usd=cost, raw_finish_reason=finish, backend=backend, model=model,
                           cached=True, tool_calls=_tool_calls(tools))

    def put_call(self, key: str, request: LLMRequest, response: LLMResponse) -> None:
        """Store a finished call (committed before returning; a second copy is ignored)."""
        tools = (json.dumps([c.to_dict() for c in response.tool_calls], ensure_ascii=False)
                 if response.tool_calls else None)
        self._write(
            "INSERT OR IGNORE INTO calls (key, backend, model, request, text, prompt_tokens, "
            "completion_tokens, latency_s, cost_usd, finish_reason, created_at, tool_calls) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, response.backend, response.model,
             json.dumps(request.key_dict(), ensure_ascii=False), response.text,
             response.prompt_tokens, response.completion_tokens, response.latency_s,
             response.cost_usd, response.raw_finish_reason, time.time(), tools))

    def calls(self, backend: str, model: str) -> dict[str, LLMResponse]:
        """Every stored call of one backend and model: key -> response (``cached`` set), e.g.
        to serve them to workers of another process or machine."""
        with self._lock:
            rows = self._db.execute(
                "SELECT key, text, prompt_tokens, completion_tokens, latency_s, cost_usd, "
                "finish_reason, tool_calls FROM calls WHERE backend = ? AND model = ?",
                (backend, model)).fetchall()
        return {key: LLMResponse(text=text, prompt_tokens=pt, completion_tokens=ct,
                                 latency_s=latency, cost_usd=cost, raw_finish_reason=finish,
                                 backend=backend, model=model, cached=True,
                                 tool_calls=_tool_calls(tools))
                for key, text, pt, ct, latency, cost, finish, tools in rows}

    def call_count(self) -> int:
        """How many calls are stored."""
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    def call_totals(self) -> tuple[int, int, float]:
        """(calls, prompt + completion tokens, cost in USD) of every stored call."""
        with self._lock:
            n, tokens, cost = self._db.execute(
                "SELECT COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0), "
                "COALESCE(SUM(cost_usd), 0.0) FROM calls").fetchone()
        return int(n), int(tokens), float(cost)

    def call_requests(self) -> list[dict[str, Any]]:
        """The stored requests (messages, constraint, params), in key order."""
        with self._lock:
            rows = self._db.execute("SELECT request FROM calls ORDER BY key").fetchall()
        return [json.loads(r[0]) for r in rows]

    # ---- results -----------------------------------------------------------------------------
    def put_result(self, result: dict[str, Any]) -> None:
        """Store (or replace) one pipeline result, given as its JSON-ready dict."""
        key = result_key(result)
        self._write(
            "INSERT OR REPLACE INTO results (task_id, arch, presentation, model, constrained, "
            "seed, status, correct, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*key, result["status"], int(bool(result["correct"])),
             json.dumps(result, ensure_ascii=False, sort_keys=True), time.time()))

    def get_result(self, task_id: str, arch: str, presentation: str, model: str,
                   constrained: bool = True, seed: int = 0) -> dict[str, Any] | None:
        """One stored result, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT result FROM results WHERE task_id = ? AND arch = ? AND presentation = ? "
                "AND model = ? AND constrained = ? AND seed = ?",
                (task_id, arch, presentation, model, int(bool(constrained)), seed)).fetchone()
        return None if row is None else _stored(row[0])

    def results(self, arch: str | None = None, presentation: str | None = None,
                model: str | None = None, constrained: bool | None = None,
                seed: int | None = None) -> list[dict[str, Any]]:
        """Stored results, optionally filtered, in key order (:data:`RESULT_KEY`); statuses
        read in the current vocabulary (:func:`scir.evaluate.status.normalise`)."""
        clauses, params = [], []
        for column, value in (("arch", arch), ("presentation", presentation), ("model", model),
                              ("constrained", None if constrained is None else int(constrained)),
                              ("seed", seed)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT result FROM results{where} ORDER BY {', '.join(RESULT_KEY)}",
                params).fetchall()
        return [_stored(r[0]) for r in rows]

    # ---- tool results and agent trajectories ------------------------------------------------
    def get_tool(self, key: str) -> dict[str, Any] | None:
        """The stored output of a tool call (e.g. the SR agent's analyzer), or None."""
        with self._lock:
            row = self._db.execute("SELECT output FROM tool_results WHERE key = ?",
                                   (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_tool(self, key: str, tool: str, request: dict[str, Any],
                 output: dict[str, Any]) -> None:
        """Store a finished tool call (committed before returning; a second copy is ignored)."""
        self._write("INSERT OR IGNORE INTO tool_results VALUES (?, ?, ?, ?, ?)",
                    (key, tool, json.dumps(request, ensure_ascii=False, sort_keys=True),
                     json.dumps(output, ensure_ascii=False, sort_keys=True), time.time()))

    def tool_count(self, tool: str | None = None) -> int:
        """How many tool calls are stored (of one tool, or all)."""
        where, params = ("WHERE tool = ?", (tool,)) if tool is not None else ("", ())
        with self._lock:
            return self._db.execute(f"SELECT COUNT(*) FROM tool_results {where}",
                                    params).fetchone()[0]

    def put_trajectory(self, key: dict[str, Any], iteration: int,
                       record: dict[str, Any]) -> None:
        """Store (or replace) one iteration of an agent's run on a task; ``key`` holds
        task_id, arch, presentation, model and seed."""
        self._write("INSERT OR REPLACE INTO trajectories VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (key["task_id"], key["arch"], key["presentation"], key["model"],
                     int(key["seed"]), int(iteration),
                     json.dumps(record, ensure_ascii=False, sort_keys=True), time.time()))

    def trajectories(self, arch: str | None = None) -> list[dict[str, Any]]:
        """The stored iterations (of one arch, or all), ordered by task, cell and iteration."""
        where, params = ("WHERE arch = ?", (arch,)) if arch is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT record FROM trajectories {where} ORDER BY task_id, arch, "
                "presentation, model, seed, iteration", params).fetchall()
        return [json.loads(r[0]) for r in rows]

    # ---- the plan of an experiment -------------------------------------------------------
    def put_plan(self, cell: dict[str, Any], planned: int) -> None:
        """Record that ``planned`` tasks are to be run in ``cell`` (a JSON-ready dict of the
        cell's key fields; replaces an earlier count for the same cell)."""
        self._write("INSERT OR REPLACE INTO plan VALUES (?, ?, ?)",
                    (json.dumps(cell, sort_keys=True), int(planned), time.time()))

    def plan(self) -> list[tuple[dict[str, Any], int]]:
        """The planned cells and task counts, in the order of their keys."""
        with self._lock:
            rows = self._db.execute("SELECT cell, planned FROM plan ORDER BY cell").fetchall()
        return [(json.loads(c), n) for c, n in rows]

    # ---- bookkeeping -------------------------------------------------------------------------
    def log_invocation(self, config: dict[str, Any]) -> None:
        """Record one command invocation (its settings) in the run."""
        self._write("INSERT INTO invocations (started_at, config) VALUES (?, ?)",
                    (time.time(), json.dumps(config, sort_keys=True)))

    def invocations(self) -> list[dict[str, Any]]:
        """The recorded invocations, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT started_at, config FROM invocations ORDER BY id").fetchall()
        return [{"started_at": t, **json.loads(c)} for t, c in rows]

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def result_key(result: dict[str, Any]) -> tuple:
    """The run-store key of a result dict (:data:`RESULT_KEY`; constrained and seed default
    to True and 0, as in results stored before they were recorded)."""
    return (result["task_id"], result["arch"], result["presentation"], result["model"],
            bool(result.get("constrained", True)), int(result.get("seed", 0)))


def _stored(text: str) -> dict[str, Any]:
    """A stored result with the fields added since schema 1 filled in and its status in the
    current vocabulary."""
    from scir.evaluate.status import normalise

    data = json.loads(text)
    data.setdefault("constrained", True)
    data.setdefault("seed", 0)
    return normalise(data)


def _add_tool_calls_column(db: sqlite3.Connection) -> None:
    """Give a store made before tool calls existed its ``calls.tool_calls`` column (NULL: the
    response had none); the schema version stays, as older readers ignore the column."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
    if "tool_calls" not in columns:
        db.execute("ALTER TABLE calls ADD COLUMN tool_calls TEXT")


def _tool_calls(text: str | None) -> tuple[ToolCall, ...]:
    """The stored tool calls of a response (none when NULL)."""
    if not text:
        return ()
    return tuple(ToolCall.from_dict(item) for item in json.loads(text))


def _migrate_v1(db: sqlite3.Connection) -> None:
    """Schema 1 -> 2 in one transaction: the results table gains ``constrained`` and ``seed``
    in its key (old rows: 1 and 0)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE results RENAME TO results_v1")
        db.execute(_RESULTS_TABLE)
        db.execute("INSERT INTO results (task_id, arch, presentation, model, constrained, seed, "
                   "status, correct, result, created_at) SELECT task_id, arch, presentation, "
                   "model, 1, 0, status, correct, result, created_at FROM results_v1")
        db.execute("DROP TABLE results_v1")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _store_error(exc: sqlite3.DatabaseError, path: Path) -> StoreError:
    """The one-line error for a failed write."""
    why = str(exc)
    if "full" in why:
        hint = "free some space and run the same command again; finished work is kept"
    else:
        hint = "the store keeps what it held before this write"
    return StoreError(f"cannot write the run store: {why} ({hint})", file=str(path))


def cached_complete(backend: Backend, request: LLMRequest, store: RunStore) -> LLMResponse:
    """Serve a call from the store, or run it on the backend and store it before returning.

    Failed calls (BackendError) are not stored, so a restarted run tries them again.
    """
    key = request_key(backend, request)
    hit = store.get_call(key)
    if hit is not None:
        return hit
    response = backend.complete(request)
    store.put_call(key, request, response)
    return response


class CachingBackend(Backend):
    """A backend whose every call goes through a run store; counts calls made and served."""

    def __init__(self, inner: Backend, store: RunStore) -> None:
        """Wrap ``inner`` (whose provider, model and enforced kinds it reports as its own)."""
        self.inner = inner
        self.store = store
        self.provider = inner.provider
        self.model = inner.model
        self.enforced = inner.enforced
        self.tool_calls = inner.tool_calls
        self.made = 0
        self.served = 0
        self._lock = threading.Lock()

    def complete(self, request: LLMRequest) -> LLMResponse:
        """:func:`cached_complete` on the wrapped backend."""
        response = cached_complete(self.inner, request, self.store)
        with self._lock:
            if response.cached:
                self.served += 1
            else:
                self.made += 1
        return response

    def close(self) -> None:
        """Close the wrapped backend (the store stays open)."""
        self.inner.close()
