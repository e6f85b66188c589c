"""The call cache of a run store: one SQLite file (WAL) per run directory, of which this
module reads and writes the calls -- every LLM call and every tool call -- so that a run killed
at any moment (even SIGKILL) and restarted repeats no finished call. The rest of the file (the
pipelines' results, the agent's trajectories, the plan, the invocations) is
:class:`scir.runs.store.RunStore`'s, a :class:`CallCache` with those tables.

Calls are keyed by :func:`scir.llm.base.request_key` -- sha256 of (backend, model, messages,
constraint, params) -- and store the response text, tokens, latency, cost and time; a call's
messages are stored once per conversation, not once per call (``texts``, content-addressed;
:mod:`scir.llm.store_db`), so a store grows with the text written, not with its square. Tool
results (``tool_results``, e.g. the SR agent's analyzer and evaluator) are keyed by their
caller's digest of (tool, input, data, limits), and ``tool_attempts`` counts the starts of
those not finished. The file is opened, and its schema made or migrated, by
:mod:`scir.llm.store_db`.

Every write is its own committed transaction (autocommit, ``synchronous=FULL``), made as soon
as the call is finished; a write that fails (disk full, I/O error) is rolled back by SQLite and
raised as one StoreError, so the store keeps exactly what it held before. Only finished
completions are stored: a backend that fails (BackendError, a cancelled call) stores nothing.
Readers open a store ``readonly`` (nothing written: a run on a read-only mount can be read).
Every row read is checked (:mod:`scir.llm.store_rows`): a damaged one is a StoreError naming
the store, the table and the row.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from scir.errors import ConfigError, StoreError
from scir.llm.base import Backend, LLMRequest, LLMResponse, cut_response, request_key, valid_text
from scir.llm.store_db import open_readonly, open_writable
from scir.llm.store_rows import (
    BadRow,
    damaged,
    load_object,
    read_attempts,
    read_call,
    read_tool_output,
    to_json,
)

STORE_NAME = "run.sqlite"
_CALL_COLUMNS = (
    "backend, model, text, prompt_tokens, completion_tokens, latency_s, cost_usd, "
    "finish_reason, tool_calls"
)


class CallCache:
    """The calls of a run's SQLite store; safe to share between threads of one process."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """Open the store at ``path`` (a run folder or a ``.sqlite`` file): for writing
        (created if needed), or ``readonly`` (it must exist; nothing is written to it)."""
        path = Path(path)
        if path.suffix != ".sqlite":
            if not readonly:
                path.mkdir(parents=True, exist_ok=True)
            path = path / STORE_NAME
        elif not readonly:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.readonly = readonly
        self._lock = threading.Lock()
        if readonly and not path.is_file():
            raise ConfigError("no run store here", file=str(path))
        try:
            self._db = open_readonly(path) if readonly else open_writable(path)
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"cannot open run store: {exc}", file=str(path)) from exc

    # ---- reading and writing rows -------------------------------------------------------------
    def _select(self, table: str, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, bindable(params)).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read table {table}: {exc}", file=str(self.path)) from exc

    def _rows(
        self,
        table: str,
        rows: list[tuple],
        read: Callable[..., Any],
        skip: Callable[[StoreError], None] | None = None,
    ) -> list[Any]:
        """``read`` of each row (``(rowid, *values)``); a damaged row is a StoreError, or is
        handed to ``skip`` and left out."""
        out = []
        for rowid, *values in rows:
            try:
                out.append(read(*values))
            except BadRow as exc:
                error = damaged(self.path, table, rowid, str(exc))
                if skip is None:
                    raise error from exc
                skip(error)
        return out

    def _write(self, sql: str, params: tuple) -> None:
        """One committed write; a failure leaves the store as it was and is a StoreError."""
        self._transaction([(sql, params)])

    def _transaction(self, statements: list[tuple[str, tuple]]) -> None:
        """Writes committed together, or not at all (a StoreError)."""
        if self.readonly:
            raise StoreError("the run store is open read-only", file=str(self.path))
        with self._lock:
            many = len(statements) > 1
            try:
                if many:
                    self._db.execute("BEGIN IMMEDIATE")
                for sql, params in statements:
                    self._db.execute(sql, bindable(params))
                if many:
                    self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                if many and self._db.in_transaction:
                    try:
                        self._db.execute("ROLLBACK")
                    except sqlite3.DatabaseError:
                        pass  # SQLite rolls the journal back when next opened
                raise store_error(exc, self.path) from exc

    # ---- calls -------------------------------------------------------------------------------
    def get_call(self, key: str) -> LLMResponse | None:
        """The stored response of a call, or None."""
        rows = self._select(
            "calls", f"SELECT rowid, {_CALL_COLUMNS} FROM calls WHERE key = ?", (key,)
        )
        found = self._rows("calls", rows, read_call)
        return found[0] if found else None

    def put_call(self, key: str, request: LLMRequest, response: LLMResponse) -> None:
        """Store a finished call (committed before returning; a second copy is ignored): the
        messages in ``texts`` (each once), the request with their digests, the response."""
        data = request.key_dict()
        messages = [to_json(m) for m in data.pop("messages")]
        refs = [hashlib.sha256(m.encode("utf-8")).hexdigest() for m in messages]
        data["message_refs"] = refs
        tools = to_json([c.to_dict() for c in response.tool_calls]) if response.tool_calls else None
        statements: list[tuple[str, tuple[Any, ...]]]
        statements = [
            ("INSERT OR IGNORE INTO texts (hash, text) VALUES (?, ?)", (h, m))
            for h, m in dict(zip(refs, messages)).items()
        ]
        statements.append(
            (
                "INSERT OR IGNORE INTO calls (key, backend, model, request, text, prompt_tokens, "
                "completion_tokens, latency_s, cost_usd, finish_reason, created_at, tool_calls) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.backend,
                    response.model,
                    to_json(data),
                    response.text,
                    response.prompt_tokens,
                    response.completion_tokens,
                    response.latency_s,
                    response.cost_usd,
                    response.raw_finish_reason,
                    time.time(),
                    tools,
                ),
            )
        )
        self._transaction(statements)

    def calls(self, backend: str, model: str) -> dict[str, LLMResponse]:
        """Every stored call of one backend and model: key -> response (``cached`` set), e.g.
        to serve them to workers of another process or machine."""
        rows = self._select(
            "calls",
            f"SELECT rowid, key, {_CALL_COLUMNS} FROM calls WHERE backend = ? AND model = ?",
            (backend, model),
        )
        return dict(self._rows("calls", rows, lambda key, *row: (key, read_call(*row))))

    def call_count(self) -> int:
        """How many calls are stored."""
        return self._select("calls", "SELECT COUNT(*) FROM calls")[0][0]

    def call_totals(self) -> tuple[int, int, float]:
        """(calls, prompt + completion tokens, cost in USD) of every stored call."""
        ((n, tokens, cost),) = self._select(
            "calls",
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0.0) FROM calls",
        )
        return int(n), int(tokens), float(cost)

    def call_requests(self) -> list[dict[str, Any]]:
        """The stored requests (messages, constraint, params), in key order."""
        rows = self._select("calls", "SELECT rowid, request FROM calls ORDER BY key")
        return self._rows("calls", rows, self._request)

    def _request(self, text: Any) -> dict[str, Any]:
        data = load_object(text, "request")
        refs = data.pop("message_refs", None)
        if refs is None:
            return data
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            raise BadRow("request field 'message_refs' is not a list of digests")
        texts = dict(
            self._select(
                "texts",
                f"SELECT hash, text FROM texts WHERE hash IN ({', '.join('?' * len(refs))})",
                tuple(refs),
            )
        )
        missing = next((r for r in refs if r not in texts), None)
        if missing is not None:
            raise BadRow(f"request names message {missing[:16]}..., which is not in texts")
        data["messages"] = [load_object(texts[r], f"message {r[:16]}...") for r in refs]
        return data

    # ---- tool results ----------------------------------------------------------------------------
    def get_tool(
        self, key: str, check: Callable[[dict[str, Any]], None] | None = None
    ) -> dict[str, Any] | None:
        """The stored output of a tool call (e.g. the SR agent's analyzer), or None;
        ``check`` (the tool's) raises BadRow when the output does not have its shape."""

        def read(text: Any) -> dict[str, Any]:
            output = read_tool_output(text)
            if check is not None:
                check(output)
            return output

        rows = self._select(
            "tool_results", "SELECT rowid, output FROM tool_results WHERE key = ?", (key,)
        )
        found = self._rows("tool_results", rows, read)
        return found[0] if found else None

    def put_tool(
        self, key: str, tool: str, request: dict[str, Any], output: dict[str, Any]
    ) -> None:
        """Store a finished tool call (committed before returning; a second copy is ignored)."""
        self._write(
            "INSERT OR IGNORE INTO tool_results VALUES (?, ?, ?, ?, ?)",
            (key, tool, to_json(request), to_json(output), time.time()),
        )

    def tool_attempts(self, key: str) -> int:
        """How many times a tool call was started (:meth:`start_tool`)."""
        rows = self._select(
            "tool_attempts", "SELECT rowid, attempts FROM tool_attempts WHERE key = ?", (key,)
        )
        found = self._rows("tool_attempts", rows, read_attempts)
        return found[0] if found else 0

    def start_tool(self, key: str, tool: str) -> None:
        """Record that a tool call starts (committed before it runs: a call that kills the
        process is seen by the next run)."""
        self._write(
            "INSERT INTO tool_attempts (key, tool, attempts, started_at) VALUES "
            "(?, ?, 1, ?) ON CONFLICT(key) DO UPDATE SET attempts = attempts + 1, "
            "started_at = excluded.started_at",
            (key, tool, time.time()),
        )

    def retract_tool_start(self, key: str) -> None:
        """Take back one start of a tool call (it was stopped by the user, not by the tool)."""
        self._write(
            "UPDATE tool_attempts SET attempts = MAX(attempts - 1, 0) WHERE key = ?", (key,)
        )

    def tool_count(self, tool: str | None = None) -> int:
        """How many tool calls are stored (of one tool, or all)."""
        where, params = ("WHERE tool = ?", (tool,)) if tool is not None else ("", ())
        return self._select("tool_results", f"SELECT COUNT(*) FROM tool_results {where}", params)[
            0
        ][0]

    # ---- bookkeeping -------------------------------------------------------------------------
    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def bindable(params: tuple) -> tuple:
    """Query parameters SQLite takes: text with lone surrogates replaced (U+FFFD)."""
    return tuple(valid_text(p) if isinstance(p, str) else p for p in params)


def store_error(exc: sqlite3.DatabaseError, path: Path) -> StoreError:
    """The one-line error for a failed write."""
    why = str(exc)
    if "full" in why:
        hint = "free some space and run the same command again; finished work is kept"
    else:
        hint = "the store keeps what it held before this write"
    return StoreError(f"cannot write the run store: {why} ({hint})", file=str(path))


def cached_complete(backend: Backend, request: LLMRequest, store: CallCache) -> LLMResponse:
    """Serve a call from the store, or run it on the backend and store it before returning.

    Failed calls (BackendError) are not stored, so a restarted run tries them again. A response
    longer than the request's ``max_response_chars`` is cut (:func:`scir.llm.base.cut_response`)
    before it is stored and returned.
    """
    key = request_key(backend, request)
    hit = store.get_call(key)
    if hit is not None:
        return cut_response(hit, request.max_response_chars)
    response = cut_response(backend.complete(request), request.max_response_chars)
    store.put_call(key, request, response)
    return response


class CachingBackend(Backend):
    """A backend whose every call goes through a call cache; counts calls made and served."""

    def __init__(self, inner: Backend, store: CallCache) -> None:
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
