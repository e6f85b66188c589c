"""The control presentation (``ctl``): every clean-NL block written by the track's template
writer into one document of a plain, non-scientific genre (the track's control genres,
``ctl.json`` beside its genre file), with neutral filler instead of scientific filler.

The blocks, their chunking into documents, the writer's techniques (wordings, glossaries,
catalogue codes, condition labels, table formats, split statements, distractors, unit
conversions) and the reference extractor are those of the scientific rendering
(:mod:`scir.rendering.template`); only the register changes: the writer is given the control
genres, slot banks and phrase banks (``GenreSet.in_register("ctl")``: ``ctl.json``'s plain
versions of every technique phrase), and the extractor reads each control document with them
(``GenreSet.phrases_for``). The length target
is the task's Obf length when it has one (else a ratio to the clean text drawn from the
track's range), so that ``nl -> ctl -> obf`` separates length and cross-document alignment
from the scientific genre. Deterministic in (task, seed), on its own random stream: rendering
the control never changes the Obf text.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from scir.errors import VerificationError
from scir.rendering.blocks import block_contents
from scir.rendering.codecs import codec_of
from scir.rendering.extractors import recovery_problems
from scir.rendering.template import (
    MAX_ATTEMPTS,
    MAX_RATIO,
    RENDERER,
    SEPARATOR,
    VERSION,
    clean_text,
    pick_genres,
)
from scir.tasks import Document, Task
from scir.text.document import FillerPool, fill_to_length, trim_to_length

PRESENTATION = "ctl"


def as_control(task: Task) -> Task:
    """A copy of ``task`` whose ``documents`` are its control documents (what the track's
    reference extractor reads)."""
    return dataclasses.replace(
        task, documents=list(task.documents_control), problem_obfuscated=task.problem_control
    )


def render_control(task: Task, seed: int = 0) -> Task:
    """A copy of ``task`` with ``documents_control``, ``problem_control`` and
    ``provenance["render_ctl"]`` filled (ConfigError for a track without control genres;
    VerificationError if the reference extractor cannot read the documents back)."""
    codec = codec_of(task)
    gset = codec.genres()
    control, filler, slots = gset.register(PRESENTATION)
    contents = block_contents(task)
    clean = len(clean_text(task))
    problems: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        # the stream keeps the module name it had before scir.rendering (byte-identical output)
        rng = random.Random(f"scir.text.control:{seed}:{task.task_id}:{attempt}")
        genres = pick_genres(dataclasses.replace(gset, genres=control), len(contents), rng)
        drafts, info = codec.drafts(task, contents, genres, gset.in_register(PRESENTATION), rng)
        values = codec.slot_values(task)
        target = (
            len(task.problem_obfuscated)
            if task.problem_obfuscated
            else round(rng.uniform(*gset.ratio) * clean)
        )
        trim_to_length(drafts, int(MAX_RATIO * clean))
        pools = [FillerPool(g.filler + filler, rng, slots, values) for g in genres]
        weights = [len(b) + 100 for b in task.blocks]
        fill_to_length(drafts, pools, weights, target, rng)
        documents = [Document(g.name, d.text()) for g, d in zip(genres, drafts)]
        text = SEPARATOR.join(d.text for d in documents)
        record: dict[str, Any] = {
            "renderer": RENDERER,
            "version": VERSION,
            "seed": seed,
            "genres": [g.name for g in genres],
            "chars_nl": clean,
            "chars_ctl": len(text),
            "ratio": round(len(text) / max(clean, 1), 3),
            "retries": attempt,
            "fillers": sum(d.filler_count() for d in drafts),
            **info,
        }
        rendered = dataclasses.replace(
            task,
            documents_control=documents,
            problem_control=text,
            provenance={**task.provenance, "render_ctl": record},
        )
        problems = recovery_problems(as_control(rendered))
        if not problems:
            return rendered
    raise VerificationError(
        f"the reference extractor does not recover the control blocks "
        f"after {MAX_ATTEMPTS} attempts: {'; '.join(problems[:3])}",
        task_id=task.task_id,
    )
