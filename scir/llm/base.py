"""The model-backend interface: one request record, one response record, one ``complete`` method.

Every backend (OpenAI-compatible APIs, local transformers models through Outlines, the tiny test
model) takes an :class:`LLMRequest` and returns an :class:`LLMResponse`, raising
:class:`~scir.errors.BackendError` when it fails after its retries.

Tool calls (OpenAI ``tools``): a request may offer :class:`Tool` s, a response may carry
:class:`ToolCall` s, an assistant message may repeat them and a ``tool`` message answers one.
Only backends with ``tool_calls = True`` send tools; a request without tools has exactly the
key and the wire form it had before tools existed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError

CONSTRAINT_KINDS = ("lark", "json_schema", "regex")
ROLES = ("system", "user", "assistant", "tool")
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (see :func:`valid_text`)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def valid_text(text: str) -> str:
    """``text`` with every surrogate code point (U+D800..U+DFFF: a JSON escape such as
    ``"\\ud800"`` makes one, but it is not text and UTF-8 cannot hold it) replaced by U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


@dataclass(frozen=True)
class Constraint:
    """An output constraint: a Lark grammar, a JSON schema (as JSON text) or a regex."""

    kind: str
    text: str

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            raise ConfigError(
                f"constraint kind must be one of {', '.join(CONSTRAINT_KINDS)}, got {self.kind!r}",
                field="constraint",
            )
        if not isinstance(self.text, str) or not self.text.strip():
            raise ConfigError(
                "a constraint needs a non-empty grammar, schema or regex", field="constraint"
            )


@dataclass(frozen=True)
class Tool:
    """A function the model may call: its name, description and JSON-schema parameters (as
    JSON text, so the record stays hashable)."""

    name: str
    description: str
    parameters: str

    def __post_init__(self) -> None:
        try:
            schema = json.loads(self.parameters)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"tool {self.name!r}: parameters are not JSON text", field="tools"
            ) from exc
        if not isinstance(schema, dict):
            raise ConfigError(
                f"tool {self.name!r}: parameters must be a JSON object", field="tools"
            )

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": json.loads(self.parameters),
            },
        }


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for: its id, the function's name and the arguments as the
    model wrote them (JSON text, untrusted)."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        """Read :meth:`to_dict`'s form (ValueError when it is not that form)."""
        fn = data.get("function") if isinstance(data, dict) else None
        if not (
            isinstance(fn, dict)
            and isinstance(data.get("id"), str)
            and isinstance(fn.get("name"), str)
            and isinstance(fn.get("arguments"), str)
        ):
            raise ValueError("a tool call needs a string id, function name and arguments")
        return cls(data["id"], fn["name"], fn["arguments"])


@dataclass(frozen=True)
class Message:
    """One chat message; an assistant message may carry the tool calls it made, a ``tool``
    message answers the call ``tool_call_id``."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ConfigError(
                f"message role must be one of {', '.join(ROLES)}, got {self.role!r}",
                field="messages",
            )
        if self.tool_calls and self.role != "assistant":
            raise ConfigError("only an assistant message carries tool calls", field="messages")
        if (self.role == "tool") != (self.tool_call_id is not None):
            raise ConfigError(
                "a tool message, and only a tool message, names a tool_call_id", field="messages"
            )

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI form (``role`` and ``content``, plus the tool fields when set)."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data


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
    tools: tuple[Tool, ...] = ()  # functions the model may call (OpenAI tool calls)
    # the response text (and each tool call's arguments) kept: longer ones are cut, with a
    # note, before the response is stored and returned (cut_response); None keeps it whole.
    # Not part of the key: it does not change what the model is asked.
    max_response_chars: int | None = None

    def __post_init__(self) -> None:
        if bool(self.messages) == (self.prompt is not None):
            raise ConfigError("an LLM request takes either messages or a prompt", field="messages")
        if self.max_tokens < 1:
            raise ConfigError("max_tokens must be >= 1", field="max_tokens")
        if self.max_response_chars is not None and self.max_response_chars < 1:
            raise ConfigError("max_response_chars must be >= 1", field="max_response_chars")
        if self.temperature < 0:
            raise ConfigError("temperature must be >= 0", field="temperature")

    @classmethod
    def chat(cls, messages: list[tuple[str, str]] | list[Message], **params: Any) -> LLMRequest:
        """A request from ``[(role, content), ...]`` or Message records."""
        msgs = tuple(m if isinstance(m, Message) else Message(*m) for m in messages)
        return cls(messages=msgs, **params)

    def chat_messages(self) -> list[dict[str, Any]]:
        """The conversation as OpenAI-style dicts (a prompt becomes one user message)."""
        if self.prompt is not None:
            return [{"role": "user", "content": self.prompt}]
        return [m.to_dict() for m in self.messages]

    def key_dict(self) -> dict[str, Any]:
        """Everything that determines the response, as plain JSON data (for the cache key)."""
        data: dict[str, Any] = {
            "messages": self.chat_messages(),
            "constraint": (
                None
                if self.constraint is None
                else {"kind": self.constraint.kind, "text": self.constraint.text}
            ),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "stop": list(self.stop),
        }
        if self.tools:  # absent without tools: earlier keys stay valid
            data["tools"] = [t.to_dict() for t in self.tools]
        return data


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
    tool_calls: tuple[ToolCall, ...] = ()  # the calls the model asked for (tools requests)

    def to_dict(self) -> dict[str, Any]:
        """The response as JSON-ready data."""
        return {
            "text": self.text,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_s": self.latency_s,
            "cost_usd": self.cost_usd,
            "raw_finish_reason": self.raw_finish_reason,
            "backend": self.backend,
            "model": self.model,
            "extra": self.extra,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
        }


_CUT_NOTE = re.compile(r"\n\[response cut at \d+ of \d+ characters\]\Z")


def cut_text(text: str, limit: int | None) -> str:
    """``text`` when it has at most ``limit`` characters, else its start and the note
    ``[response cut at LIMIT of N characters]``, ``limit`` characters in all (so cutting
    again changes nothing)."""
    if limit is None or len(text) <= limit:
        return text
    note = f"\n[response cut at {limit} of {len(text)} characters]"
    return text[: limit - len(note)] + note if limit > len(note) else text[:limit]


def was_cut(text: str) -> bool:
    """Whether ``text`` ends with :func:`cut_text`'s note."""
    return _CUT_NOTE.search(text) is not None


def cut_response(response: LLMResponse, limit: int | None) -> LLMResponse:
    """``response`` with its text and each tool call's arguments cut to ``limit`` characters
    (:func:`cut_text`); the same object when nothing is cut."""
    if limit is None or (
        len(response.text) <= limit and all(len(c.arguments) <= limit for c in response.tool_calls)
    ):
        return response
    calls = tuple(
        dataclasses.replace(c, arguments=cut_text(c.arguments, limit)) for c in response.tool_calls
    )
    return dataclasses.replace(response, text=cut_text(response.text, limit), tool_calls=calls)


class Backend(ABC):
    """A model backend. ``provider`` and ``model`` identify it in cache keys and reports."""

    provider: str = ""
    model: str = ""
    # constraint kinds this backend enforces during decoding; others are ignored (the caller
    # validates the text itself)
    enforced: frozenset[str] = frozenset()
    # whether the backend sends a request's tools and reads the model's tool calls
    tool_calls: bool = False

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

    # a no-op by default, not abstract: most backends hold nothing to release
    def close(self) -> None:  # noqa: B027
        """Release clients, models and threads (default: nothing to release)."""


def request_key(backend: Backend, request: LLMRequest) -> str:
    """The cache key of a call: sha256 of (backend, model, messages, constraint, params)."""
    payload = {"backend": backend.provider, "model": backend.model, **request.key_dict()}
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # surrogatepass: the same bytes for any text; a lone surrogate still gets a key
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()
