"""Keys go where they belong (issue 25, ``scir.llm.keys``): each provider reads its own key
variable and no other; a hosted provider's key is not sent to another host; an experiment's
``api_key_env`` (and ``scir solve --api-key-env``) may name only ``*_API_KEY`` variables; and
before the first call a run prints which variable goes to which host, never the key. Checked
on the ``Authorization`` header a scripted OpenAI-compatible server on 127.0.0.1 receives,
through ``scir solve`` and ``scir eval``."""

from __future__ import annotations

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.errors import ConfigError
from scir.llm import parse_model_name
from scir.llm.keys import KEY_ENV, check_key_env, key_route
from scir.llm.names import API_PROVIDERS, USUAL_URLS

# every variable a key could be taken from, each with a value that names it
SECRETS = {v: f"sk-{v.lower()}" for v in ("OPENROUTER_API_KEY", "OPENAI_API_KEY",
                                         "VLLM_API_KEY", "SGLANG_API_KEY", "OLLAMA_API_KEY",
                                         "LLAMACPP_API_KEY", "SCIR_API_KEY", "MY_LAB_API_KEY",
                                         "AWS_SECRET_ACCESS_KEY")}
NO_KEY = "Bearer scir-no-key"


@pytest.fixture
def secrets(monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return SECRETS


@pytest.fixture(scope="module")
def taskfile(tmp_path_factory):
    path = tmp_path_factory.mktemp("keys") / "d.jsonl"
    assert main(["generate", "deduction", "-n", "2", "--seed", "1", "-o", str(path)]) == 0
    return path


def answer(body, index):
    return Reply(body=chat_body("Answer: True"))


def solve(taskfile, run, model, *extra) -> int:
    return main(["solve", str(taskfile), "--arch", "cot", "--model", model, "--run", str(run),
                 "--max-tokens", "20", *extra])


def no_secret_printed(text: str) -> None:
    assert not any(value in text for value in SECRETS.values()), text


@pytest.mark.parametrize("provider", API_PROVIDERS)
def test_each_provider_reads_its_own_variable(provider, secrets):
    url = USUAL_URLS.get(provider)
    name = parse_model_name(f"{provider}:m" + (f"@{url}" if url else ""))
    route = key_route(name)
    assert route.variable == KEY_ENV[provider][0] == f"{provider.upper()}_API_KEY"
    assert route.key == secrets[route.variable]
    assert "sk-" not in route.line() and route.variable in route.line()


@pytest.mark.parametrize("provider", ["vllm", "sglang", "openai"])
def test_the_header_carries_the_providers_key_only(provider, secrets, taskfile, tmp_path,
                                                   capsys, monkeypatch):
    """A ``vllm:`` model sends VLLM_API_KEY, never OPENAI_API_KEY or SCIR_API_KEY; without
    VLLM_API_KEY it sends no key at all. ``openai:M@URL`` (another host than OpenAI's)
    sends none, though OPENAI_API_KEY is set."""
    with FakeOpenAIServer(answer) as srv:
        model = f"{provider}:fake@{srv.url}"
        capsys.readouterr()
        assert solve(taskfile, tmp_path / "run", model) == 0
        err = capsys.readouterr().err
        headers = {r.headers["authorization"] for r in srv.requests}
        if provider == "openai":
            assert headers == {NO_KEY}
            assert f"key: none -> {srv.url} ({model}; OPENAI_API_KEY is for " \
                   "https://api.openai.com only" in err
        else:
            var = f"{provider.upper()}_API_KEY"
            assert headers == {f"Bearer {secrets[var]}"}
            assert f"key: {var} (set) -> {srv.url} ({model})" in err
        no_secret_printed(err)
        monkeypatch.delenv(f"{provider.upper()}_API_KEY")
        assert solve(taskfile, tmp_path / "run2", model) == 0
        assert {r.headers["authorization"] for r in srv.requests[-2:]} == {NO_KEY}
        if provider != "openai":
            assert f"(not set: no key is sent) -> {srv.url}" in capsys.readouterr().err


def test_an_experiment_names_only_api_key_variables(secrets, tmp_path, capsys):
    """``api_key_env = "MY_LAB_API_KEY"`` sends that key and says so before the first call;
    ``AWS_SECRET_ACCESS_KEY`` is refused when the file is read (exit 2, nothing sent);
    ``base_url`` moving an OpenRouter model to another host sends no OpenRouter key."""
    with FakeOpenAIServer(answer) as srv:
        def experiment(model: str) -> str:
            path = tmp_path / "e.toml"
            path.write_text('architectures = ["cot"]\npresentations = ["nl"]\n'
                            'tasks_per_cell = 1\n[tasks.deduction.easy]\nn = 1\nseed = 1\n'
                            f'[[models]]\n{model}\n')
            return str(path)

        good = experiment(f'name = "vllm:fake@{srv.url}"\napi_key_env = "MY_LAB_API_KEY"')
        capsys.readouterr()
        assert main(["eval", good, "--run", str(tmp_path / "a")]) == 0
        err = capsys.readouterr().err
        assert [r.headers["authorization"] for r in srv.requests] == ["Bearer sk-my_lab_api_key"]
        assert f"key: MY_LAB_API_KEY (set) -> {srv.url} (vllm:fake@{srv.url})" in err
        no_secret_printed(err)

        bad = experiment(f'name = "vllm:fake@{srv.url}"\napi_key_env = "AWS_SECRET_ACCESS_KEY"')
        assert main(["eval", bad, "--run", str(tmp_path / "b")]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {bad}, field 'models.0.api_key_env': ") and \
            "'AWS_SECRET_ACCESS_KEY' is not an API key variable" in err and err.count("\n") == 1
        assert len(srv.requests) == 1 and not (tmp_path / "b").exists()

        moved = experiment(f'name = "openrouter:x/y"\nbase_url = "{srv.url}"')
        assert main(["eval", moved, "--run", str(tmp_path / "c")]) == 0
        assert srv.requests[-1].headers["authorization"] == NO_KEY
        assert f"key: none -> {srv.url} (openrouter:x/y; OPENROUTER_API_KEY is for " \
               "https://openrouter.ai only" in capsys.readouterr().err


def test_solve_api_key_env(secrets, taskfile, tmp_path, capsys):
    with FakeOpenAIServer(answer) as srv:
        model = f"openai:fake@{srv.url}"
        assert solve(taskfile, tmp_path / "run", model, "--api-key-env", "MY_LAB_API_KEY") == 0
        assert {r.headers["authorization"] for r in srv.requests} == {"Bearer sk-my_lab_api_key"}
        capsys.readouterr()
        assert solve(taskfile, tmp_path / "r2", model, "--api-key-env", "HOME") == 2
        err = capsys.readouterr().err
        assert "'HOME' is not an API key variable" in err and err.count("\n") == 1
        assert len(srv.requests) == 2


def test_key_names():
    assert check_key_env("OPENROUTER_API_KEY") == "OPENROUTER_API_KEY"
    for bad in ("HOME", "AWS_SECRET_ACCESS_KEY", "openai_api_key", "X_API_KEY_2", "_API_KEY",
                "A_API_KEY\n", ""):
        with pytest.raises(ConfigError, match="not an API key variable"):
            check_key_env(bad)
