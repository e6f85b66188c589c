"""Evaluation: outcomes, scores and the numbers reports print (the one place for them).

``status`` (the outcome enum), ``scoring`` (the rules ``Track.score`` applies), ``cells`` (the
grid's cell key), ``backup`` (what NS with a backup answer counts), ``stats`` (intervals,
normalised accuracy, paired bootstrap), ``taskstats`` (task-file statistics), ``runs``
(reading run directories, conflicts), ``aggregate`` (one ``CellStats`` per cell), ``compare``
(probes, paired differences, run comparison), ``report`` (the computed report) and
``figures`` (PNG). See docs/evaluation.md.
"""
