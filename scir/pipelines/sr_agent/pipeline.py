"""The ``sr-agent`` architecture: the SR agent's loop on one equation task, as a pipeline.

The agent sees the task's presentation text (``nl`` or ``obf``) and question, and its tools see
only the TRAINING split of the task's formal object (``inputs``, ``output``,
``splits["train"]``). The answer is the evaluated equation with the lowest training MSE, its
constants substituted; the track scores it (rule ``equation``). Each finished iteration is
stored in the run store's ``trajectories`` table (``scir trajectories`` exports them);
the result's ``extras`` hold the loop's numbers.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from scir.errors import ConfigError
from scir.llm.base import Backend, LLMResponse, Message, Tool
from scir.llm.cache import CachingBackend, CallCache
from scir.outcomes.status import Status
from scir.pipelines.result import (
    Calls,
    PipelineResult,
    PipelineSettings,
    new_result,
    problem_text,
    set_answer,
)
from scir.pipelines.sr_agent.dialog import choose
from scir.pipelines.sr_agent.loop import Iteration, run_agent
from scir.pipelines.sr_agent.tools import AgentProblem, Toolbox
from scir.tasks import Task
from scir.tracks.base import Track

ARCH = "sr-agent"


@runtime_checkable
class TrajectoryLog(Protocol):
    """Where the iterations are stored: a run store (:class:`scir.runs.store.RunStore`)."""

    def put_trajectory(
        self, key: dict[str, Any], iteration: int, record: dict[str, Any]
    ) -> None: ...


def agent_problem(track: Track, task: Task, text: str) -> AgentProblem:
    """The agent's view of an equation task: the text and the training split."""
    formal = track.formal(task)
    try:
        train = formal.splits["train"]
        X, y = (train["X"], train["y"]) if isinstance(train, dict) else (train.X, train.y)
        return AgentProblem(
            task.task_id,
            text,
            tuple(formal.inputs),
            str(formal.output),
            tuple(tuple(float(v) for v in row) for row in X),
            tuple(float(v) for v in y),
        )
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"--arch {ARCH} needs an equation task (inputs, output and a train "
            f"split in its formal object): {exc}",
            task_id=task.task_id,
            field="formal",
        ) from exc


def problem_prompt(task: Task, text: str) -> str:
    """The problem as the agent reads it: the presentation text and the question."""
    question = task.question.strip()
    return text if not question or question in text else f"{text.rstrip()}\n\n{question}"


def run(track: Track, task: Task, backend: Backend, settings: PipelineSettings) -> PipelineResult:
    """Run the agent on a task and score its answer (BackendError propagates: the runner
    records ``backend_error`` and a rerun continues from the stored calls)."""
    agent = settings.agent
    dialog = choose(backend, agent)
    text = problem_text(task, settings.presentation)
    calls = Calls(backend, settings)
    result = new_result(
        task,
        ARCH,
        settings,
        backend.name,
        input_chars=len(text),
        reference_items=track.formalizer().reference_items(task),
    )
    problem = agent_problem(track, task, problem_prompt(task, text))
    # tool results and iterations are kept in a run store; a remote worker's call recorder
    # (scir.runs.remote) keeps calls only, so there the tools run uncached
    store = backend.store if isinstance(backend, CachingBackend) else None
    toolbox = Toolbox(problem, agent, store if isinstance(store, CallCache) else None)
    log = store if isinstance(store, CallCache) and isinstance(store, TrajectoryLog) else None
    key = {
        "task_id": task.task_id,
        "arch": ARCH,
        "presentation": settings.presentation,
        "model": backend.name,
        "seed": settings.seed,
    }

    def keep(it: Iteration) -> None:
        if log is not None:
            log.put_trajectory(key, it.index, {**key, **it.to_dict()})

    def ask(messages: list[Message], tools: tuple[Tool, ...]) -> LLMResponse:
        return calls.ask(messages, tools=tools, max_response_chars=agent.max_response_chars)

    outcome = run_agent(problem, ask, toolbox, agent, keep, dialog)
    extras: dict[str, Any] = outcome.extras()
    extras.update(
        tool_calls_made=toolbox.made,
        tool_calls_served=toolbox.served,
        tool_calls_crashed=toolbox.crashed,
        protocol=dialog.name,
    )
    result.extras = extras
    answer = outcome.answer
    if answer is None:
        result.status = Status.NO_ANSWER.value
        result.error = (
            f"no equation was fitted in {extras['iterations']} iterations "
            f"({extras['steps']} steps, {outcome.parse_failures} responses "
            "without a usable action)"
        )
    else:
        result.formalization = answer.skeleton
        set_answer(track, task, result, answer.expression)
    result.response = outcome.iterations[-1].steps[-1].response if outcome.iterations else None
    return calls.fill(result)
