"""Local transformers models with grammar-constrained decoding through Outlines + llguidance.

A constraint (Lark grammar, JSON schema or regex) is turned into an llguidance grammar, validated
against the model's tokenizer at load -- a bad grammar raises ConfigError here instead of
decoding to empty text -- and compiled into Outlines' llguidance logits processor, cached per
constraint. Decoding is greedy at temperature 0; ``TORCHDYNAMO_DISABLE=1`` is set before torch
is imported (llguidance's torch kernel would otherwise trigger a slow torch.compile).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import OrderedDict
from typing import Any, Literal, cast

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend, Constraint, LLMRequest, LLMResponse
from scir.llm.repetition import (
    COPY,
    COPY_EVERY,
    REPETITION,
    CopyGuard,
    RepetitionGuard,
    prompt_text,
)

_Format = Literal["lark", "json_schema", "regex"]  # llguidance grammar kinds used here
_FORMATS: dict[str, _Format] = {"lark": "lark", "json_schema": "json_schema", "regex": "regex"}


def disable_torch_compile() -> None:
    """Keep torch.compile out of the decoding loop (call before torch/llguidance imports)."""
    os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
    dynamo_config: Any = sys.modules.get("torch._dynamo.config")  # its flags are set at run time
    if dynamo_config is not None:
        dynamo_config.disable = True


def grammar_spec(constraint: Constraint) -> str:
    """The llguidance grammar definition of a constraint (not yet validated).

    JSON schemas are compiled without free whitespace (compact JSON), unless the schema's own
    ``x-guidance`` options say otherwise: free whitespace lets a weak model pad until max tokens.
    """
    import llguidance

    try:
        if constraint.kind == "json_schema":
            return llguidance.LLMatcher.grammar_from_json_schema(
                constraint.text, defaults={"whitespace_flexible": False}
            )
        return llguidance.grammar_from(_FORMATS[constraint.kind], constraint.text)
    except ValueError as exc:
        raise ConfigError(
            f"invalid {constraint.kind} constraint: {exc}", field="constraint"
        ) from exc


def validate_constraint(constraint: Constraint, llg_tokenizer: Any = None) -> str:
    """Validate a constraint with llguidance; returns its grammar spec or raises ConfigError.

    Without a tokenizer only the grammar itself is checked (unknown rules, bad regexes, ...).
    """
    from llguidance import LLMatcher

    spec = grammar_spec(constraint)
    is_error, messages = LLMatcher.validate_grammar_with_warnings(spec, llg_tokenizer)
    if is_error:
        detail = messages[0].strip() if messages else "rejected by llguidance"
        raise ConfigError(f"invalid {constraint.kind} grammar: {detail}", field="constraint")
    return spec


def accepting_prefix(spec: str, llg_tokenizer: Any, tokens: Any) -> int | None:
    """How many of ``tokens`` form the longest prefix the grammar ``spec`` accepts as a
    whole output (None: no prefix does). A constrained generation stopped early (a loop) is
    cut back to it, so that what is kept still parses."""
    from llguidance import LLMatcher

    matcher = LLMatcher(llg_tokenizer, spec)
    best = 0 if matcher.is_accepting() else None
    for i, token in enumerate(tokens, 1):
        if not matcher.consume_token(int(token)):
            break
        if matcher.is_accepting():
            best = i
    return best


class _Watch:
    """A transformers stopping criterion that counts generated tokens, applies stop strings
    and stops output that loops or, given a ``copying`` guard (free text), only restates
    (:mod:`scir.llm.repetition`)."""

    def __init__(
        self, tokenizer: Any, stop: tuple[str, ...], copying: CopyGuard | None = None
    ) -> None:
        self.tokenizer = tokenizer
        self.stop = stop
        self.generated = 0
        self.total = 0
        self.last_token: int | None = None
        self.stopped_by_string = False
        self.guard = RepetitionGuard()
        self.looped = False
        self.copying = copying
        self.copied = False
        self.ids: list[int] = []

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        self.generated += 1  # called once per new token
        self.total = int(input_ids.shape[1])
        self.last_token = int(input_ids[0, -1])
        self.ids.append(self.last_token)
        done = self.looped = self.guard.push(self.last_token)
        if self.copying is not None and not done and self.generated % COPY_EVERY == 0:
            done = self.copied = self.copying.push_text(
                self.tokenizer.decode(self.ids, skip_special_tokens=True)
            )
        if self.stop and not done:
            tail = self.tokenizer.decode(
                input_ids[0, self.total - self.generated :], skip_special_tokens=True
            )
            done = any(s in tail for s in self.stop)
            self.stopped_by_string = done
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool)


class OutlinesBackend(Backend):
    """A transformers causal LM behind Outlines, with llguidance constraints."""

    enforced = frozenset(_FORMATS)

    def __init__(
        self,
        hf_model: Any,
        hf_tokenizer: Any,
        *,
        provider: str,
        model: str,
        max_cached_processors: int = 64,
    ) -> None:
        """Wrap a loaded model and fast tokenizer (``provider``/``model`` name it in caches)."""
        disable_torch_compile()
        import outlines
        from outlines.backends.llguidance import LLGuidanceBackend
        from transformers import PreTrainedTokenizerFast

        if not isinstance(hf_tokenizer, PreTrainedTokenizerFast):
            raise ConfigError(
                f"{provider}:{model}: llguidance needs a fast tokenizer "
                f"(got {type(hf_tokenizer).__name__})",
                field="model",
            )
        if hf_tokenizer.eos_token_id is None:
            raise ConfigError(f"{provider}:{model}: the tokenizer has no EOS token", field="model")
        if hf_tokenizer.pad_token_id is None:
            hf_tokenizer.pad_token = hf_tokenizer.eos_token
        self.provider = provider
        self.model = model
        self.hf_model = hf_model.eval()
        self.hf_tokenizer = hf_tokenizer
        self._outlines = outlines
        # outlines annotates transformers' tokenizer classes under other names than the
        # installed transformers exports; a fast tokenizer is what it takes
        self._om = outlines.from_transformers(self.hf_model, hf_tokenizer)  # type: ignore[arg-type]
        self._llg = LLGuidanceBackend(self._om)  # builds the llguidance tokenizer once
        self._chat_template = bool(getattr(hf_tokenizer, "chat_template", None))
        self._generators: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._max_cached = max_cached_processors
        self._plain = outlines.Generator(self._om)
        self._lock = threading.Lock()  # one generation at a time per model

    # ---- constraints -----------------------------------------------------------------------
    def compile(self, constraint: Constraint | None) -> Any:
        """The Outlines generator for a constraint: validated with llguidance, then cached."""
        if constraint is None:
            return self._plain
        key = (constraint.kind, constraint.text)
        if key in self._generators:
            self._generators.move_to_end(key)
            return self._generators[key]
        from outlines.backends.llguidance import LLGuidanceLogitsProcessor

        spec = validate_constraint(constraint, self._llg.llg_tokenizer)
        processor = LLGuidanceLogitsProcessor(
            spec, self._llg.llg_tokenizer, self._llg.tensor_library_name
        )
        generator: Any = self._outlines.Generator(self._om, processor=processor)  # as cached
        generator.scir_spec = spec  # the validated grammar (see _accepted)
        self._generators[key] = generator
        if len(self._generators) > self._max_cached:
            self._generators.popitem(last=False)
        return generator

    # ---- one call ----------------------------------------------------------------------------
    def _model_input(self, request: LLMRequest) -> Any:
        if self._chat_template:
            from outlines.inputs import Chat

            return Chat(request.chat_messages())
        if request.prompt is not None:
            return request.prompt
        parts = [f"{m.role.capitalize()}: {m.content}" for m in request.messages]
        return "\n\n".join(parts) + "\n\nAssistant:"

    def _accepted(self, constraint: Constraint, ids: list[int], text: str) -> str:
        """A looping constrained output cut back to its longest accepted prefix (unchanged
        when no prefix is accepted)."""
        keep = accepting_prefix(self.compile(constraint).scir_spec, self._llg.llg_tokenizer, ids)
        if keep is None:
            return text
        # one list of ids decodes to one text
        return cast(str, self.hf_tokenizer.decode(ids[:keep], skip_special_tokens=True))

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Generate greedily (or sample at temperature > 0 with the request's seed)."""
        import torch
        from transformers import StoppingCriteriaList

        with self._lock:
            generator = self.compile(request.constraint)
            watch = _Watch(
                self.hf_tokenizer,
                request.stop,
                None if request.constraint is not None else CopyGuard(prompt_text(request)),
            )
            params: dict[str, Any] = {
                "max_new_tokens": request.max_tokens,
                "stopping_criteria": StoppingCriteriaList([watch]),
                "pad_token_id": self.hf_tokenizer.pad_token_id,
                "eos_token_id": self.hf_tokenizer.eos_token_id,
            }
            if request.temperature > 0:
                torch.manual_seed(request.seed)
                params.update(do_sample=True, temperature=request.temperature, top_p=1.0)
            else:
                params.update(do_sample=False, temperature=None, top_p=None, top_k=None)
            start = time.monotonic()
            try:
                with torch.inference_mode():
                    text = generator(self._model_input(request), **params)
            except (RuntimeError, ValueError, IndexError, TypeError) as exc:
                raise BackendError(f"{self.name}: generation failed: {exc}") from exc
            latency = time.monotonic() - start
        if not isinstance(text, str):
            raise BackendError(f"{self.name}: generation returned {type(text).__name__}")
        for s in request.stop:
            cut = text.find(s)
            if cut >= 0:
                text = text[:cut]
        if watch.looped:
            finish = REPETITION
            if request.constraint is not None:
                text = self._accepted(request.constraint, watch.ids, text)
        elif watch.copied:
            finish = COPY
        elif watch.stopped_by_string or watch.last_token == self.hf_tokenizer.eos_token_id:
            finish = "stop"
        elif watch.generated >= request.max_tokens:
            finish = "length"
        else:
            finish = "stop"
        return LLMResponse(
            text=text,
            prompt_tokens=max(0, watch.total - watch.generated),
            completion_tokens=watch.generated,
            latency_s=latency,
            cost_usd=0.0,
            raw_finish_reason=finish,
            backend=self.provider,
            model=self.model,
        )


def load_hf(path: str) -> OutlinesBackend:
    """Load ``hf:PATH``: a local folder, or a hub id (transformers' own cache and download
    rules apply; set ``HF_HUB_OFFLINE=1`` to forbid downloads)."""
    disable_torch_compile()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot load hf model {path!r}: {exc}", field="model") from exc
    return OutlinesBackend(model, tokenizer, provider="hf", model=path)
