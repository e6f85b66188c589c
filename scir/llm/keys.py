"""Which environment variable's API key goes to which host.

A model's key comes from its provider's own variable (:data:`KEY_ENV`: ``openrouter:`` reads
``OPENROUTER_API_KEY``, ``openai:`` ``OPENAI_API_KEY``, ``vllm:`` ``VLLM_API_KEY``,
``sglang:`` ``SGLANG_API_KEY``, ``ollama:`` ``OLLAMA_API_KEY``, ``llamacpp:``
``LLAMACPP_API_KEY``) and from no other. A hosted provider's key (OpenRouter, OpenAI) goes
only to that provider's own host: ``openai:MODEL@URL`` or an experiment's ``base_url`` that
points elsewhere gets no key by default. Another variable is read only when it is named
(an experiment's ``api_key_env``, ``scir solve --api-key-env``), and only a name of the form
``*_API_KEY`` (:func:`check_key_env`), so that no other secret of the environment (a cloud
token, a password) can be sent to a URL an experiment file names.

Before a run's first model call, :func:`announce` prints one line per model saying which
variable goes to which host (never the key itself).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import IO
from urllib.parse import urlsplit

from scir.errors import ConfigError
from scir.llm.names import DEFAULT_URLS, ModelName

# provider -> the environment variable holding its key (a tuple: the names read, in order)
KEY_ENV: dict[str, tuple[str, ...]] = {
    "openrouter": ("OPENROUTER_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "vllm": ("VLLM_API_KEY",),
    "sglang": ("SGLANG_API_KEY",),
    "ollama": ("OLLAMA_API_KEY",),
    "llamacpp": ("LLAMACPP_API_KEY",),
}
HOSTED = ("openrouter", "openai")  # keys that belong to one host
KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY")


def check_key_env(variable: str, field: str = "api_key_env") -> str:
    """``variable`` if it names an API key (``*_API_KEY``: upper case, digits and ``_``),
    else a ConfigError naming ``field``."""
    if not isinstance(variable, str) or not KEY_NAME.fullmatch(variable):
        raise ConfigError(
            f"{variable!r} is not an API key variable: only names of the form "
            f"*_API_KEY (e.g. OPENROUTER_API_KEY) are read, so that no other "
            f"variable of the environment is sent to a server",
            field=field,
        )
    return variable


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or ''}".rstrip(":")


@dataclass(frozen=True)
class KeyRoute:
    """Where a model's key comes from and where it goes."""

    model: str  # the model name as given
    url: str  # the base URL its calls go to
    variable: str | None  # the variable read (None: none)
    why: str = ""  # why no variable is read, when none is

    @property
    def key(self) -> str | None:
        """The key (None: no variable, or it is not set)."""
        return os.environ.get(self.variable) or None if self.variable else None

    def line(self) -> str:
        """``key: VAR -> URL (model)``, saying whether VAR is set; never the key."""
        if self.variable is None:
            return f"key: none -> {self.url} ({self.model}; {self.why})"
        state = "set" if self.key else "not set: no key is sent"
        return f"key: {self.variable} ({state}) -> {self.url} ({self.model})"


def key_route(
    name: ModelName, base_url: str | None = None, api_key_env: str | None = None
) -> KeyRoute:
    """The route of ``name``'s key: an explicit ``api_key_env`` (checked), else its provider's
    variable, except that a hosted provider's variable is not sent to another host."""
    url = (base_url or name.base_url or "").rstrip("/")
    if api_key_env is not None:
        return KeyRoute(name.text, url, check_key_env(api_key_env))
    own = DEFAULT_URLS.get(name.provider)
    if name.provider in HOSTED and own is not None and _host(url) != _host(own):
        return KeyRoute(
            name.text,
            url,
            None,
            f"{KEY_ENV[name.provider][0]} is for {_host(own)} only; name a variable to send one",
        )
    variables = KEY_ENV.get(name.provider, ())
    found = next((v for v in variables if os.environ.get(v)), variables[0] if variables else None)
    return KeyRoute(name.text, url, found, "" if found else "the provider takes no key")


def env_key(name: ModelName, base_url: str | None = None) -> str | None:
    """The key a backend sends when none is given: :func:`key_route`'s, or None."""
    return key_route(name, base_url).key


def announce(routes: list[KeyRoute], stream: IO[str] | None = None) -> None:
    """Print one line per route (on stderr by default), before the first model call."""
    out = sys.stderr if stream is None else stream
    for route in routes:
        print(route.line(), file=out)
