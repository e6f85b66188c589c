"""The one registry of solving architectures: each :class:`Pipeline` has its name (``--arch``),
its kind (what it needs of a track, :data:`scir.tracks.base.PIPELINE_KINDS`), whether it needs
a model, whether it runs once per seed, and its run function. Every list of architectures
(``scir solve --arch``, experiment files, the skipped cells of ``scir eval``, the inspect_ai
tasks, a track's architectures) is derived from :data:`PIPELINES`; a track names the kinds it
takes (``Track.pipeline_kinds``), never an architecture.

A run function takes ``(track, task, backend, settings)`` and returns the task's
:class:`~scir.pipelines.result.PipelineResult`; ``backend`` is None for the architectures
that need no model.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from scir.errors import ConfigError
from scir.pipelines import cot, ns, oracle, symbcot, symreg
from scir.pipelines.result import PipelineResult
from scir.pipelines.sr_agent import pipeline as sr_agent
from scir.tracks.base import AGENT, ANSWER, FORMALIZE, REGRESSION, SOLVE, Track

Run = Callable[..., PipelineResult]


@dataclass(frozen=True)
class Pipeline:
    """One solving architecture."""

    name: str  # --arch, the arch column of results
    kind: str  # what it needs of a track (scir.tracks.base.PIPELINE_KINDS)
    run: Run
    needs_model: bool = True  # False: no model; its results' model column is NO_MODEL
    seeded: bool = True  # runs once per seed (False: once, with the first seed)
    # the track's prompt kind when it can run as one model step whose text is read back (the
    # inspect_ai solver: cot's answer, ns's formalization); None: it cannot
    single_step: str | None = None
    # the importable module it runs, checked before any work (scir.pipelines.preflight; pysr
    # has its own check, solvers.symreg.pysr_sr.availability)
    module: str | None = None


def _baseline(name: str, module: str | None) -> Pipeline:
    """A symbolic-regression baseline (solvers.symreg.REGRESSORS, under the same name)."""
    return Pipeline(
        name, REGRESSION, partial(symreg.run, arch=name), needs_model=False, module=module
    )


PIPELINES: tuple[Pipeline, ...] = (
    Pipeline("cot", ANSWER, cot.run, single_step="cot"),
    Pipeline("ns", FORMALIZE, ns.run, single_step="formalize"),
    Pipeline("symbcot", FORMALIZE, symbcot.run),
    Pipeline("oracle", SOLVE, oracle.run, needs_model=False, seeded=False),
    Pipeline(sr_agent.ARCH, AGENT, sr_agent.run),
    _baseline("pyoperon", "pyoperon"),
    _baseline("gplearn", "gplearn"),
    _baseline("pysr", None),
)
BY_NAME = {p.name: p for p in PIPELINES}
ARCHS = tuple(BY_NAME)  # every architecture, in the registry's order
MODEL_FREE_ARCHS = tuple(p.name for p in PIPELINES if not p.needs_model)
FORMALIZING = tuple(p.name for p in PIPELINES if p.kind == FORMALIZE)  # constrained or free
SYMREG_ARCHS = tuple(p.name for p in PIPELINES if p.kind == REGRESSION)


def pipeline(arch: str) -> Pipeline:
    """The architecture called ``arch``; ConfigError for another name."""
    if arch not in BY_NAME:
        raise ConfigError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}", field="arch")
    return BY_NAME[arch]


def architectures(track: Track) -> tuple[str, ...]:
    """The architectures that apply to ``track``: those of the kinds it takes
    (``Track.pipeline_kinds``; None: every architecture), in the registry's order.

    A track written before ``pipeline_kinds`` existed names its architectures in an
    ``architectures`` attribute: those of them the registry has are its architectures (a
    DeprecationWarning says to name kinds instead); a name the registry does not have is a
    ConfigError, never silently dropped."""
    named = getattr(track, "architectures", None)
    if named is not None:
        unknown = [a for a in named if a not in {p.name for p in PIPELINES}]
        if isinstance(named, str) or unknown:
            raise ConfigError(
                f"track {track.name!r}: architectures must be a tuple of "
                f"{', '.join(p.name for p in PIPELINES)}; got {named!r}",
                field="architectures",
            )
        warnings.warn(
            f"track {track.name!r} names its architectures; name the kinds it takes "
            f"instead (pipeline_kinds, docs/extending.md)",
            DeprecationWarning,
            stacklevel=2,
        )
        return tuple(p.name for p in PIPELINES if p.name in named)
    kinds = track.pipeline_kinds
    return tuple(p.name for p in PIPELINES if kinds is None or p.kind in kinds)
