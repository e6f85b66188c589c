"""Experiments: what a grid is and how it runs, above the run store and below the reports.

``cells`` (the grid's cell key, ``CellKey``), ``experiment`` (experiment files: validated
TOML, the grid they span), ``eval_tasks`` (the task files an experiment generates or names),
``eval_run`` (``scir eval``'s grid runner: planning, skipping what a track does not take,
resuming, the run record), ``budget`` (token, cost and wall-time budgets) and ``progress``
(progress lines per cell). See docs/evaluation.md and docs/cli.md (``scir eval``).
"""
