"""Reports: the numbers reports print (the one place for them), over run directories; what a
status means and how an answer is scored live below, in :mod:`scir.outcomes`, and the grids
that make the runs in :mod:`scir.experiments`.

``stats`` (intervals, normalised accuracy, paired bootstrap), ``runs`` (reading run
directories, conflicts), ``sources`` and ``verdicts`` (finding each result's task record and
recomputing its verdict), ``aggregate`` (one ``CellStats`` per cell), ``metric_stats`` and
``edge_stats`` (equation metrics, causal open answers), ``attribution`` (failure kinds),
``compare`` (probes, paired differences, run comparison), ``versions`` (what produced the
runs), ``report`` (the computed report), ``figures`` (PNG) and ``taskstats`` /
``statsformat`` (task-file statistics and their tables, ``scir stats``). See
docs/evaluation.md.
"""
