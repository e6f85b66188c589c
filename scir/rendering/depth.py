"""The measured depth of rendered tasks (:mod:`scir.text.depth` holds the measure): each task's
premises as its track's codec gives them (:meth:`~scir.text.codec.RenderCodec.depth_items`),
found in its clean-NL, Obf or control text, summed per (track, tier) and tabled for the
reports and ``scir stats``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scir.errors import ScirError
from scir.rendering.codecs import codec_of
from scir.rendering.control import as_control
from scir.tasks import Task
from scir.text.depth import Depth, measure


def task_depth(task: Task, presentation: str = "obf") -> Depth | None:
    """The depth of ``task``'s ``nl`` or ``obf`` text (None when its codec gives no depth
    items, its premises cannot be read or the task is not rendered)."""
    codec = codec_of(task)
    try:
        items = codec.depth_items(task)
        vocabulary = codec.depth_vocabulary(task)
    except (ScirError, KeyError, IndexError, TypeError, ValueError):
        return None  # a task whose premises cannot be read is not measured
    if not items:
        return None
    if presentation == "nl":
        return measure(items, task.problem_nl or "\n\n".join(task.blocks), (), vocabulary)
    if not task.documents:
        return None
    return measure(items, task.problem_obfuscated, [d.text for d in task.documents], vocabulary)


def group_depth(tasks: Iterable[Task], presentation: str = "obf") -> dict[tuple[str, str], Depth]:
    """The summed depth per (track, tier) of the tasks that have one."""
    out: dict[tuple[str, str], Depth] = {}
    for task in tasks:
        depth = task_depth(task, presentation)
        if depth is not None:
            out.setdefault((codec_of(task).track, task.tier), Depth()).add(depth)
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class DepthRow:
    """One row of the reports' depth table (Table 2): a (track, tier, item kind) of rendered
    tasks. Shares are None where nothing was measured; ``recovered_ctl`` is None for tasks
    without a control rendering; ``ratio`` is the mean Obf/NL length of the group's tasks."""

    domain: str
    tier: str
    premises: str
    count: int
    recovered_nl: float | None
    recovered_obf: float | None
    recovered_ctl: float | None
    literal: float | None
    cross_document: float | None
    ratio: float | None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields (shares rounded to 4 digits)."""
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in self.__dict__.items()}


def depth_rows(tasks: Iterable[Task], control: bool = True) -> list[DepthRow]:
    """The depth table of the rendered tasks among ``tasks`` (none rendered: empty): per
    (track, tier, item kind) the generic extractor's recovery from the NL, Obf (and, with
    ``control``, Ctl) text, the Obf shares stated literally in one clause and needing another
    document, and the mean Obf/NL length -- the figures ``scir stats`` prints."""
    rendered = [t for t in tasks if t.documents]
    nl, obf = group_depth(rendered, "nl"), group_depth(rendered, "obf")
    with_ctl = [as_control(t) for t in rendered if t.documents_control] if control else []
    ctl = group_depth(with_ctl, "obf")
    ratios: dict[tuple[str, str], list[float]] = {}
    for t in rendered:
        clean = len(t.problem_nl or "\n\n".join(t.blocks))
        if clean:
            ratios.setdefault((codec_of(t).track, t.tier), []).append(
                len(t.problem_obfuscated) / clean
            )
    rows = []
    for key, d in obf.items():
        mean_ratio = sum(ratios[key]) / len(ratios[key]) if ratios.get(key) else None
        for kind in sorted(d.items):
            rows.append(
                DepthRow(
                    key[0],
                    key[1],
                    kind,
                    d.items[kind],
                    nl[key].share("recovered", kind) if key in nl else None,
                    d.share("recovered", kind),
                    ctl[key].share("recovered", kind) if key in ctl else None,
                    d.share("literal", kind),
                    d.share("cross_document", kind),
                    mean_ratio,
                )
            )
    return rows
