"""The report's PNG figures (matplotlib, Agg backend), drawn from a computed
:class:`scir.reports.report.Report`; every figure is at least :data:`WIDTH` x :data:`HEIGHT`
pixels and grows with the grid (a row per group of bars, facets that wrap after
:data:`MAX_COLUMNS`), so its labels fit at the default size; legends sit outside the data
and :func:`text_overlaps` says whether any text collides.

- ``heatmap-<model>.png``: accuracy per model over the two axes, difficulty x presentation
  (columns ``easy NL``, ``easy Obf``, ...) for every track and architecture (rows), each
  cell's chance level under its accuracy;
- ``nl_vs_obf.png``: NL and Obf accuracy with 95% Wilson interval bars, one facet per
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

from scir.experiments.cells import CellKey
from scir.outcomes.backup import arch_label
from scir.reports.compare import PROBES

if TYPE_CHECKING:
    from scir.reports.aggregate import CellStats
    from scir.reports.report import Report

DPI = 100
WIDTH, HEIGHT = 900, 500  # pixels: the smallest figure; larger grids grow the figure
PANEL_WIDTH = 440  # pixels per facet column (labels included)
ROW_HEIGHT = 26  # pixels per group of bars (one group: one label line)
PANEL_EXTRA = 90  # pixels per facet row for its title and axis
MAX_COLUMNS = 3  # facets wrap after this many columns
PRESENTATION_LABEL = {"nl": "NL", "ctl": "Ctl", "obf": "Obf"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _facets(plt, panels: int, groups: int):
    """A figure of ``panels`` facets that wrap after :data:`MAX_COLUMNS` columns, tall enough
    for ``groups`` label lines in the fullest facet; at least WIDTH x HEIGHT pixels. Returns
    the figure and one axis per facet (extra grid cells removed)."""
    ncols = min(MAX_COLUMNS, max(1, panels))
    nrows = -(-max(1, panels) // ncols)
    width = max(WIDTH, ncols * PANEL_WIDTH)
    height = max(HEIGHT, 60 + nrows * (PANEL_EXTRA + groups * ROW_HEIGHT))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(width / DPI, height / DPI),
        dpi=DPI,
        squeeze=False,
        layout="constrained",
    )
    flat = [ax for row in axes for ax in row]
    for ax in flat[panels:]:
        ax.remove()
    return fig, flat[:panels]


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    fig.clear()
    return path


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


NOT_RUN = "not run"


def _errors(cells: Sequence[CellStats | None]) -> tuple[list[float], list[list[float]]]:
    """Bar lengths and asymmetric error lengths (NaN for a missing cell: no bar is drawn)."""
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


def _bars(
    ax,
    groups: list[str],
    series: dict[str, list[CellStats | None]],
    title: str,
    legend: bool = True,
):
    """Horizontal grouped bars with interval whiskers, one group per label line (top to
    bottom in ``groups`` order), accuracy along x; a missing cell is labelled "not run" (no
    bar), and each group's chance level is a dashed line across it. ``legend``: a legend in
    the axis (off when the caller puts one legend outside every facet)."""
    import math

    import numpy as np

    y = np.arange(len(groups))[::-1]
    height = 0.8 / max(1, len(series))
    for i, (name, cells) in enumerate(series.items()):
        lengths, err = _errors(cells)
        where = y + ((len(series) - 1) / 2 - i) * height
        ax.barh(
            where,
            lengths,
            height,
            xerr=err,
            capsize=2,
            label=name,
            error_kw={"elinewidth": 0.7, "capthick": 0.7, "ecolor": "0.4"},
        )
        for position, length in zip(where, lengths):
            if math.isnan(length):
                ax.text(0.01, position, NOT_RUN, ha="left", va="center", fontsize=6, color="0.4")
    labelled = False
    for position, chance in zip(y, chances(series)):
        if chance is not None:
            ax.vlines(
                chance,
                position - 0.45,
                position + 0.45,
                colors="0.15",
                linestyles="dashed",
                linewidth=0.9,
                label=None if labelled else "chance",
            )
            labelled = True
    ax.set_yticks(y)
    ax.set_yticklabels(groups, fontsize=7)
    ax.set_ylim(-0.6, len(groups) - 0.4)
    ax.set_xlim(0, 1.05)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_xlabel("accuracy", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", linewidth=0.3, alpha=0.5)
    if legend:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.8)


def _legend_outside(fig, axes) -> None:
    """One legend for every facet, above them (its entries from the first facet that has
    each label)."""
    handles: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(
            list(handles.values()),
            list(handles),
            loc="outside upper center",
            ncols=len(handles),
            fontsize=8,
            frameon=False,
        )


def text_overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of visible texts of ``fig`` (tick labels, titles, axis labels, legend entries,
    annotations) whose drawn boxes overlap, and texts that stick out of the figure -- what
    matplotlib can tell about a figure that does not read. Empty when it reads."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer)
        if box.width and box.height:
            boxes.append((text.get_text(), box))
    found = []
    figure = fig.bbox
    for name, box in boxes:
        if (
            box.x0 < figure.x0 - 1
            or box.x1 > figure.x1 + 1
            or box.y0 < figure.y0 - 1
            or box.y1 > figure.y1 + 1
        ):
            found.append((name, "outside the figure"))
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            overlap_x = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            overlap_y = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if overlap_x > 1 and overlap_y > 1:
                found.append((a, b))
    return found


HEATMAP_ROW = 34  # pixels per heatmap row (two text lines a cell)


def heatmap_figures(report: Report) -> list[tuple[str, object]]:
    """One accuracy heatmap per model with results, as (model, figure): rows are track and
    architecture, columns difficulty x presentation; every cell shows its accuracy and, in
    small type under it, its chance level; the figure grows with the rows."""
    import numpy as np

    plt = _pyplot()
    figures = []
    g = report.grid
    for model in sorted({r.model for r in g.rows}):
        tracks = sorted({t for t, _ in g.columns})
        rows = [(r, t) for r in g.rows if r.model == model for t in tracks]
        difficulties = sorted({d for _, d in g.columns})
        shown = ("nl", "ctl", "obf") if g.has_ctl else ("nl", "obf")
        columns = [(d, p) for d in difficulties for p in shown]
        data = np.full((len(rows), len(columns)), np.nan)
        chance = np.full((len(rows), len(columns)), np.nan)
        for i, (r, track) in enumerate(rows):
            for j, (d, p) in enumerate(columns):
                cell = getattr(g.get(r, (track, d)), p)
                if cell is not None and cell.n:
                    data[i, j] = cell.accuracy.estimate
                    chance[i, j] = np.nan if cell.chance is None else cell.chance
        keep = ~np.all(np.isnan(data), axis=1)
        rows = [row for row, k in zip(rows, keep) if k]
        data, chance = data[keep], chance[keep]
        if not rows:  # the model's cells are planned, none has results yet
            continue
        height = max(HEIGHT, 150 + HEATMAP_ROW * len(rows))
        fig, ax = plt.subplots(figsize=(WIDTH / DPI, height / DPI), dpi=DPI, layout="constrained")
        image = ax.imshow(np.ma.masked_invalid(data), vmin=0, vmax=1, cmap="viridis", aspect="auto")
        for (i, j), v in np.ndenumerate(data):
            color = "white" if np.isnan(v) or v < 0.6 else "black"
            ax.text(
                j,
                i,
                "-" if np.isnan(v) else f"{v:.2f}",
                ha="center",
                va="bottom",
                color=color,
                fontsize=8,
            )
            if not np.isnan(chance[i, j]):
                ax.text(
                    j,
                    i,
                    f"chance {chance[i, j]:.2f}",
                    ha="center",
                    va="top",
                    color=color,
                    fontsize=6,
                )
        ax.set_xticks(range(len(columns)))
        ax.set_xticklabels([f"{d} {PRESENTATION_LABEL[p]}" for d, p in columns], fontsize=8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([f"{t} {r.arch_label()}" for r, t in rows], fontsize=8)
        ax.set_title(f"accuracy, {model}", fontsize=10)
        fig.colorbar(image, ax=ax)
        figures.append((model, fig))
    return figures


def heatmaps(report: Report, out: Path) -> list[Path]:
    """One accuracy heatmap per model with results (:func:`heatmap_figures`)."""
    plt = _pyplot()
    paths = []
    for model, fig in heatmap_figures(report):
        paths.append(_save(fig, out / f"heatmap-{_safe(model)}.png"))
        plt.close(fig)
    return paths


def nl_vs_obf_figure(report: Report):
    """The NL-vs-Obf figure (None: no cell): one facet per architecture (wrapping), a group of
    two bars (NL, Obf) per track, difficulty and model, one legend above the facets."""
    g = report.grid
    archs = sorted({(r.arch, r.constrained, r.backup) for r in g.rows})
    if not archs:
        return None
    panels = []
    for arch, constrained, backup in archs:
        entries = [
            (r, col)
            for r in g.rows
            if (r.arch, r.constrained, r.backup) == (arch, constrained, backup)
            for col in g.columns
            if (r, col) in g.pairs
        ]
        panels.append((arch_label(arch, backup) + ("" if constrained else " free"), entries))
    plt = _pyplot()
    fig, axes = _facets(plt, len(panels), max(len(e) for _, e in panels))
    for ax, (title, entries) in zip(axes, panels):
        labels = [f"{t}/{d} {r.model}" + (f" s{r.seed}" if r.seed else "") for r, (t, d) in entries]
        series = {"NL": [g.get(r, c).nl for r, c in entries]}
        if g.has_ctl:
            series["Ctl"] = [g.get(r, c).ctl for r, c in entries]
        series["Obf"] = [g.get(r, c).obf for r, c in entries]
        _bars(ax, labels, series, title, legend=False)
    _legend_outside(fig, axes)
    return fig


def nl_vs_obf(report: Report, out: Path) -> Path | None:
    """NL against Obf accuracy with interval bars, one facet per architecture."""
    fig = nl_vs_obf_figure(report)
    if fig is None:
        return None
    plt = _pyplot()
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
    fig, (ax,) = _facets(plt, 1, len(pairs))
    labels = [d.first.label() for d in pairs]
    _bars(
        ax,
        labels,
        {"constrained": [index[d.first] for d in pairs], "free": [index[d.second] for d in pairs]},
        "grammar-constrained vs free formalization",
        legend=False,
    )
    _legend_outside(fig, [ax])
    path = _save(fig, out / "constrained.png")
    plt.close(fig)
    return path


def probes(report: Report, out: Path) -> Path | None:
    """The three probes with interval bars (None: no probe)."""
    if not report.probes:
        return None
    index = {c.cell: c for c in report.cells}
    plt = _pyplot()
    fig, (ax,) = _facets(plt, 1, len(report.probes))
    labels = [f"{p.track}/{p.difficulty} {p.model}" for p in report.probes]
    series = {
        name: [
            index.get(CellKey(p.track, p.difficulty, pres, arch, p.model, True, p.seed))
            for p in report.probes
        ]
        for name, pres, arch in PROBES
    }
    _bars(
        ax,
        labels,
        series,
        "probes: reasoning NL.CoT, extraction Obf.NS, joint Obf.CoT",
        legend=False,
    )
    _legend_outside(fig, [ax])
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
