"""The tracks' prompts, stored as data: ``scir/prompts/<track>/<kind>.txt``, one
``string.Template`` per kind (``cot``, ``formalize``, ``symbcot``), read on first use and
shipped in the package. A track outside the package names directories of its own prompt files
in the same layout (``<dir>/<track>/<kind>.txt``, ``Formalizer.prompt_dir``), looked up before
the built-in ones.

:func:`task_prompt` is the part of a track's prompt that every track shares: the kind check,
the problem text, the question, the formalization a ``symbcot`` prompt needs; the track adds
its own values (signature, options, ...). :class:`PromptArgs` are the values a caller passes
beside the task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources as importlib_resources
from pathlib import Path
from string import Template
from typing import Any

from scir.errors import ConfigError
from scir.tasks import Task

PROMPT_KINDS = ("cot", "formalize", "symbcot")


@dataclass(frozen=True)
class PromptArgs:
    """What a caller passes to a track's prompt beside the task and presentation: ``problem``,
    the text the solver sees (None: the task's text of the presentation), and
    ``formalization``, the formalization text a ``symbcot`` prompt shows (required there)."""

    problem: str | None = None
    formalization: str | None = None

    @classmethod
    def of(cls, extra: Mapping[str, Any]) -> PromptArgs:
        """The arguments named in ``extra`` (the keywords of ``Track.prompt``); ConfigError
        naming any other key."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(extra) - set(known))
        if unknown:
            raise ConfigError(
                f"unknown prompt argument {', '.join(map(repr, unknown))}: a prompt takes "
                f"{' and '.join(known)}",
                field=unknown[0],
            )
        return cls(**extra)

    def keywords(self) -> dict[str, str]:
        """The arguments that are set, as the keywords of ``Track.prompt``."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


def find_template(track: str, kind: str, dirs: tuple[Path, ...] = ()) -> Template | None:
    """The template ``<dir>/<track>/<kind>.txt`` of the first of ``dirs`` that has it, else
    ``scir/prompts/<track>/<kind>.txt``; None when there is none."""
    for folder in dirs:
        found = _file_template(folder / track / f"{kind}.txt")
        if found is not None:
            return found
    return _builtin_template(track, kind)


@cache
def _file_template(path: Path) -> Template | None:
    return Template(path.read_text(encoding="utf-8")) if path.is_file() else None


@cache
def _builtin_template(track: str, kind: str) -> Template | None:
    path = importlib_resources.files(__name__).joinpath(track, f"{kind}.txt")
    return Template(path.read_text(encoding="utf-8")) if path.is_file() else None


def load_template(track: str, kind: str, dirs: tuple[Path, ...] = ()) -> Template:
    """:func:`find_template`, a ConfigError naming the places looked in when there is none."""
    found = find_template(track, kind, dirs)
    if found is None:
        places = [str(folder / track / f"{kind}.txt") for folder in dirs]
        places.append(f"scir/prompts/{track}/{kind}.txt")
        raise ConfigError(
            f"track {track!r} has no {kind} prompt file (looked for {', '.join(places)})",
            field="kind",
        )
    return found


def render_prompt(track: str, kind: str, dirs: tuple[Path, ...] = (), **values: str) -> str:
    """The template of ``track`` and ``kind`` with every ``$name`` filled from ``values``
    (KeyError when one is missing)."""
    return load_template(track, kind, dirs).substitute(values)


def task_prompt(
    track: str,
    kind: str,
    task: Task,
    presentation: str,
    args: PromptArgs,
    track_values: Callable[[], dict[str, str]],
    template: str | None = None,
    dirs: tuple[Path, ...] = (),
) -> str:
    """The ``cot``, ``formalize`` or ``symbcot`` prompt of ``task`` (ConfigError for another
    kind). Fills ``problem`` (``args.problem``, default the task's ``nl``/``ctl``/``obf`` text),
    ``question``, then the track's own ``track_values()`` and, for ``symbcot``,
    ``formalization`` (``args.formalization``; ConfigError when it is not text).
    ``template``: the template file's name when it is not ``kind`` (e.g. ``cot_open``);
    ``dirs``: the track's own prompt directories, looked in first."""
    if kind not in PROMPT_KINDS:
        raise ConfigError(
            f"prompt kind must be one of {', '.join(PROMPT_KINDS)}, got {kind!r}", field="kind"
        )
    problem = args.problem
    if problem is None:
        problem = {"obf": task.problem_obfuscated, "ctl": task.problem_control}.get(
            presentation, task.problem_nl
        )
    values = {"problem": problem, "question": task.question}
    values.update(track_values())
    if kind == "symbcot":
        if not isinstance(args.formalization, str):
            raise ConfigError(
                "the symbcot prompt needs the formalization text", field="formalization"
            )
        values["formalization"] = args.formalization
    return render_prompt(track, template or kind, dirs, **values)


__all__ = [
    "PROMPT_KINDS",
    "PromptArgs",
    "find_template",
    "load_template",
    "render_prompt",
    "task_prompt",
]
