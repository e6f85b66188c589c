"""The tracks' prompts, stored as data: ``scir/prompts/<track>/<kind>.txt``, one
``string.Template`` per kind (``cot``, ``formalize``, ``symbcot``), read on first use and
shipped in the package.

:func:`task_prompt` is the part of a track's ``prompt`` hook that every track shares: the kind
check, the problem text, the question, the formalization a ``symbcot`` prompt needs; the track
adds its own values (signature, options, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources as importlib_resources
from string import Template
from typing import Any

from scir.errors import ConfigError
from scir.tasks import Task

PROMPT_KINDS = ("cot", "formalize", "symbcot")


@cache
def load_template(track: str, kind: str) -> Template:
    """The template ``scir/prompts/<track>/<kind>.txt``."""
    path = importlib_resources.files(__name__).joinpath(track, f"{kind}.txt")
    return Template(path.read_text(encoding="utf-8"))


def render_prompt(track: str, kind: str, **values: str) -> str:
    """The template of ``track`` and ``kind`` with every ``$name`` filled from ``values``
    (KeyError when one is missing)."""
    return load_template(track, kind).substitute(values)


def task_prompt(
    track: str,
    kind: str,
    task: Task,
    presentation: str,
    extra: dict[str, Any],
    track_values: Callable[[], dict[str, str]],
    template: str | None = None,
) -> str:
    """The ``cot``, ``formalize`` or ``symbcot`` prompt of ``task`` (ConfigError for another
    kind). Fills ``problem`` (``extra["problem"]``, default the task's ``nl``/``ctl``/``obf`` text),
    ``question``, then the track's own ``track_values()`` and, for ``symbcot``,
    ``formalization`` (``extra["formalization"]``; ConfigError when it is not text).
    ``template``: the template file's name when it is not ``kind`` (e.g. ``cot_open``)."""
    if kind not in PROMPT_KINDS:
        raise ConfigError(
            f"prompt kind must be one of {', '.join(PROMPT_KINDS)}, got {kind!r}", field="kind"
        )
    problem = extra.get("problem")
    if problem is None:
        problem = {"obf": task.problem_obfuscated, "ctl": task.problem_control}.get(
            presentation, task.problem_nl
        )
    values = {"problem": problem, "question": task.question}
    values.update(track_values())
    if kind == "symbcot":
        if not isinstance(extra.get("formalization"), str):
            raise ConfigError(
                "the symbcot prompt needs the formalization text", field="formalization"
            )
        values["formalization"] = extra["formalization"]
    return render_prompt(track, template or kind, **values)


__all__ = ["PROMPT_KINDS", "load_template", "render_prompt", "task_prompt"]
