"""The induction track: relational rules over DrugBank-like drug facts, with answer pools
(see docs/tracks/induction.md).

Modules by stage: ``world`` (relation types, invented names), ``generate`` (formal object),
``text`` (clean NL), ``semantics`` (clingo pools, Prolog coverage), ``ilp_check`` (learner
cross-check), ``check`` (``scir check``: hand-written programs in the sandbox), ``export``
(Popper folders), ``stats`` (pool statistics), ``formalize`` (grammar and parser of the
pipelines), ``prompts`` (their prompts), ``solve`` (the pipelines' solver), ``track`` (the
:class:`InductionTrack`).
"""

from scir.tracks.induction.track import InductionTrack

__all__ = ["InductionTrack"]
