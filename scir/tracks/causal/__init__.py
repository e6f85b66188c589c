"""The causal track: the Sachs protein network plus a new protein XYZ; recover XYZ's edges from
observational and interventional data, as a choice among options (see docs/tracks/causal.md).

Stages: :mod:`.graph` (Sachs graphs, subgraphs, XYZ), :mod:`.scm` (linear-Gaussian SCM and
environments), :mod:`.options` (option sets, matching), :mod:`.solve` (formal validation, GIES
and GES), :mod:`.generate` (draw until GIES solves), :mod:`.templates` (clean NL),
:mod:`.exports` (CSV), :mod:`.formalize` (grammar, parser and prompts of the pipelines),
:mod:`.track` (the :class:`CausalTrack`).
"""

from scir.tracks.causal.track import NO_MATCH, CausalTrack

__all__ = ["CausalTrack", "NO_MATCH"]
