"""The deduction track: proof trees of syllogisms over developmental-biology vocabulary,
labelled True / False / Unknown (see ``docs/tracks/deduction.md``).

Stages: :mod:`.vocabulary` (contexts), :mod:`.logic` (formulas, syllogisms, trees),
:mod:`.generator` (problems), :mod:`.templates` (clean NL), :mod:`.checks` (ASP, Prover9,
Prolog), :mod:`.exports` (Prover9 files), :mod:`.formalize` (grammar, parser and prompts of the
pipelines), :mod:`.track` (the :class:`DeductionTrack`).
"""

from scir.tracks.deduction.track import DeductionTrack

__all__ = ["DeductionTrack"]
