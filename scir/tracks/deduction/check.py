"""``scir check`` for deduction: a hand-written formalization against one task.

The file has the format the NS pipeline's formalizations have (the track's parser,
:func:`scir.tracks.deduction.formalize.parse_formalization`): one ``premise: FORMULA.`` per
line and one ``goal: FORMULA.`` line, formulas in Prover9 syntax over the task's predicates
and individuals; blank lines and lines starting with ``%`` are ignored. A Prover9 input file
(as ``scir export --format prover9`` writes it: ``formulas(assumptions).`` ... ``end_of_list.``
and ``formulas(goals).`` with one goal, one formula per line; ``assign``/``set``/``clear``
lines ignored) is read too, each formula as the statement of its list. Reported, all by
Prover9 (:mod:`solvers.prover9`; only a proof counts, exit 2 counts as "not proved", a limit
is "undecided"):

- the label of the formalization (goal proved: True; its negation proved: False; neither:
  Unknown; both: the premises are inconsistent), against the task's gold label;
- for each gold premise whether the user's premises entail it (else it is *missing*), and
  for each user premise whether the gold premises entail it (else it is *extra*);
- whether the user's goal is equivalent to the gold goal (or to its negation).

The check passes when the label equals the gold label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from scir.errors import FormalizationError, SolverResourceLimit, SolverTimeout
from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.checking import CheckContext, HandCheck

PROVER9_MEGS = 200
_COMMENT = re.compile(r"^\s*%.*$", re.M)
_LIST = re.compile(r"formulas\((\w+)\)\.")
_KINDS = {"assumptions": "premise", "goals": "goal"}
_SETTING = re.compile(r"(?:assign|set|clear)\([^()]*\)\.")
UNDECIDED = "undecided"


def _proves(premises: Sequence[str], goal: str, seconds: int) -> bool | None:
    """Prover9's verdict; None when it hits a limit."""
    from solvers.prover9 import proves

    try:
        return proves(premises, goal, max_seconds=seconds, max_megs=PROVER9_MEGS)
    except (SolverTimeout, SolverResourceLimit):
        return None


def label(premises: Sequence[str], goal: str, seconds: int) -> str:
    """``True`` / ``False`` / ``Unknown`` by Prover9 both ways; ``inconsistent`` when both are
    proved, ``undecided`` when a limit stops either search."""
    from solvers.prover9 import negated_goal

    proved = _proves(premises, goal, seconds)
    refuted = _proves(premises, negated_goal(goal), seconds)
    if proved and refuted:
        return "inconsistent"
    if proved or refuted:
        return "True" if proved else "False"
    return UNDECIDED if proved is None or refuted is None else "Unknown"


def _entailed(premises: Sequence[str], formulas: Sequence[str], seconds: int) -> list[bool | None]:
    return [_proves(premises, f, seconds) for f in formulas]


def _not_entailed(formulas: Sequence[str], verdicts: Sequence[bool | None]) -> list[str]:
    return [f + (" (undecided)" if v is None else "") for f, v in zip(formulas, verdicts) if not v]


def _statements(text: str) -> tuple[str, dict[int, int]]:
    """``text`` as ``premise:`` / ``goal:`` lines, line for line, and for each line the
    columns added in front of it (so that an error's column points into ``text``). A text
    without ``formulas(`` lists is returned as it is (comment lines blanked)."""
    if not _LIST.search(text):
        return _COMMENT.sub("", text), {}
    kind, lines, shift = None, [], {}
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        opened = _LIST.fullmatch(stripped)
        if opened:
            kind = _KINDS.get(opened.group(1))
            if kind is None:
                raise FormalizationError(
                    f"unknown list formulas({opened.group(1)}); expected assumptions or goals",
                    line=number,
                    column=1,
                )
            lines.append("")
        elif stripped == "end_of_list.":
            kind = None
            lines.append("")
        elif (
            not stripped
            or stripped.startswith("%")
            or (kind is None and _SETTING.fullmatch(stripped))
        ):
            lines.append("")
        elif kind is None:
            raise FormalizationError(
                "a formula outside formulas(assumptions) / formulas(goals)", line=number, column=1
            )
        else:
            lines.append(f"{kind}: {line}")
            shift[number] = len(kind) + 2
    return "\n".join(lines), shift


def check(task: Task, text: str, context: CheckContext) -> HandCheck:
    """Check a hand-written formalization (``premise:`` / ``goal:`` lines, or a Prover9 input
    file) against a task."""
    from solvers.prover9 import negated_goal

    track = get_track(task.domain)
    statements, shift = _statements(text)
    try:
        formal = track.formalizer().parse(task, statements).formal
    except FormalizationError as exc:
        if exc.line in shift and exc.column is not None:
            exc.column = max(1, exc.column - shift[exc.line])
        raise
    gold_formal = track.formal(task)
    mine, my_goal = list(formal.premises), formal.goal
    gold, gold_goal = list(gold_formal.premises), gold_formal.goal
    seconds = max(1, int(round(context.time_limit)))
    found = label(mine, my_goal, seconds)
    gold_in_mine = _entailed(mine, gold, seconds)
    mine_in_gold = _entailed(gold, mine, seconds)
    missing, extra = _not_entailed(gold, gold_in_mine), _not_entailed(mine, mine_in_gold)
    if _proves([my_goal], gold_goal, seconds) and _proves([gold_goal], my_goal, seconds):
        goal = "equivalent to the gold goal"
    elif _proves([my_goal], negated_goal(gold_goal), seconds) and _proves(
        [negated_goal(gold_goal)], my_goal, seconds
    ):
        goal = "equivalent to the NEGATION of the gold goal (True and False swap)"
    else:
        goal = f"not equivalent to the gold goal {gold_goal}"
    passed = found == task.answer
    lines = [
        ("label", f"{found} (gold: {task.answer})"),
        ("goal", goal),
        (
            "premises",
            f"{len(mine)} yours, {len(gold)} gold; {len(gold) - len(missing)} of the "
            f"gold premises follow from yours, {len(mine) - len(extra)} of yours "
            "follow from the gold ones",
        ),
        (
            "missing",
            "; ".join(missing) if missing else "none (every gold premise follows from yours)",
        ),
        (
            "extra",
            "; ".join(extra) if extra else "none (each of yours follows from the gold premises)",
        ),
    ]
    summary = (
        f"label {found} is the gold label" if passed else f"label {found}, gold label {task.answer}"
    )
    data: dict[str, Any] = {
        "label": found,
        "gold_label": task.answer,
        "goal": goal,
        "premises": mine,
        "missing": missing,
        "extra": extra,
        "gold_entailed": [{"premise": f, "entailed": v} for f, v in zip(gold, gold_in_mine)],
        "yours_entailed": [{"premise": f, "entailed": v} for f, v in zip(mine, mine_in_gold)],
    }
    return HandCheck(task.task_id, task.domain, passed, summary, lines, data)
