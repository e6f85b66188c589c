"""Runs: the run store (:mod:`scir.runs.store`, a run's calls and its results read back as
:class:`~scir.pipelines.result.PipelineResult` records), running an architecture over a task
list into it (:mod:`scir.runs.runner`, locally; :mod:`scir.runs.remote`, on an executor) and
exporting the agent's trajectories (:mod:`scir.runs.trajectories`)."""
