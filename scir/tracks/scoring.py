"""A track's default scorer (``Track.scorer()``): the generic scorer its ``scoring`` names.

``label`` -> :class:`~scir.outcomes.scoring.LabelScorer`, ``pool`` ->
:class:`~scir.outcomes.scoring.PoolScorer`, ``option`` ->
:class:`~scir.outcomes.scoring.OptionScorer` (letters only, unless the track defines the
older item hooks below); another name is a ConfigError naming the track and the rules. A
track with a rule of its own overrides ``Track.scorer()`` instead.

Tracks written before the scorers may still define the older scoring hooks
(:data:`OLD_HOOKS`: ``score``, ``scoring_of``, ``answer_metrics``, ``option_items``,
``answer_items``, ``fold_item``), which ``Track`` no longer has: the default scorer calls
the ones a track defines (``option_items``, ``answer_items``, ``fold_item`` become the
OptionScorer's item functions) and warns once per track class (DeprecationWarning).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scir.errors import ConfigError
from scir.outcomes.scoring import (
    LABEL,
    OPTION,
    POOL,
    RULES,
    Assessment,
    LabelScorer,
    OptionScorer,
    PoolScorer,
    Scorer,
)
from scir.tracks.formalizer import OLDER_METHODS_REMOVED_IN, warn_once

if TYPE_CHECKING:
    from scir.tasks import Task
    from scir.tracks.base import Track

# the Track methods the scoring rules used to call back, which a track may still define
OLD_HOOKS = ("score", "scoring_of", "answer_metrics", "option_items", "answer_items", "fold_item")

# the release without the old hooks: the one that also stops reading the older formalization
# methods
REMOVED_IN = OLDER_METHODS_REMOVED_IN
DEPRECATED = f"override Track.scorer() instead; the old scoring hooks are removed in {REMOVED_IN}"
_warned: weakref.WeakSet[type] = weakref.WeakSet()  # the track classes warned about


def old_hooks(track: Track) -> dict[str, Callable[..., Any]]:
    """The older scoring hooks ``track``'s class defines (bound to ``track``)."""
    return {name: getattr(track, name) for name in OLD_HOOKS if getattr(type(track), name, None)}


def rule_scorer(track: Track, hooks: dict[str, Callable[..., Any]] | None = None) -> Scorer:
    """The generic scorer of the rule ``track.scoring`` names (``option``: with the item
    hooks in ``hooks``); ConfigError for a name that is not one of :data:`RULES`."""
    hooks = hooks or {}
    rule = track.scoring
    if rule == LABEL:
        return LabelScorer()
    if rule == POOL:
        return PoolScorer()
    if rule == OPTION:
        items = {
            key: hooks[name]
            for key, name in (
                ("option_items", "option_items"),
                ("answer_items", "answer_items"),
                ("fold", "fold_item"),
            )
            if name in hooks
        }
        return OptionScorer(**items)
    raise ConfigError(
        f"track {track.name!r} names the unknown scoring rule {rule!r} (one of "
        f"{', '.join(RULES)}); a track with a rule of its own overrides Track.scorer()",
        field="scoring",
    )


class HookScorer(Scorer):
    """The default scorer of a track that defines older scoring hooks: each hook it
    defines, else the generic scorer of its rule (built only when needed, so that a track
    defining ``score`` may name any rule)."""

    def __init__(self, track: Track, hooks: dict[str, Callable[..., Any]]) -> None:
        self.rule = track.scoring
        self._hooks = hooks
        self._base = None if "score" in hooks else rule_scorer(track, hooks)

    def rule_of(self, task: Task) -> str:
        own = self._hooks.get("scoring_of")
        return own(task) if own else self.rule

    def score(self, task: Task, answer: str | None) -> bool:
        own = self._hooks.get("score")
        if own is not None:
            return bool(own(task, answer))
        assert self._base is not None  # built when the track defines no ``score``
        return self._base.score(task, answer)

    def assess(self, task: Task, answer: str | None) -> Assessment:
        own = self._hooks.get("answer_metrics")
        return Assessment(bool(self.score(task, answer)), own(task, answer) if own else None)


def default_scorer(track: Track) -> Scorer:
    """``Track.scorer()``'s default: the generic scorer of ``track.scoring``, or for a track
    defining older scoring hooks a :class:`HookScorer` calling them (with one
    DeprecationWarning per track class)."""
    hooks = old_hooks(track)
    if not hooks:
        return rule_scorer(track)
    cls = type(track)
    names = ", ".join(sorted(hooks))
    warn_once(
        _warned, cls, f"track {track.name!r} ({cls.__qualname__}) defines {names}: {DEPRECATED}"
    )
    return HookScorer(track, hooks)


# the older scoring calls a caller may still make on a track -> what the scorer gives
FORWARDED = {"score": "score", "scoring_of": "rule_of", "answer_metrics": "assess"}


def older_call(track: Track, name: str) -> Callable[..., Any] | None:
    """``track.<name>`` for an older scoring call (:data:`FORWARDED`) on a track that does not
    define it (``Track.__getattr__``): its scorer's method, with a DeprecationWarning
    (``answer_metrics`` is the metrics of ``assess``); None for any other name."""
    new = FORWARDED.get(name)
    if new is None:
        return None
    warnings.warn(
        f"Track.{name} is deprecated: call track.scorer().{new} (removed in scir {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=3,
    )
    scorer = track.scorer()
    if name == "answer_metrics":
        return lambda task, answer: scorer.assess(task, answer).metrics
    method: Callable[..., Any] = getattr(scorer, new)
    return method


__all__ = [
    "DEPRECATED",
    "FORWARDED",
    "OLD_HOOKS",
    "REMOVED_IN",
    "HookScorer",
    "default_scorer",
    "old_hooks",
    "older_call",
    "rule_scorer",
]
