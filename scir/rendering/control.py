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

from scir.rendering.codecs import codec_of
from scir.rendering.extractors import recovery_problems
from scir.rendering.template import draw
from scir.tasks import Task

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
    gset = codec_of(task).genres()
    control, filler, slots = gset.register(PRESENTATION)

    def target(rng: random.Random, clean: int) -> int:
        if task.problem_obfuscated:
            return len(task.problem_obfuscated)
        return round(rng.uniform(*gset.ratio) * clean)

    return draw(
        task,
        seed,
        # the stream keeps the module name it had before scir.rendering (byte-identical output)
        stream="scir.text.control",
        choose=dataclasses.replace(gset, genres=control),
        writer=gset.in_register(PRESENTATION),
        filler=filler,
        slots=slots,
        target=target,
        chars="chars_ctl",
        fields=("documents_control", "problem_control", "render_ctl"),
        check=lambda rendered: recovery_problems(as_control(rendered)),
        what="control",
    )
