"""Checking an induction record when its file is read (``InductionTrack.validate_formal``).

The answer is a rule key ``r1,r2`` (a sorted pair of known relation types) in the answer pool,
every pool member is such a key, there are no options, and the formal object loads
(:meth:`formal.InductionProblem.load`, the one place it is validated). Other keys are
allowed. The task's signature
in ``domain_metadata`` is checked by :func:`formalize.task_signature`.
"""

from __future__ import annotations

from scir.tasks import Task, shorten
from scir.tracks.base import load_formal
from scir.tracks.induction.formal import InductionProblem
from scir.tracks.induction.formalize import task_signature
from scir.tracks.induction.world import World, all_rules, rule_key
from scir.tracks.shapes import fail as _fail


def _rule_key(value: str, field: str, keys: set[str]) -> None:
    if value not in keys:
        raise _fail(
            f"{shorten(value)} is not a rule 'r1,r2' (a sorted pair of the nine relation types)",
            field,
        )


def validate(task: Task, world: World) -> None:
    """Check an induction record's answer, pool, options and formal object
    (TaskFormatError naming the field)."""
    keys = {rule_key(r) for r in all_rules(world)}
    _rule_key(task.answer, "answer", keys)
    if not task.answer_pool or len(task.answer_pool) > len(keys):
        raise _fail(f"expected 1 to {len(keys)} rules", "answer_pool")
    for i, member in enumerate(task.answer_pool):
        _rule_key(member, f"answer_pool[{i}]", keys)
    if len(set(task.answer_pool)) != len(task.answer_pool):
        raise _fail("a rule is listed twice", "answer_pool")
    if task.answer not in task.answer_pool:
        raise _fail(f"the answer {task.answer} is not in the pool", "answer_pool")
    if task.options:
        raise _fail("induction tasks have no options", "options")
    load_formal(InductionProblem, task)  # the formal object: InductionProblem.load
    task_signature(task)
