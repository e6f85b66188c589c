"""Deduction premises as the generic extractor of :mod:`scir.text.depth` sees them: each
premise's nouns and names in clean-NL order and every clean-NL sentence that states it (the
plain sentence and the varied wordings of :mod:`scir.tracks.deduction.templates`)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from scir.tasks import Task
from scir.text.depth import DepthItem
from scir.tracks.deduction.codec.contents import deduction_lexicon
from scir.tracks.deduction.logic import parse
from scir.tracks.deduction.templates import VARIED, sentence


def clean_sentences(formula, lexicon) -> list[str]:
    """Every clean-NL sentence stating ``formula`` (plain, then each varied wording)."""

    out = [sentence(formula, dataclasses.replace(lexicon, wording=None))]
    args = formula.args

    def a(pid: str) -> str:
        noun, _, article = lexicon.nouns[pid]
        return f"{article} {noun}"

    if formula.constants:
        name = lexicon.names[args[1]]
        values = {
            "P": lexicon.nouns[args[0]][0],
            "aP": a(args[0]),
            "c": name,
            "C": name[:1].upper() + name[1:],
        }
    elif formula.kind == "exists":
        values = {"P": lexicon.nouns[args[0]][0], "aP": a(args[0])}
    else:
        values = {
            "S": lexicon.nouns[args[0]][0],
            "P": lexicon.nouns[args[1]][0],
            "S_pl": lexicon.nouns[args[0]][1],
            "P_pl": lexicon.nouns[args[1]][1],
            "aS": a(args[0]),
            "aP": a(args[1]),
        }
    for template in VARIED.get(formula.kind, ()):
        text = template.format(**values)
        out.append(text[:1].upper() + text[1:])
    return out


def depth_items(task: Task, contents: list[dict[str, Any]]) -> list[DepthItem]:
    """One item per premise, in block order."""

    lexicon = deduction_lexicon(task)
    items = []
    for block, content in enumerate(contents):
        for premise in content["premises"]:
            f = parse(premise, task_id=task.task_id)
            spell = {pid: (lexicon.nouns[pid][0], lexicon.nouns[pid][1]) for pid in f.predicates}
            if f.kind in ("fact", "neg_fact"):
                terms: tuple[tuple[str, ...], ...] = ((lexicon.names[f.args[1]],), spell[f.args[0]])
            else:
                terms = tuple(spell[p] for p in f.args)
            items.append(
                DepthItem(
                    "premise",
                    block,
                    terms,
                    tuple(re.escape(s) for s in clean_sentences(f, lexicon)),
                )
            )
    return items


def depth_vocabulary(task: Task) -> list[str]:
    """The task's nouns (singular and plural) and named cells."""
    lexicon = deduction_lexicon(task)
    return [n for noun, plural, _ in lexicon.nouns.values() for n in (noun, plural)] + list(
        lexicon.names.values()
    )
