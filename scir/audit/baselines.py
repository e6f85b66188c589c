"""The audit's baselines: models that see only what a solver sees (question, options, one
presentation's text) and never the answer of a task they predict.

* ``majority``: the most frequent answer of the training fold;
* ``counts``: a logistic regression and a gradient-boosted model on the track's count features
  (one row per task, the answer as the class);
* ``ranking``: the same two models on per-candidate features (causal: each option; induction:
  each of the 45 pairs), trained to tell the answer from the other candidates; a task's
  prediction is its highest-scoring candidate;
* ``ngrams``: a logistic regression on word 1-2-grams of question, options and text;
* ``heuristic``: the track's hand rules for known artifact families (some fit a threshold or
  an orientation on the training fold).

A :class:`Spec` makes a fresh baseline per fold; every model is seeded.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from scir.audit.items import Item

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

FeatureFn = Callable[[Item], dict[str, float]]
CandidateFn = Callable[[Item], list[tuple[str, dict[str, float]]]]


class Baseline(ABC):
    """One answer-blind predictor: ``fit`` on training items, ``predict`` test items."""

    # a no-op by default, not abstract: untrained baselines ignore the training fold
    def fit(self, items: list[Item]) -> None:  # noqa: B027
        """Learn from ``items`` (their answers included)."""

    @abstractmethod
    def predict(self, items: list[Item]) -> list[str]:
        """One answer per item, from what a solver sees only."""


@dataclass(frozen=True)
class Spec:
    """A named baseline: ``make(seed)`` builds a fresh, untrained instance.

    ``reference`` (optional), for baselines that read a legitimate part of the task's signal:
    ``reference(item, prediction)`` is the chance that a prediction would be right if it kept
    the legitimate part of the baseline's choice and drew the rest at random; its mean over a
    group's tasks replaces the group's chance in the leak rule when it is higher (causal's
    structural family: keep the predicted option's partners, which observational
    correlations reveal, draw the directions)."""

    name: str
    family: str  # majority | counts | ranking | ngrams | heuristic | structural | solver
    description: str
    make: Callable[[int], Baseline]
    reference: Callable[[Item, str], float] | None = None


def cached(item: Item, key: str, compute: Callable[[], object]):
    """``item.cache[key]``, computed on first use."""
    if key not in item.cache:
        item.cache[key] = compute()
    return item.cache[key]


def _model(kind: str, seed: int):
    """A fresh scikit-learn classifier: ``logreg`` (scaled inputs) or ``boost``."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "logreg":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    if kind == "boost":
        return HistGradientBoostingClassifier(
            max_iter=60, learning_rate=0.1, max_depth=4, early_stopping=False, random_state=seed
        )
    raise ValueError(kind)


class Majority(Baseline):
    """The most frequent training answer (scikit-learn's DummyClassifier)."""

    def fit(self, items: list[Item]) -> None:
        from sklearn.dummy import DummyClassifier

        self.model = DummyClassifier(strategy="most_frequent")
        self.model.fit([[0]] * len(items), [i.answer for i in items])

    def predict(self, items: list[Item]) -> list[str]:
        return [str(a) for a in self.model.predict([[0]] * len(items))]


class FeatureClassifier(Baseline):
    """A classifier over a dict of count features per task; the answer is the class. With
    ``min_rows``, only features non-zero in at least that many training tasks are kept (a
    feature seen once cannot generalise; Weisfeiler-Lehman labels are mostly such)."""

    def __init__(
        self, features: FeatureFn, kind: str, seed: int, key: str, min_rows: int = 1
    ) -> None:
        self.features, self.kind, self.seed, self.key = features, kind, seed, key
        self.min_rows = min_rows

    def _rows(self, items: list[Item]) -> list[dict[str, float]]:
        return [cached(i, self.key, partial(self.features, i)) for i in items]

    def fit(self, items: list[Item]) -> None:
        from collections import Counter

        from sklearn.feature_extraction import DictVectorizer

        y = [i.answer for i in items]
        self.only = y[0] if len(set(y)) == 1 else None
        if self.only is None:
            rows = self._rows(items)
            if self.min_rows > 1:
                seen = Counter(k for row in rows for k, v in row.items() if v)
                keep = {k for k, n in seen.items() if n >= self.min_rows}
                rows = [{k: v for k, v in row.items() if k in keep} for row in rows]
            self.vec = DictVectorizer(sparse=False)
            X = self.vec.fit_transform(rows)
            self.model = _model(self.kind, self.seed).fit(X, y)

    def predict(self, items: list[Item]) -> list[str]:
        if self.only is not None:
            return [self.only] * len(items)
        return [str(a) for a in self.model.predict(self.vec.transform(self._rows(items)))]


class Ranker(Baseline):
    """A binary classifier over per-candidate features: is this candidate the answer? Each
    task's prediction is its candidate with the highest probability (first on ties)."""

    def __init__(self, candidates: CandidateFn, kind: str, seed: int, key: str) -> None:
        self.candidates, self.kind, self.seed, self.key = candidates, kind, seed, key

    def _cands(self, item: Item) -> list[tuple[str, dict[str, float]]]:
        return cached(item, self.key, lambda: self.candidates(item))

    def fit(self, items: list[Item]) -> None:
        from sklearn.feature_extraction import DictVectorizer

        rows, y = [], []
        for item in items:
            for answer, feats in self._cands(item):
                rows.append(feats)
                y.append(int(answer == item.answer))
        self.vec = DictVectorizer(sparse=False)
        X = self.vec.fit_transform(rows)
        self.only = y[0] if len(set(y)) == 1 else None
        if self.only is None:
            self.model = _model(self.kind, self.seed).fit(X, y)

    def predict(self, items: list[Item]) -> list[str]:
        out = []
        for item in items:
            cands = self._cands(item)
            if self.only is not None or not cands:
                out.append(cands[0][0] if cands else "")
                continue
            scores = self.model.predict_proba(self.vec.transform([f for _, f in cands]))[:, 1]
            best = max(range(len(cands)), key=lambda k: (scores[k], -k))
            out.append(cands[best][0])
        return out


def ngram_text(item: Item) -> str:
    """What the n-gram model reads: question, options and the presentation's text."""
    return "\n".join([item.task.question, *item.task.options, item.text])


class NGrams(Baseline):
    """Logistic regression on binary word 1-2-grams (seen in at least two training tasks)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def fit(self, items: list[Item]) -> None:
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.linear_model import LogisticRegression

        y = [i.answer for i in items]
        self.only = y[0] if len(set(y)) == 1 else None
        if self.only is None:
            self.vec = CountVectorizer(
                ngram_range=(1, 2),
                min_df=2,
                binary=True,
                max_features=50000,
                token_pattern=r"(?u)\b\w[\w+\-]*\b",
            )
            X = self.vec.fit_transform([ngram_text(i) for i in items])
            self.model = LogisticRegression(max_iter=2000, C=1.0).fit(X, y)

    def predict(self, items: list[Item]) -> list[str]:
        if self.only is not None:
            return [self.only] * len(items)
        X = self.vec.transform([ngram_text(i) for i in items])
        return [str(a) for a in self.model.predict(X)]


class Heuristic(Baseline):
    """An untrained rule ``rule(item, rng) -> answer``; ``rng`` is seeded per task, so
    random tie-breaks are reproducible."""

    def __init__(self, rule: Callable[[Item, random.Random], str], seed: int) -> None:
        self.rule, self.seed = rule, seed

    def predict(self, items: list[Item]) -> list[str]:
        return [self.rule(i, random.Random(f"{self.seed}:{i.task_id}")) for i in items]


def pick(options: list[str], scores: Sequence[SupportsRichComparison], rng: random.Random) -> str:
    """The option with the highest score, ties broken at random by ``rng``."""
    if not options:
        return ""
    top = max(scores)
    return rng.choice([o for o, s in zip(options, scores) if s == top])


def classifier(
    features: FeatureFn, kind: str, key: str, min_rows: int = 1
) -> Callable[[int], Baseline]:
    """A :class:`Spec`'s ``make``: a fresh :class:`FeatureClassifier` per seed."""
    return lambda seed: FeatureClassifier(features, kind, seed, key, min_rows=min_rows)


def ranker(candidates: CandidateFn, kind: str, key: str) -> Callable[[int], Baseline]:
    """A :class:`Spec`'s ``make``: a fresh :class:`Ranker` per seed."""
    return lambda seed: Ranker(candidates, kind, seed, key)


def standard_specs(features: FeatureFn | None, candidates: CandidateFn | None) -> list[Spec]:
    """The baselines every track gets: majority, counts (logreg, boost; when the answer is a
    label of its own, not an option letter), ranking (when the track has candidates) and
    n-grams."""
    specs = [Spec("majority", "majority", "most frequent training answer", lambda seed: Majority())]
    for kind, label in (("logreg", "logistic regression"), ("boost", "gradient boosting")):
        if features is None:
            break
        specs.append(
            Spec(
                f"counts-{kind}",
                "counts",
                f"{label} on the count features",
                classifier(features, kind, "features"),
            )
        )
    if candidates is not None:
        for kind, label in (("logreg", "logistic regression"), ("boost", "gradient boosting")):
            specs.append(
                Spec(
                    f"rank-{kind}",
                    "ranking",
                    f"{label} on per-candidate features, best candidate",
                    ranker(candidates, kind, "candidates"),
                )
            )
    specs.append(
        Spec(
            "ngrams-logreg",
            "ngrams",
            "logistic regression on word 1-2-grams of question, options and text",
            lambda seed: NGrams(seed),
        )
    )
    return specs
