"""``scir rescore RUN [--tasks FILE ...]``: re-score every stored result of a run from its
answer and its task file (after a scorer changed, or a store was tampered with); no model is
called.

Each result's verdict (``correct``, ``status``, the scoring rule's ``metrics``; the backup's
``backup_correct`` and ``backup_status``) and the task fields it copies are recomputed exactly
as ``scir report`` recomputes them (:mod:`scir.reports.verdicts`), and every result whose
stored values differ -- in its JSON record or in the store's ``status`` / ``correct`` columns --
is written back (one committed write per result), under the run's lock. One line is printed
per changed result (its key and each changed field, stored -> new), then a summary. A result
whose task no file holds stops the command before anything is written (pass the task files
with ``--tasks``). ``--dry-run`` prints the changes and writes nothing.

Exit codes: 0 done (whether or not anything changed); 2 bad input, a result without a task
record, a run in use by another writer, a store that cannot be written.
"""

from __future__ import annotations

import shlex
import sqlite3
from pathlib import Path
from typing import Any

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError


def add_parser(sub) -> None:
    p = sub.add_parser(
        "rescore",
        help="re-score a run's stored results from their answers (no model call)",
        formatter_class=HelpFormatter,
        description=__doc__.split(": ", 1)[1],
        epilog="Examples:\n"
        "  scir rescore runs/gpt4o\n"
        "  scir rescore runs/old --tasks d.jsonl d.obf.jsonl --dry-run",
    )
    p.add_argument("run", help="run directory (scir solve, scir eval)")
    p.add_argument(
        "--tasks",
        nargs="+",
        action="extend",
        default=None,
        metavar="FILE",
        help="task files (JSONL) holding the run's tasks, read before the files the run records",
    )
    p.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    p.set_defaults(func=run)


def stored_columns(store_path: Path) -> dict[tuple, tuple[str, bool]]:
    """The ``status`` and ``correct`` columns of every result, by key, read from the SQLite
    file opened read-only (the run store's reader gives the JSON records only)."""
    uri = f"file:{store_path}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            rows = db.execute(
                "SELECT task_id, arch, presentation, model, constrained, seed, "
                "status, correct FROM results"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise ConfigError(f"cannot read the run store: {exc}", file=str(store_path)) from exc
    return {(t, a, p, m, bool(c), int(s)): (str(st), bool(ok)) for t, a, p, m, c, s, st, ok in rows}


def _change(name: str, old: Any, new: Any) -> str:
    """``name old -> new``; for metrics only the entries that changed."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        return f"{name} (" + ", ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys) + ")"
    return f"{name} {old!r} -> {new!r}"


def run(args) -> int:
    from scir.errors import one_line
    from scir.llm.run_lock import RunLock
    from scir.reports.verdicts import Rescorer, differences
    from scir.runs.store import STORE_NAME, RunStore, result_key

    path = Path(args.run)
    if not (path / STORE_NAME).is_file():
        raise ConfigError(f"not a run directory (no {STORE_NAME})", file=str(path))
    command = " ".join(shlex.quote(a) for a in ["scir", "rescore", args.run])
    with RunLock(path, command):
        with RunStore(path) as store:
            stored = store.results()
        columns = stored_columns(path / STORE_NAME)
        rescorer = Rescorer(list(args.tasks or []))
        rescored = [(old, rescorer(args.run, old)) for old in stored]
        rescorer.finish()  # a result without a task record: nothing written
        changed = []
        for old, new in rescored:
            fields = list(differences(old, new))
            column = columns.get(result_key(old))
            if column is not None and column != (new["status"], bool(new["correct"])):
                fields.append("columns")
            if fields:
                changed.append((old, new, fields))
        for old, new, fields in changed:
            what = [_change(f, old.get(f), new.get(f)) for f in fields if f != "columns"]
            if "columns" in fields:
                status, correct = columns[result_key(old)]
                what.append(
                    f"store columns (status {status!r}, correct {correct!r}) -> "
                    f"({new['status']!r}, {bool(new['correct'])!r})"
                )
            key = result_key(old)
            print(
                one_line(
                    f"{'would change' if args.dry_run else 'changed'} {key[0]} "
                    f"{key[1]} {key[2]} {key[3]}"
                    f"{'' if key[4] else ' free'}{f' seed={key[5]}' if key[5] else ''}: "
                    + "; ".join(what)
                )
            )
        if not args.dry_run and changed:
            with RunStore(path) as store:
                for _, new, _ in changed:
                    store.put_result(new)
    verb = "would be written" if args.dry_run else "written"
    print(
        f"rescored {len(rescored)} results of {args.run} from {len(rescorer.files)} task "
        f"files, no model called: {len(changed)} changed ({verb}), "
        f"{len(rescored) - len(changed)} unchanged"
    )
    return 0
