"""scir tracks as inspect_ai tasks (scir.integrations.inspect), run offline: in process with
inspect's mock model answering scripted texts (right, wrong and unparseable answers; gold and
broken formalizations), each sample's score compared with what the scir pipeline gives on the
same texts; and the ``inspect eval`` command line against a scripted OpenAI-compatible server
on 127.0.0.1."""

from __future__ import annotations

import importlib
import math
import os
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from statistics import mean, stdev

import pytest

pytest.importorskip("inspect_ai")

from fake_openai_server import FakeOpenAIServer, Reply, chat_body  # noqa: E402
from formalize_helpers import ScriptedBackend  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from parity_track import ParityTrack  # noqa: E402

import scir.integrations.inspect as si  # noqa: E402
from scir.errors import ConfigError  # noqa: E402
from scir.reports import stats  # noqa: E402
from scir.pipelines import PipelineSettings  # noqa: E402
from scir.pipelines.ns import FEEDBACK, formalization_step  # noqa: E402
from scir.pipelines.result import first_prompt  # noqa: E402
from scir.pipelines.runner import run_task  # noqa: E402
from scir.tasks import Task, write_tasks  # noqa: E402
from scir.tracks.reading import read_tasks
from scir.tracks import get_track, register, unregister  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRACKS = ("deduction", "induction", "causal")
BROKEN = "I would rather not write a formalization."


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Three Easy tasks per built-in track, rendered (template renderer), one file each."""
    from scir.rendering.template import render_task

    root = tmp_path_factory.mktemp("inspect-tasks")
    paths = {}
    for name in TRACKS:
        tasks = [render_task(t, 1) for t in get_track(name).generate(3, seed=7)]
        paths[name] = root / f"{name}.jsonl"
        write_tasks(paths[name], tasks)
    return paths


def gold_formalization(task: Task) -> str:
    """What a perfect model writes for ``task``: its track's ``formalize.format_formal``."""
    return importlib.import_module(f"scir.tracks.{task.domain}.formalize").format_formal(task)


def wrong_answer(task: Task, others: list[Task]) -> str:
    """An answer the track reads from ``Answer: X`` and rejects."""
    track = get_track(task.domain)
    candidates = ["True", "False", "Unknown", *"ABCDEFGHIJ", *(t.answer for t in others),
                  "binds,binds", "agonist_of,antagonist_of", "substrate_of,transported_by"]
    for c in candidates:
        if track.parse_answer(task, f"Answer: {c}") == c and not track.scorer().score(task, c):
            return c
    raise AssertionError(f"no wrong answer for {task.task_id}")


def scripts(tasks: list[Task], arch: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The texts the model gives per task, one per call (the last repeats), and the status
    each task must end with. Task k gets case k mod 3: cot right / wrong / no answer; ns gold /
    broken then gold (one retry) / always broken (two retries)."""
    texts, expected = {}, {}
    for k, task in enumerate(tasks):
        case = k % 3
        if arch == "cot":
            texts[task.task_id] = [[f"Reasoning over the premises.\nAnswer: {task.answer}"],
                                   [f"Answer: {wrong_answer(task, tasks)}"],
                                   ["I cannot tell from these documents."]][case]
            expected[task.task_id] = ("ok", "wrong", "no_answer")[case]
        else:
            gold = gold_formalization(task)
            texts[task.task_id] = [[gold], [BROKEN, gold], [BROKEN]][case]
            expected[task.task_id] = ("ok", "ok", "parse_error")[case]
    return texts, expected


def mock_model(prompts: dict[str, str], texts: dict[str, list[str]]):
    """inspect's mock model: the text of call n (the assistant turns so far) for the task
    whose prompt opens the conversation."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        task_id = prompts[messages[0].text]
        calls = sum(m.role == "assistant" for m in messages)
        script = texts[task_id]
        out = ModelOutput.from_content("mockllm/model", script[min(calls, len(script) - 1)])
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # no tiktoken
        return out

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def pipeline_results(tasks: list[Task], arch: str, presentation: str,
                     texts: dict[str, list[str]]) -> dict[str, object]:
    """The scir pipeline (scir.pipelines.runner.run_task, free formalization) on the same
    texts, through the project's scripted backend."""
    calls: Counter[str] = Counter()
    by_prompt = {first_prompt(get_track(t.domain), t, presentation,
                              si.ARCHITECTURES[arch])[1]: t.task_id for t in tasks}

    def reply(prompt: str) -> str:
        task_id = by_prompt[prompt]
        script = texts[task_id]
        text = script[min(calls[task_id], len(script) - 1)]
        calls[task_id] += 1
        return text

    settings = PipelineSettings(presentation=presentation, constrained=False, max_tokens=64)
    return {t.task_id: run_task(arch, t, ScriptedBackend(reply), settings) for t in tasks}


def run_inspect(tasks: list[Task], task_obj, arch: str, presentation: str,
                texts: dict[str, list[str]], log_dir: Path):
    prompts = {s.input: s.id for s in task_obj.dataset}
    (log,) = inspect_eval(task_obj, model=mock_model(prompts, texts), log_dir=str(log_dir),
                          display="none")
    assert log.status == "success", log.error
    return log


def check_against_pipeline(log, expected_results, expected_status: dict[str, str] | None):
    """Each sample's score is the pipeline's verdict; the metrics are those of the scores."""
    scores = {}
    for sample in log.samples:
        score = sample.scores["scir_scorer"]
        r = expected_results[sample.id]
        assert score.value == ("C" if r.correct else "I"), (sample.id, r.status, r.error)
        assert score.answer == r.answer and score.metadata["status"] == r.status
        assert score.metadata["retries"] == r.retries
        assert score.metadata["solver_status"] == r.solver_status
        if expected_status is not None:
            assert r.status == expected_status[sample.id], (sample.id, r.error)
        scores[sample.id] = (float(r.correct), r.chance)
    values = [v for v, _ in scores.values()]
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(mean(values))
    assert metrics["stderr"].value == pytest.approx(stdev(values) / math.sqrt(len(values)))
    assert metrics["chance_normalised"].value == pytest.approx(stats.normalised_accuracy(
        mean(values), mean(c for _, c in scores.values())))
    return scores


@pytest.mark.parametrize("arch", ["cot", "ns"])
@pytest.mark.parametrize("name", TRACKS)
def test_every_track_scores_as_the_scir_pipeline(files, tmp_path, name, arch):
    tasks = read_tasks(files[name])
    texts, expected = scripts(tasks, arch)
    task_obj = si.TASKS[name](task_file=str(files[name]), presentation="obf", architecture=arch)
    for sample, t in zip(task_obj.dataset, tasks):
        assert sample.id == t.task_id and sample.target == list(t.answer_pool)
        assert sample.input == first_prompt(get_track(name), t, "obf",
                                            si.ARCHITECTURES[arch])[1]
        assert t.problem_obfuscated in sample.input
        assert sample.metadata["chance"] == t.chance and sample.metadata["tier"] == t.tier
    log = run_inspect(tasks, task_obj, arch, "obf", texts, tmp_path)
    results = pipeline_results(tasks, arch, "obf", texts)
    scores = check_against_pipeline(log, results, expected)
    assert sorted(v for v, _ in scores.values()) == ([0.0, 0.0, 1.0] if arch == "cot"
                                                     else [0.0, 1.0, 1.0])
    if arch == "ns":                       # the retry showed the pipeline's feedback
        retried = next(s for s in log.samples if s.scores["scir_scorer"].metadata["retries"])
        t = next(t for t in tasks if t.task_id == retried.id)
        assert [m.role for m in retried.messages] == ["user", "assistant", "user", "assistant"]
        assert retried.messages[2].text == formalization_step(get_track(name), t,
                                                              BROKEN).feedback
        assert retried.messages[2].text.startswith(FEEDBACK.split("{error}")[0])


def test_a_registered_track_gets_its_task_with_every_failure_class(tmp_path):
    """A track registered at run time (the test-only parity track) becomes an inspect task;
    its NS failures (solver-input error retried, solver timeout not retried, wrong answer) are
    classified as the pipeline classifies them."""
    register("parity", ParityTrack)
    try:
        assert "parity" in si.register_tasks()
        task_obj = si.register_tasks()["parity"](n=4, seed=5, architecture="ns")
        tasks = list(ParityTrack().generate(4, seed=5))
        numbers = [t.formal["numbers"] for t in tasks]
        texts = {tasks[0].task_id: ["numbers: " + ", ".join(map(str, numbers[0]))],
                 tasks[1].task_id: ["numbers: 1000, 2", "numbers: " +
                                    ", ".join(map(str, numbers[1]))],
                 tasks[2].task_id: ["numbers: 666, 1"],
                 tasks[3].task_id: ["numbers: " + ", ".join(map(str, numbers[3] + [1]))]}
        log = run_inspect(tasks, task_obj, "ns", "nl", texts, tmp_path)
        results = pipeline_results(tasks, "ns", "nl", texts)
        check_against_pipeline(log, results, dict(zip(
            [t.task_id for t in tasks], ["ok", "ok", "timeout", "wrong"])))
        assert results[tasks[1].task_id].retries == 1
        assert results[tasks[2].task_id].solver_status == "timeout"
    finally:
        unregister("parity")
        si.register_tasks()


def test_generated_tasks_and_bad_parameters(files, tmp_path):
    task_obj = si.TASKS["deduction"](n=2, seed=3, presentation="obf")
    made = list(get_track("deduction").generate(2, seed=3))
    assert [s.id for s in task_obj.dataset] == [t.task_id for t in made]
    assert all("premise" not in s.input.split("\n")[0] for s in task_obj.dataset)
    with pytest.raises(ConfigError, match="architecture must be one of cot, ns"):
        si.build_task(track="deduction", n=1, architecture="symbcot")
    with pytest.raises(ConfigError, match="presentation must be one of nl, ctl, obf"):
        si.build_task(track="deduction", n=1, presentation="latex")
    with pytest.raises(ConfigError, match="n must be an integer >= 0, got 'ten'"):
        si.TASKS["induction"](n="ten")
    with pytest.raises(ConfigError, match="difficulty must be easy or hard"):
        si.TASKS["induction"](difficulty="medium")
    with pytest.raises(ConfigError, match="give task_file, or track"):
        si.benchmark()
    with pytest.raises(ConfigError, match="give an absolute path"):
        si.TASKS["causal"](task_file=str(tmp_path / "missing.jsonl"))
    with pytest.raises(ConfigError, match="is a induction task, not causal"):
        si.TASKS["causal"](task_file=str(files["induction"]))
    plain = tmp_path / "plain.jsonl"
    write_tasks(plain, made)
    with pytest.raises(ConfigError, match="has not been rendered"):
        si.TASKS["deduction"](task_file=str(plain), presentation="obf")
    mixed = si.benchmark(task_file=str(files["causal"]))
    assert {s.metadata["domain"] for s in mixed.dataset} == {"causal"}


@pytest.mark.slow
def test_inspect_eval_command_line(files, tmp_path):
    """``inspect eval FILE.py@TRACK`` (absolute task file) and ``inspect eval scir/TRACK`` (the
    entry point pyproject declares, registered here by a dist-info folder on PYTHONPATH;
    relative task file) against a scripted OpenAI-compatible server; the logs' scores are
    the track's reading and scoring of the replies."""
    tasks = read_tasks(files["deduction"])
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert entry["inspect_ai"] == {"scir": "scir.integrations.inspect"}
    dist = tmp_path / "ep" / "scir_inspect_entry-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: scir-inspect-entry\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[inspect_ai]\nscir = scir.integrations.inspect\n")
    replies = {t.problem_obfuscated: f"Answer: {label}"
               for t, label in zip(tasks, ["True", "False", "Unknown"])}

    def script(body, index):
        prompt = body["messages"][0]["content"]
        text = next((r for p, r in replies.items() if p in prompt), "no idea")
        return Reply(body=chat_body(text, model=body.get("model", "fake")))

    track = get_track("deduction")
    with FakeOpenAIServer(script) as srv:
        env = dict(os.environ, OPENAI_BASE_URL=srv.url, OPENAI_API_KEY="test",
                   PYTHONPATH=os.pathsep.join([str(ROOT), str(dist.parent),
                                               os.environ.get("PYTHONPATH", "")]))
        inspect = [sys.executable, "-m", "inspect_ai", "eval"]
        model = ["--model", "openai/fake", "-M", "responses_api=false", "--display", "none"]
        runs = {"file": (inspect + ["scir/integrations/inspect.py@deduction", "-T",
                                    f"task_file={files['deduction']}"], ROOT),
                "entry": (inspect + ["scir/deduction", "-T",
                                     f"task_file={files['deduction'].name}"],
                          files["deduction"].parent)}
        for form, (cmd, cwd) in runs.items():
            logs = tmp_path / f"logs-{form}"
            proc = subprocess.run(cmd + ["-T", "presentation=obf", "--log-dir", str(logs)]
                                  + model, cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=240)
            assert proc.returncode == 0, proc.stderr[-3000:]
            (path,) = logs.glob("*.eval")
            log = read_eval_log(str(path))
            assert log.status == "success" and len(log.samples) == len(tasks)
            for sample in log.samples:
                t = next(t for t in tasks if t.task_id == sample.id)
                answer = track.parse_answer(t, sample.output.completion)
                assert sample.scores["scir_scorer"].value == ("C" if track.scorer().score(t, answer)
                                                              else "I")
                assert sample.scores["scir_scorer"].answer == answer
            assert log.eval.task in ("deduction", "scir/deduction")
