"""Verdicts recomputed from the stored answers and the task files: no number of ``scir
report``, ``scir explore`` or ``scir rescore`` trusts a verdict stored in a run.

For every stored result, :class:`Rescorer` finds the task record (the ``--tasks`` files first,
then the files the run records, as :mod:`scir.reports.sources` finds them: ``RUNDIR/tasks/``
of ``scir eval``, the experiment's task files, the files ``scir solve`` was given) and
recomputes with the pipelines' own scoring (:func:`scir.pipelines.result.verdict`, i.e.
the track's scorer's ``assess``):

- the **verdict** of the stored answer: ``correct``, ``status`` (``ok`` / ``wrong``) and the
  scoring rule's ``metrics`` (equation: Acc_tau, NMSE, symbolic); a result without an answer
  is not correct and has no metrics, and one that claims ``ok`` or ``wrong`` becomes
  ``no_answer``;
- the backup's verdict (``backup_correct``, ``backup_status``) of an ns result whose backup
  was used, from ``backup_answer``;
- the task's own fields a result copies: ``domain``, ``difficulty``, ``tier``, ``gold``,
  ``answer_pool``, ``chance``, ``chance_constrained`` (cells and chance-normalised numbers).

A stored value that differs from the recomputed one is a :class:`Disagreement` (a tampered or
stale verdict: the scorer changed since the run): the recomputed value is used and the
disagreement is listed. A task field stored empty (results stored before it was recorded) is
filled in without counting as a disagreement.

Not recomputed: the answer itself (what the pipeline read from the model: the evidence), the
failure category of a result without an answer (``parse_error``, ``solver_error``,
``timeout``, ``backend_error``, ``no_answer``: only running the pipeline again establishes
it) and the bookkeeping (tokens, cost, seconds).

A result whose task no task file holds cannot be verified. Readers refuse such a run by
default (:meth:`Rescorer.finish`: one ConfigError naming the run, the count, the first task
ids and the way out); with ``unverified`` allowed they use its stored verdict and list it as
unverified, and reports mark its cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError
from scir.outcomes.status import Status
from scir.reports.sources import find_tasks
from scir.runs.store import RESULT_KEY, result_key
from scir.tasks import Task

VERDICT_FIELDS = ("correct", "status", "metrics", "backup_correct", "backup_status")
TASK_FIELDS = (
    "domain",
    "difficulty",
    "tier",
    "gold",
    "answer_pool",
    "chance",
    "chance_constrained",
)
SHOWN_IDS = 5  # task ids named in a one-line message


@dataclass(frozen=True)
class Disagreement:
    """A stored result whose verdict (or task fields) differ from the recomputed ones."""

    run: str
    key: tuple  # RESULT_KEY values
    fields: tuple[str, ...]  # the fields that differ
    stored: dict[str, Any]  # their stored values
    recomputed: dict[str, Any]  # their recomputed values

    def label(self) -> str:
        """``task arch presentation model [free] [seed=K]``."""
        task, arch, presentation, model, constrained, seed = self.key
        return " ".join(
            [task, arch, presentation, model]
            + ([] if constrained else ["free"])
            + ([f"seed={seed}"] if seed else [])
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "run": self.run,
            "key": dict(zip(RESULT_KEY, self.key)),
            "fields": list(self.fields),
            "stored": self.stored,
            "recomputed": self.recomputed,
        }


def _same(a: Any, b: Any) -> bool:
    """Equal; floats within a relative 1e-9 (a refit on another machine), NaN equal to NaN."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if (isinstance(a, float) or isinstance(b, float)) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)
    ):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _unanswered(status: Any) -> str:
    """The status of a result without an answer: its stored failure category, or
    ``no_answer`` when it claims an answer (``ok``, ``wrong``) or is not a status."""
    return (
        str(status)
        if status in {s.value for s in Status} and not Status(status).answered
        else Status.NO_ANSWER.value
    )


def recompute(result: dict[str, Any], task: Task, cache: dict | None = None) -> dict[str, Any]:
    """``result`` with its verdict, its backup's verdict and its task fields recomputed from
    its answer and ``task`` (a copy; see the module docstring). ``cache`` memoises the
    assessment of (task, answer) pairs across results."""
    from scir.pipelines.result import verdict
    from scir.tracks import track_of

    track = track_of(task)
    memo = {} if cache is None else cache

    def judge(answer: Any) -> tuple[bool, str, dict[str, Any] | None]:
        key = (id(task), answer)
        if key not in memo:
            memo[key] = verdict(track, task, answer)
        return memo[key]

    out = dict(result)
    answer = result.get("answer")
    if isinstance(answer, str):
        out["correct"], out["status"], out["metrics"] = judge(answer)
    else:  # no answer (or a damaged one): nothing accepted
        out["answer"] = None
        out["correct"], out["status"], out["metrics"] = (
            False,
            _unanswered(result.get("status")),
            None,
        )
    if result.get("backup_used"):
        backup = result.get("backup_answer")
        if isinstance(backup, str):
            out["backup_correct"], out["backup_status"], _ = judge(backup)
        else:
            out["backup_answer"] = None
            out["backup_correct"] = False
            out["backup_status"] = _unanswered(result.get("backup_status"))
    out.update(
        domain=track.name,
        difficulty=task.difficulty,
        tier=task.tier,
        gold=task.answer,
        answer_pool=list(task.answer_pool),
        chance=task.chance,
        chance_constrained=task.chance_constrained,
    )
    return out


def differences(stored: dict[str, Any], recomputed: dict[str, Any]) -> tuple[str, ...]:
    """The verdict fields that differ, and the task fields that differ where one was stored."""
    names = [
        f
        for f in VERDICT_FIELDS + ("answer", "backup_answer")
        if (f in stored or f in recomputed) and not _same(stored.get(f), recomputed.get(f))
    ]
    names += [
        f
        for f in TASK_FIELDS
        if stored.get(f) not in (None, "") and not _same(stored.get(f), recomputed.get(f))
    ]
    return tuple(names)


@dataclass
class Rescorer:
    """Recomputes the results of run directories (:meth:`__call__`, the hook of
    :func:`scir.reports.runs.load_runs`) and keeps what it found: the results verified, the
    disagreements, the unverified results, the task files read and their notes (each result
    counted once, however often it is read)."""

    task_files: list[str] = field(default_factory=list)
    allow_unverified: bool = False
    disagreements: dict[tuple[str, tuple], Disagreement] = field(default_factory=dict)
    unverified: dict[tuple[str, tuple], str] = field(default_factory=dict)  # -> task id
    verified: set[tuple[str, tuple]] = field(default_factory=set)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _tasks: dict[str, dict[str, Task]] = field(default_factory=dict, repr=False)
    _read: dict[str, list[str]] = field(default_factory=dict, repr=False)  # run -> files
    _notes: dict[str, list[str]] = field(default_factory=dict, repr=False)  # run -> notes
    _memo: dict = field(default_factory=dict, repr=False)

    def tasks_of(self, run: str) -> dict[str, Task]:
        """The task records of one run directory (``task_files`` first, then the files the
        run records; read once per run)."""
        if run not in self._tasks:
            found = find_tasks([run], self.task_files)
            self._tasks[run] = found.tasks
            self._read[run] = found.files
            self._notes[run] = found.notes
            self.files += [f for f in found.files if f not in self.files]
            self.notes += [n for n in found.notes if n not in self.notes]
        return self._tasks[run]

    def __call__(self, run: str, result: dict[str, Any]) -> dict[str, Any]:
        """The result with its verdict recomputed (as stored when its task is missing: it
        is then recorded as unverified)."""
        key = result_key(result)
        task = self.tasks_of(run).get(str(result["task_id"]))
        if task is None:
            self.unverified[(run, key)] = str(result["task_id"])
            return result
        if self.unverified and not self.allow_unverified:
            return result  # refused in finish(): no work wasted
        new = recompute(result, task, self._memo)
        self.verified.add((run, key))
        fields = differences(result, new)
        if fields:
            self.disagreements[(run, key)] = Disagreement(
                run,
                key,
                fields,
                {f: result.get(f) for f in fields},
                {f: new.get(f) for f in fields},
            )
        return new

    def finish(self) -> None:
        """Refuse (ConfigError) when a result could not be verified and that is not allowed:
        one line naming the run, the count, the first task ids and the way out."""
        if not self.unverified or self.allow_unverified:
            return
        runs: dict[str, list[str]] = {}
        for (run, _), task_id in self.unverified.items():
            runs.setdefault(run, []).append(task_id)
        run, ids = next(iter(runs.items()))
        shown = sorted(set(ids))
        more = f" and {len(shown) - SHOWN_IDS} more" if len(shown) > SHOWN_IDS else ""
        notes = self._notes.get(run, [])
        raise ConfigError(
            f"{len(ids)} stored results have no task record to check their verdicts against "
            f"(tasks {', '.join(shown[:SHOWN_IDS])}{more}; task files read: "
            f"{', '.join(self._read.get(run, [])) or 'none'}"
            f"{'; ' + notes[0] if notes else ''}); pass the task files with "
            f"--tasks FILE, or --unverified to use the stored verdicts, marked unverified",
            file=run,
        )

    def disagreeing(self) -> list[Disagreement]:
        """The disagreements, by run and key."""
        return [self.disagreements[k] for k in sorted(self.disagreements, key=_order)]

    def unverified_keys(self) -> list[tuple[str, tuple]]:
        """(run, key) of the results used with their stored verdicts, sorted."""
        return sorted(self.unverified, key=_order)


def _order(item: tuple[str, tuple]) -> tuple:
    run, key = item
    return (run, tuple(str(k) for k in key))
