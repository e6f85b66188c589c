"""The LLM renderer: each block is rewritten by a model into its genre, then formalized back by
an inverse call (possibly another model) under the block's grammar, with the task's OTHER
ORIGINAL blocks as context; the rewrite is accepted when the formalization holds the block's
formal content (:func:`scir.rendering.inverse.match_block`). A rejected rewrite is retried (the
retry shows the model its previous rewrite and what was lost) up to ``max_retries`` times;
then the whole task is dropped, with the reason recorded.

Every call goes through the run store's cache (:class:`scir.llm.cache.CachingBackend`), so a
rerun repeats no finished call. Genres are drawn exactly as the template renderer draws them.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from scir.errors import BackendError, ConfigError, FormalizationError
from scir.llm.base import Backend, Constraint, LLMRequest
from scir.llm.cache import CachingBackend, CallCache
from scir.rendering.blocks import block_contents
from scir.rendering.codecs import codec_of
from scir.rendering.inverse import block_format, match_block, parse_block
from scir.rendering.template import SEPARATOR, clean_text, pick_genres
from scir.tasks import Document, Task
from scir.text.genres import Genre, GenreSet

RENDERER = "llm"
VERSION = 1

RENDER_SYSTEM = (
    "You rewrite one part of a scientific reasoning problem as a document of a given "
    "scientific genre.\nGenre: {title}. {style}\nRules:\n{rules}\n- Make the document about "
    "two to four times as long as the original part, with plausible material of the genre "
    "(methods, context, housekeeping) that says nothing about the listed entities.\n"
    "Write only the document."
)
RENDER_USER = "The part to rewrite:\n<<<\n{block}\n>>>"
RETRY_USER = (
    "Your document was formalized back and did not hold the original information: "
    "{problems}. Rewrite the original part again as a {title}, keeping every "
    "statement, fact and value exactly. Write only the document."
)
INVERSE_SYSTEM = (
    "You formalize one document of a scientific reasoning problem back into its formal "
    "content.\nFormat: {format}\nFormalize exactly what the document states, nothing more; "
    "the other parts of the problem are given only as context. Output only the "
    "formalization."
)
INVERSE_USER = (
    "Context (the other parts of the problem, as originally written):\n<<<\n"
    "{context}\n>>>\n\nDocument to formalize:\n<<<\n{document}\n>>>"
)


@dataclass
class Attempt:
    """One render-and-inverse attempt of one block."""

    block: int
    accepted: bool
    problems: list[str] = field(default_factory=list)


@dataclass
class RenderOutcome:
    """The result of rendering one task: the rendered task, or why it was dropped."""

    task_id: str
    task: Task | None
    attempts: list[Attempt]
    calls: int = 0
    cached_calls: int = 0
    reason: str = ""

    @property
    def dropped(self) -> bool:
        return self.task is None

    @property
    def retries(self) -> int:
        """Attempts beyond the first, over all blocks."""
        blocks = {a.block for a in self.attempts}
        return len(self.attempts) - len(blocks)


def _caching(backend: Backend, store: CallCache) -> CachingBackend:
    return backend if isinstance(backend, CachingBackend) else CachingBackend(backend, store)


class LLMRenderer:
    """Render tasks with a model, checked by an inverse model (``inverse`` defaults to the
    same model)."""

    def __init__(
        self,
        backend: Backend,
        store: CallCache,
        inverse: Backend | None = None,
        *,
        max_retries: int = 2,
        seed: int = 0,
        temperature: float = 0.0,
    ) -> None:
        if max_retries < 0:
            raise ConfigError("max_retries must be >= 0", field="max_retries")
        self.backend = _caching(backend, store)
        self.inverse = (
            self.backend if inverse is None or inverse is backend else _caching(inverse, store)
        )
        self.max_retries = max_retries
        self.seed = seed
        self.temperature = temperature

    def _counts(self) -> tuple[int, int]:
        backends = {id(b): b for b in (self.backend, self.inverse)}.values()
        return sum(b.made for b in backends), sum(b.served for b in backends)

    def render(self, task: Task) -> RenderOutcome:
        """Render every block of ``task``; drop the task when a block fails every attempt."""
        gset = codec_of(task).genres()
        contents = block_contents(task)
        # the stream keeps the module name it had before scir.rendering (byte-identical output)
        rng = random.Random(f"scir.text.template:{self.seed}:{task.task_id}:0")
        genres = pick_genres(gset, len(contents), rng)
        made0, served0 = self._counts()
        attempts: list[Attempt] = []
        documents: list[Document] = []
        reason = ""
        for index, (content, genre) in enumerate(zip(contents, genres)):
            text, block_attempts = self._block(task, index, content, genre, gset)
            attempts += block_attempts
            if text is None:
                reason = (
                    f"block {index + 1} failed {len(block_attempts)} attempt(s): "
                    f"{'; '.join(block_attempts[-1].problems)[:300]}"
                )
                break
            documents.append(Document(genre.name, text))
        made, served = self._counts()
        outcome = RenderOutcome(
            task.task_id, None, attempts, made - made0, served - served0, reason
        )
        if reason:
            return outcome
        obfuscated = SEPARATOR.join(d.text for d in documents)
        clean = len(clean_text(task))
        per_block = [sum(1 for a in attempts if a.block == i) - 1 for i in range(len(contents))]
        record: dict[str, Any] = {
            "renderer": RENDERER,
            "version": VERSION,
            "model": self.backend.name,
            "inverse_model": self.inverse.name,
            "seed": self.seed,
            "genres": [g.name for g in genres],
            "chars_nl": clean,
            "chars_obf": len(obfuscated),
            "ratio": round(len(obfuscated) / max(clean, 1), 3),
            "retries": sum(per_block),
            "block_retries": per_block,
            "max_retries": self.max_retries,
            "calls": outcome.calls,
            "cached_calls": outcome.cached_calls,
        }
        outcome.task = dataclasses.replace(
            task,
            documents=documents,
            problem_obfuscated=obfuscated,
            provenance={**task.provenance, "render": record},
        )
        return outcome

    def _block(
        self, task: Task, index: int, content: dict[str, Any], genre: Genre, gset: GenreSet
    ) -> tuple[str | None, list[Attempt]]:
        """The accepted rewrite of one block (or None) and the attempts made."""
        fmt = block_format(task, index, content)
        rules = "\n".join(f"- {r}" for r in gset.fidelity)
        messages = [
            ("system", RENDER_SYSTEM.format(title=genre.title, style=genre.style, rules=rules)),
            ("user", RENDER_USER.format(block=task.blocks[index])),
        ]
        context = SEPARATOR.join(b for i, b in enumerate(task.blocks) if i != index)
        attempts = []
        for attempt in range(self.max_retries + 1):
            problems: list[str] = []
            rewrite = ""
            try:
                rewrite = self.backend.complete(
                    LLMRequest.chat(
                        messages,
                        max_tokens=len(task.blocks[index]) * 2 // 3 + 512,
                        temperature=self.temperature,
                        seed=attempt,
                    )
                ).text.strip()
                if not rewrite:
                    problems = ["the rewrite is empty"]
                else:
                    formal = self.inverse.complete(
                        LLMRequest.chat(
                            [
                                ("system", INVERSE_SYSTEM.format(format=fmt.description)),
                                (
                                    "user",
                                    INVERSE_USER.format(
                                        context=context or "(none)", document=rewrite
                                    ),
                                ),
                            ],
                            constraint=Constraint("lark", fmt.grammar),
                            max_tokens=fmt.max_tokens,
                            temperature=0.0,
                            seed=attempt,
                        )
                    ).text
                    recovered = parse_block(task, index, formal)
                    problems = match_block(task, index, content, recovered)
            except FormalizationError as exc:
                problems = [f"the formalization does not parse: {exc.message}"]
            except BackendError as exc:
                problems = [f"backend error: {exc.message}"]
            attempts.append(Attempt(index, not problems, problems))
            if not problems:
                return rewrite, attempts
            if rewrite:
                messages = messages + [
                    ("assistant", rewrite),
                    (
                        "user",
                        RETRY_USER.format(problems="; ".join(problems)[:600], title=genre.title),
                    ),
                ]
        return None, attempts
