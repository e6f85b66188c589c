"""Audit items: one task as one presentation shows it (the question, the options and the text
of ``problem_nl``, ``problem_control`` or ``problem_obfuscated``), with the formal content read back from that text,
and the groups the audit scores separately."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from scir.errors import ConfigError, ScirError, TaskFormatError
from scir.tasks import Task
from scir.tracks.reading import read_tasks

PRESENTATIONS = ("nl", "ctl", "obf")
# the task field holding the text of each presentation
TEXT_FIELD = {"nl": "problem_nl", "ctl": "problem_control", "obf": "problem_obfuscated"}
TRACKS = ("deduction", "induction", "causal")
POOLED = "all"  # the difficulty label of a track's pooled group


@dataclass
class Item:
    """One task in one presentation.

    ``content`` is the per-block formal content recovered from the text the solver sees: for
    ``nl`` the clean-NL structure (:func:`scir.rendering.blocks.block_contents`, which checks the
    blocks against the track's sentence templates), for ``obf`` the reference extractors of
    :mod:`scir.rendering.extractors` (which read only the documents). None when it cannot be read;
    then only the generic text features describe the item.
    """

    task: Task
    presentation: str
    text: str
    file: str
    content: list[dict[str, Any]] | None
    cache: dict[str, Any] = field(default_factory=dict, repr=False)  # features, computed once

    @property
    def task_id(self) -> str:
        return self.task.task_id

    @property
    def answer(self) -> str:
        return self.task.answer

    def accepts(self, prediction: str) -> bool:
        """Whether ``prediction`` is a correct answer (deduction: the label; induction: a
        member of the answer pool; causal: the option letter)."""
        return prediction in self.task.answer_pool


def _content(task: Task, presentation: str) -> list[dict[str, Any]] | None:
    try:
        if presentation == "nl":
            from scir.rendering.blocks import block_contents

            return block_contents(task)
        from scir.rendering.extractors import extract_blocks

        if presentation == "ctl":
            from scir.rendering.control import as_control

            return extract_blocks(as_control(task))
        return extract_blocks(task)
    except ScirError:
        return None


def load_items(
    files: Iterable[str], presentations: Iterable[str], *, log: TextIO | None = None
) -> list[Item]:
    """The audit items of ``files`` for each presentation.

    A file whose tasks have no rendered documents is skipped for ``obf`` (with a message);
    open causal tasks (no options for the baselines to pick from) are left out, with a
    message;
    ConfigError for a track the audit does not know; TaskFormatError when no task has text
    for the presentation(s). A task repeated with the same text (the
    same task in several files, e.g. the clean and the rendered copy) is counted once.
    """
    presentations = list(presentations)
    log = log or sys.stderr
    items: list[Item] = []
    seen: set[tuple[str, str, str]] = set()
    for path in files:
        tasks = read_tasks(path)
        open_tasks = [t for t in tasks if t.domain == "causal" and not t.options]
        if open_tasks:  # the baselines pick among options; an open task has none
            print(
                f"{path}: {len(open_tasks)} open causal tasks (no options to pick from): "
                "not audited",
                file=log,
            )
            tasks = [t for t in tasks if t not in open_tasks]
        for task in tasks:
            if task.domain not in TRACKS:
                raise ConfigError(
                    f"no audit for track {task.domain!r} (audited: {', '.join(TRACKS)})",
                    file=path,
                    task_id=task.task_id,
                    field="domain",
                )
        for presentation in presentations:
            if presentation not in PRESENTATIONS:
                raise ConfigError(f"unknown presentation {presentation!r}", field="presentation")
            key_field = TEXT_FIELD[presentation]
            usable = [t for t in tasks if getattr(t, key_field)]
            if presentation != "nl" and len(usable) < len(tasks):
                how = "scir render --control" if presentation == "ctl" else "scir render"
                print(
                    f"{path}: {len(tasks) - len(usable)} of {len(tasks)} tasks have no "
                    f"rendered documents: skipped for {presentation} (render them with "
                    f"{how})",
                    file=log,
                )
            for task in usable:
                text = getattr(task, key_field)
                key = (task.task_id, presentation, text)
                if key in seen:
                    continue
                seen.add(key)
                items.append(Item(task, presentation, text, path, _content(task, presentation)))
    if not items:
        raise TaskFormatError(
            "nothing to audit: no task has text for the presentation(s) "
            f"{', '.join(presentations)}",
            file=next(iter(files), None),
        )
    return items


def group_items(items: list[Item]) -> dict[tuple[str, str, str], list[Item]]:
    """(track, difficulty, presentation) -> items, in a fixed order; plus one pooled group
    (difficulty ``all``) per track and presentation when it has more than one difficulty."""
    groups: dict[tuple[str, str, str], list[Item]] = {}
    for item in items:
        groups.setdefault((item.task.domain, item.task.difficulty, item.presentation), []).append(
            item
        )
    pooled: dict[tuple[str, str, str], list[Item]] = {}
    for (track, _difficulty, presentation), members in groups.items():
        pooled.setdefault((track, POOLED, presentation), []).extend(members)
    for key, members in pooled.items():
        if len({m.task.difficulty for m in members}) > 1:
            groups[key] = members
    order = {t: i for i, t in enumerate(TRACKS)}
    levels = {"easy": 0, "hard": 1, "custom": 2, POOLED: 3}
    return dict(
        sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][2], levels[kv[0][1]]))
    )
