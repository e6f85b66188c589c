"""The toolkit's error hierarchy (defined in :mod:`solvers.errors`, re-exported here)."""

import re

from solvers.errors import (  # noqa: F401
    BackendError,
    ConfigError,
    FormalizationError,
    GenerationError,
    ResourceError,
    SandboxCrash,
    SandboxViolation,
    ScirError,
    SolverError,
    SolverInputError,
    SolverResourceLimit,
    SolverTimeout,
    StoreError,
    TaskFormatError,
    VerificationError,
)

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every control character (newline, NUL, ...) escaped as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
