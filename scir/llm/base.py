"""The model-backend interface: one request record, one response record, one ``complete`` method.

Every backend (OpenAI-compatible APIs, local transformers models through Outlines, the tiny test
model) takes an :class:`LLMRequest` and returns an :class:`LLMResponse`, raising
:class:`~scir.errors.BackendError` when it fails after its retries.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError

CONSTRAINT_KINDS = ("lark", "json_schema", "regex")
ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Constraint:
    """An output constraint: a Lark grammar, a JSON schema (as JSON text) or a regex."""

    kind: str
    text: str

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            raise ConfigError(f"constraint kind must be one of {', '.join(CONSTRAINT_KINDS)}, "
                              f"got {self.kind!r}", field="constraint")
        if not isinstance(self.text, str) or not self.text.strip():
            raise ConfigError("a constraint needs a non-empty grammar, schema or regex",
                              field="constraint")


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ConfigError(f"message role must be one of {', '.join(ROLES)}, got {self.role!r}",
                              field="messages")


@dataclass(frozen=True)
class LLMRequest:
    """One completion request: a chat (``messages``) or a single user ``prompt``, never both."""

    messages: tuple[Message, ...] = ()
    prompt: str | None = None
    constraint: Constraint | None = None
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if bool(self.messages) == (self.prompt is not None):
            raise ConfigError("an LLM request takes either messages or a prompt", field="messages")
        if self.max_tokens < 1:
            raise ConfigError("max_tokens must be >= 1", field="max_tokens")
        if self.temperature < 0:
            raise ConfigError("temperature must be >= 0", field="temperature")

    @classmethod
    def chat(cls, messages: list[tuple[str, str]] | list[Message], **params: Any) -> "LLMRequest":
        """A request from ``[(role, content), ...]`` or Message records."""
        msgs = tuple(m if isinstance(m, Message) else Message(*m) for m in messages)
        return cls(messages=msgs, **params)

    def chat_messages(self) -> list[dict[str, str]]:
        """The conversation as OpenAI-style dicts (a prompt becomes one user message)."""
        if self.prompt is not None:
            return [{"role": "user", "content": self.prompt}]
        return [{"role": m.role, "content": m.content} for m in self.messages]

    def key_dict(self) -> dict[str, Any]:
        """Everything that determines the response, as plain JSON data (for the cache key)."""
        return {
            "messages": self.chat_messages(),
            "constraint": (None if self.constraint is None
                           else {"kind": self.constraint.kind, "text": self.constraint.text}),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "stop": list(self.stop),
        }


@dataclass
class LLMResponse:
    """One completion: the text plus tokens, latency, cost and where it came from."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cost_usd: float
    raw_finish_reason: str | None
    backend: str
    model: str
    cached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The response as JSON-ready data."""
        return {"text": self.text, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "latency_s": self.latency_s,
                "cost_usd": self.cost_usd, "raw_finish_reason": self.raw_finish_reason,
                "backend": self.backend, "model": self.model, "extra": self.extra}


class Backend(ABC):
    """A model backend. ``provider`` and ``model`` identify it in cache keys and reports."""

    provider: str = ""
    model: str = ""
    # constraint kinds this backend enforces during decoding; others are ignored (the caller
    # validates the text itself)
    enforced: frozenset[str] = frozenset()

    @abstractmethod
    def complete(self, request: LLMRequest) -> LLMResponse:
        """Run one request; raises BackendError after the backend's own retries."""

    @property
    def name(self) -> str:
        """``provider:model`` as shown in reports."""
        return self.model if self.provider == "tiny" else f"{self.provider}:{self.model}"

    def enforces(self, constraint: Constraint | None) -> bool:
        """Whether a constraint of this kind is enforced during decoding."""
        return constraint is not None and constraint.kind in self.enforced

    def close(self) -> None:
        """Release clients, models and threads (default: nothing to release)."""


def request_key(backend: Backend, request: LLMRequest) -> str:
    """The cache key of a call: sha256 of (backend, model, messages, constraint, params)."""
    payload = {"backend": backend.provider, "model": backend.model, **request.key_dict()}
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()
