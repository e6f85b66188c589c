"""Cross-validation of the baselines on one group of items, the Wilson interval of each
accuracy and the leak rule.

Folds are grouped (``StratifiedGroupKFold``, stratified by answer) so that nothing about a
test task is in its training fold: every copy of a task (the same task id in several files) is
in one fold, and so are the tasks of different tiers made from the same seed and index
(``{track}-{tier}-{seed}-{index}``: an Easy and a Hard task of one seed and index may share
their random draws, e.g. the induction target rule). A **leak** is flagged when the lower bound of the 95% Wilson interval lies
above ``max(chance, chance_constrained) + LEAK_MARGIN`` (means over the group's tasks), or
above ``reference + LEAK_MARGIN`` for a baseline with a reference chance of its own
(:attr:`~scir.audit.baselines.Spec.reference`) when that is higher.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import asdict, dataclass, field

from scir.audit.baselines import Spec
from scir.audit.items import Item

LEAK_MARGIN = 0.03
# families shown for reference, never flagged: ``solver`` baselines read the task's own
# reasoning (deduction's chain-follower), so their accuracy is what a construction must allow
REFERENCE = ("solver",)
MIN_TASKS = 10  # a group with fewer fold groups (distinct tasks) is not audited


@dataclass
class Score:
    """One baseline's cross-validated result on one group."""

    name: str
    family: str
    description: str
    correct: int
    tasks: int
    accuracy: float
    low: float
    high: float
    leak: bool
    reference: float | None = None  # the baseline's own chance level (Spec.reference)


@dataclass
class GroupAudit:
    """The audit of one (track, difficulty, presentation) group."""

    track: str
    difficulty: str
    presentation: str
    tasks: int
    parsed: int  # items whose formal content was read from the text
    chance: float
    chance_constrained: float
    folds: int
    files: list[str]
    scores: list[Score] = field(default_factory=list)
    confidence: float = 0.95  # of every interval (lower with --family-wise: Bonferroni)

    @property
    def threshold(self) -> float:
        """The accuracy an interval's lower bound must exceed to flag a leak."""
        return max(self.chance, self.chance_constrained) + LEAK_MARGIN

    @property
    def leaks(self) -> list[Score]:
        return [s for s in self.scores if s.leak]

    def to_dict(self) -> dict:
        out = asdict(self)
        out["threshold"] = self.threshold
        out["leaks"] = [s.name for s in self.leaks]
        return out


_TASK_ID = re.compile(r"^(?P<track>.+)-(?P<tier>[^-]+)-(?P<seed>-?\d+)-(?P<index>\d+)$")


def fold_group(task_id: str) -> str:
    """The fold group of a task: its id without the tier (the id itself if it has another
    form)."""
    m = _TASK_ID.match(task_id)
    return f"{m['track']}-{m['seed']}-{m['index']}" if m else task_id


def wilson(correct: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval (95% unless told) of ``correct`` successes in ``n``
    (:func:`scir.reports.stats.wilson`, the one definition)."""
    from scir.reports.stats import wilson as interval

    got = interval(correct, n, confidence)
    return got.low, got.high


def folds(items: list[Item], k: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """``k`` (train, test) index splits, grouped (:func:`fold_group`) and stratified by
    answer where some answer is at least ``k`` times in the group."""
    from collections import Counter

    from sklearn.model_selection import GroupKFold, StratifiedGroupKFold

    groups = [fold_group(i.task_id) for i in items]
    k = min(k, len(set(groups)))
    if max(Counter(i.answer for i in items).values()) >= k:
        splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    else:  # every answer rarer than the folds: stratifying is impossible
        splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # few members per class (induction: 45 answers)
        warnings.simplefilter("ignore", UserWarning)
        return [
            (list(a), list(b))
            for a, b in splitter.split(list(range(len(items))), [i.answer for i in items], groups)
        ]


def cross_validate(spec: Spec, items: list[Item], splits, seed: int) -> list[str]:
    """Out-of-fold predictions of ``spec`` for every item."""
    from threadpoolctl import threadpool_limits

    predictions = [""] * len(items)
    for train, test in splits:
        baseline = spec.make(seed)
        # one thread: small models, and OpenMP thread start-up costs more than it saves
        with warnings.catch_warnings(), threadpool_limits(limits=1):
            warnings.simplefilter("ignore")  # convergence / constant-feature warnings
            baseline.fit([items[i] for i in train])
            for i, p in zip(test, baseline.predict([items[i] for i in test])):
                predictions[i] = p
    return predictions


def enough_tasks(items: list[Item]) -> bool:
    """Whether a group has the ``MIN_TASKS`` fold groups cross-validation needs."""
    return len({fold_group(i.task_id) for i in items}) >= max(MIN_TASKS, 2)


def audit_group(
    key: tuple[str, str, str],
    items: list[Item],
    specs: list[Spec],
    k: int,
    seed: int,
    confidence: float = 0.95,
) -> GroupAudit | None:
    """Cross-validate every baseline on ``items``, intervals at ``confidence``; None when the
    group has fewer than ``MIN_TASKS`` fold groups."""
    track, difficulty, presentation = key
    if not enough_tasks(items):
        return None
    distinct = len({fold_group(i.task_id) for i in items})
    n = len(items)
    audit = GroupAudit(
        track,
        difficulty,
        presentation,
        tasks=n,
        parsed=sum(1 for i in items if i.content is not None),
        chance=sum(i.task.chance for i in items) / n,
        # Task.__post_init__ fills a missing chance_constrained from chance
        chance_constrained=sum(
            float(i.task.chance if i.task.chance_constrained is None else i.task.chance_constrained)
            for i in items
        )
        / n,
        folds=min(k, distinct),
        files=sorted({i.file for i in items}),
        confidence=confidence,
    )
    splits = folds(items, k, seed)
    for spec in specs:
        predictions = cross_validate(spec, items, splits, seed)
        correct = sum(1 for item, p in zip(items, predictions) if item.accepts(p))
        low, high = wilson(correct, n, confidence)
        reference = (
            sum(spec.reference(i, p) for i, p in zip(items, predictions)) / n
            if spec.reference is not None
            else None
        )
        threshold = (
            audit.threshold if reference is None else max(audit.threshold, reference + LEAK_MARGIN)
        )
        audit.scores.append(
            Score(
                spec.name,
                spec.family,
                spec.description,
                correct,
                n,
                correct / n,
                low,
                high,
                leak=low > threshold and spec.family not in REFERENCE,
                reference=reference,
            )
        )
    return audit
