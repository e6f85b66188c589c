"""The toolkit's one error hierarchy.

It lives in ``solvers`` (the lowest layer, which must not import ``scir``); ``scir.errors``
re-exports it and adds nothing of its own, so ``except ScirError`` catches every toolkit error.

Each error may carry a location: ``file``, ``line``, ``column``, ``task_id``, ``field``.
"""

from __future__ import annotations


class ScirError(Exception):
    """Base of every error the toolkit raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        task_id: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.task_id = task_id
        self.field = field

    @property
    def location(self) -> str:
        """``file:line:column`` / ``task ID`` / ``field F`` parts that are known, joined."""
        parts = []
        if self.file is not None:
            loc = str(self.file)
            if self.line is not None:
                loc += f":{self.line}"
                if self.column is not None:
                    loc += f":{self.column}"
            parts.append(loc)
        elif self.line is not None:
            loc = f"line {self.line}"
            if self.column is not None:
                loc += f", column {self.column}"
            parts.append(loc)
        if self.task_id is not None:
            parts.append(f"task {self.task_id}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)

    def __str__(self) -> str:
        loc = self.location
        return f"{loc}: {self.message}" if loc else self.message


class ConfigError(ScirError):
    """A wrong parameter, unknown name or missing component (e.g. no SWI-Prolog)."""


class TaskFormatError(ScirError):
    """A task file or record that does not follow the schema."""


class ResourceError(ScirError):
    """A logic file (prolog/, asp/, grammars/) that is missing or unreadable."""


class SolverError(ScirError):
    """A symbolic solver failed (not: answered 'no')."""


class SolverInputError(SolverError):
    """The solver's input is malformed (syntax error, unknown predicate, ...)."""


class SolverTimeout(SolverError):
    """A solver ran out of its time limit."""


class SolverResourceLimit(SolverError):
    """A solver ran out of memory, inferences or another limit than time."""


class SandboxViolation(SolverInputError):
    """Untrusted code uses something the whitelist forbids (directive, side effect, ...)."""


class SandboxCrash(SolverError):
    """The sandbox worker died while running untrusted code; it has been replaced."""


class FormalizationError(ScirError):
    """A model's formalization does not parse or does not fit the task's signature."""


class BackendError(ScirError):
    """A model backend (API or local model) failed after its retries."""


class StoreError(ScirError):
    """A run store that cannot be written (disk full, read-only, I/O error) or read (a
    damaged row: the message names the table and the row); what it holds stays consistent."""


class GenerationError(ScirError):
    """A task generator could not produce a task satisfying its constraints."""


class VerificationError(ScirError):
    """A stored answer disagrees with what the solvers establish, or two solvers disagree."""
