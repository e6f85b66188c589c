"""What the explorer site shows, collected once: :func:`gather` reads run directories the way
``scir report`` does (:func:`scir.reports.report.load_verified`: every verdict recomputed from
the stored answer and the task file, disagreeing stored verdicts listed, conflicts named; the
cells' numbers from :func:`scir.reports.aggregate.aggregate`), finds the task records
(:mod:`scir.reports.sources`) and builds one :class:`TaskPage` per task with results: the task,
its gold formal text (``Formalizer.format``), and each result with its formalization diffed
against that text (:mod:`scir.explore.diff`). Nothing here writes HTML.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ScirError
from scir.experiments.cells import CellKey
from scir.explore.diff import FormalDiff, formal_diff
from scir.reports.aggregate import CellStats, aggregate
from scir.reports.attribution import CellFailures, attributions, failures
from scir.reports.report import load_verified
from scir.reports.runs import Conflict, Runs
from scir.reports.sources import TaskSources, find_tasks
from scir.reports.verdicts import Disagreement, Rescorer
from scir.reports.versions import Versions, read_versions
from scir.runs.store import result_key
from scir.tasks import Task

PAGE_SUFFIX = ".html"


@dataclass(frozen=True)
class ResultView:
    """One stored result as a task page shows it."""

    anchor: str  # the result's id on its task page, ``r0``, ``r1``, ...
    run: str  # the run directory it was read from
    cell: CellKey
    result: dict[str, Any]  # the stored result (read only)
    diff: FormalDiff | None  # its formalization against the gold text (None: none)
    conflicts: tuple[Conflict, ...] = ()  # other runs holding a different result of its key
    disagreement: Disagreement | None = None  # its stored verdict, where it differed
    unverified: bool = False  # shown with its stored verdict (no task record)
    failure: str | None = None  # the kind of failure (scir.reports.attribution)

    @property
    def status(self) -> str:
        return str(self.result["status"])

    @property
    def correct(self) -> bool:
        return bool(self.result["correct"])


@dataclass
class TaskPage:
    """One task and its results."""

    task_id: str
    page: str  # the page's file name (checked when written)
    task: Task | None  # None: no task file holds it
    gold_text: str | None  # the gold formal object as formalization text
    gold_note: str  # why there is no gold text, when there is none
    formal_json: str | None  # the stored formal object (JSON, indented)
    results: list[ResultView] = field(default_factory=list)


@dataclass
class Site:
    """Everything the site shows."""

    runs: Runs
    cells: list[CellStats]
    pages: list[TaskPage]
    sources: TaskSources
    verdicts: Rescorer
    versions: Versions = field(default_factory=Versions)
    failures: dict[CellKey, CellFailures] = field(default_factory=dict)

    def values(self, axis: str) -> list[str]:
        """The values of a cell axis (``track``, ``model``, ``arch``, ``presentation``) that
        have results, sorted."""
        return sorted({str(getattr(c.cell, axis)) for c in self.cells if c.n})

    def page_of(self, task_id: str) -> str | None:
        """The page file of a task (None: no page)."""
        return next((p.page for p in self.pages if p.task_id == task_id), None)

    def results(self) -> list[tuple[TaskPage, ResultView]]:
        """Every result with its page, by task and cell."""
        return [(p, r) for p in self.pages for r in p.results]


def gold_formal_text(task: Task) -> tuple[str | None, str]:
    """(the task's gold formal object as formalization text, why not when None)."""
    from scir.tracks import track_of

    try:
        return track_of(task).formalizer().format(task), ""
    except NotImplementedError:
        return None, f"track {task.domain} has no formal text (Track.format_formal)"
    except ScirError as exc:
        return None, f"the gold formal text cannot be written: {exc}"


def _page(task_id: str, task: Task | None) -> TaskPage:
    if task is None:
        return TaskPage(
            task_id,
            task_id + PAGE_SUFFIX,
            None,
            None,
            "no task file given or recorded holds this task (see --tasks)",
            None,
        )
    gold, why = gold_formal_text(task)
    return TaskPage(
        task_id,
        task_id + PAGE_SUFFIX,
        task,
        gold,
        why,
        json.dumps(task.formal, indent=1, ensure_ascii=False, sort_keys=False),
    )


def gather(
    run_dirs: list[str], task_files: list[str] | None = None, unverified: bool = False
) -> Site:
    """Read ``run_dirs`` (results with recomputed verdicts, conflicts, cells) and the task
    records (``task_files``, then the files the runs record) into a :class:`Site`; a result
    whose task no file holds is refused (ConfigError), or with ``unverified`` shown with its
    stored verdict, marked."""
    rescorer = Rescorer(list(task_files or []), unverified)
    runs = load_verified(run_dirs, rescorer)
    cells = aggregate(runs)
    sources = find_tasks(runs.dirs, task_files)
    conflicts: dict[tuple, list[Conflict]] = {}
    for c in runs.conflicts:
        conflicts.setdefault(c.key, []).append(c)
    pages: dict[str, TaskPage] = {}
    kinds = dict(zip(map(id, runs.results), attributions([i.result for i in runs.results])))
    for item in sorted(runs.results, key=lambda i: (i.result["task_id"], i.cell, i.run)):
        task_id = str(item.result["task_id"])
        page = pages.get(task_id)
        if page is None:
            page = pages[task_id] = _page(task_id, sources.tasks.get(task_id))
        text = item.result.get("formalization")
        diff = (
            formal_diff(page.gold_text, text)
            if page.gold_text is not None and isinstance(text, str)
            else None
        )
        key = result_key(item.result)
        page.results.append(
            ResultView(
                f"r{len(page.results)}",
                item.run,
                item.cell,
                item.result,
                diff,
                tuple(conflicts.get(key, ())),
                rescorer.disagreements.get((item.run, key)),
                runs.is_unverified(item),
                kinds[id(item)],
            )
        )
    return Site(
        runs,
        cells,
        [pages[k] for k in sorted(pages)],
        sources,
        rescorer,
        read_versions(runs.dirs),
        failures([(item.cell, item.result) for item in runs.results]),
    )
