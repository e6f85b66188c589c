"""The SR agent's ReAct loop (SR-Scientist): iterations of at most ``steps`` model calls, each
followed by at most one tool call, under a precision goal that tightens when met.

Each iteration starts fresh: the system prompt, then one user message with the problem, the
iteration's goal and the experience buffer's top-K equations. Within it, every model response
is read by the dialog's protocol (:mod:`scir.pipelines.sr_agent.dialog`: text or tool
calls); the action's result (or the reason the response could not be used) goes back to the
model. An iteration ends when the model writes ``Final:``, when an evaluation meets the goal,
after ``steps`` model calls, or when its conversation has grown past ``max_conversation_chars``
(each response is kept cut to ``max_response_chars``). The run ends when the best MAPE is
below ``goal_stop`` or after ``iterations`` iterations. Model calls go through ``ask`` (the
pipeline's cached calls), tools through the :class:`~scir.pipelines.sr_agent.tools.Toolbox`
(cached too), so a restarted run repeats no finished call and rebuilds the same iterations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from scir.llm.base import LLMResponse, Message, Tool, cut_response
from scir.pipelines.sr_agent import goals
from scir.pipelines.sr_agent.buffer import ExperienceBuffer, Record
from scir.pipelines.sr_agent.dialog import TextDialog
from scir.pipelines.sr_agent.protocol import Action
from scir.pipelines.sr_agent.reward import reward
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import AgentProblem, Toolbox

Ask = Callable[[list[Message], tuple[Tool, ...]], LLMResponse]


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.6g}%"


def first_message(
    problem: AgentProblem, goal: float, top: list[Record], index: int = 0, total: int = 1
) -> str:
    """The user message that opens iteration ``index`` of ``total``: problem, variables,
    goal, best equations. (The iteration's number keeps two iterations that see the same
    buffer from being the same request.)"""
    lines = [
        problem.text.strip(),
        "",
        f"Iteration {index + 1} of {total}.",
        f"Inputs: {', '.join(problem.inputs)}. Output: {problem.output}. The tools use "
        f"the {len(problem.y)} training points.",
        f"Goal of this iteration: an equation with MAPE below {_pct(goal)} on the training data.",
    ]
    if top:
        lines.append("Best equations so far (skeleton; MAPE; fitted):")
        lines += [
            f"{i}. {r.canonical}; MAPE {_pct(r.mape)}; {r.expression}" for i, r in enumerate(top, 1)
        ]
    else:
        lines.append("No equation has been evaluated yet.")
    return "\n".join(lines)


@dataclass
class Step:
    """One model call and what followed: the action read (None: a protocol error), the tool's
    input and the message sent back, and the MAPE of an evaluation."""

    step: int
    response: str
    action: str | None
    input: str
    output: str
    mape: float | None = None
    error: str = ""


@dataclass
class Iteration:
    """One iteration: its goal, the conversation, the steps, how it ended and its best."""

    index: int
    goal: float
    messages: list[dict[str, Any]] = field(default_factory=list)  # OpenAI form
    steps: list[Step] = field(default_factory=list)
    # final (Final: written), goal (met), steps (budget spent), size (the conversation grew
    # past max_conversation_chars; ``note`` says so)
    end: str = "steps"
    best_mape: float | None = None
    best_equation: str | None = None
    reward: float = 0.0
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the trajectory record of the iteration)."""
        return asdict(self)


@dataclass
class AgentOutcome:
    """A finished run: the buffer, the iterations, why it stopped, and the counts."""

    buffer: ExperienceBuffer
    iterations: list[Iteration]
    stop: str  # goal_stop (best MAPE < goal_stop) or iterations (budget)
    tool_calls: int = 0
    parse_failures: int = 0

    @property
    def answer(self) -> Record | None:
        """The final answer: the evaluated equation with the lowest training MSE."""
        return self.buffer.lowest_mse()

    def extras(self) -> dict[str, Any]:
        """The per-result numbers stored with the pipeline result."""
        best = self.buffer.best_mape()
        return {
            "iterations": len(self.iterations),
            "steps": sum(len(it.steps) for it in self.iterations),
            "tool_calls": self.tool_calls,
            "parse_failures": self.parse_failures,
            "evaluated": len(self.buffer),
            "best_mape": best,
            "stop": self.stop,
            "final_goal": self.iterations[-1].goal if self.iterations else None,
        }


def _chars(message: Message) -> int:
    """The characters of a message: its content and its tool calls."""
    return len(message.content) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)


def _act(
    action: Action, toolbox: Toolbox, buffer: ExperienceBuffer, it: Iteration, step: Step
) -> None:
    """Run one action's tool, filling ``step`` and adding an evaluation to the buffer."""
    if action.kind == "analyze":
        step.output = toolbox.analyze(action.text)
        return
    result = toolbox.evaluate(action.text)
    step.output = result.report
    if not result.ok:
        return
    step.mape = result.mape
    buffer.add(
        Record(
            action.text,
            result.canonical,
            result.expression,
            result.mape,
            result.mse,
            it.index,
            step.step,
        )
    )
    if it.best_mape is None or result.mape < it.best_mape:
        it.best_mape, it.best_equation = result.mape, result.expression


def run_iteration(
    problem: AgentProblem,
    ask: Ask,
    toolbox: Toolbox,
    settings: AgentSettings,
    buffer: ExperienceBuffer,
    index: int,
    goal: float,
    dialog: TextDialog,
) -> tuple[Iteration, int]:
    """One iteration; returns it and the number of tool calls it made."""
    it = Iteration(index, goal)
    messages = [
        Message("system", dialog.system_prompt(settings)),
        Message(
            "user",
            first_message(problem, goal, buffer.top(settings.top_k), index, settings.iterations),
        ),
    ]
    tools = 0
    size = sum(_chars(m) for m in messages)
    for n in range(settings.steps):
        if size > settings.max_conversation_chars:
            it.end = "size"
            it.note = (
                f"[conversation cut at {settings.max_conversation_chars} characters: "
                f"{size} characters after {n} steps; the iteration ended]"
            )
            break
        response = cut_response(ask(list(messages), dialog.tools), settings.max_response_chars)
        turn = dialog.read(response)
        messages.append(turn.assistant)
        step = Step(n, response.text, None, "", "")
        it.steps.append(step)
        if turn.action is None:
            step.error = turn.error
            kind, output, note = "error", turn.error, ""
        else:
            step.action, step.input = turn.action.kind, turn.action.text
            _act(turn.action, toolbox, buffer, it, step)
            tools += 1
            kind, output, note = turn.action.kind, step.output, turn.action.note
        if step.action == "final":
            it.end = "final"
        elif step.mape is not None and goals.met(step.mape, goal):
            it.end = "goal"
        done = it.end in ("final", "goal")
        left = None if done else settings.steps - n - 1
        replies = dialog.reply(turn, kind, output, note, left)
        messages += replies
        size += sum(_chars(m) for m in (turn.assistant, *replies))
        if done:
            break
    it.messages = [m.to_dict() for m in messages]
    it.reward = reward(it.best_mape, goal, settings.s_max)
    return it, tools


def run_agent(
    problem: AgentProblem,
    ask: Ask,
    toolbox: Toolbox,
    settings: AgentSettings,
    on_iteration: Callable[[Iteration], None] | None = None,
    dialog: TextDialog | None = None,
) -> AgentOutcome:
    """The whole run: iterations under the goal schedule until the stop goal or the budget.
    ``on_iteration`` is called with each finished iteration (e.g. to store it); ``dialog``
    is the protocol (default: the text protocol)."""
    dialog = dialog or TextDialog()
    buffer = ExperienceBuffer()
    outcome = AgentOutcome(buffer, [], "iterations")
    goal = settings.goal_start
    for index in range(settings.iterations):
        it, tools = run_iteration(problem, ask, toolbox, settings, buffer, index, goal, dialog)
        outcome.iterations.append(it)
        outcome.tool_calls += tools
        outcome.parse_failures += sum(1 for s in it.steps if s.action is None)
        if on_iteration is not None:
            on_iteration(it)
        if goals.should_stop(buffer.best_mape(), settings.goal_stop):
            outcome.stop = "goal_stop"
            break
        goal = goals.next_goal(goal, it.best_mape)
    return outcome
