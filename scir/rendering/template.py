"""The template renderer (the offline default): every clean-NL block becomes one document in a
scientific genre, deterministically in (task, seed).

For each task: distinct genres are drawn for its blocks; the track's writer (its rendering
codec's :meth:`~scir.text.codec.RenderCodec.drafts`) turns each block's formal content into a
draft in its genre (meaning-preserving wording, cross-document references); filler from the
genre's banks is interleaved between the items until the documents reach a target length (a
ratio to the clean text drawn from the track's range, within 2-4.5x); finally the track's
reference extractor (:meth:`~scir.text.codec.RenderCodec.extract`)
reads the documents back and the result is kept only if every block is recovered exactly
(otherwise the task is redrawn; a second failure in a row of five is a bug, raised as
VerificationError).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from scir.errors import VerificationError
from scir.rendering.blocks import block_contents
from scir.rendering.codecs import codec_of
from scir.rendering.extractors import recovery_problems
from scir.tasks import Document, Task
from scir.text.document import FillerPool, fill_to_length, trim_to_length
from scir.text.genres import GenreSet

RENDERER = "template"
VERSION = 3  # 2: issue 29 techniques (aliases, splits, tables, distractors); 3: equation codes, scaled columns
MAX_ATTEMPTS = 5
MAX_RATIO = 4.5
SEPARATOR = "\n\n"


def clean_text(task: Task) -> str:
    """The clean problem text (``problem_nl``, or the blocks joined)."""
    return task.problem_nl or SEPARATOR.join(task.blocks)


def pick_genres(gset: GenreSet, n: int, rng: random.Random) -> list:
    """``n`` genres of the track, distinct while there are enough."""
    genres = list(gset.genres)
    if n <= len(genres):
        return rng.sample(genres, n)
    return [rng.choice(genres) for _ in range(n)]


def render_task(task: Task, seed: int = 0) -> Task:
    """A copy of ``task`` with ``documents``, ``problem_obfuscated`` and
    ``provenance["render"]`` filled (ConfigError for a track without a rendering codec)."""
    codec = codec_of(task)
    gset = codec.genres()
    contents = block_contents(task)
    clean = len(clean_text(task))
    problems: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        # the stream keeps the module name it had before scir.rendering (byte-identical output)
        rng = random.Random(f"scir.text.template:{seed}:{task.task_id}:{attempt}")
        genres = pick_genres(gset, len(contents), rng)
        drafts, info = codec.drafts(task, contents, genres, gset, rng)
        values = codec.slot_values(task)
        target = round(rng.uniform(*gset.ratio) * clean)
        trim_to_length(drafts, int(MAX_RATIO * clean))
        pools = [FillerPool(g.filler + gset.filler, rng, gset.slots, values) for g in genres]
        weights = [len(b) + 100 for b in task.blocks]
        fill_to_length(drafts, pools, weights, target, rng)
        documents = [Document(g.name, d.text()) for g, d in zip(genres, drafts)]
        obfuscated = SEPARATOR.join(d.text for d in documents)
        record: dict[str, Any] = {
            "renderer": RENDERER,
            "version": VERSION,
            "seed": seed,
            "genres": [g.name for g in genres],
            "chars_nl": clean,
            "chars_obf": len(obfuscated),
            "ratio": round(len(obfuscated) / max(clean, 1), 3),
            "retries": attempt,
            "fillers": sum(d.filler_count() for d in drafts),
            **info,
        }
        rendered = dataclasses.replace(
            task,
            documents=documents,
            problem_obfuscated=obfuscated,
            provenance={**task.provenance, "render": record},
        )
        problems = recovery_problems(rendered)
        if not problems:
            return rendered
    raise VerificationError(
        f"the reference extractor does not recover the rendered blocks "
        f"after {MAX_ATTEMPTS} attempts: {'; '.join(problems[:3])}",
        task_id=task.task_id,
    )
