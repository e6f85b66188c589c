"""The solving pipelines: ``cot``, ``ns``, ``symbcot`` and ``oracle``, their shared result
record, and the resumable runner behind ``scir solve``."""

from scir.pipelines.result import (ARCHS, PRESENTATIONS, STATUSES, PipelineResult,  # noqa: F401
                                   PipelineSettings, problem_text)
