"""``scir trajectories RUNDIR -o FILE.jsonl``: export the SR agent's iterations stored in a run
as JSONL trajectories (one line per iteration: messages, tool calls and results, goal, best
MAPE, log-linear reward) for RL training. The run is read, never written; a damaged iteration
row is skipped with a warning line naming it. See docs/sr_agent.md."""

from __future__ import annotations

import sys

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError


def add_parser(sub) -> None:
    p = sub.add_parser(
        "trajectories",
        help="export sr-agent iterations of a run as JSONL trajectories",
        formatter_class=HelpFormatter,
        epilog="Examples:\n"
        "  scir trajectories runs/agent -o agent.jsonl\n"
        "  scir trajectories runs/agent -o agent.jsonl --s-max 0.5\n"
        "The reward is clip((lg s_max - lg s) / (lg s_max - lg s_goal), 0, 1), s the "
        "iteration's best MAPE and s_goal its goal (fractions).",
    )
    p.add_argument("run", help="run directory (holds run.sqlite)")
    p.add_argument("-o", "--output", required=True, help="the JSONL file to write")
    p.add_argument("--arch", default="sr-agent", help="the architecture whose iterations")
    p.add_argument(
        "--s-max",
        type=float,
        default=None,
        help="recompute the reward with this upper MAPE (fraction; default: the "
        "reward stored with the run, s_max of the run's settings)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from scir.errors import one_line
    from scir.runs.trajectories import export_trajectories

    if args.s_max is not None and not args.s_max > 0:
        raise ConfigError("--s-max must be > 0", field="s_max")
    n = export_trajectories(
        args.run,
        args.output,
        arch=args.arch,
        s_max=args.s_max,
        warn=lambda line: print(one_line(f"warning: {line}"), file=sys.stderr),
    )
    print(f"{n} trajectories written to {args.output}")
    return 0
