"""Machinery shared by the tracks' formalization tests (``tests/test_{causal,deduction,
induction}_formalize.py``): grammar acceptance by Lark and by llguidance, a scripted model, the
NS run over hostile formalizations, and ``scir solve`` with the tiny model (the agreement of
the task grammars with the parsers is tested with generated sentences: tests/test_grammar.py). The session's tiny model and its cache folder are fixtures
in ``conftest.py`` (``tiny``, ``tiny_cache``); assertions here are rewritten by pytest."""

from __future__ import annotations

import copy
import re
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

import lark
import pytest

from scir.cli import main
from scir.errors import ConfigError
from scir.llm.base import Backend, LLMRequest, LLMResponse
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.pipelines import STATUSES, PipelineSettings
from scir.runs.runner import RunSummary, run_tasks
from scir.tasks import Task
from scir.tracks.base import Track
from solvers.grammar_check import llguidance_available

HAVE_LLG = llguidance_available()
ARCHS = ("cot", "ns", "symbcot")

# name -> (formalization text, expected status, expected error fragment)
HostileCases = dict[str, tuple[str, str, str]]


# ---- grammar acceptance ----------------------------------------------------------------------
@lru_cache(maxsize=64)
def lark_parser(grammar: str) -> lark.Lark:
    return lark.Lark(grammar, parser="lalr")


def lark_accepts(grammar: str, text: str) -> bool:
    try:
        lark_parser(grammar).parse(text)
        return True
    except lark.LarkError:
        return False


class _ByteTokenizer:
    """One token per byte plus EOS: lets llguidance match whole texts without a model."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [256]

    def __call__(self, text):
        return list(text) if isinstance(text, bytes) else list(text.encode("utf-8"))


@lru_cache(maxsize=1)
def _llg_tokenizer():
    from llguidance import LLTokenizer, TokenizerWrapper

    return LLTokenizer(TokenizerWrapper(_ByteTokenizer()))


@lru_cache(maxsize=32)
def _llg_matcher(grammar: str):
    from llguidance import LLMatcher, grammar_from

    return LLMatcher(_llg_tokenizer(), grammar_from("lark", grammar), log_level=0)


def llguidance_accepts(grammar: str, text: str) -> bool:
    matcher = _llg_matcher(grammar).deep_copy()     # compiled once per grammar
    ok = matcher.consume_tokens(list(text.encode("utf-8")))
    return bool(ok) and not matcher.is_error() and matcher.is_accepting()


def accepts(grammar: str, text: str) -> bool:
    """Lark and llguidance agree on ``text``; returns the verdict."""
    verdict = lark_accepts(grammar, text)
    assert not HAVE_LLG or llguidance_accepts(grammar, text) == verdict, text
    return verdict


# ---- prompts -------------------------------------------------------------------------------
def check_prompt_edges(track: Track, task: Task, obf_kind: str, obf_text: str) -> None:
    """The ``obf`` presentation puts the rendered documents (set to ``obf_text``) into the
    ``obf_kind`` prompt; an unknown prompt kind and a ``symbcot`` prompt without the
    formalization are ConfigErrors."""
    obf = copy.deepcopy(task)
    obf.problem_obfuscated = obf_text
    assert obf_text in track.formalizer().prompt(obf_kind, obf, "obf")
    with pytest.raises(ConfigError, match="prompt kind must be one of"):
        track.formalizer().prompt("answer", task, "nl")
    with pytest.raises(ConfigError, match="needs the formalization"):
        track.formalizer().prompt("symbcot", task, "nl")


# ---- pipelines with a scripted model ---------------------------------------------------------
class ScriptedBackend(Backend):
    """A model double answering each prompt with ``reply(prompt)``."""

    provider, model = "scripted", "hostile"

    def __init__(self, reply: Callable[[str], str]) -> None:
        self.reply = reply
        self.calls = 0

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        return LLMResponse(self.reply(request.chat_messages()[0]["content"]), 10, 5, 0.0, 0.0,
                           "stop", self.provider, self.model)


def run_oracle(tasks: Sequence[Task], run_dir: Path) -> RunSummary:
    """The oracle pipeline over ``tasks``, stored in ``run_dir``."""
    with RunStore(run_dir) as store:
        return run_tasks(list(tasks), "oracle", None, store, PipelineSettings())


def run_hostile(pool: Sequence[Task], hostile: Callable[[Task], HostileCases], run_dir: Path
                ) -> tuple[dict[str, tuple], dict[str, dict[str, Any]]]:
    """NS with a scripted model over hostile formalizations: case k of ``hostile(pool[0])``
    goes to ``pool[k]``, whose every prompt the model answers with that case's text (made by
    ``hostile(pool[k])``). Checks that every case ends with its expected status and error
    fragment; returns (plan: task id -> (case, task, text, status, fragment), the stored
    results by task id)."""
    plan = {}
    for task, name in zip(pool, hostile(pool[0])):
        plan[task.task_id] = (name, task, *hostile(task)[name])
    chosen = [task for _, task, *_ in plan.values()]

    def reply(prompt: str) -> str:
        for name, task, text, *_ in plan.values():
            if task.problem_nl in prompt:
                return text
        raise AssertionError("prompt of an unknown task")

    with RunStore(run_dir) as store:
        summary = run_tasks(chosen, "ns", CachingBackend(ScriptedBackend(reply), store), store,
                            PipelineSettings(max_tokens=64))
        results = {r["task_id"]: r for r in store.results(arch="ns")}
    assert summary.total == len(plan)
    for task_id, (name, task, text, status, fragment) in plan.items():
        r = results[task_id]
        assert r["status"] == status, (name, r["error"])
        assert fragment in r["error"], (name, r["error"])
    return plan, results


# ---- the tiny model --------------------------------------------------------------------------
def solve_with_tiny(path: Path, run_root: Path, capsys: Any, max_tokens: dict[str, int],
                    ns_statuses: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """``scir solve FILE --model tiny`` with cot, ns and symbcot on the first 3 tasks of
    ``path`` (no retries, ``max_tokens[arch]``; runs in ``run_root/run-ARCH``): exit code 0, an
    accuracy line, no backend error; every ns formalization parsed (status in
    ``ns_statuses``), two calls per symbcot task. Returns the stored results per arch."""
    results = {}
    for arch in ARCHS:
        run = run_root / f"run-{arch}"
        assert main(["solve", str(path), "--arch", arch, "--model", "tiny", "--presentation",
                     "nl", "--run", str(run), "--limit", "3", "--max-tokens",
                     str(max_tokens[arch]), "--max-retries", "0"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"^accuracy: [0-3]/3$", out, re.M), out
        with RunStore(run) as store:
            results[arch] = store.results(arch=arch)
        with sqlite3.connect(run / "run.sqlite") as db:
            looped = {r[0] for r in db.execute("SELECT text FROM calls WHERE "
                                               "finish_reason = 'repetition'")}
        assert len(results[arch]) == 3
        for r in results[arch]:
            assert r["status"] in STATUSES and r["status"] != "backend_error"
            if arch == "ns" and r["formalization"] not in looped:
                # never cut by the token limit: every formalization that did not loop parsed
                assert r["status"] in ns_statuses, r["error"]
                assert r["items"] is not None and r["solver_status"] != "parse_error"
            if arch == "symbcot":
                assert r["calls"] == 2
    return results
