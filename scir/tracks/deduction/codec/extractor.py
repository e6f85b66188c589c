"""Reference extractor for deduction documents: recovers each document's premises (Prover9
strings in the track's canonical printing) from the text alone.

It knows the task's context vocabulary (every noun phrase and named cell of the context, not
only the task's) and the genre templates: glossary lines are read first (abbreviations may be
defined in another document than the one using them), then every statement template of
``phrases.statements`` and every two-sentence template of ``phrases.split_statements`` of the
document's register (the control phrases for a ``ctl`` document) is matched, anchored at a sentence start and end; a match counts only
if its noun slots are nouns of the vocabulary (or defined abbreviations). Overlapping
statements raise VerificationError.
"""

from __future__ import annotations

import re
from typing import Any

from scir.errors import VerificationError
from scir.tasks import Task
from scir.text.genres import GenreSet
from scir.text.patterns import alternation, compile_template
from scir.tracks.deduction.codec.contents import deduction_lexicon
from scir.tracks.deduction.logic import Formula
from scir.tracks.deduction.vocabulary import get_context

_ALIAS = r"[A-Za-z0-9][A-Za-z0-9.+'\-]*(?: [A-Za-z0-9.+'\-]+)*?"
# a noun phrase slot: any run of words within one sentence (a full stop only inside a word,
# as in "Nkx2.5"); what it captures must be a noun of the vocabulary or a defined abbreviation
NOUN = r"(?:[^\s.,;:()]|\.(?=\S))(?:[^.,;:()\n]|\.(?=\S))*?"


def _universe(task: Task) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(singular -> predicate id, plural -> predicate id, cell name -> constant id) of the
    task's whole context (falls back to the task's own lexicon for unknown contexts)."""
    from scir.errors import ConfigError

    try:
        context = get_context(str(task.domain_metadata.get("context")))
        sg = {p.noun: p.id for p in context.predicates}
        pl = {p.plural: p.id for p in context.predicates}
        names = {i.name: i.id for i in context.individuals}
    except ConfigError:
        sg, pl, names = {}, {}, {}
    lexicon = deduction_lexicon(task)
    for pid, (noun, plural, _) in lexicon.nouns.items():
        sg.setdefault(noun, pid)
        pl.setdefault(plural, pid)
    for cid, name in lexicon.names.items():
        names.setdefault(name, cid)
    return sg, pl, names


def _glossaries(
    task: Task, gset: GenreSet, pl: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Abbreviations defined by any document: (singular alias -> id, plural alias -> id)."""
    alias_sg: dict[str, str] = {}
    alias_pl: dict[str, str] = {}
    for doc in task.documents:
        spec = gset.genre(doc.genre).option("glossary")
        if not spec:
            continue
        entry = compile_template(
            spec["entry"], {"alias_pl": _ALIAS, "noun_pl": alternation(pl)}, anchored=False
        )
        head = re.compile(r"^" + re.escape(spec["head"]) + r"(?P<body>.*)$", re.M)
        for line in head.finditer(doc.text):
            for m in entry.finditer(line.group("body")):
                alias, pid = m.group("alias_pl"), pl[m.group("noun_pl")]
                if not alias.endswith("s") or alias_pl.get(alias, pid) != pid:
                    raise VerificationError(
                        f"glossary entry {m.group(0)!r} is not a plural "
                        "abbreviation of one population",
                        task_id=task.task_id,
                    )
                alias_pl[alias] = pid
                alias_sg[alias[:-1]] = pid
    return alias_sg, alias_pl


def extract(task: Task, gset: GenreSet) -> list[dict[str, Any]]:
    """``[{"premises": [...]}, ...]``, one per document, in text order."""

    sg, pl, names = _universe(task)
    alias_sg, alias_pl = _glossaries(task, gset, pl)
    sg_all, pl_all = {**sg, **alias_sg}, {**pl, **alias_pl}
    lower = {n: c for n, c in names.items()}
    upper = {n[:1].upper() + n[1:]: c for n, c in names.items()}
    slots = {}
    for role in ("S", "P"):
        slots[role] = slots[f"{role}_pl"] = NOUN
        slots[f"a{role}"] = r"(?:a|an) " + NOUN
    slots["c"], slots["C"] = alternation(lower), alternation(upper)
    out = []
    for number, doc in enumerate(task.documents, start=1):
        ph = gset.phrases_for(doc.genre)  # the document's register
        banks = [ph["statements"], ph.get("split_statements") or {}]
        patterns = [
            (kind, compile_template(p["text"], slots))
            for phrases in banks
            for kind, bank in phrases.items()
            for p in bank
        ]
        found: list[tuple[int, int, Formula]] = []
        for kind, pattern in patterns:
            for m in pattern.finditer(doc.text):
                formula = _formula(kind, m, sg_all, pl_all, lower, upper)
                if formula is not None:
                    found.append((m.start(), m.end(), formula))
        found.sort(key=lambda x: (x[0], x[1]))
        for (s1, e1, f1), (s2, _, f2) in zip(found, found[1:]):
            if s2 < e1:
                raise VerificationError(
                    f"document {number}: overlapping statements at "
                    f"characters {s1} and {s2} ({f1}, {f2})",
                    task_id=task.task_id,
                )
        out.append({"premises": [f.to_prover9() for _, _, f in found]})
    return out


def _formula(kind: str, m: re.Match, sg: dict, pl: dict, lower: dict, upper: dict):
    groups = m.groupdict()

    def pred(role: str) -> str | None:
        if groups.get(role) is not None:
            return sg.get(groups[role])
        if groups.get(f"{role}_pl") is not None:
            return pl.get(groups[f"{role}_pl"])
        return sg.get(re.sub(r"^(?:a|an) ", "", groups[f"a{role}"]))

    if kind in ("fact", "neg_fact"):
        const = lower[groups["c"]] if groups.get("c") is not None else upper[groups["C"]]
        args: tuple = (pred("P"), const)
    elif kind == "exists":
        args = (pred("P"),)
    else:
        args = (pred("S"), pred("P"))
    return None if None in args else Formula(kind, args)
