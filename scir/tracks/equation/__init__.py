"""The equation track: equation discovery (symbolic regression) in the style of LSR-Synth --
find ``output = f(inputs)`` from a table of measurements in chemistry, biology, physics or
materials science (see docs/tracks/equation.md).

Stages: :mod:`.terms` (sciences and term libraries), :mod:`.numeric` (rounding, printing,
evaluation through :mod:`solvers.equation`), :mod:`.generate` (terms, constants, data, redrawn
until usable), :mod:`.formal` (:class:`EquationFormal`), :mod:`.templates` (clean NL),
:mod:`.validate` (records), :mod:`.llmsr` (``scir import llmsr``), :mod:`.codec` (rendering)
and :mod:`.track` (the :class:`EquationTrack`).
"""

from scir.tracks.equation.track import EquationTrack

__all__ = ["EquationTrack"]
