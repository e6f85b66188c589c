"""The whole audit of a set of task files: items, groups, every track's baselines per group."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterable
from typing import TextIO

from scir.audit.baselines import Spec
from scir.audit.crossval import GroupAudit, audit_group, enough_tasks
from scir.audit.items import TRACKS, group_items, load_items

TRACK_MODULES = {track: f"scir.audit.{track}" for track in TRACKS}


def track_specs(track: str) -> list[Spec]:
    """The baselines audited for ``track``."""
    return importlib.import_module(TRACK_MODULES[track]).specs()


def audit_files(
    files: Iterable[str],
    presentations: Iterable[str],
    *,
    folds: int = 5,
    seed: int = 1,
    family_wise: bool = False,
    log: TextIO | None = None,
) -> list[GroupAudit]:
    """Audit every (track, difficulty, presentation) group of ``files`` and every track's
    pooled group; one progress line per group on ``log``.

    Intervals are 95%; with ``family_wise`` they are Bonferroni-corrected over every
    (baseline, group) pair of the run (confidence ``1 - 0.05 / m``), so that the chance of a
    false flag anywhere in the run, not per baseline, is at most 5% -- for small files, where
    many baselines over few tasks would otherwise flag something by chance."""
    files = list(files)
    log = log or sys.stderr
    items = load_items(files, presentations, log=log)
    groups = group_items(items)
    specs_of = {track: track_specs(track) for track in {key[0] for key in groups}}
    confidence = 0.95
    if family_wise:
        m = sum(len(specs_of[key[0]]) for key, members in groups.items() if enough_tasks(members))
        confidence = 1 - 0.05 / max(1, m)
    audits = []
    for key, members in groups.items():
        start = time.perf_counter()
        specs = specs_of[key[0]]
        audit = audit_group(key, members, specs, folds, seed, confidence)
        label = " ".join(key)
        if audit is None:
            print(
                f"audit {label}: {len(members)} tasks, too few to cross-validate: skipped",
                file=log,
                flush=True,
            )
            continue
        print(
            f"audit {label}: {audit.tasks} tasks, {len(specs)} baselines, "
            f"{len(audit.leaks)} leak(s), {time.perf_counter() - start:.1f} s",
            file=log,
            flush=True,
        )
        audits.append(audit)
    return audits
