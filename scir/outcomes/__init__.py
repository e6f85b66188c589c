"""Outcomes: what a result's status means and how an answer is scored, below everything that
runs or reports.

* :mod:`scir.outcomes.status`: the statuses of a result and their normalisation;
* :mod:`scir.outcomes.scoring`: the scoring rules (label, pool, option, equation) a track
  names, and the subset matching the set-valued answers use;
* :mod:`scir.outcomes.regression`: the equation metrics (Acc_tau, NMSE) behind ``equation``;
* :mod:`scir.outcomes.backup`: what "with backup" counts for an ``ns`` result.

Nothing here imports a track, a pipeline, a backend or a report (tasks and tracks appear
only as types), so tracks, pipelines, the run store and reports can all import it.
"""
