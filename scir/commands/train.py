"""``scir train TASKFILE --model M --run DIR``: GRPO on the SR agent's own rollouts
(SR-Scientist's RL) with the log-linear reward; LoRA (PEFT) or full fine-tuning of a local
transformers model; checkpoints loadable by ``--model hf:DIR/checkpoint-N/model``; a run
started again continues from its last checkpoint. See docs/sr_agent.md."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError


def add_parser(sub) -> None:
    p = sub.add_parser(
        "train",
        help="GRPO on the sr-agent's own rollouts (LoRA or full fine-tuning)",
        formatter_class=HelpFormatter,
        epilog="Examples:\n"
        "  scir generate equation --difficulty easy -n 64 --seed 1 -o train.jsonl\n"
        "  scir train train.jsonl --model smollm2 --run runs/grpo --steps 20 --group 4\n"
        "  scir train train.jsonl --model smollm2 --run runs/grpo --steps 40   "
        "# continues\n"
        "  scir solve test.jsonl --arch sr-agent --model "
        "hf:runs/grpo/checkpoint-40/model --run runs/after\n"
        "A rollout is one iteration of the agent's loop (at most --max-turns model "
        "calls, the analyzer and evaluator as tools); its reward is "
        "clip((lg s_max - lg s) / (lg s_max - lg s_goal), 0, 1), s the best MAPE the "
        "evaluator reported, s_goal --goal. Writes log.jsonl (a line per step), "
        "train.png, checkpoint-N/ and, with --heldout, heldout.jsonl (mean reward "
        "before and after).",
    )
    p.add_argument("file", help="training tasks (JSONL; equation tasks, generated or imported)")
    p.add_argument(
        "--model",
        required=True,
        help="the model to train: hf:PATH (a transformers folder), smollm2 or "
        "gguf:FILE (dequantised once into the cache), tiny",
    )
    p.add_argument(
        "--run",
        required=True,
        help="run directory (created; started again: continues from its last checkpoint)",
    )
    p.add_argument("--steps", type=int, default=10, help="total optimizer steps of the run")
    p.add_argument("--group", type=int, default=4, help="rollouts per problem (GRPO's G)")
    p.add_argument("--problems", type=int, default=1, help="problems per step")
    p.add_argument("--lr", type=float, default=1e-4, help="learning rate (AdamW)")
    p.add_argument("--lora-rank", type=int, default=8, help="LoRA rank; 0: full fine-tuning")
    p.add_argument("--max-turns", type=int, default=2, help="model calls per rollout")
    p.add_argument("--max-tokens", type=int, default=256, help="new tokens per model call")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    p.add_argument(
        "--beta",
        type=float,
        default=0.0,
        help="KL weight against the starting model (logged either way)",
    )
    p.add_argument("--save-every", type=int, default=5, help="checkpoint every N steps")
    p.add_argument("--keep", type=int, default=2, help="checkpoints kept (the newest)")
    p.add_argument(
        "--goal",
        type=float,
        default=1e-3,
        help="s_goal: reward 1 at and below this MAPE (fraction)",
    )
    p.add_argument("--s-max", type=float, default=1.0, help="reward 0 at and above this MAPE")
    p.add_argument(
        "--heldout",
        default=None,
        help="task file whose mean reward (--group samples each) is measured "
        "before the first step and after the last",
    )
    p.add_argument(
        "--presentation", choices=("nl", "obf"), default="nl", help="the task text the agent sees"
    )
    p.add_argument("--seed", type=int, default=0, help="seed (sampling, problem order, LoRA)")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads (default: the idle cores, 1 to 4; $SCIR_GGUF_THREADS sets it too)",
    )
    p.add_argument(
        "--unsafe-unisolated-analyzer",
        action="store_true",
        help="run the analyzer's model-written code WITHOUT the bubblewrap sandbox",
    )
    p.set_defaults(func=run)


def _problems(path: str, presentation: str) -> list:
    from scir.pipelines.result import problem_text
    from scir.pipelines.sr_agent.pipeline import agent_problem, problem_prompt
    from scir.tracks import track_of
    from scir.tracks.reading import read_tasks

    out = []
    for task in read_tasks(path):
        text = problem_prompt(task, problem_text(task, presentation))
        out.append(agent_problem(track_of(task), task, text))
    return out


def run(args) -> int:
    from scir.errors import one_line
    from scir.pipelines.sr_agent.grpo import TrainSettings, train
    from scir.pipelines.sr_agent.settings import AgentSettings

    settings = TrainSettings(
        steps=args.steps,
        group=args.group,
        problems=args.problems,
        lr=args.lr,
        lora_rank=args.lora_rank,
        max_turns=args.max_turns,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        beta=args.beta,
        save_every=args.save_every,
        keep=args.keep,
        seed=args.seed,
    )
    if not 0 < args.goal < args.s_max:
        raise ConfigError("--goal must satisfy 0 < goal < --s-max", field="goal")
    agent = AgentSettings(
        goal_start=args.goal,
        goal_stop=args.goal / 10,
        s_max=args.s_max,
        unsafe_unisolated_analyzer=args.unsafe_unisolated_analyzer,
    )
    problems = _problems(args.file, args.presentation)
    heldout = _problems(args.heldout, args.presentation) if args.heldout else []
    start = time.monotonic()

    def say(line: str) -> None:
        print(one_line(f"[{time.monotonic() - start:7.1f} s] {line}"), file=sys.stderr, flush=True)

    if args.threads is not None and args.threads < 1:
        raise ConfigError("--threads must be >= 1", field="threads")
    report = train(
        problems, args.model, Path(args.run), settings, agent, heldout, say, args.threads
    )
    where = f"; checkpoint {report.checkpoint / 'model'}" if report.checkpoint else ""
    print(f"trained steps {report.start_step + 1}..{report.end_step} in {args.run}{where}")
    for row in report.heldout:
        print(
            f"held-out mean reward at step {row['step']}: {row['mean_reward']:.4f} "
            f"({row['solved']} of {len(row['rewards'])} rollouts rewarded)"
        )
    return 0
