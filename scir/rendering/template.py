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
from collections.abc import Callable, Sequence
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
    gset = codec_of(task).genres()
    return draw(
        task,
        seed,
        # the stream keeps the module name it had before scir.rendering (byte-identical output)
        stream="scir.text.template",
        choose=gset,
        writer=gset,
        filler=gset.filler,
        slots=gset.slots,
        target=lambda rng, clean: round(rng.uniform(*gset.ratio) * clean),
        chars="chars_obf",
        fields=("documents", "problem_obfuscated", "render"),
        check=recovery_problems,
        what="rendered",
    )


def draw(
    task: Task,
    seed: int,
    *,
    stream: str,
    choose: GenreSet,
    writer: GenreSet,
    filler: Sequence[Any],
    slots: dict,
    target: Callable[[random.Random, int], int],
    chars: str,
    fields: tuple[str, str, str],
    check: Callable[[Task], list[str]],
    what: str,
) -> Task:
    """The drawing loop of a template rendering, shared by the scientific rendering and the
    control presentation (:mod:`scir.rendering.control`): on the random stream ``stream``
    (seeded by ``seed``, the task id and the attempt), genres drawn from ``choose``, the
    track's writer given ``writer`` (its slot and phrase banks), filler from each genre's bank
    and ``filler`` up to ``target(rng, clean length)`` characters; the documents, their text and the provenance record (the text's length under ``chars``) go
    into a copy of the task under ``fields`` (documents, text, provenance key), and ``check`` must find nothing for it to be kept (else redrawn; after
    MAX_ATTEMPTS a VerificationError naming the ``what`` blocks)."""
    codec = codec_of(task)
    contents = block_contents(task)
    clean = len(clean_text(task))
    problems: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"{stream}:{seed}:{task.task_id}:{attempt}")
        genres = pick_genres(choose, len(contents), rng)
        drafts, info = codec.drafts(task, contents, genres, writer, rng)
        values = codec.slot_values(task)
        length = target(rng, clean)
        trim_to_length(drafts, int(MAX_RATIO * clean))
        pools = [FillerPool(g.filler + filler, rng, slots, values) for g in genres]
        weights = [len(b) + 100 for b in task.blocks]
        fill_to_length(drafts, pools, weights, length, rng)
        documents = [Document(g.name, d.text()) for g, d in zip(genres, drafts)]
        text = SEPARATOR.join(d.text for d in documents)
        record: dict[str, Any] = {
            "renderer": RENDERER,
            "version": VERSION,
            "seed": seed,
            "genres": [g.name for g in genres],
            "chars_nl": clean,
            chars: len(text),
            "ratio": round(len(text) / max(clean, 1), 3),
            "retries": attempt,
            "fillers": sum(d.filler_count() for d in drafts),
            **info,
        }
        docs_field, text_field, key = fields
        changes: dict[str, Any] = {docs_field: documents, text_field: text}
        rendered = dataclasses.replace(task, **changes, provenance={**task.provenance, key: record})
        problems = check(rendered)
        if not problems:
            return rendered
    raise VerificationError(
        f"the reference extractor does not recover the {what} blocks "
        f"after {MAX_ATTEMPTS} attempts: {'; '.join(problems[:3])}",
        task_id=task.task_id,
    )
