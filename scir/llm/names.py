"""Model names on the command line: ``PROVIDER:MODEL[@URL]``, ``hf:PATH`` and ``tiny``.

``openrouter:MODEL`` and ``openai:MODEL`` talk to the hosted APIs; ``vllm:``, ``sglang:``,
``ollama:`` and ``llamacpp:`` talk to a local OpenAI-compatible server at the base URL after the
LAST ``@`` (so model names may contain ``:``, e.g. ``ollama:qwen3:30b@http://localhost:11434/v1``);
the ``@URL`` is required for them (a name without one is a ConfigError, never a silent guess at
``localhost``). ``openai:MODEL@URL`` reaches any other
OpenAI-compatible server. ``hf:PATH`` is a local transformers model run through Outlines;
``gguf:PATH`` a GGUF file run natively by llama.cpp and ``smollm2`` the real instruct model the
set-up installs (:mod:`scir.llm.gguf`); ``tiny``
is the built-in random-weight model for tests and the offline demo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scir.errors import ConfigError

# provider -> default base URL (None: no default; the local servers need an explicit @URL)
DEFAULT_URLS: dict[str, str | None] = {
    "openrouter": "https://openrouter.ai/api/v1",
    "openai": "https://api.openai.com/v1",
    "vllm": None,
    "sglang": None,
    "ollama": None,
    "llamacpp": None,
    "hf": None,
    "gguf": None,
    "tiny": None,
}
# the address each local server listens on by default (only to suggest a complete name)
USUAL_URLS = {
    "vllm": "http://localhost:8000/v1",
    "sglang": "http://localhost:30000/v1",
    "ollama": "http://localhost:11434/v1",
    "llamacpp": "http://localhost:8080/v1",
}
API_PROVIDERS = ("openrouter", "openai", "vllm", "sglang", "ollama", "llamacpp")
LOCAL_SERVERS = ("vllm", "sglang", "ollama", "llamacpp")
_URL = re.compile(r"^https?://[^\s/@]+(?:/\S*)?$")

EXAMPLES = (
    "openrouter:openai/gpt-4o, openai:gpt-4o-mini, vllm:Qwen/Qwen3-8B@http://host:8000/v1, "
    "ollama:qwen3:30b@http://localhost:11434/v1, hf:/path/to/model, "
    "gguf:/path/to/model.gguf, smollm2, tiny"
)
SHORT_NAMES = {"smollm2": "gguf"}  # built-in local models: name -> provider


@dataclass(frozen=True)
class ModelName:
    """A parsed model name: provider, model id, base URL (API providers only)."""

    provider: str
    model: str
    base_url: str | None
    text: str  # the name as given

    @property
    def is_api(self) -> bool:
        """Whether the model is reached over an OpenAI-compatible HTTP API."""
        return self.provider in API_PROVIDERS


def _did_you_mean(text: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(text, names, n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def parse_model_name(text: str) -> ModelName:
    """Parse a ``--model`` value; raises ConfigError naming what is wrong and the accepted forms."""

    def fail(why: str) -> ConfigError:
        return ConfigError(f"bad model name {text!r}: {why} (examples: {EXAMPLES})", field="model")

    if not isinstance(text, str) or not text.strip():
        raise fail("empty")
    text = text.strip()
    if text == "tiny":
        return ModelName("tiny", "tiny", None, text)
    if text in SHORT_NAMES:
        return ModelName(SHORT_NAMES[text], text, None, text)
    provider, sep, rest = text.partition(":")
    if not sep:
        raise fail("expected PROVIDER:MODEL" + _did_you_mean(text, ["tiny", *SHORT_NAMES]))
    if provider not in DEFAULT_URLS or provider == "tiny":
        known = [p for p in DEFAULT_URLS if p != "tiny"]
        raise fail(
            f"unknown provider {provider!r} (known: {', '.join(known)}, or plain "
            f"'tiny'){_did_you_mean(provider, known)}"
        )
    if provider == "hf":
        if not rest:
            raise fail("hf: needs a model path or hub id")
        return ModelName("hf", rest, None, text)
    if provider == "gguf":
        if not rest:
            raise fail("gguf: needs the path of a .gguf file")
        return ModelName("gguf", rest, None, text)
    model, base_url = rest, DEFAULT_URLS[provider]
    if "@" in rest:
        if provider == "openrouter":
            raise fail("openrouter models take no @URL")
        model, _, base_url = rest.rpartition("@")
        if not _URL.match(base_url):
            raise fail(f"the part after the last '@' must be an http(s) base URL, got {base_url!r}")
        base_url = base_url.rstrip("/")
    if not model:
        raise fail("the model part is empty")
    if base_url is None:
        raise fail(
            f"{provider} models need the server's base URL after '@', e.g. "
            f"{provider}:{model}@{USUAL_URLS[provider]}"
        )
    if any(c.isspace() for c in model):
        raise fail("model names contain no whitespace")
    return ModelName(provider, model, base_url, text)
