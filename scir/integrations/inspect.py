"""Every registered scir track as an inspect_ai task (the ``inspect`` extra).

One ``@task`` per track (``deduction``, ``induction``, ``causal`` and any track registered by
entry point or ``SCIR_TRACKS``), plus ``benchmark`` for a file of any tracks::

    inspect eval scir/deduction -T task_file=d.obf.jsonl -T presentation=obf --model openai/gpt-4o-mini
    inspect eval scir/integrations/inspect.py@causal -T n=20 -T architecture=ns --model mockllm/model

- dataset: one :class:`~inspect_ai.dataset.Sample` per scir task: input the prompt the scir
  pipeline sends (``Formalizer.prompt``: ``cot`` for ``cot``, ``formalize`` for ``ns``), target
  the answer pool, metadata the task's id, track, difficulty, tier, seed and chance;
- solver: ``cot`` is inspect's ``generate()``; ``ns`` generates a formalization and runs the
  track's solver on it through the NS pipeline's own step (:func:`scir.pipelines.ns.
  formalization_step`: parse, solve, the same failure classes), retrying parse and
  solver-input errors with the pipeline's feedback text. inspect has no grammar constraint,
  so the formalization is free text (``scir eval``'s ``constrained = false``);
- scorer: the pipeline's own reading and scoring (:func:`scir.pipelines.result.read_answer`,
  :func:`scir.pipelines.ns.record`: ``Track.parse_answer``, ``Track.scorer()``), with the metrics
  accuracy, stderr and the chance-normalised accuracy of ``scir report``.

The module shares its name with the standard library's ``inspect``; that is harmless because
every import is absolute (a package's module is never on ``sys.path`` under its own name, and
inspect_ai loads a task file by path, under the path as module name). Importing it registers
the tasks with inspect_ai (that is how inspect finds them: the ``inspect_ai`` entry point
names this module); nothing else happens at import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Task as EvalTask
from inspect_ai import task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
    value_to_float,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import registry_info

from scir.errors import ConfigError
from scir.pipelines.ns import SolverOutcome, formalization_step, record
from scir.pipelines.registry import BY_NAME, PIPELINES
from scir.pipelines.result import (
    PRESENTATIONS,
    PipelineResult,
    PipelineSettings,
    first_prompt,
    new_result,
    read_answer,
)
from scir.reports import stats
from scir.tasks import Task
from scir.tracks import get_track, track_names, track_of
from scir.tracks.base import ANSWER, FORMALIZE
from scir.tracks.reading import read_tasks

PACKAGE = "scir"  # the registry prefix: inspect eval scir/<track>
GENERIC = "benchmark"  # the task over a file of any tracks
# the architectures that run as one model step (the registry's single_step): architecture ->
# the track's prompt kind of that step
ARCHITECTURES = {p.name: p.single_step for p in PIPELINES if p.single_step is not None}
STORE_KEY = "scir_ns"  # the NS solver's outcome in the sample's store


class TaskIndex:
    """The scir tasks behind one inspect task, by task id. inspect logs a solver's and a
    scorer's arguments; this one is logged as its ``name`` (what was loaded), not dumped.
    (Not a dataclass: inspect loads a task file by path without entering it in
    ``sys.modules``, which dataclasses need.)"""

    def __init__(self, name: str, tasks: dict[str, Task]) -> None:
        self.name = name
        self.tasks = tasks

    def __getitem__(self, task_id: str | int) -> Task:
        return self.tasks[str(task_id)]


# ---- dataset ---------------------------------------------------------------------------------
def load_tasks(
    task_file: str | None, track: str | None, difficulty: str, n: int, seed: int, presentation: str
) -> list[Task]:
    """The tasks of ``task_file`` (every task of track ``track`` when given: ConfigError
    otherwise), or ``n`` tasks of ``track`` generated from ``seed`` at ``difficulty``
    (rendered by the template renderer with ``seed`` for ``obf``)."""
    if task_file is not None:
        path = Path(task_file)
        if not path.is_file():
            raise ConfigError(
                f"task file {task_file} not found (relative to {os.getcwd()}; "
                "`inspect eval FILE.py@TASK` runs the task in the folder of "
                "FILE.py: give an absolute path, or use the registered name, "
                f"e.g. {PACKAGE}/deduction)",
                field="task_file",
            )
        tasks = read_tasks(path)
        for t in tasks:
            if track is not None and t.domain != track:
                raise ConfigError(
                    f"task {t.task_id} is a {t.domain} task, not {track} (use "
                    f"{PACKAGE}/{GENERIC} for a file of several tracks)",
                    file=str(path),
                    field="task_file",
                )
        return tasks
    if track is None:
        raise ConfigError(
            "give task_file, or track (with difficulty, n, seed) to generate tasks",
            field="task_file",
        )
    tasks = list(get_track(track).generate(n, seed, difficulty))
    if presentation in ("obf", "ctl"):
        from scir.rendering.template import render_task

        tasks = [render_task(t, seed) for t in tasks]
    if presentation == "ctl":
        from scir.rendering.control import render_control

        tasks = [render_control(t, seed) for t in tasks]
    return tasks


def to_sample(task_: Task, presentation: str, architecture: str) -> Sample:
    """The inspect sample of a scir task: the pipeline's first prompt, the answer pool."""
    track = track_of(task_)
    _, prompt = first_prompt(track, task_, presentation, ARCHITECTURES[architecture])
    return Sample(
        input=prompt,
        target=list(task_.answer_pool),
        id=task_.task_id,
        metadata={
            "task_id": task_.task_id,
            "domain": track.name,
            "difficulty": task_.difficulty,
            "tier": task_.tier,
            "seed": task_.seed,
            "answer": task_.answer,
            "chance": task_.chance,
            "chance_constrained": task_.chance_constrained,
            "presentation": presentation,
            "architecture": architecture,
        },
    )


# ---- solver ----------------------------------------------------------------------------------
@solver
def scir_solver(architecture: str, tasks: TaskIndex, max_retries: int = 2) -> Solver:
    """``cot``: one generation. ``ns``: generate a formalization, parse and solve it with the
    NS pipeline's step; on a parse or solver-input error, show the model the pipeline's
    feedback and generate again (at most ``max_retries`` times). The outcome goes to the
    sample's store (``scir_ns``) for the scorer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state)
        if BY_NAME[architecture].kind != FORMALIZE:  # the text is the answer
            return state
        task_ = tasks[state.sample_id]
        track = track_of(task_)
        attempt = 0
        while True:
            text = state.output.completion
            # the solvers are CPU-bound and take the pipelines' solver lock: off the event loop
            step = await anyio.to_thread.run_sync(formalization_step, track, task_, text)
            if not step.retry(attempt, max_retries):
                break
            attempt += 1
            state.messages.append(ChatMessageUser(content=step.feedback))
            state = await generate(state)
        outcome = step.outcome
        state.store.set(
            STORE_KEY,
            {
                "answer": outcome.answer,
                "status": outcome.status,
                "solver_status": outcome.solver_status,
                "log": outcome.log,
                "formalization": text,
                "items": step.items,
                "retries": attempt,
            },
        )
        return state

    return solve


# ---- scorer ----------------------------------------------------------------------------------
def pipeline_result(
    state: TaskState, task_: Task, architecture: str, presentation: str
) -> PipelineResult:
    """The scir pipeline's result record for a solved sample: the answer read from the
    response (``cot``) or the solver's outcome (``ns``), scored by the track."""
    track = track_of(task_)
    settings = PipelineSettings(presentation=presentation, constrained=False)
    result = new_result(task_, architecture, settings, str(state.model))
    if BY_NAME[architecture].kind == ANSWER:
        read_answer(track, task_, result, state.output.completion)
        return result
    stored = state.store.get(STORE_KEY)
    if stored is None:  # the solver did not get to the formalization
        result.error = "no formalization was solved"
        return result
    result.formalization, result.items = stored["formalization"], stored["items"]
    result.retries = stored["retries"]
    record(
        track,
        task_,
        result,
        SolverOutcome(stored["answer"], stored["status"], stored["solver_status"], stored["log"]),
    )
    return result


@metric
def chance_normalised() -> Metric:
    """``max(0, (A - c) / (1 - c))`` with ``c`` the mean chance of the scored tasks, the
    definition of ``scir report`` (:func:`scir.reports.stats.normalised_accuracy`)."""
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return float("nan")
        acc = sum(to_float(s.score.value) for s in scores) / len(scores)
        chances = []
        for s in scores:
            # the scorer (``scir_scorer``) records each task's chance with its score
            assert s.score.metadata is not None
            chances.append(float(s.score.metadata["chance"]))
        chance = sum(chances) / len(chances)
        return stats.normalised_accuracy(acc, chance)

    return compute


@scorer(metrics=[accuracy(), stderr(), chance_normalised()])
def scir_scorer(architecture: str, presentation: str, tasks: TaskIndex) -> Scorer:
    """Correct when the scir pipeline would count the answer correct (answer pools, option
    subset match); the metadata carries the pipeline's status (ok, wrong, no_answer,
    parse_error, solver_error, timeout) and the task's chance."""

    async def score(state: TaskState, target: Target) -> Score:
        task_ = tasks[state.sample_id]
        result = pipeline_result(state, task_, architecture, presentation)
        return Score(
            value=CORRECT if result.correct else INCORRECT,
            answer=result.answer,
            explanation=result.error or result.status,
            metadata={
                "status": result.status,
                "chance": result.chance,
                "solver_status": result.solver_status,
                "executable": result.executable,
                "retries": result.retries,
                "items": result.items,
            },
        )

    return score


# ---- tasks -----------------------------------------------------------------------------------
def build_task(
    task_file: str | None = None,
    track: str | None = None,
    difficulty: str = "easy",
    n: int = 10,
    seed: int = 0,
    presentation: str = "nl",
    architecture: str = "cot",
    max_retries: int = 2,
) -> EvalTask:
    """The inspect task over scir tasks (see :func:`load_tasks`) under one presentation
    (``nl``/``ctl``/``obf``) and architecture (``cot``/``ns``)."""
    if architecture not in ARCHITECTURES:
        raise ConfigError(
            f"architecture must be one of {', '.join(ARCHITECTURES)}, got {architecture!r}",
            field="architecture",
        )
    if presentation not in PRESENTATIONS:
        raise ConfigError(
            f"presentation must be one of {', '.join(PRESENTATIONS)}, got {presentation!r}",
            field="presentation",
        )
    for name, value in (("n", n), ("seed", seed), ("max_retries", max_retries)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{name} must be an integer >= 0, got {value!r}", field=name)
    tasks = load_tasks(task_file, track, difficulty, n, seed, presentation)
    source = task_file or f"{track} {difficulty} n={n} seed={seed}"
    index = TaskIndex(f"scir tasks: {source}", {t.task_id: t for t in tasks})
    samples = [to_sample(t, presentation, architecture) for t in tasks]
    return EvalTask(
        dataset=MemoryDataset(samples, name=Path(source).stem if task_file else source),
        solver=scir_solver(architecture, index, max_retries),
        scorer=scir_scorer(architecture, presentation, index),
        metadata={
            "scir_source": source,
            "presentation": presentation,
            "architecture": architecture,
        },
    )


def register(name: str, fn: Callable[..., EvalTask]) -> Callable[..., EvalTask]:
    """Register ``fn`` as inspect task ``name``, reachable as ``scir/<name>`` too: inspect
    prefixes the package only for a package installed into site-packages or installed
    editable under the same distribution name, which an editable ``scir-toolkit`` is not."""
    registered = task(name=name)(fn)
    if not registry_info(registered).name.startswith(f"{PACKAGE}/"):
        task(name=f"{PACKAGE}/{name}")(fn)
    return registered


def track_task(name: str) -> Callable[..., EvalTask]:
    """The task function of track ``name``: a task file of that track, or generated tasks."""

    def scir_track(
        task_file: str | None = None,
        difficulty: str = "easy",
        n: int = 10,
        seed: int = 0,
        presentation: str = "nl",
        architecture: str = "cot",
        max_retries: int = 2,
    ) -> EvalTask:
        return build_task(
            task_file, name, difficulty, n, seed, presentation, architecture, max_retries
        )

    scir_track.__name__ = scir_track.__qualname__ = name
    scir_track.__doc__ = (
        f"The scir {name} track: task_file, or n tasks generated with seed at "
        "difficulty; presentation nl|ctl|obf, architecture cot|ns."
    )
    return scir_track


@task
def benchmark(
    task_file: str | None = None,
    track: str | None = None,
    difficulty: str = "easy",
    n: int = 10,
    seed: int = 0,
    presentation: str = "nl",
    architecture: str = "cot",
    max_retries: int = 2,
) -> EvalTask:
    """scir tasks of any tracks: task_file, or n tasks of track generated with seed at
    difficulty; presentation nl|ctl|obf, architecture cot|ns."""
    return build_task(
        task_file, track, difficulty, n, seed, presentation, architecture, max_retries
    )


def register_tasks() -> dict[str, Callable[..., EvalTask]]:
    """Register one task per track (``track_names()``) and ``benchmark``; returns them by name.
    Call again after registering a track at run time."""
    # the plain function: inspect's @task keeps it as __wrapped__ (functools.wraps), which the
    # decorated function's type does not declare
    registered = {GENERIC: register(GENERIC, benchmark.__wrapped__)}  # type: ignore[attr-defined]
    for name in track_names():
        if name != GENERIC:
            registered[name] = register(name, track_task(name))
    return registered


TASKS: dict[str, Callable[..., Any]] = register_tasks()
