"""OpenAI-compatible chat APIs (OpenRouter, OpenAI, vLLM, SGLang, Ollama, llama.cpp server)
through the ``openai`` client.

The grammar goes where the server takes one: vLLM ``structured_outputs.grammar`` (Lark),
SGLang and llama.cpp a ``%llguidance`` Lark grammar (SGLang must run with
``--grammar-backend llguidance``); JSON schemas go in ``response_format`` everywhere; the hosted
APIs get plain text otherwise, and the caller validates the output itself. A request's ``tools``
go as OpenAI ``tools``; the response's ``tool_calls`` are read (a message with tool calls and
``content: null`` is an answer with empty text). Lone surrogates in the text and the tool calls
(``"\\ud800"`` escapes, which are not text) are replaced by U+FFFD, so what is stored and cached
is what the caller saw.

Every attempt is bounded: ``timeout`` seconds in total (connect, request, headers and body; see
:mod:`scir.llm.http_limits`) and ``max_response_bytes`` received. Retries (tenacity, full jitter:
a random wait in ``[0, min(max_backoff, backoff * 2**n)]``) cover 429, 5xx, timeouts, connection
errors and completions without content (``content: null``, no choices); a 429's ``Retry-After``
is waited exactly when it is at most ``max_retry_after`` seconds, and ends the call at once when
it is longer. The client's own retries are off (``max_retries=0``). A response over the size cap
and any other 4xx are not retried. Bodies are parsed here, so a malformed body is a
BackendError, never a half-filled response.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

import tenacity

from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend, Constraint, LLMRequest, LLMResponse, ToolCall, valid_text
from scir.llm.http_limits import ResponseRefused, attempt_limits, cancellable_sleep, guarded_client
from scir.llm.keys import KEY_ENV, env_key  # which key goes to which host
from scir.llm.names import LOCAL_SERVERS, ModelName

DUMMY_KEY = "scir-no-key"  # local servers accept any key; the client insists on one
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_RESPONSE_BYTES = 8 << 20  # per attempt, headers included
MAX_RETRY_AFTER = 60.0  # seconds of Retry-After waited at most


class _Transient(Exception):
    """One failed attempt worth another: why, and the server's Retry-After (seconds) if any."""

    def __init__(self, why: str, retry_after: float | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.retry_after = retry_after


def _grammar_fields(provider: str, constraint: Constraint | None) -> dict[str, Any]:
    """The request fields that carry a constraint for this provider (empty: plain text)."""
    if constraint is None:
        return {}
    if constraint.kind == "json_schema":
        try:
            schema = json.loads(constraint.text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"JSON-schema constraint is not valid JSON: {exc.msg}", field="constraint"
            ) from exc
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": schema, "strict": True},
            }
        }
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

    def __init__(
        self,
        name: ModelName,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_retry_after: float = MAX_RETRY_AFTER,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        sleep: Callable[[float], None] = cancellable_sleep,
    ) -> None:
        """Build the client. ``timeout`` is the total time of one attempt (seconds);
        ``max_retries`` counts the retries after the first attempt; the wait before retry ``n``
        is random in ``[0, min(max_backoff, backoff * 2**n)]``, or a 429's Retry-After when it is
        at most ``max_retry_after``; an attempt receives at most ``max_response_bytes``.
        """
        import openai

        if not name.is_api:
            raise ConfigError(f"{name.text!r} is not an API model", field="model")
        if timeout <= 0 or max_retries < 0 or backoff < 0 or max_retry_after < 0:
            raise ConfigError("timeout must be > 0, retries and backoff >= 0", field="timeout")
        if max_response_bytes < 1024:
            raise ConfigError(
                "the response size cap must be at least 1 KiB", field="max_response_bytes"
            )
        self.provider = name.provider
        self.model = name.model
        self.base_url = base_url or name.base_url
        if self.base_url is None:
            raise ConfigError(f"{name.text!r} needs a server URL (MODEL@URL)", field="model")
        key = api_key or env_key(name, self.base_url)
        if key is None:
            hosted = (
                name.provider not in LOCAL_SERVERS
                and self.base_url == name.base_url
                and "@" not in name.text
            )
            if hosted:
                envs = " or ".join(KEY_ENV[name.provider])
                raise ConfigError(f"{name.provider} needs an API key: set {envs}", field="model")
            key = DUMMY_KEY
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        self.max_response_bytes = int(max_response_bytes)
        self._sleep = sleep
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=key,
            max_retries=0,
            timeout=self.timeout,
            http_client=guarded_client(self.timeout),
        )
        kinds = {"json_schema"}
        if self.provider in ("vllm", "sglang"):
            kinds |= {"lark", "regex"}
        elif self.provider == "llamacpp":
            kinds |= {"lark"}
        self.enforced = frozenset(kinds)
        self.tool_calls = True
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
        if request.tools:
            kwargs["tools"] = [t.to_dict() for t in request.tools]
        if (
            request.constraint is not None
            and self.enforces(request.constraint)
            and request.constraint.kind != "json_schema"
        ):
            self._validate(request.constraint)
        kwargs.update(_grammar_fields(self.provider, request.constraint))
        if self.provider == "openrouter":
            kwargs.setdefault("extra_body", {})["usage"] = {"include": True}
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Transient),
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(self._attempt, kwargs)
        except _Transient as exc:
            raise BackendError(
                f"{self.name} at {self.base_url}: failed after "
                f"{self.max_retries + 1} attempts; last error: {exc.why}"
            ) from exc

    def _attempt(self, kwargs: dict[str, Any]) -> LLMResponse:
        """One bounded attempt; raises _Transient when another attempt may succeed."""
        start = time.monotonic()
        try:
            with attempt_limits(self.timeout, self.max_response_bytes):
                raw = self._client.chat.completions.with_raw_response.create(**kwargs)
                body = raw.text
                status = raw.status_code
        except ResponseRefused as exc:  # too large or compressed: never retried
            raise BackendError(
                f"{self.name}: response refused: {exc} (at most "
                f"{self.max_response_bytes} bytes per attempt, uncompressed; "
                f"see --max-response-mb)"
            ) from exc
        except self._openai.APIStatusError as exc:
            last = f"HTTP {exc.status_code}: {_short(str(exc))}"
            if exc.status_code not in RETRY_STATUS:
                raise BackendError(f"{self.name}: request rejected, {last}") from exc
            wait = _retry_after(exc) if exc.status_code == 429 else None
            if wait is not None and wait > self.max_retry_after:
                raise BackendError(
                    f"{self.name}: {last}; the server asks to retry after "
                    f"{wait:g} s, more than the {self.max_retry_after:g} s "
                    f"this backend waits"
                ) from exc
            raise _Transient(last, wait) from exc
        except self._openai.APITimeoutError as exc:
            raise _Transient(f"no complete answer within {self.timeout:g} s") from exc
        except self._openai.APIConnectionError as exc:
            raise _Transient(f"connection failed: {_short(str(exc.__cause__ or exc))}") from exc
        return self._parse(body, status, time.monotonic() - start)

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

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """Seconds before the next attempt: the server's Retry-After, else full jitter."""
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, _Transient) and exc.retry_after is not None:
            return exc.retry_after
        jitter = tenacity.wait_random_exponential(multiplier=self.backoff, max=self.max_backoff)
        return jitter(state)

    def _parse(self, body: str, status: int, latency: float) -> LLMResponse:
        """Read a chat-completion body; anything malformed is a BackendError."""

        def bad(why: str) -> BackendError:
            return BackendError(
                f"{self.name}: malformed response body (HTTP {status}): {why}; "
                f"body starts {_short(body, 120)!r}"
            )

        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise bad(f"not JSON ({exc.msg})") from exc
        except ValueError as exc:  # an integer of more than 4300 digits
            raise bad(f"not JSON ({str(exc).split(';')[0]})") from exc
        except RecursionError as exc:  # never stored: a rerun asks again
            raise bad("JSON nested too deeply") from exc
        if not isinstance(data, dict):
            raise bad("not a JSON object")
        if "error" in data and "choices" not in data:
            raise BackendError(f"{self.name}: server error: {_short(json.dumps(data['error']))}")
        choices = data.get("choices")
        if isinstance(choices, list) and not choices:
            raise _Transient("the server sent a completion with no choices")
        if not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise bad("no choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise bad("choice has no message")
        calls = _read_tool_calls(message.get("tool_calls"), bad)
        text = message.get("content")
        if text is None and calls:  # a tool call without text
            text = ""
        if text is None:  # never an answer: retried, and never stored
            raise _Transient("the server sent a completion with content null")
        if not isinstance(text, str):
            raise bad("message content is not a string")
        text = valid_text(text)  # lone surrogates (JSON escapes) are not text
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
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
            tool_calls=calls,
        )

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


MAX_TOOL_CALLS = 16  # tool calls read from one response; more is malformed


def _read_tool_calls(value: Any, bad: Callable[[str], BackendError]) -> tuple[ToolCall, ...]:
    """The tool calls of a response message (none when absent or null)."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_TOOL_CALLS:
        raise bad(f"tool_calls is not a list of at most {MAX_TOOL_CALLS} calls")
    try:
        calls = [ToolCall.from_dict(item) for item in value]
    except ValueError as exc:
        raise bad(str(exc)) from exc
    return tuple(
        ToolCall(valid_text(c.id), valid_text(c.name), valid_text(c.arguments)) for c in calls
    )


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
