"""The toolkit's error hierarchy (defined in :mod:`solvers.errors`, re-exported here)."""

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
