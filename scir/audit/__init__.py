"""The artifact audit (``scir audit``): answer-blind baselines, trained and cross-validated on
exactly what a solver sees (question, options and one presentation's text), whose accuracy
beside the tasks' chance shows whether surface features give answers away.

Stages, one module each: :mod:`~scir.audit.items` (tasks -> audit items and groups),
:mod:`~scir.audit.text` (generic text features), one feature/heuristic module per track
(:mod:`~scir.audit.deduction`, :mod:`~scir.audit.induction`, :mod:`~scir.audit.causal`) and
its structural family (:mod:`~scir.audit.induction_structure`: co-location among the
examples' drugs; :mod:`~scir.audit.causal_structure`: sortability of the data tables, with
:mod:`~scir.audit.sortability`),
:mod:`~scir.audit.baselines` (the models), :mod:`~scir.audit.crossval` (grouped folds,
Wilson intervals, the leak rule) and :mod:`~scir.audit.report` (Markdown and JSON).
"""

from scir.audit.crossval import LEAK_MARGIN, audit_group  # noqa: F401
from scir.audit.items import Item, group_items, load_items  # noqa: F401
