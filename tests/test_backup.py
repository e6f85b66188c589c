"""NS with a CoT backup (``--backup cot``, Logic-LM's backup answers) on the test-only parity
track: when to ask the backup, what is recorded, that the backup call is the CoT call (cached,
resumable, shared with a cot cell), and what is refused."""

import re
import threading

import pytest

from parity_track import ParityTrack, parity  # noqa: F401  (registers the track per test)
from scir.cli import main
from scir.errors import BackendError, ConfigError
from scir.reports.aggregate import aggregate
from scir.reports.runs import load_runs
from scir.llm.base import Backend, LLMResponse
from scir.llm.cache import CachingBackend
from scir.runs.store import RunStore
from scir.pipelines import PipelineResult, PipelineSettings
from scir.pipelines.runner import run_task
from scir.runs.runner import run_tasks
from scir.tasks import write_tasks

TRACK = ParityTrack()
BACKUP = PipelineSettings(presentation="nl", max_tokens=64, backup="cot")


class Model(Backend):
    """A model double: ``formalize(numbers)`` writes the formalization, ``cot(numbers)`` the
    CoT response; either may return an exception to raise."""

    provider, model = "scripted", "m"

    def __init__(self, formalize, cot):
        self.formalize, self.cot = formalize, cot
        self.requests = []
        self._lock = threading.Lock()

    def complete(self, request):
        with self._lock:
            self.requests.append(request)
        prompt = request.chat_messages()[0]["content"]
        numbers = [int(n) for n in re.search(r"are ([0-9, ]+)\.", prompt)[1].split(", ")]
        text = (self.formalize if "List the numbers" in prompt else self.cot)(numbers)
        if isinstance(text, Exception):
            raise text
        return LLMResponse(text, 10, 5, 0.01, 0.001, "stop", self.provider, self.model)


def task(numbers, index=0):
    t = TRACK.generate_one({"count": len(numbers)}, seed=1, index=index)
    t.formal = {"numbers": list(numbers)}
    t.answer = "even" if sum(numbers) % 2 == 0 else "odd"
    t.answer_pool = [t.answer]
    t.problem_nl = "The numbers are " + ", ".join(map(str, numbers)) + "."
    return t


def listed(numbers):
    return "numbers: " + ", ".join(map(str, numbers))


@pytest.mark.parametrize("reply, status, correct, answer", [
    ("1+2+4 is odd.\nAnswer: odd", "ok", True, "odd"),
    ("Answer: even", "wrong", False, "even"),
    ("I cannot tell.", "no_answer", False, None)])
def test_a_formalization_failing_every_attempt_gets_the_cot_answer(reply, status, correct,
                                                                   answer):
    model = Model(lambda n: "the numbers are unclear", lambda n: reply)
    r = run_task("ns", task([1, 2, 4]), model, BACKUP)
    # the ns outcome is kept as it was: three parse errors, no answer, not correct
    assert (r.status, r.answer, r.correct, r.retries) == ("parse_error", None, False, 2)
    assert r.formalization == "the numbers are unclear" and "expected 'numbers" in r.error
    assert (r.backup, r.backup_used, r.backup_status, r.backup_correct, r.backup_answer) == (
        "cot", True, status, correct, answer)
    assert r.backup_response == reply and r.calls == 4 and r.prompt_tokens == 40
    # the backup request is exactly the request a cot run sends for the task
    cot_model = Model(lambda n: pytest.fail("cot formalizes"), lambda n: reply)
    plain = run_task("cot", task([1, 2, 4]), cot_model,
                     PipelineSettings(presentation="nl", max_tokens=64))
    assert model.requests[-1] == cot_model.requests[0]
    assert (plain.status, plain.answer) == (status, answer)


@pytest.mark.parametrize("numbers, formalization, attempts", [
    ([666, 2], listed, 1),                      # a solver timeout: not retried
    ([5, 1], lambda n: "numbers: 1000, 1", 3)])  # solver input errors on every attempt
def test_solver_failures_without_an_answer_get_the_backup(numbers, formalization, attempts):
    model = Model(formalization, lambda n: "Answer: even")
    r = run_task("ns", task(numbers), model, BACKUP)
    assert r.status in ("timeout", "solver_error") and r.answer is None
    assert (r.backup_used, r.backup_answer, r.backup_correct) == (True, "even", True)
    assert len(model.requests) == attempts + 1 and model.requests[-1].constraint is None


@pytest.mark.parametrize("formalization, status", [(listed, "ok"),
                                                   (lambda n: listed(n[1:]), "wrong")])
def test_a_formalization_the_solver_answers_never_calls_cot(formalization, status):
    model = Model(formalization, lambda n: pytest.fail("the backup was asked"))
    r = run_task("ns", task([1, 2, 4]), model, BACKUP)
    assert r.status == status and r.executable and r.calls == 1
    assert (r.backup, r.backup_used, r.backup_status, r.backup_response) == ("cot", False,
                                                                             None, None)


def test_a_backup_is_refused_for_other_architectures_before_any_call(tmp_path, capsys):
    model = Model(lambda n: pytest.fail("called"), lambda n: pytest.fail("called"))
    for arch in ("cot", "symbcot", "oracle"):
        with pytest.raises(ConfigError, match=f"applies to --arch ns only.*--arch {arch}"):
            run_task(arch, task([1, 2]), model, BACKUP)
        with RunStore(tmp_path / arch) as store, pytest.raises(ConfigError, match="ns only"):
            run_tasks([task([1, 2])], arch, model, store, BACKUP)
    with pytest.raises(ConfigError, match="backup must be one of cot, got 'symbcot'"):
        PipelineSettings(backup="symbcot")
    path = tmp_path / "t.jsonl"
    write_tasks(path, [task([1, 2])])
    assert main(["solve", str(path), "--arch", "cot", "--model", "tiny", "--backup", "cot",
                 "--run", str(tmp_path / "run")]) == 2
    assert "--backup cot applies to --arch ns only" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    assert model.requests == []


def test_a_resumed_run_repeats_no_backup_call_and_the_cot_cell_reuses_them(tmp_path):
    """Tasks 0-3: odd first numbers fail to formalize; the CoT answer is right for sums < 20.
    The backup call of task 1 fails (HTTP 503) on the first run and is retried alone."""
    tasks = [task([2 * i + 1 if i % 2 else 2 * i, 3, 4 * i], index=i) for i in range(6)]
    failing = {tasks[1].task_id}

    def cot(n):
        if sum(n) >= 20:
            return "Answer: " + ("odd" if sum(n) % 2 == 0 else "even")
        return "Answer: " + ("even" if sum(n) % 2 == 0 else "odd")

    down = [True]
    model = Model(lambda n: listed(n) if n[0] % 2 == 0 else "no idea",
                  lambda n: BackendError("HTTP 503") if down[0] and n[0] == 3 else cot(n))
    with RunStore(tmp_path) as store:
        first = run_tasks(tasks, "ns", CachingBackend(model, store), store, BACKUP)
        assert first.by_status == {"ok": 3, "parse_error": 2, "backend_error": 1}
        assert [t.task_id for t in tasks if store.get_result(
            t.task_id, "ns", "nl", "scripted:m")["status"] == "backend_error"] == list(failing)
        made = len(model.requests)
        down[0] = False
        again = CachingBackend(model, store)
        summary = run_tasks(tasks, "ns", again, store, BACKUP)
        assert (summary.ran, summary.skipped, again.made, again.served) == (1, 5, 1, 3)
        assert [r.constraint for r in model.requests[made:]] == [None]   # only its CoT call
        stored = [PipelineResult.from_dict(store.get_result(t.task_id, "ns", "nl",
                                                            "scripted:m")) for t in tasks]
        used = [r for r in stored if r.backup_used]
        assert [r.task_id for r in used] == [tasks[i].task_id for i in (1, 3, 5)]
        assert all(r.status == "parse_error" and not r.correct for r in used)
        right = sum(r.backup_correct for r in used)
        assert 0 < right < len(used)
        assert (summary.correct, summary.backup_used, summary.correct_with_backup) == (
            3, 3, 3 + right)
        assert f"with cot backup: accuracy {3 + right}/6, backup answers 3" in summary.lines()
        # the same command once more: nothing runs, nothing is called
        total = len(model.requests)
        assert run_tasks(tasks, "ns", CachingBackend(model, store), store, BACKUP).ran == 0
        redo = CachingBackend(model, store)
        assert run_tasks(tasks, "ns", redo, store, BACKUP, redo=True).ran == 6
        assert redo.made == 0 and len(model.requests) == total
        # a cot cell in the same run is served the backup calls: only the others are made
        plain = CachingBackend(model, store)
        cot_cell = run_tasks(tasks, "cot", plain, store,
                             PipelineSettings(presentation="nl", max_tokens=64))
        assert (plain.served, plain.made) == (3, 3)
        answers = {r["task_id"]: r["answer"] for r in store.results(arch="cot")}
        assert all(answers[r.task_id] == r.backup_answer for r in used)
        assert cot_cell.backup == "" and not any("backup" in line for line in cot_cell.lines())


def test_results_stored_before_backups_read_as_runs_without_backup(tmp_path):
    model = Model(lambda n: "no idea", lambda n: "Answer: odd")
    with RunStore(tmp_path / "old") as store:
        run_tasks([task([1, 2], index=0), task([1, 3], index=1)], "ns", model, store,
                  PipelineSettings(presentation="nl", max_tokens=64))
        for data in store.results():          # the fields a result had before backups
            store.put_result({k: v for k, v in data.items() if not k.startswith("backup")})
        old = store.results()
    assert all("backup" not in r for r in old)
    assert PipelineResult.from_dict(old[0]).backup is None
    (cell,) = aggregate(load_runs([str(tmp_path / "old")]))
    assert cell.cell.backup == "" and cell.backup_used is None and cell.n == 2
    assert cell.to_dict()["backup"] is None and "backup" not in cell.cell.plan_dict()
