"""Export the SR agent's stored iterations as trajectories for RL training: one JSON line per
iteration with the task and cell (task_id, arch, presentation, model, seed), the iteration's
index and goal, its conversation (``messages``: system, user, assistant, tool results as user
messages), its ``steps`` (response, action, tool input and output, MAPE, protocol error), how
it ended, its best MAPE and equation, and the log-linear ``reward``
(:func:`scir.pipelines.sr_agent.reward.reward`; recomputed when ``s_max`` is given).

The run is opened read-only. A damaged iteration row (not the JSON object the agent stores) is
left out and reported to ``warn`` (one line naming the store, table and row): the other
iterations are independent training data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from scir.errors import ConfigError, ScirError
from scir.outputs import staged
from scir.pipelines.sr_agent.reward import reward
from scir.runs.store import STORE_NAME, RunStore


def export_trajectories(
    run_dir: str | os.PathLike,
    out: str | os.PathLike,
    *,
    arch: str = "sr-agent",
    s_max: float | None = None,
    warn: Callable[[str], None] | None = None,
) -> int:
    """Write the iterations stored in ``run_dir`` (of ``arch``) to the JSONL file ``out``
    (written whole or not at all); returns the number of lines. Damaged rows are skipped,
    each reported to ``warn``."""
    path = Path(run_dir)
    if not (path / STORE_NAME).is_file():
        raise ConfigError(f"not a run directory (no {STORE_NAME})", file=str(path))

    def skipped(exc: ScirError) -> None:
        if warn is not None:
            warn(f"{exc}; it is left out")

    with RunStore(path, readonly=True) as store:
        records = store.trajectories(arch, skip=skipped)
    with staged(out, folder=False) as target:
        with open(target, "w", encoding="utf-8") as fh:
            for record in records:
                if s_max is not None:
                    try:
                        record["reward"] = reward(record.get("best_mape"), record["goal"], s_max)
                    except ValueError as exc:
                        raise ConfigError(str(exc), field="s_max") from exc
                    record["s_max"] = s_max
                fh.write(
                    json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"
                )
    return len(records)
