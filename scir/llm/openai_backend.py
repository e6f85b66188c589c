"""OpenAI-compatible chat APIs (OpenRouter, OpenAI, vLLM, SGLang, Ollama, llama.cpp server)
through the ``openai`` client.

The grammar goes where the server takes one: vLLM ``structured_outputs.grammar`` (Lark),
SGLang and llama.cpp a ``%llguidance`` Lark grammar (SGLang must run with
``--grammar-backend llguidance``); JSON schemas go in ``response_format`` everywhere; the hosted
APIs get plain text otherwise, and the caller validates the output itself. The client's own
retries are off (``max_retries=0``): this module retries 429, 5xx, timeouts and connection errors
with exponential backoff, a bounded number of times, then raises BackendError. Bodies are parsed
here, so a malformed body is a BackendError, never a half-filled response.
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any, Callable

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend, Constraint, LLMRequest, LLMResponse
from scir.llm.names import DEFAULT_URLS, LOCAL_SERVERS, ModelName

# provider -> environment variables holding its API key, first found wins
KEY_ENV: dict[str, tuple[str, ...]] = {
    "openrouter": ("OPENROUTER_API_KEY", "SCIR_API_KEY"),
    "openai": ("OPENAI_API_KEY", "SCIR_API_KEY"),
    "vllm": ("VLLM_API_KEY", "SCIR_API_KEY"),
    "sglang": ("SGLANG_API_KEY", "SCIR_API_KEY"),
    "ollama": ("OLLAMA_API_KEY", "SCIR_API_KEY"),
    "llamacpp": ("LLAMACPP_API_KEY", "SCIR_API_KEY"),
}
DUMMY_KEY = "scir-no-key"          # local servers accept any key; the client insists on one
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


def _grammar_fields(provider: str, constraint: Constraint | None) -> dict[str, Any]:
    """The request fields that carry a constraint for this provider (empty: plain text)."""
    if constraint is None:
        return {}
    if constraint.kind == "json_schema":
        try:
            schema = json.loads(constraint.text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"JSON-schema constraint is not valid JSON: {exc.msg}",
                              field="constraint") from exc
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "output", "schema": schema,
                                                    "strict": True}}}
    key = "grammar" if constraint.kind == "lark" else "regex"
    if provider == "vllm":
        return {"extra_body": {"structured_outputs": {key: constraint.text}}}
    if provider == "sglang":
        if constraint.kind == "regex":
            return {"extra_body": {"regex": constraint.text}}
        return {"extra_body": {"ebnf": "%llguidance {}\n" + constraint.text}}
    if provider == "llamacpp" and constraint.kind == "lark":
        return {"extra_body": {"grammar": "%llguidance {}\n" + constraint.text}}
    return {}


class OpenAICompatibleBackend(Backend):
    """One model on an OpenAI-compatible chat-completions endpoint."""

    def __init__(self, name: ModelName, *, api_key: str | None = None,
                 base_url: str | None = None, timeout: float = 120.0, max_retries: int = 4,
                 backoff: float = 1.0, max_backoff: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        """Build the client. ``timeout`` is per attempt (seconds); ``max_retries`` counts the
        retries after the first attempt; backoff doubles from ``backoff`` up to ``max_backoff``.
        """
        import openai

        if not name.is_api:
            raise ConfigError(f"{name.text!r} is not an API model", field="model")
        if timeout <= 0 or max_retries < 0 or backoff < 0:
            raise ConfigError("timeout must be > 0, retries and backoff >= 0", field="timeout")
        self.provider = name.provider
        self.model = name.model
        self.base_url = base_url or name.base_url
        key = api_key or next((os.environ[v] for v in KEY_ENV[name.provider]
                               if os.environ.get(v)), None)
        if key is None:
            hosted = (name.provider not in LOCAL_SERVERS
                      and self.base_url == DEFAULT_URLS[name.provider])
            if hosted:
                envs = " or ".join(KEY_ENV[name.provider])
                raise ConfigError(f"{name.provider} needs an API key: set {envs}", field="model")
            key = DUMMY_KEY
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self._sleep = sleep
        self._openai = openai
        self._client = openai.OpenAI(base_url=self.base_url, api_key=key, max_retries=0,
                                     timeout=self.timeout)
        kinds = {"json_schema"}
        if self.provider in ("vllm", "sglang"):
            kinds |= {"lark", "regex"}
        elif self.provider == "llamacpp":
            kinds |= {"lark"}
        self.enforced = frozenset(kinds)
        self._validated: set[tuple[str, str]] = set()

    # ---- one call ------------------------------------------------------------------------
    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send the request, retrying transient failures; raises BackendError at the end."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.chat_messages(),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
            "stream": False,
            "timeout": self.timeout,
        }
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if self.enforces(request.constraint) and request.constraint.kind != "json_schema":
            self._validate(request.constraint)
        kwargs.update(_grammar_fields(self.provider, request.constraint))
        if self.provider == "openrouter":
            kwargs.setdefault("extra_body", {})["usage"] = {"include": True}
        last: str = ""
        for attempt in range(self.max_retries + 1):
            start = time.monotonic()
            try:
                raw = self._client.chat.completions.with_raw_response.create(**kwargs)
                body = raw.text
                status = raw.status_code
            except self._openai.APIStatusError as exc:
                last = f"HTTP {exc.status_code}: {_short(str(exc))}"
                if exc.status_code not in RETRY_STATUS:
                    raise BackendError(f"{self.name}: request rejected, {last}") from exc
                delay = _retry_after(exc) or self._delay(attempt)
            except self._openai.APITimeoutError:
                last = f"no answer within {self.timeout:g} s"
                delay = self._delay(attempt)
            except self._openai.APIConnectionError as exc:
                last = f"connection failed: {_short(str(exc.__cause__ or exc))}"
                delay = self._delay(attempt)
            else:
                latency = time.monotonic() - start
                return self._parse(body, status, latency)
            if attempt < self.max_retries:
                self._sleep(min(delay, self.max_backoff))
        raise BackendError(f"{self.name} at {self.base_url}: failed after "
                           f"{self.max_retries + 1} attempts; last error: {last}")

    def _validate(self, constraint: Constraint) -> None:
        """Check a grammar or regex with llguidance (when installed) before it is sent, so a
        bad grammar is a ConfigError here rather than an HTTP 400 or an empty completion."""
        key = (constraint.kind, constraint.text)
        if key in self._validated:
            return
        try:
            import llguidance  # noqa: F401  (optional: the llm extra)
        except ImportError:
            return
        from scir.llm.local import validate_constraint

        validate_constraint(constraint)
        self._validated.add(key)

    def _delay(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * (2 ** attempt))

    def _parse(self, body: str, status: int, latency: float) -> LLMResponse:
        """Read a chat-completion body; anything malformed is a BackendError."""
        def bad(why: str) -> BackendError:
            return BackendError(f"{self.name}: malformed response body (HTTP {status}): {why}; "
                                f"body starts {_short(body, 120)!r}")

        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise bad(f"not JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise bad("not a JSON object")
        if "error" in data and "choices" not in data:
            raise BackendError(f"{self.name}: server error: {_short(json.dumps(data['error']))}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise bad("no choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise bad("choice has no message")
        text = message.get("content")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise bad("message content is not a string")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        cost = usage.get("cost", 0.0)
        if not isinstance(cost, (int, float)) or isinstance(cost, bool) or not math.isfinite(cost):
            cost = 0.0
        finish = choices[0].get("finish_reason")
        return LLMResponse(
            text=text,
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
            latency_s=latency,
            cost_usd=float(cost),
            raw_finish_reason=finish if isinstance(finish, str) else None,
            backend=self.provider,
            model=self.model,
        )

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _retry_after(exc: Any) -> float | None:
    """Seconds from a Retry-After header (numeric form only), if the server sent one."""
    try:
        value = exc.response.headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None
