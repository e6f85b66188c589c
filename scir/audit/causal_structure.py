"""Causal: the structural family -- answer-blind statistics of the data tables as the text
prints them (read back by the clean-NL structure or, for Obf, the reference extractors).

A simulated benchmark can give its causal order away through marginal statistics (Reisach et
al. 2021, 2023): when means, variances or R² grow along the edges, "correlation picks the
partner, the statistic the direction" answers without reading a single intervention. Per
option, for each of its edges ``a -> b`` (one end the new protein ``X``, the other its partner
``v``):

* **sortability**: whether the mean, the variance and the R² (regressed on all the other
  proteins) increase from ``a`` to ``b``, how far (log ratio of the variances, difference of
  the R², standardised difference of the means) and by how many places in the nodes' order
  of that statistic; in the observational condition and, **per environment**, averaged over
  the interventional conditions that hold neither ``a`` nor ``b`` fixed;
* **partner choice**: ``|corr(X, v)|`` and its rank among the new protein's correlations,
  in the observational condition and averaged over those conditions.

Features are averaged over an option's edges (and the smallest taken). How a condition moves
one end when it holds the other fixed -- the interventional signal itself, which GIES reads
-- is left out on purpose, as is any test of conditional independence: those are the task's
reasoning, not an artifact.

**The reference chance.** Observational correlations identify the skeleton (XYZ's partners)
in any faithful model; that is causal discovery, not a leak, and it alone narrows the options
to those with the right partners. So these baselines are flagged only when they beat the
*direction chance* of their own predictions (plus the leak margin): the accuracy they would
have if they kept the partners of the option they chose and drew its directions at random --
per task ``1 / |options with the chosen option's partners|`` when the answer is among those
options, else 0. Beating it means reading the directions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scir.audit.baselines import Baseline, Spec, cached, ranker
from scir.audit.items import Item
from scir.audit.sortability import STATISTICS, node_statistics


@dataclass
class Tables:
    """The data a solver sees: column names, the new protein, per condition its targets and
    rows (columns in ``columns`` order)."""

    columns: list[str]
    new: str
    targets: list[frozenset[str]]
    rows: list[np.ndarray]


def _tables(item: Item) -> Tables | None:
    content = item.content
    if not content or len(content) < 2:
        return None
    network, data = content[0], content[1]
    columns = list(data.get("columns") or [])
    envs = data.get("environments") or []
    declared = network.get("environments") or []
    by_name = {e.get("name"): e for e in declared}
    targets, rows = [], []
    for k, env in enumerate(envs):
        meta = by_name.get(env.get("name")) or (declared[k] if k < len(declared) else {})
        table = np.array(env.get("rows") or [], dtype=float)
        if table.ndim != 2 or table.shape[1] != len(columns) or len(table) < 3:
            return None
        targets.append(frozenset(meta.get("targets") or []))
        rows.append(table)
    new = str(network.get("new_protein") or item.task.domain_metadata.get("new_protein") or "XYZ")
    if not rows or new not in columns or not any(not t for t in targets):
        return None
    return Tables(columns, new, targets, rows)


def tables(item: Item) -> Tables | None:
    """The item's data tables (None when the text could not be read)."""
    return cached(item, "causal_tables", lambda: _tables(item))


def _abs_corr(rows: np.ndarray) -> np.ndarray:
    sd = rows.std(axis=0)
    centred = (rows - rows.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    corr = np.abs(centred.T @ centred) / len(rows)
    corr[:, sd == 0] = 0.0
    corr[sd == 0, :] = 0.0
    return corr


def _ranks(values: np.ndarray) -> np.ndarray:
    """Places in ascending order, scaled to 0..1 (ties share their mean place)."""
    order = values.argsort(kind="stable")
    place = np.empty(len(values))
    place[order] = np.arange(len(values))
    for v in np.unique(values):
        same = values == v
        place[same] = place[same].mean()
    return place / max(1, len(values) - 1)


@dataclass
class _Env:
    stats: dict[str, np.ndarray]
    ranks: dict[str, np.ndarray]
    corr: np.ndarray
    targets: frozenset[str]


def _environments(tab: Tables) -> list[_Env]:
    out = []
    for targets, rows in zip(tab.targets, tab.rows):
        stats = node_statistics(rows)
        out.append(_Env(stats, {s: _ranks(stats[s]) for s in STATISTICS}, _abs_corr(rows), targets))
    return out


def _known_sortability(item: Item, tab: Tables, envs: list[_Env]) -> dict[str, float]:
    """Per statistic, its sortability along the known edges (which the text states), in the
    observational condition and averaged over the conditions (each without the edges whose
    ends it holds fixed): how far this task's data order its known graph -- a calibration for
    the candidate's own order. 0.5 without known edges."""
    from scir.audit.causal import _network
    from scir.audit.sortability import edge_alignment

    known = [
        tuple(e)
        for e in _network(item).get("known_edges", [])
        if e[0] in tab.columns and e[1] in tab.columns
    ]
    out = {}
    for label, group in (("obs", [e for e in envs if not e.targets][:1]), ("env", envs)):
        for stat in STATISTICS:
            shares = []
            for env in group:
                edges = [e for e in known if not env.targets & set(e)]
                hits, n = edge_alignment(tab.columns, edges, env.stats[stat])
                if n:
                    shares.append(hits / n)
            out[f"{label}_{stat}"] = float(np.mean(shares)) if shares else 0.5
    return out


def _edge_features(
    tab: Tables, envs: list[_Env], known: dict[str, float], a: str, b: str
) -> dict[str, float]:
    """One candidate edge ``a -> b``: the observational condition's sortability along it,
    calibrated by the known edges', and the partner's correlation with the new protein."""
    i, j = tab.columns.index(a), tab.columns.index(b)
    x = tab.columns.index(tab.new)
    v = j if i == x else i
    e = [env for env in envs if not env.targets][0]
    m, var, r2 = e.stats["mean"], e.stats["var"], e.stats["r2"]
    pooled = float(np.sqrt((var[i] + var[j]) / 2)) or 1.0
    corr = e.corr[x].copy()
    corr[x] = -1.0
    incr = {"mean": float(m[j] > m[i]), "var": float(var[j] > var[i]), "r2": float(r2[j] > r2[i])}
    out = {
        **{f"incr_{s}": incr[s] for s in STATISTICS},
        "diff_mean": float((m[j] - m[i]) / pooled),
        "diff_logvar": float(np.log((var[j] + 1e-9) / (var[i] + 1e-9))),
        "diff_r2": float(r2[j] - r2[i]),
        **{f"rank_{s}": float(e.ranks[s][j] - e.ranks[s][i]) for s in STATISTICS},
        "into_new": float(b == tab.new),
        # the ends' R² levels and places, signed by the direction (+ into the new protein)
        **{
            f"signed_{end}_{kind}": (1.0 if b == tab.new else -1.0) * float(value)
            for end, k in (("new", x), ("partner", v))
            for kind, value in (
                ("r2", r2[k]),
                ("r2_rank", e.ranks["r2"][k]),
                ("mean_rank", e.ranks["mean"][k]),
                ("var_rank", e.ranks["var"][k]),
            )
        },
        "corr_rank": float(sum(1 for c in corr if c > corr[v])),
    }
    for label in ("obs", "env"):  # the candidate's order, trusted as far as the known
        for s in STATISTICS:  # edges' order is
            out[f"calibrated_{label}_{s}"] = (2 * incr[s] - 1) * (2 * known[f"{label}_{s}"] - 1)
    return out


def candidates(item: Item) -> list[tuple[str, dict[str, float]]]:
    """Every option (by letter) with its structural features; none when the tables could
    not be read (the ranker then falls back to the first option)."""
    from scir.audit.causal import _letters, _options

    tab = tables(item)
    options = _options(item)
    letters = _letters(len(options))
    if tab is None:
        return [(letter, {"parsed": 0.0}) for letter in letters]
    envs = cached(item, "causal_envs", lambda: _environments(tab))
    known = _known_sortability(item, tab, envs)
    rows = []
    for letter, option in zip(letters, options):
        per_edge = [
            _edge_features(tab, envs, known, a, b)
            for a, b in sorted(option)
            if a in tab.columns and b in tab.columns
        ]
        feats: dict[str, float] = {"parsed": 1.0, **{f"known_{k}": v for k, v in known.items()}}
        for key in sorted({k for f in per_edge for k in f}):
            values = [f[key] for f in per_edge if key in f]
            feats[f"mean_{key}"] = float(np.mean(values))
            feats[f"min_{key}"] = float(np.min(values))
        rows.append((letter, feats))
    return rows


def direction_chance(item: Item, prediction: str) -> float:
    """The chance that ``prediction`` would be right with its partners kept and the
    directions of its edges drawn at random: ``1 / |options with the predicted option's
    partners|`` when the answer is among them, else 0. Reads the answer: a reference level
    for scoring, never a feature."""
    from scir.audit.causal import _letters, _new_protein, _options

    options = _options(item)
    letters = _letters(len(options))
    if prediction not in letters or item.answer not in letters:
        return 0.0
    new = _new_protein(item)

    def partners(option) -> frozenset[str]:
        return frozenset(b if a == new else a for a, b in option)

    chosen = partners(options[letters.index(prediction)])
    same = [k for k, o in enumerate(options) if partners(o) == chosen]
    return 1.0 / len(same) if letters.index(item.answer) in same else 0.0


class SortRule(Baseline):
    """The reviewer's rule, fitted: the option whose partners are the new protein's most
    correlated proteins (observational condition), then the one along whose edges the
    statistic ``stat`` increases (or decreases: the orientation that is right more often on
    the training fold)."""

    def __init__(self, stat: str, seed: int) -> None:
        self.stat, self.seed, self.sign = stat, seed, 1.0

    def _choice(self, item: Item, sign: float) -> str:
        rows = cached(item, "structure", lambda: candidates(item))
        rng = random.Random(f"{self.seed}:{item.task_id}")
        key = f"mean_incr_{self.stat}"
        scores = [(-f.get("mean_corr_rank", 0.0), sign * f.get(key, 0.5)) for _, f in rows]
        top = max(scores)
        return rng.choice([a for (a, _), s in zip(rows, scores) if s == top])

    def fit(self, items: list[Item]) -> None:
        right = {s: sum(item.accepts(self._choice(item, s)) for item in items) for s in (1.0, -1.0)}
        self.sign = 1.0 if right[1.0] >= right[-1.0] else -1.0

    def predict(self, items: list[Item]) -> list[str]:
        return [self._choice(item, self.sign) for item in items]


def _sort_rule(stat: str) -> Callable[[int], Baseline]:
    """A :class:`Spec`'s ``make``: a fresh :class:`SortRule` per seed."""
    return lambda seed: SortRule(stat, seed)


def specs() -> list[Spec]:
    """The structural baselines (their leak reference: the direction chance)."""
    out = [
        Spec(
            f"struct-rank-{kind}",
            "structural",
            f"{label} on per-option sortability, per-environment and partner-correlation "
            "features of the data tables, best option",
            ranker(candidates, kind, "structure"),
            reference=direction_chance,
        )
        for kind, label in (("logreg", "logistic regression"), ("boost", "gradient boosting"))
    ]
    out += [
        Spec(
            f"corr-partner-{stat}-direction",
            "structural",
            f"most correlated partners, then the direction along which the {stat} "
            "increases (orientation fitted)",
            _sort_rule(stat),
            reference=direction_chance,
        )
        for stat in STATISTICS
    ]
    return out
