"""The tiny local model through Outlines + llguidance: real constrained decoding on a CPU."""

import hashlib
import json
import re

import lark
import pytest

from scir.errors import ConfigError
from scir.llm import Constraint, LLMRequest, get_backend
from scir.llm.local import validate_constraint

pytestmark = pytest.mark.llm

# a bounded list of 1-3 atoms: at most 2 + 3 * 6 + 2 = 22 characters
LIST_GRAMMAR = 'start: "[" ATOM ("," ATOM)~0..2 "]"\nATOM: /[a-z]{1,6}/\n'
PROMPTS = [f"Write a list of {n} words about {topic}:" for n in (1, 2, 3, 4)
           for topic in ("cells", "drugs", "proteins", "graphs", "logic")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCIR_CACHE_DIR", str(tmp_path_factory.mktemp("scir-cache")))
        backend = get_backend("tiny")
        yield backend


def test_constrained_output_always_parses(tiny):
    parser = lark.Lark(LIST_GRAMMAR, parser="earley")
    constraint = Constraint("lark", LIST_GRAMMAR)

    def parses(text):
        try:
            parser.parse(text)
            return True
        except lark.LarkError:
            return False

    constrained = [tiny.complete(LLMRequest(prompt=p, constraint=constraint, max_tokens=32))
                   for p in PROMPTS]
    free = [tiny.complete(LLMRequest(prompt=p, max_tokens=32)) for p in PROMPTS]
    rate = sum(parses(r.text) for r in constrained) / len(PROMPTS)
    free_rate = sum(parses(r.text) for r in free) / len(PROMPTS)
    print(f"\nparse rate over {len(PROMPTS)} prompts: constrained {rate:.0%}, "
          f"unconstrained {free_rate:.0%}")
    assert rate == 1.0, [r.text for r in constrained if not parses(r.text)]
    assert free_rate < 1.0                   # the grammar, not the model, makes it parse
    assert len({r.text for r in constrained}) > 1
    for r in constrained:
        assert r.raw_finish_reason == "stop" and 1 <= r.completion_tokens < 32
        assert r.prompt_tokens > 0 and r.backend == "tiny" and r.model == "tiny-v1"


def test_greedy_decoding_is_deterministic(tiny):
    req = LLMRequest(prompt="numbers please", constraint=Constraint("lark", LIST_GRAMMAR),
                     max_tokens=32)
    assert tiny.complete(req).text == tiny.complete(req).text
    free = LLMRequest(prompt="numbers please", max_tokens=12)
    first = tiny.complete(free)
    assert first.text == tiny.complete(free).text
    assert first.raw_finish_reason == "length" and first.completion_tokens == 12


@pytest.mark.parametrize("grammar, why", [
    ("start: foo\n", "unknown name"),
    ('start: "a" BAD\nBAD: /[/\n', "invalid regex"),
    ("start: (\n", "invalid lark grammar"),
])
def test_bad_grammar_errors_at_load(tiny, grammar, why):
    with pytest.raises(ConfigError, match=f"(?i){re.escape(why)}"):
        tiny.compile(Constraint("lark", grammar))
    with pytest.raises(ConfigError, match="(?i)invalid lark grammar"):
        tiny.complete(LLMRequest(prompt="p", constraint=Constraint("lark", grammar),
                                 max_tokens=8))
    with pytest.raises(ConfigError, match="(?i)invalid lark grammar"):
        validate_constraint(Constraint("lark", grammar))     # also without a tokenizer


def test_regex_and_json_schema_constraints(tiny):
    r = tiny.complete(LLMRequest(prompt="a code:", constraint=Constraint("regex", "[0-9]{3}"),
                                 max_tokens=10))
    assert re.fullmatch(r"[0-9]{3}", r.text)
    schema = {"type": "object", "properties": {"answer": {"enum": ["True", "False", "Unknown"]}},
              "required": ["answer"], "additionalProperties": False}
    r = tiny.complete(LLMRequest(prompt="answer:", max_tokens=40,
                                 constraint=Constraint("json_schema", json.dumps(schema))))
    assert json.loads(r.text)["answer"] in ("True", "False", "Unknown")


def test_stop_strings_cut_the_output(tiny):
    free = tiny.complete(LLMRequest(prompt="Answer:", max_tokens=16)).text
    assert len(free) >= 2
    stop = free[1]
    cut = tiny.complete(LLMRequest(prompt="Answer:", max_tokens=16, stop=(stop,)))
    assert cut.text == free[:free.index(stop)]
    assert cut.raw_finish_reason == "stop"


def test_chat_messages_are_accepted(tiny):
    r = tiny.complete(LLMRequest.chat([("system", "Be brief."), ("user", "List:"),
                                       ("assistant", "[a]"), ("user", "Again:")],
                                      constraint=Constraint("lark", LIST_GRAMMAR), max_tokens=32))
    assert re.fullmatch(r"\[[a-z]{1,6}(,[a-z]{1,6}){0,2}\]", r.text)


def test_tiny_model_is_built_identically(tmp_path, monkeypatch):
    from scir.llm import tiny as tiny_module

    digests = []
    for name in ("a", "b"):
        monkeypatch.setenv("SCIR_CACHE_DIR", str(tmp_path / name))
        folder = tiny_module.ensure_model()
        digests.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                        for p in sorted(folder.iterdir())})
    assert digests[0] == digests[1]
    assert {"model.safetensors", "tokenizer.json", "config.json"} <= set(digests[0])


def test_hf_models_load_from_a_folder_and_use_their_chat_template(tiny, tmp_path):
    folder = tmp_path / "chat-model"
    tiny.hf_tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}")
    try:
        tiny.hf_tokenizer.save_pretrained(folder)
        tiny.hf_model.save_pretrained(folder)
    finally:
        tiny.hf_tokenizer.chat_template = None
    hf = get_backend(f"hf:{folder}")
    assert (hf.provider, hf.model, hf.name) == ("hf", str(folder), f"hf:{folder}")
    r = hf.complete(LLMRequest.chat([("user", "List:")], max_tokens=32,
                                    constraint=Constraint("lark", LIST_GRAMMAR)))
    assert re.fullmatch(r"\[[a-z]{1,6}(,[a-z]{1,6}){0,2}\]", r.text)
    templated = hf.hf_tokenizer("<user>List:\n<assistant>")["input_ids"]
    assert r.prompt_tokens == len(templated)                   # the template was applied
    with pytest.raises(ConfigError, match="cannot load hf model"):
        get_backend(f"hf:{tmp_path / 'missing'}")
