"""Model backends, constrained generation and the response cache.

``get_backend("vllm:Qwen/Qwen3-8B@http://host:8000/v1")`` gives a :class:`Backend`; every call
goes through :func:`scir.llm.cache.cached_complete` with a run's call cache
(:class:`scir.llm.cache.CallCache`; a run store, :class:`scir.runs.store.RunStore`, is one).
"""

from __future__ import annotations

from typing import Any

from scir.llm.base import (
    Backend,
    Constraint,
    LLMRequest,
    LLMResponse,
    Message,
    Tool,
    ToolCall,
    request_key,
)
from scir.llm.names import ModelName, parse_model_name

__all__ = [
    "Backend",
    "Constraint",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "ModelName",
    "Tool",
    "ToolCall",
    "get_backend",
    "parse_model_name",
    "request_key",
]


def get_backend(model: str | ModelName, **options: Any) -> Backend:
    """The backend for a model name (see :mod:`scir.llm.names`).

    API options (``api_key``, ``base_url``, ``timeout``, ``max_retries``, ``backoff``,
    ``max_backoff``, ``max_retry_after``, ``max_response_bytes``) go to :class:`~scir.llm.openai_backend.OpenAICompatibleBackend`; the tiny
    model takes ``threads``.
    """
    name = model if isinstance(model, ModelName) else parse_model_name(model)
    if name.is_api:
        from scir.llm.openai_backend import OpenAICompatibleBackend

        return OpenAICompatibleBackend(name, **options)
    if name.provider == "tiny":
        from scir.llm.tiny import load_tiny

        return load_tiny(**options)
    if name.provider == "gguf":
        from scir.llm.gguf import load_gguf

        return load_gguf(name.model, **options)
    from scir.llm.local import load_hf

    return load_hf(name.model, **options)
