"""Model-name parsing (DESIGN section 8)."""

import pytest

from scir.errors import ConfigError
from scir.llm.names import parse_model_name


@pytest.mark.parametrize("text, provider, model, url", [
    ("openrouter:openai/gpt-4o", "openrouter", "openai/gpt-4o", "https://openrouter.ai/api/v1"),
    ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", "https://api.openai.com/v1"),
    ("openai:local-model@http://127.0.0.1:8080/v1", "openai", "local-model",
     "http://127.0.0.1:8080/v1"),
    ("vllm:Qwen/Qwen3-8B@http://gpu:8000/v1", "vllm", "Qwen/Qwen3-8B", "http://gpu:8000/v1"),
    ("sglang:m@https://host/v1/", "sglang", "m", "https://host/v1"),
    ("ollama:qwen3:30b@http://localhost:11434/v1", "ollama", "qwen3:30b",
     "http://localhost:11434/v1"),
    ("ollama:a@b:c@http://h:1/v1", "ollama", "a@b:c", "http://h:1/v1"),
    ("llamacpp:gguf@http://h:8080/v1", "llamacpp", "gguf", "http://h:8080/v1"),
    ("hf:/models/qwen", "hf", "/models/qwen", None),
    ("hf:org/name", "hf", "org/name", None),
    ("tiny", "tiny", "tiny", None),
])
def test_valid_names(text, provider, model, url):
    name = parse_model_name(text)
    assert (name.provider, name.model, name.base_url) == (provider, model, url)
    assert name.is_api == (provider not in ("hf", "tiny"))


@pytest.mark.parametrize("text, why", [
    ("", "empty"),
    ("gpt-4o", "expected PROVIDER:MODEL"),
    ("anthropic:claude", "unknown provider 'anthropic'"),
    ("tiny:x", "unknown provider 'tiny'"),
    ("vllm:@http://h/v1", "model part is empty"),
    ("vllm:model@localhost:8000", "must be an http"),
    ("ollama:qwen3:30b@", "must be an http"),
    ("openrouter:x@http://h/v1", "openrouter models take no @URL"),
    ("hf:", "hf: needs a model path"),
    ("openai:my model", "no whitespace"),
    # a local server's name without @URL: a ConfigError, not a silent localhost default
    ("vllm:m", r"vllm models need the server's base URL after '@', e\.g\. "
               r"vllm:m@http://localhost:8000/v1"),
    ("sglang:m", "sglang models need the server's base URL"),
    ("ollama:qwen3:30b", "ollama models need the server's base URL"),
    ("llamacpp:m", "llamacpp models need the server's base URL"),
])
def test_bad_names(text, why):
    with pytest.raises(ConfigError, match=why):
        parse_model_name(text)
