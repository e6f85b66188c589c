"""The four pipelines and the resumable runner, on the test-only parity track."""

import re
import threading
import time

import pytest

from parity_track import GRAMMAR, ParityFormalizer, ParityTrack
from scir.errors import BackendError, ConfigError
from scir.llm.base import Backend, LLMRequest, LLMResponse
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.pipelines import PipelineSettings
from scir.pipelines.runner import run_task
from scir.runs.runner import run_tasks
from scir.tracks import register, unregister

TRACK = ParityTrack()
NL = PipelineSettings(presentation="nl", max_tokens=64)


@pytest.fixture(autouse=True)
def tracks():
    """Registers the parity track (and any test variant) for one test only."""
    names = ["parity"]

    def add(cls):
        register(cls.name, cls)
        names.append(cls.name)

    register("parity", ParityTrack)
    yield add
    for name in names:
        unregister(name)


class ScriptedBackend(Backend):
    """A model double: answers from a list of texts (or a function of the request)."""

    provider, model = "scripted", "m"

    def __init__(self, replies):
        self.replies = list(replies) if not callable(replies) else replies
        self.requests: list[LLMRequest] = []
        self._lock = threading.Lock()

    def complete(self, request):
        with self._lock:
            self.requests.append(request)
            text = None if callable(self.replies) else self.replies.pop(0)
        if text is None:
            text = self.replies(request)
        if isinstance(text, Exception):
            raise text
        return LLMResponse(text, 10, 5, 0.01, 0.001, "stop", self.provider, self.model)


def task(numbers, index=0, obf=""):
    t = TRACK.generate_one({"count": len(numbers)}, seed=1, index=index)
    t.formal = {"numbers": list(numbers)}
    t.answer = "even" if sum(numbers) % 2 == 0 else "odd"
    t.answer_pool = [t.answer]
    t.problem_nl = "The numbers are " + ", ".join(map(str, numbers)) + "."
    t.problem_obfuscated = obf
    return t


def test_cot_scores_parsed_answers_and_counts_unparseable_ones():
    t = task([1, 2, 4])                                   # odd
    for reply, status, correct, answer in [("7 is odd.\nAnswer: odd", "ok", True, "odd"),
                                           ("Answer: even", "wrong", False, "even"),
                                           ("I am not sure.", "no_answer", False, None)]:
        b = ScriptedBackend([reply])
        r = run_task("cot", t, b, NL)
        assert (r.status, r.correct, r.answer) == (status, correct, answer)
        assert (r.calls, r.prompt_tokens, r.completion_tokens) == (1, 10, 5)
        assert r.response == reply and r.model == "scripted:m" and r.reference_items == 3
        (req,) = b.requests
        assert req.constraint is None and req.max_tokens == 64 and req.temperature == 0.0
        assert "The numbers are 1, 2, 4." in req.chat_messages()[0]["content"]


def test_ns_solves_a_parsed_formalization_under_the_grammar():
    b = ScriptedBackend(["numbers: 1, 2, 4"])
    r = run_task("ns", task([1, 2, 4]), b, NL)
    assert (r.status, r.answer, r.correct, r.retries, r.items) == ("ok", "odd", True, 0, 3)
    assert r.solver_status == "answered" and r.formalization == "numbers: 1, 2, 4"
    (req,) = b.requests
    assert req.constraint.kind == "lark" and req.constraint.text == GRAMMAR


def test_ns_retries_parse_errors_with_the_message_and_never_the_answer():
    t = task([3, 3, 2])                                   # even
    b = ScriptedBackend(["the numbers are 3 3 2", "numbers: 3, 3, 2"])
    r = run_task("ns", t, b, NL)
    assert (r.status, r.answer, r.correct, r.retries, r.calls) == ("ok", "even", True, 1, 2)
    first, second = (q.chat_messages() for q in b.requests)
    assert second[:1] == first
    assert second[1] == {"role": "assistant", "content": "the numbers are 3 3 2"}
    feedback = second[2]["content"]
    assert "expected 'numbers: N, N, ...'" in feedback and "line 1, column 1" in feedback
    assert "even" not in feedback and "odd" not in feedback
    assert b.requests[1].constraint == b.requests[0].constraint


def test_ns_gives_up_after_two_retries():
    b = ScriptedBackend(["nope", "still nope", "no"])
    r = run_task("ns", task([1, 1, 1]), b, NL)
    assert (r.status, r.correct, r.retries, r.calls, r.answer) == ("parse_error", False, 2, 3,
                                                                   None)
    assert r.solver_status == "parse_error" and "expected 'numbers" in r.error
    no_retry = run_task("ns", task([1, 1, 1]), ScriptedBackend(["x"]),
                        PipelineSettings(max_retries=0))
    assert (no_retry.status, no_retry.calls) == ("parse_error", 1)


def test_ns_retries_solver_input_errors_but_not_timeouts():
    b = ScriptedBackend(["numbers: 1000, 2", "numbers: 100, 2"])
    r = run_task("ns", task([100, 2]), b, NL)
    assert (r.status, r.retries, r.answer) == ("ok", 1, "even")
    assert "number 1000 is out of range" in b.requests[1].chat_messages()[2]["content"]
    b = ScriptedBackend(["numbers: 1000", "numbers: 1001", "numbers: 1002"])
    r = run_task("ns", task([5]), b, NL)
    assert (r.status, r.solver_status, r.retries) == ("solver_error", "input_error", 2)
    b = ScriptedBackend(["numbers: 666, 1"])
    r = run_task("ns", task([666, 1]), b, NL)
    assert (r.status, r.solver_status, r.calls, r.retries) == ("timeout", "timeout", 1, 0)
    assert "ran out of time" in r.solver_log and r.items == 2


def test_symbcot_answers_from_the_formalization():
    b = ScriptedBackend(["numbers: 2, 2", "2 + 2 = 4.\nAnswer: even"])
    r = run_task("symbcot", task([2, 2]), b, NL)
    assert (r.status, r.answer, r.correct, r.calls, r.items) == ("ok", "even", True, 2, 2)
    assert b.requests[0].constraint.text == GRAMMAR and b.requests[1].constraint is None
    assert "Formalization: numbers: 2, 2" in b.requests[1].chat_messages()[0]["content"]
    b = ScriptedBackend(["garbage", "Answer: odd"])        # formalized once, no retry
    r = run_task("symbcot", task([2, 2]), b, NL)
    assert (r.status, r.correct, r.items, r.calls) == ("wrong", False, None, 2)
    assert r.executable is False
    assert "does not parse" in r.solver_log


def test_oracle_solves_the_gold_formal_object_without_a_model():
    r = run_task("oracle", task([1, 2]), None, NL)
    assert (r.status, r.answer, r.correct, r.model, r.calls) == ("ok", "odd", True, "none", 0)
    r = run_task("oracle", task([666]), None, NL)
    assert (r.status, r.correct) == ("timeout", False)


def test_backend_errors_are_recorded_per_task():
    r = run_task("cot", task([1]), ScriptedBackend([BackendError("server down")]), NL)
    assert (r.status, r.correct, r.error) == ("backend_error", False, "server down")


def test_presentation_obf_needs_a_rendered_task():
    obf = PipelineSettings(presentation="obf")
    with pytest.raises(ConfigError, match="task has not been rendered"):
        run_task("cot", task([1, 2]), ScriptedBackend(["Answer: odd"]), obf)
    b = ScriptedBackend(["Answer: odd"])
    r = run_task("cot", task([1, 2], obf="LAB RECORD: readings 1 and 2."), b, obf)
    assert r.correct and r.presentation == "obf"
    assert "LAB RECORD" in b.requests[0].chat_messages()[0]["content"]
    with pytest.raises(ConfigError, match="presentation must be one of nl, ctl, obf"):
        PipelineSettings(presentation="pdf")


def test_a_missing_track_hook_stops_the_run(tracks):
    class NoGrammarFace(ParityFormalizer):
        def grammar(self, task):
            raise NotImplementedError("grammar comes later")

    class NoGrammar(ParityTrack):
        name = "parity-nogrammar"

        def formalizer(self):
            return NoGrammarFace(self)

    tracks(NoGrammar)
    t = task([1])
    t.domain = "parity-nogrammar"
    with pytest.raises(ConfigError, match="does not support Formalizer.grammar yet"):
        run_task("ns", t, ScriptedBackend(["numbers: 1"]), NL)


def test_runner_is_concurrent_resumable_and_retries_backend_errors(tmp_path):
    tasks = [task([i, i + 1, 2 * i], index=i) for i in range(8)]
    fail_on = {tasks[5].problem_nl}
    active, peak = [0], [0]
    lock = threading.Lock()

    def reply(req):
        prompt = req.chat_messages()[0]["content"]
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        if any(p in prompt for p in fail_on):
            return BackendError("HTTP 503")
        return "numbers: " + re.search(r"are ([0-9, ]+)\.", prompt).group(1)

    inner = ScriptedBackend(reply)
    with RunStore(tmp_path) as store:
        summary = run_tasks(tasks, "ns", CachingBackend(inner, store), store, NL, concurrency=3)
        assert (summary.total, summary.correct, summary.ran) == (8, 7, 8)
        assert summary.by_status == {"ok": 7, "backend_error": 1}
        assert summary.lines()[0] == "accuracy: 7/8"
        assert peak[0] == 3
        calls_before = len(inner.requests)
        fail_on.clear()
        again = CachingBackend(inner, store)
        summary = run_tasks(tasks, "ns", again, store, NL, concurrency=3)
        assert (summary.total, summary.correct, summary.ran, summary.skipped) == (8, 8, 1, 7)
        assert len(inner.requests) == calls_before + 1 and again.made == 1


def test_ns_records_solver_errors_raised_while_parsing(tracks):
    from scir.errors import SandboxCrash, SandboxViolation

    class GuardedFace(ParityFormalizer):
        def parse(self, task, text):
            if "halt" in text:
                raise SandboxViolation("directive halt/0 is not allowed")
            if "crash" in text:
                raise SandboxCrash("worker died")
            return super().parse(task, text)

    class Guarded(ParityTrack):
        name = "parity-guarded"

        def formalizer(self):
            return GuardedFace(self)

    tracks(Guarded)
    t = task([1, 2])
    t.domain = "parity-guarded"
    b = ScriptedBackend(["halt", "numbers: 1, 2"])
    r = run_task("ns", t, b, NL)
    assert (r.status, r.retries, r.answer) == ("ok", 1, "odd")
    assert "directive halt/0 is not allowed" in b.requests[1].chat_messages()[2]["content"]
    r = run_task("ns", t, ScriptedBackend(["crash"]), NL)
    assert (r.status, r.solver_status, r.calls) == ("solver_error", "error", 1)
    assert r.error == "SandboxCrash: worker died"


def test_a_formalization_token_cap_limits_only_formalization_calls():
    settings = PipelineSettings(max_tokens=64, max_formalization_tokens=20)
    b = ScriptedBackend(["numbers: 2, 2", "2 + 2 = 4.\nAnswer: even"])
    run_task("symbcot", task([2, 2]), b, settings)
    assert [r.max_tokens for r in b.requests] == [20, 64]
    b = ScriptedBackend(["numbers: 2, 2"])
    run_task("ns", task([2, 2]), b, settings)
    assert [r.max_tokens for r in b.requests] == [20]
    b = ScriptedBackend(["numbers: 2, 2"])
    run_task("ns", task([2, 2]), b, NL)            # no cap: the budget from the task size
    assert b.requests[0].max_tokens >= 64
    with pytest.raises(ConfigError):
        PipelineSettings(max_formalization_tokens=0)


@pytest.mark.parametrize("track_name", ["deduction", "induction", "causal"])
def test_a_formalization_budget_follows_from_the_task_size(track_name):
    """Twice the gold formalization's characters plus slack, at most the grammar's longest
    output: never one that cuts the gold text."""
    from scir.pipelines.result import formalization_tokens
    from scir.tracks import get_track

    track = get_track(track_name)
    easy, hard = (next(iter(track.generate(1, 3, tier))) for tier in ("easy", "hard"))
    for t in (easy, hard):
        budget = formalization_tokens(track, t)
        gold = len(track.formalizer().format(t))
        assert gold < budget <= 2 * gold + 64
        grammar = track.formalizer().max_chars(t)
        assert grammar is None or budget <= grammar + 8
