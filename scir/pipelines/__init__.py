"""The solving pipelines: ``cot``, ``ns``, ``symbcot`` and ``oracle``, their shared result
record, and the resumable runner behind ``scir solve``."""

from scir.pipelines.result import (  # noqa: F401
    ARCHS,
    PRESENTATIONS,
    STATUSES,
    PipelineResult,
    PipelineSettings,
    problem_text,
)
