"""The solving pipelines: ``cot``, ``ns``, ``symbcot``, ``oracle``, ``sr-agent`` and the
symbolic-regression baselines, their registry (:mod:`scir.pipelines.registry`), their shared
result record, and running one task through one (:mod:`scir.pipelines.runner`; a task list into
a run store is :mod:`scir.runs.runner`)."""

from scir.pipelines.registry import ARCHS  # noqa: F401
from scir.pipelines.result import (  # noqa: F401
    PRESENTATIONS,
    STATUSES,
    PipelineResult,
    PipelineSettings,
    problem_text,
)
