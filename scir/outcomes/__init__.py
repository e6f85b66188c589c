"""Outcomes: what a result's status means and how an answer is scored, below everything that
runs or reports.

* :mod:`scir.outcomes.status`: the statuses of a result and their normalisation;
* :mod:`scir.outcomes.scoring`: the :class:`~scir.outcomes.scoring.Scorer` a track owns
  (``Track.scorer()``), the generic label, pool and option scorers, and the subset matching
  the set-valued answers use;
* :mod:`scir.outcomes.regression`: regression metrics (Acc_tau, NMSE, symbolic equivalence);
* :mod:`scir.outcomes.backup`: what "with backup" counts for an ``ns`` result.

Nothing here imports or names a track, a pipeline, a backend or a report (tasks appear only
as types), so tracks, pipelines, the run store and reports can all import it.
"""
