"""``scir explore``: a static, offline HTML site for browsing evaluation runs.

:mod:`scir.reports.sources` finds and reads the task records the results refer to,
:mod:`scir.explore.diff` diffs a formalization against the gold formal text,
:mod:`scir.explore.gather` collects what the site shows (cells from :mod:`scir.reports`,
one page per task) and :mod:`scir.explore.write` writes it with the templates of
``scir/explore/templates/`` and the assets of ``scir/explore/static/``. See docs/explorer.md.
"""
