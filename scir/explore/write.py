"""Writing the explorer site: ``index.html`` (cells and every result, with filters),
``tasks/<task id>.html`` (one page per task) and ``assets/`` (the stylesheet and the filter
script), from the Jinja2 templates of ``scir/explore/templates/`` (loaded on first use,
autoescaping every value: task text and model output are shown as text, never as markup) and
the files of ``scir/explore/static/``.

The site is static and offline: no server, no network, no file from outside the site; every
page forbids any other source (Content-Security-Policy: scripts and styles from the site's own
files only, no inline script). Everything is written into a staged folder and moved into place
when complete (:func:`scir.outputs.staged`); page names are checked with
:func:`scir.outputs.contained`.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from scir.explore.diff import MAX_LINES
from scir.explore.gather import Site
from scir.outcomes.status import STATUS_VALUES
from scir.outputs import contained, staged
from scir.reports.attribution import KINDS as FAILURE_KINDS
from scir.reports.metric_stats import NOT_APPLICABLE
from scir.reports.stats import NO_VALUE, format_interval, format_number

TASKS_DIR = "tasks"
ASSETS_DIR = "assets"
ASSETS = ("explore.css", "explore.js")
# a text field longer than this is cut on the page (the run store and task file keep it whole)
MAX_TEXT = 200_000


def _show(value: Any) -> str:
    """A value as shown: :data:`NO_VALUE` for None (or an empty text)."""
    return NO_VALUE if value is None or value == "" else str(value)


def _clip(value: Any) -> str:
    """A text field as shown: ``""`` for None, cut after :data:`MAX_TEXT` characters."""
    text = "" if value is None else str(value)
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[... {len(text) - MAX_TEXT} more characters not shown]"


def _metric(value: Any) -> str:
    """One per-answer metric as shown: yes/no for a verdict, a number, ``n/a`` for a
    symbolic check with no ground truth to compare with (None), never 0 or "no"."""
    if value is None:
        return NOT_APPLICABLE
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format(value, ".4g") if isinstance(value, float) else str(value)


@lru_cache(maxsize=1)
def environment() -> Any:
    """The Jinja2 environment of the templates (autoescaping on, undefined names an error)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("scir.explore", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        num=format_number, interval=format_interval, clip=_clip, show=_show, metric=_metric
    )
    env.globals.update(
        STATUS_VALUES=STATUS_VALUES, MAX_LINES=MAX_LINES, FAILURE_KINDS=FAILURE_KINDS
    )
    return env


def _render(name: str, **values: Any) -> str:
    return environment().get_template(name).render(**values)


def write_site(site: Site, out: str | Path) -> Path:
    """Write ``site`` into the folder ``out`` (staged; files of the same name replaced, others
    kept). Returns the path of ``index.html``."""
    out = Path(out)
    with staged(out) as tmp:
        assets = contained(tmp, ASSETS_DIR)
        assets.mkdir()
        for name in ASSETS:
            data = resources.files("scir.explore").joinpath("static", name).read_bytes()
            contained(assets, name).write_bytes(data)
        tasks = contained(tmp, TASKS_DIR)
        tasks.mkdir()
        for page in site.pages:
            path = contained(tasks, page.page, task_id=page.task_id)
            path.write_text(
                _render("task.html", site=site, page=page, root="../"), encoding="utf-8"
            )
        contained(tmp, "index.html").write_text(
            _render("index.html", site=site, root=""), encoding="utf-8"
        )
    return out / "index.html"
