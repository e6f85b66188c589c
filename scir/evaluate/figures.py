"""The report's PNG figures (matplotlib, Agg backend), drawn from a computed
:class:`scir.evaluate.report.Report`; every figure is :data:`WIDTH` x :data:`HEIGHT` pixels.

- ``heatmap-<model>.png``: accuracy per model over the two axes, difficulty x presentation
  (columns ``easy NL``, ``easy Obf``, ...) for every track and architecture (rows);
- ``nl_vs_obf.png``: NL and Obf accuracy with 95% Wilson interval bars, one panel per
  architecture;
- ``constrained.png``: grammar-constrained against free formalization, with interval bars
  (drawn when some cell was run both ways);
- ``probes.png``: reasoning (NL.CoT), extraction (Obf.NS) and joint (Obf.CoT) accuracy with
  interval bars per track, difficulty and model (drawn when there is a probe).

A cell that was not run (or has no results yet) is drawn as missing, never as zero: no bar and
the words "not run" in its place (``-`` in a heatmap). Every bar chart draws each group's chance
level (the mean chance of its tasks: a track and tier's own, e.g. 1/3 for deduction) as a
dashed line across the group, so a bar can be read against guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scir.evaluate.backup import arch_label

if TYPE_CHECKING:
    from scir.evaluate.aggregate import CellStats
    from scir.evaluate.report import Report

DPI = 100
WIDTH, HEIGHT = 900, 500           # pixels
PRESENTATION_LABEL = {"nl": "NL", "obf": "Obf"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _figure(plt, ncols: int = 1):
    fig, axes = plt.subplots(1, ncols, figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI,
                             squeeze=False)
    return fig, list(axes[0])


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    fig.clear()
    return path


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


NOT_RUN = "not run"


def _errors(cells: Sequence[CellStats | None]) -> tuple[list[float], list[list[float]]]:
    """Bar heights and asymmetric error lengths (NaN for a missing cell: no bar is drawn)."""
    nan = float("nan")
    heights, low, high = [], [], []
    for c in cells:
        if c is None or c.n == 0:
            heights.append(nan)
            low.append(nan)
            high.append(nan)
        else:
            a = c.accuracy
            heights.append(a.estimate)
            low.append(a.estimate - a.low)
            high.append(a.high - a.estimate)
    return heights, [low, high]


def chances(series: dict[str, list[CellStats | None]]) -> list[float | None]:
    """The chance level of each group of bars: the first of its cells with results (the
    cells of a group share their tasks' track and tier); None when none has."""
    groups = zip(*series.values()) if series else []
    return [next((c.chance for c in cells if c is not None and c.n), None) for cells in groups]


def _bars(ax, groups: list[str], series: dict[str, list[CellStats | None]], title: str):
    """Grouped bars with interval whiskers; a missing cell is labelled "not run" (no bar), and
    each group's chance level is a dashed line across it."""
    import math

    import numpy as np

    x = np.arange(len(groups))
    width = 0.8 / max(1, len(series))
    for i, (name, cells) in enumerate(series.items()):
        heights, err = _errors(cells)
        where = x + (i - (len(series) - 1) / 2) * width
        ax.bar(where, heights, width, yerr=err, capsize=2,
               label=name, error_kw={"elinewidth": 0.7, "capthick": 0.7, "ecolor": "0.4"})
        for position, height in zip(where, heights):
            if math.isnan(height):
                ax.text(position, 0.02, NOT_RUN, rotation=90, ha="center", va="bottom",
                        fontsize=6, color="0.4")
    labelled = False
    for position, chance in zip(x, chances(series)):
        if chance is not None:
            ax.hlines(chance, position - 0.45, position + 0.45, colors="0.15",
                      linestyles="dashed", linewidth=0.9,
                      label=None if labelled else "chance")
            labelled = True
    ax.set_xticks(x)
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", linewidth=0.3, alpha=0.5)
    ax.legend(fontsize=7, loc="upper right", framealpha=0.8)


def heatmaps(report: Report, out: Path) -> list[Path]:
    """One accuracy heatmap per model with results (rows: track and architecture; columns:
    difficulty x presentation)."""
    import numpy as np

    plt = _pyplot()
    paths = []
    g = report.grid
    for model in sorted({r.model for r in g.rows}):
        tracks = sorted({t for t, _ in g.columns})
        rows = [(r, t) for r in g.rows if r.model == model for t in tracks]
        difficulties = sorted({d for _, d in g.columns})
        columns = [(d, p) for d in difficulties for p in ("nl", "obf")]
        data = np.full((len(rows), len(columns)), np.nan)
        for i, (r, track) in enumerate(rows):
            for j, (d, p) in enumerate(columns):
                cell = getattr(g.get(r, (track, d)), p)
                if cell is not None and cell.n:
                    data[i, j] = cell.accuracy.estimate
        keep = ~np.all(np.isnan(data), axis=1)
        rows = [row for row, k in zip(rows, keep) if k]
        data = data[keep]
        if not rows:               # the model's cells are planned, none has results yet
            continue
        fig, (ax,) = _figure(plt)
        image = ax.imshow(np.ma.masked_invalid(data), vmin=0, vmax=1, cmap="viridis",
                          aspect="auto")
        for (i, j), v in np.ndenumerate(data):
            ax.text(j, i, "-" if np.isnan(v) else f"{v:.2f}", ha="center", va="center",
                    color="white" if np.isnan(v) or v < 0.6 else "black", fontsize=8)
        ax.set_xticks(range(len(columns)))
        ax.set_xticklabels([f"{d} {PRESENTATION_LABEL[p]}" for d, p in columns], fontsize=8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([f"{t} {r.arch_label()}" for r, t in rows], fontsize=8)
        ax.set_title(f"accuracy, {model}", fontsize=10)
        fig.colorbar(image, ax=ax)
        fig.tight_layout()
        paths.append(_save(fig, out / f"heatmap-{_safe(model)}.png"))
        plt.close(fig)
    return paths


def nl_vs_obf(report: Report, out: Path) -> Path | None:
    """NL against Obf accuracy with interval bars, one panel per architecture."""
    g = report.grid
    archs = sorted({(r.arch, r.constrained, r.backup) for r in g.rows})
    if not archs:
        return None
    plt = _pyplot()
    fig, axes = _figure(plt, len(archs))
    for ax, (arch, constrained, backup) in zip(axes, archs):
        entries = [(r, col) for r in g.rows
                   if (r.arch, r.constrained, r.backup) == (arch, constrained, backup)
                   for col in g.columns if (r, col) in g.pairs]
        labels = [f"{t}/{d} {r.model}" + (f" s{r.seed}" if r.seed else "")
                  for r, (t, d) in entries]
        _bars(ax, labels, {"NL": [g.get(r, c).nl for r, c in entries],
                           "Obf": [g.get(r, c).obf for r, c in entries]},
              arch_label(arch, backup) + ("" if constrained else " free"))
    fig.tight_layout()
    path = _save(fig, out / "nl_vs_obf.png")
    plt.close(fig)
    return path


def constrained(report: Report, out: Path) -> Path | None:
    """Constrained against free formalization with interval bars (None: no such pair)."""
    pairs = [d for d in report.differences if d.contrast == "constrained_vs_unconstrained"]
    if not pairs:
        return None
    index = {c.cell: c for c in report.cells}
    plt = _pyplot()
    fig, (ax,) = _figure(plt)
    labels = [d.first.label() for d in pairs]
    _bars(ax, labels, {"constrained": [index[d.first] for d in pairs],
                       "free": [index[d.second] for d in pairs]},
          "grammar-constrained vs free formalization")
    fig.tight_layout()
    path = _save(fig, out / "constrained.png")
    plt.close(fig)
    return path


def probes(report: Report, out: Path) -> Path | None:
    """The three probes with interval bars (None: no probe)."""
    if not report.probes:
        return None
    from scir.evaluate.compare import PROBES

    index = {c.cell: c for c in report.cells}
    plt = _pyplot()
    fig, (ax,) = _figure(plt)
    labels = [f"{p.track}/{p.difficulty} {p.model}" for p in report.probes]
    from scir.evaluate.cells import CellKey

    series = {name: [index.get(CellKey(p.track, p.difficulty, pres, arch, p.model, True,
                                       p.seed)) for p in report.probes]
              for name, pres, arch in PROBES}
    _bars(ax, labels, series, "probes: reasoning NL.CoT, extraction Obf.NS, joint Obf.CoT")
    fig.tight_layout()
    path = _save(fig, out / "probes.png")
    plt.close(fig)
    return path


def write_figures(report: Report, out: Path) -> list[Path]:
    """Draw every figure into ``out`` (created); returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = heatmaps(report, out)
    for draw in (nl_vs_obf, constrained, probes):
        path = draw(report, out)
        if path is not None:
            paths.append(path)
    return paths
