"""One step's exchange under either protocol: reading a response into an action (or the
reason it cannot be used) and the messages that carry the result back.

- :class:`TextDialog`: the text protocol; the result goes back as a user message.
- :class:`ToolDialog`: OpenAI tool calls; the assistant message repeats the calls and each
  call is answered by a ``tool`` message (the first with the result, any other with "not run");
  a response without a call is read by the text protocol.

:func:`choose` picks the dialog of a backend under the ``tool_protocol`` setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources as importlib_resources
from string import Template

from scir.errors import ConfigError, FormalizationError
from scir.llm.base import Backend, LLMResponse, Message, Tool
from scir.pipelines.sr_agent.protocol import (
    TOOLS,
    Action,
    action_of_call,
    parse_action,
    tool_message,
)
from scir.pipelines.sr_agent.settings import AgentSettings

NOT_RUN = "not run: one tool call runs per step"
# providers whose hosted APIs take tool calls without server flags (local servers need e.g.
# vLLM's --enable-auto-tool-choice): `auto` uses tool calls only with these
AUTO_TOOL_PROVIDERS = frozenset({"openai", "openrouter"})


@dataclass
class Turn:
    """A response read: its action (None with ``error``), the assistant message to keep."""

    action: Action | None
    error: str
    assistant: Message
    call_ids: tuple[str, ...] = ()


def _read(text: str) -> tuple[Action | None, str]:
    try:
        return parse_action(text), ""
    except FormalizationError as exc:
        return None, exc.message


class TextDialog:
    """The text protocol."""

    name = "text"
    tools: tuple[Tool, ...] = ()
    how_file = "how_text.txt"

    def system_prompt(self, settings: AgentSettings) -> str:
        """The system prompt with this protocol's instructions and the step budget."""
        files = importlib_resources.files(__package__)
        how = files.joinpath(self.how_file).read_text("utf-8").strip()
        return Template(files.joinpath("system.txt").read_text("utf-8")).substitute(
            how=how, steps=settings.steps
        )

    def read(self, response: LLMResponse) -> Turn:
        """The action of a response."""
        action, error = _read(response.text)
        return Turn(action, error, Message("assistant", response.text))

    def reply(
        self, turn: Turn, kind: str, output: str, note: str = "", steps_left: int | None = None
    ) -> list[Message]:
        """The messages answering ``turn`` (``kind``: the action's, or ``error``)."""
        return [Message("user", tool_message(kind, output, note=note, steps_left=steps_left))]


class ToolDialog(TextDialog):
    """OpenAI tool calls."""

    name = "tools"
    tools = TOOLS
    how_file = "how_tools.txt"

    def read(self, response: LLMResponse) -> Turn:
        calls = response.tool_calls
        if not calls:
            return super().read(response)
        assistant = Message("assistant", response.text, tool_calls=tuple(calls))
        ids = tuple(c.id for c in calls)
        try:
            return Turn(action_of_call(calls[0], len(calls) - 1), "", assistant, ids)
        except FormalizationError as exc:
            return Turn(None, exc.message, assistant, ids)

    def reply(
        self, turn: Turn, kind: str, output: str, note: str = "", steps_left: int | None = None
    ) -> list[Message]:
        if not turn.call_ids:
            return super().reply(turn, kind, output, note, steps_left)
        first = tool_message(kind, output, note=note, steps_left=steps_left)
        return [
            Message("tool", first, tool_call_id=turn.call_ids[0]),
            *(Message("tool", NOT_RUN, tool_call_id=i) for i in turn.call_ids[1:]),
        ]


def choose(backend: Backend, settings: AgentSettings) -> TextDialog:
    """The dialog for ``backend``: ``text`` always works; ``tools`` needs a backend that sends
    tools (ConfigError otherwise); ``auto`` takes tools only on the hosted APIs
    (:data:`AUTO_TOOL_PROVIDERS`), text elsewhere (tiny, hf, local servers)."""
    protocol = settings.tool_protocol
    if protocol == "tools" and not backend.tool_calls:
        raise ConfigError(
            f"{backend.name} does not take tool calls; use --tool-protocol text",
            field="tool_protocol",
        )
    if protocol == "tools" or (
        protocol == "auto" and backend.tool_calls and backend.provider in AUTO_TOOL_PROVIDERS
    ):
        return ToolDialog()
    return TextDialog()
