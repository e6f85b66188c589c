"""Evaluation: the numbers reports print (the one place for them); what a status means and
how an answer is scored live below, in :mod:`scir.outcomes`.

``cells`` (the grid's cell key), ``stats`` (intervals,
normalised accuracy, paired bootstrap), ``taskstats`` (task-file statistics), ``runs``
(reading run directories, conflicts), ``aggregate`` (one ``CellStats`` per cell), ``compare``
(probes, paired differences, run comparison), ``report`` (the computed report) and
``figures`` (PNG). See docs/evaluation.md.
"""
