"""The settings of the ``sr-agent`` architecture (a leaf module: :class:`AgentSettings` is a
field of :class:`scir.pipelines.result.PipelineSettings`).

Every MAPE here is a **fraction** (0.001 = 0.1 %), never a percentage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scir.errors import ConfigError

TOOL_PROTOCOLS = ("auto", "tools", "text")
MIN_CHARS = 1_000  # the least response or conversation size kept


@dataclass(frozen=True)
class AgentSettings:
    """How the SR agent runs. Defaults follow SR-Scientist: 40 iterations of at most 25 tool
    steps, the 3 best distinct equations fed back, a goal of 0.1 % MAPE tightened by powers of
    ten, a stop under 1e-6 (fraction); the reward's ``s_max`` is 1.0 (100 % MAPE)."""

    iterations: int = 40  # N: iterations, each starting fresh
    steps: int = 25  # M: model calls (each followed by at most one tool call)
    top_k: int = 3  # K: best distinct equations shown at an iteration's start
    goal_start: float = 1e-3  # the first iteration's precision goal (MAPE fraction)
    goal_stop: float = 1e-6  # the run stops once the best MAPE is below this
    s_max: float = 1.0  # the reward's upper MAPE (reward 0 at and above it)
    tool_protocol: str = "auto"  # auto | tools | text (auto: text; see docs/sr_agent.md)
    analyze_seconds: float = 10.0  # T1: wall-clock limit of one analysis
    analyze_memory_mb: int = 512  # T1: memory limit of one analysis
    max_tool_chars: int = 4000  # a tool's output is cut to this many characters
    fit_starts: int = 8  # T2: BFGS starts per evaluation
    fit_seconds: float = 30.0  # T2: time budget of one fit (the best fit so far is kept)
    # T1 without the kernel sandbox (solvers.isolation): only where it cannot be had, and unsafe
    unsafe_unisolated_analyzer: bool = False
    # a model response (text, and each tool call's arguments) is kept, stored and put back
    # into the conversation cut to this many characters, with the note "[response cut at N
    # of M characters]" (--max-tokens 1024 gives about 4,000)
    max_response_chars: int = 100_000
    # an iteration whose conversation has grown past this many characters ends before its
    # next model call (end "size", with a note in its record): beyond most context windows
    max_conversation_chars: int = 500_000

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "steps",
            "top_k",
            "analyze_memory_mb",
            "max_tool_chars",
            "fit_starts",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)!r}", field=name)
        for name in ("max_response_chars", "max_conversation_chars"):
            value = getattr(self, name)
            if type(value) is not int or value < MIN_CHARS:
                raise ConfigError(
                    f"{name} must be an integer >= {MIN_CHARS}, got {value!r}", field=name
                )
        for name in ("goal_start", "goal_stop", "s_max", "analyze_seconds", "fit_seconds"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ConfigError(f"{name} must be a positive number, got {value!r}", field=name)
        if not self.goal_stop < self.goal_start < self.s_max:
            raise ConfigError(
                "the goals must satisfy goal_stop < goal_start < s_max (MAPE "
                f"fractions), got {self.goal_stop!r}, {self.goal_start!r}, "
                f"{self.s_max!r}",
                field="goal_start",
            )
        if not isinstance(self.unsafe_unisolated_analyzer, bool):
            raise ConfigError(
                "unsafe_unisolated_analyzer must be true or false",
                field="unsafe_unisolated_analyzer",
            )
        if self.tool_protocol not in TOOL_PROTOCOLS:
            raise ConfigError(
                f"tool_protocol must be one of {', '.join(TOOL_PROTOCOLS)}, got "
                f"{self.tool_protocol!r}",
                field="tool_protocol",
            )

    def check_isolation(self) -> None:
        """Refuse to run the analyzer's (model-written) code where it cannot run isolated
        (:mod:`solvers.isolation`), naming the missing piece, unless
        ``unsafe_unisolated_analyzer`` says to run it anyway."""
        if not self.unsafe_unisolated_analyzer:
            from solvers.isolation import isolation

            isolation().require(
                "the sr-agent's analyzer code (or pass "
                "--unsafe-unisolated-analyzer to run it without the sandbox)"
            )
