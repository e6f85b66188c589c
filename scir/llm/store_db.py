"""Opening a run store's SQLite file: for writing (WAL, the schema made or migrated) or read-only
(nothing written, so a run on a read-only mount or with read-only permissions can be read).

Read-only (:func:`open_readonly`): the file is opened ``mode=ro``. In WAL mode SQLite also
needs the ``-shm`` index; where it cannot be created (a read-only folder) the file is opened
``immutable=1`` instead, which is right only when no write-ahead log holds changes: a non-empty
``-wal`` without its ``-shm`` is a ConfigError (copy the run folder somewhere writable), never
a silently older view. Nothing is migrated: what an older store lacks (the schema-1 result
key, the ``tool_calls`` and ``provenance`` columns, tables added since) is supplied by TEMP
views and tables of the connection, in memory.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path

from scir.errors import ConfigError

SCHEMA_VERSION = 2
TABLES = (
    "results",
    "calls",
    "plan",
    "tool_results",
    "trajectories",
    "invocations",
    "texts",
    "tool_attempts",
)

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
# calls.request holds the request without its messages and ``message_refs``: the sha256 of
# each message's JSON, whose text is in ``texts`` (a conversation's messages stored once, not
# once per call); requests stored before hold their ``messages`` inline. ``tool_attempts``
# counts the starts of tool calls that have no stored output yet (a crash or kill mid-tool).
SCHEMA = (
    _RESULTS_TABLE
    + """
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
    config TEXT NOT NULL,
    provenance TEXT
);
CREATE TABLE IF NOT EXISTS texts (
    hash TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_attempts (
    key TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    started_at REAL NOT NULL
);
"""
)


def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
    db = sqlite3.connect(
        target, uri=uri, isolation_level=None, check_same_thread=False, timeout=30.0
    )
    db.text_factory = _text  # a damaged text value reads with U+FFFD, not an error
    return db


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _version(db: sqlite3.Connection, path: Path) -> int:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version not in (0, 1, SCHEMA_VERSION):
        raise ConfigError(
            f"run store schema {version} is not supported (this toolkit writes {SCHEMA_VERSION})",
            file=str(path),
        )
    return version


def open_writable(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the store for writing: WAL, ``synchronous=FULL``, a schema-1
    store migrated, missing tables and columns added. sqlite3 errors propagate."""
    db = _connect(str(path))
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        if _version(db, path) == 1:
            _migrate_v1(db)
        db.executescript(SCHEMA)
        if "tool_calls" not in _columns(db, "calls"):
            # a store made before tool calls existed: NULL (the response had none); the
            # schema version stays, as older readers ignore the column
            db.execute("ALTER TABLE calls ADD COLUMN tool_calls TEXT")
        if "provenance" not in _columns(db, "invocations"):
            # a store made before provenance was recorded: NULL (not known) for its old
            # invocations; older readers ignore the column
            db.execute("ALTER TABLE invocations ADD COLUMN provenance TEXT")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        db.close()
        raise
    return db


def open_readonly(path: Path) -> sqlite3.Connection:
    """Open the store without writing anything to it (see the module docstring)."""
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    try:
        db = _probe(_connect(uri + "?mode=ro", uri=True))
    except sqlite3.OperationalError as exc:
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise ConfigError(
                f"cannot read the run store read-only ({exc}): its write-ahead "
                f"log {wal.name} holds changes SQLite reads only with its "
                f"{path.name}-shm file, which cannot be made here; copy the run "
                "folder somewhere writable and read the copy",
                file=str(path),
            ) from exc
        db = _probe(_connect(uri + "?mode=ro&immutable=1", uri=True))
    try:
        _temp_schema(db, _version(db, path))
    except BaseException:
        db.close()
        raise
    return db


def _probe(db: sqlite3.Connection) -> sqlite3.Connection:
    """The connection, after a first read (opening is lazy: a file SQLite cannot read, its
    WAL index included, fails here)."""
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except BaseException:
        db.close()
        raise
    return db


def _columns(db: sqlite3.Connection, table: str, schema: str = "main") -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA {schema}.table_info({table})")}


def _temp_schema(db: sqlite3.Connection, version: int) -> None:
    """What an older store lacks, as TEMP objects shadowing its tables (in memory)."""
    db.execute("PRAGMA temp_store=MEMORY")
    present = {
        row[0] for row in db.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")
    }
    for statement in SCHEMA.split(";"):
        words = statement.split()
        if len(words) > 5 and words[5] not in present:  # CREATE TABLE IF NOT EXISTS x
            db.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
    if version == 1 and "results" in present:
        db.execute(
            "CREATE TEMP VIEW results AS SELECT main.results.rowid AS rowid, task_id, "
            "arch, presentation, model, 1 AS constrained, 0 AS seed, status, correct, "
            "result, created_at FROM main.results"
        )
    if "calls" in present and "tool_calls" not in _columns(db, "calls"):
        db.execute(
            "CREATE TEMP VIEW calls AS SELECT main.calls.rowid AS rowid, *, "
            "NULL AS tool_calls FROM main.calls"
        )
    if "invocations" in present and "provenance" not in _columns(db, "invocations"):
        db.execute(
            "CREATE TEMP VIEW invocations AS SELECT main.invocations.rowid AS rowid, *, "
            "NULL AS provenance FROM main.invocations"
        )


def _migrate_v1(db: sqlite3.Connection) -> None:
    """Schema 1 -> 2 in one transaction: the results table gains ``constrained`` and ``seed``
    in its key (old rows: 1 and 0)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE results RENAME TO results_v1")
        db.execute(_RESULTS_TABLE)
        db.execute(
            "INSERT INTO results (task_id, arch, presentation, model, constrained, seed, "
            "status, correct, result, created_at) SELECT task_id, arch, presentation, "
            "model, 1, 0, status, correct, result, created_at FROM results_v1"
        )
        db.execute("DROP TABLE results_v1")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
