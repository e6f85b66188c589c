"""Deduction track: answer-blind baselines and sizes, balanced vs paper construction.

For each construction and tier: ``-n`` tasks (default 200, seed 1) generated, rendered with the
template renderer, then
  * sizes: premises, chars of ``problem_nl`` and ``problem_obfuscated`` (paper Table 2, Hard:
    32.8 formulas, 3.2k chars NL, 9.4k Obf);
  * answer-blind baselines on what a solver sees (``question`` + ``problem_nl``): the issue's
    rules (premise count / once-mentioned terms -> Unknown, else negative wording vs the
    statement's polarity; thresholds fitted on the training folds), and cross-validated
    scikit-learn models on count features (premises, distinct terms, individuals, the
    term-frequency profile, negative premises, forms, the statement's form and its terms'
    counts, lengths, negation words) and on word n-grams (of problem_nl, and of the rendered
    problem_obfuscated).
Every baseline gets its accuracy with a 95% Wilson interval; a **leak** is flagged when the
lower bound is above chance (1/3) + 0.03. This is a helper for issue 10 (the formal audit is
``scir audit``); the features are read from the text through the task's vocabulary.

    python benchmarks/deduction_independence.py [-n 200] [--seed 1] [--constructions balanced paper]
"""

from __future__ import annotations

import argparse
import math
import re
import time
from collections import Counter
from statistics import mean

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from scir.rendering.template import render_task
from scir.tasks import Task
from scir.tracks.deduction import DeductionTrack
from scir.tracks.deduction.logic import parse

CHANCE = 1 / 3
MARGIN = 0.03
LABELS = ("True", "False", "Unknown")
NEGATIVE_KINDS = ("no", "some_not", "neg_fact")
KINDS = ("all", "no", "some", "some_not", "fact", "neg_fact", "exists")
NEGATION_WORDS = re.compile(r"\b(?:not|no|never|rules out)\b", re.I)


def wilson(correct: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``correct`` / ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def features(task: Task) -> dict[str, float]:
    """Answer-blind counts of one task (the premises are what ``problem_nl`` states,
    sentence by sentence; the statement is the question's)."""
    premises = [parse(p) for p in task.formal["premises"]]
    statement = parse(task.formal["goal"])
    mentions = Counter(a for p in premises for a in p.args)
    profile = Counter(mentions.values())
    out: dict[str, float] = {
        "premises": len(premises),
        "terms": len(mentions),
        "predicates": len({a for p in premises for a in p.predicates}),
        "individuals": len({a for p in premises for a in p.constants}),
        "once": profile[1],
        "negative_premises": sum(p.kind in NEGATIVE_KINDS for p in premises),
        "statement_negative": float(statement.kind in NEGATIVE_KINDS),
        "statement_pair_mentions": sum(set(statement.args) <= set(p.args) for p in premises),
        "chars_nl": len(task.problem_nl),
        "words_nl": len(task.problem_nl.split()),
        "negation_words": len(NEGATION_WORDS.findall(task.problem_nl)),
        "chars_question": len(task.question),
    }
    for k in range(1, 7):
        out[f"mentioned_{k}"] = profile[k]
    for kind in KINDS:
        out[f"kind_{kind}"] = sum(p.kind == kind for p in premises)
        out[f"statement_{kind}"] = float(statement.kind == kind)
    first = Counter(p.args[0] for p in premises)
    second = Counter(p.args[1] for p in premises if len(p.args) > 1)
    out["terms_only_first"] = sum(1 for a in mentions if first[a] and not second[a])
    out["terms_only_second"] = sum(1 for a in mentions if second[a] and not first[a])
    out["terms_both_positions"] = sum(1 for a in mentions if first[a] and second[a])
    for i, arg in enumerate(statement.args):
        out[f"statement_arg{i}_mentions"] = mentions[arg]
        out[f"statement_arg{i}_as_first"] = first[arg]
        out[f"statement_arg{i}_as_second"] = second[arg]
        out[f"statement_arg{i}_in_negative"] = sum(arg in p.args for p in premises
                                                   if p.kind in NEGATIVE_KINDS)
    return out


def _rule_predict(count: np.ndarray, any_negative: np.ndarray, statement_negative: np.ndarray,
                  threshold: float, high_unknown: bool) -> np.ndarray:
    polarity = np.where(any_negative == statement_negative, "True", "False")
    unknown = count >= threshold if high_unknown else count <= threshold
    return np.where(unknown, "Unknown", polarity)


def rule_baseline(rows: list[dict], y: np.ndarray, key: str, folds: int,
                  fixed: float | None = None) -> np.ndarray:
    """The issue's rule on feature ``key``: low (or high) count -> Unknown, else True iff the
    statement's polarity matches whether any premise is negative. The threshold and its
    direction are fitted on the training folds (or ``fixed``)."""
    count = np.array([r[key] for r in rows])
    neg = np.array([r["negative_premises"] > 0 for r in rows])
    sneg = np.array([r["statement_negative"] > 0 for r in rows])
    if fixed is not None:
        return _rule_predict(count, neg, sneg, fixed, False)
    pred = np.empty(len(rows), dtype=object)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(count, y):
        best = None
        for t in np.unique(count[train]):
            for high in (False, True):
                acc = np.mean(_rule_predict(count[train], neg[train], sneg[train], t, high)
                              == y[train])
                if best is None or acc > best[0]:
                    best = (acc, t, high)
        pred[test] = _rule_predict(count[test], neg[test], sneg[test], best[1], best[2])
    return pred


def audit(tasks: list[Task], folds: int = 5) -> list[tuple[str, int, int]]:
    """(baseline, correct, n) for every baseline on ``tasks``."""
    rows = [features(t) for t in tasks]
    y = np.array([t.answer for t in tasks])
    names = sorted(rows[0])
    x = np.array([[r[k] for k in names] for r in rows], dtype=float)
    texts = [t.question + "\n" + t.problem_nl for t in tasks]
    obf = [t.question + "\n" + t.problem_obfuscated for t in tasks]
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    out = []
    majority = Counter(y).most_common(1)[0][1]
    out.append(("majority answer", majority, len(y)))
    fixed = 10 if tasks[0].difficulty == "easy" else 18
    for label, pred in [
        (f"issue rule: premises <= {fixed} -> Unknown, else polarity",
         rule_baseline(rows, y, "premises", folds, fixed=fixed)),
        ("rule: premises (fitted threshold) + polarity",
         rule_baseline(rows, y, "premises", folds)),
        ("rule: once-mentioned terms (fitted) + polarity", rule_baseline(rows, y, "once", folds)),
        ("rule: negative premises (fitted) + polarity",
         rule_baseline(rows, y, "negative_premises", folds)),
        ("logistic regression, count features",
         cross_val_predict(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
                           x, y, cv=cv)),
        ("gradient boosting, count features",
         cross_val_predict(GradientBoostingClassifier(random_state=0), x, y, cv=cv)),
        ("logistic regression, word 1-3-grams of question + problem_nl",
         cross_val_predict(make_pipeline(CountVectorizer(ngram_range=(1, 3), min_df=2),
                                         LogisticRegression(max_iter=3000)), texts, y, cv=cv)),
        ("logistic regression, word 1-3-grams of question + problem_obfuscated",
         cross_val_predict(make_pipeline(CountVectorizer(ngram_range=(1, 3), min_df=2),
                                         LogisticRegression(max_iter=3000)), obf, y, cv=cv)),
    ]:
        out.append((label, int(np.sum(pred == y)), len(y)))
    return out


def sizes(tasks: list[Task]) -> dict[str, float]:
    """Mean premises, chars NL, chars Obf (rendered), Obf/NL."""
    nl = [len(t.problem_nl) for t in tasks]
    obf = [len(t.problem_obfuscated) for t in tasks]
    return {"premises": mean(len(t.formal["premises"]) for t in tasks),
            "chars_nl": mean(nl), "chars_obf": mean(obf), "ratio": mean(obf) / mean(nl)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--constructions", nargs="+", default=["balanced", "paper"])
    args = parser.parse_args()
    track = DeductionTrack()
    leaks = 0
    for construction in args.constructions:
        for tier in ("easy", "hard"):
            start = time.perf_counter()
            tasks = list(track.generate(args.n, args.seed, tier,
                                        {"construction": construction}))
            seconds = time.perf_counter() - start
            tasks = [render_task(t, seed=args.seed) for t in tasks]
            s = sizes(tasks)
            retries = sum(sum(t.provenance["retries"].values()) for t in tasks)
            print(f"\n### {construction}, {tier} ({tasks[0].tier}, {len(tasks)} tasks, "
                  f"generated in {seconds:.1f} s, {retries} retries)\n")
            print(f"premises {s['premises']:.1f}, chars NL {s['chars_nl']:.0f}, chars Obf "
                  f"{s['chars_obf']:.0f} (Obf/NL {s['ratio']:.2f})\n")
            print("| baseline | accuracy | 95% CI | chance | leak |")
            print("|---|---|---|---|---|")
            for name, correct, n in audit(tasks, args.folds):
                low, high = wilson(correct, n)
                leak = low > CHANCE + MARGIN
                leaks += leak and construction == "balanced"
                print(f"| {name} | {correct / n:.3f} | [{low:.3f}, {high:.3f}] | "
                      f"{CHANCE:.3f} | {'LEAK' if leak else ''} |")
    print(f"\nleaks flagged for the balanced construction: {leaks}")


if __name__ == "__main__":
    main()
