"""``scir solve FILE --arch A --model M --presentation P --run DIR``: run a pipeline over a task
file into a run directory; resumable (finished results are kept, finished calls are served from
the run's store), and ends with a summary whose first line is ``accuracy: K/N``.

One writer per run directory (``RUNDIR/.lock``; a second one exits 2 naming the holder). Exit
codes: 0 done; 1 every task run now failed for the same reason outside the tasks (the backend:
connection refused, HTTP 400, ...), with that error printed; 2 bad input or configuration, a
store that cannot be written; 130 Ctrl-C (calls in flight cancelled, finished work kept)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from scir import api
from scir.commands._common import HelpFormatter, progress
from scir.errors import ConfigError
from scir.pipelines.registry import ARCHS, MODEL_FREE_ARCHS
from scir.pipelines.result import BACKUPS, PRESENTATIONS, PipelineSettings
from scir.runs.store import STORE_NAME
from scir.tracks.reading import read_tasks


def add_parser(sub) -> None:
    p = sub.add_parser(
        "solve",
        help="run cot / ns / symbcot / oracle / sr-agent over a task file (resumable)",
        formatter_class=HelpFormatter,
        epilog="Examples:\n"
        "  scir solve d.jsonl --arch oracle --run runs/oracle\n"
        "  scir solve d.jsonl --arch ns --model tiny --presentation nl --run runs/tiny\n"
        "  scir solve d.jsonl --arch cot --model openrouter:openai/gpt-4o "
        "--presentation obf --run runs/gpt4o --concurrency 8\n"
        "  scir solve d.jsonl --arch ns --model vllm:Qwen/Qwen3-8B@http://gpu:8000/v1 "
        "--run runs/qwen\n"
        "  scir solve d.jsonl --arch ns --backup cot --model tiny --run runs/tiny-backup\n"
        "  scir solve eq.jsonl --arch sr-agent "
        "--model vllm:Qwen/Qwen3-8B@http://gpu:8000/v1 --iterations 40 --agent-steps 25 "
        "--run runs/agent\n"
        "  scir solve eq.jsonl --arch pyoperon --symreg-seconds 10 --run runs/operon\n"
        "Model names: openrouter:M, openai:M[@URL], vllm:M@URL, sglang:M@URL, "
        "ollama:M@URL, llamacpp:M@URL, hf:PATH, tiny.\n"
        "API keys: each provider's own variable (OPENROUTER_API_KEY, OPENAI_API_KEY, "
        "VLLM_API_KEY, ...), a hosted provider's only for its own host; "
        "--api-key-env names another *_API_KEY variable.\n"
        "Rerunning the same command continues an interrupted run.",
    )
    p.add_argument("file", help="task file (JSONL)")
    p.add_argument("--arch", required=True, choices=ARCHS, help="solving architecture")
    p.add_argument(
        "--model", default=None, help="model name (not needed for oracle, pyoperon, gplearn, pysr)"
    )
    p.add_argument(
        "--presentation",
        choices=PRESENTATIONS,
        default="nl",
        help="clean NL or the rendered (obfuscated) documents",
    )
    p.add_argument("--run", required=True, help="run directory (created; holds run.sqlite)")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    p.add_argument("--concurrency", type=int, default=1, help="tasks in flight at once")
    p.add_argument("--max-tokens", type=int, default=1024, help="max tokens per LLM call")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature")
    p.add_argument("--seed", type=int, default=0, help="seed sent with every LLM call")
    p.add_argument(
        "--max-retries", type=int, default=2, help="ns: retries on parse or solver-input errors"
    )
    p.add_argument(
        "--unconstrained",
        action="store_true",
        help="ns / symbcot: let the model write its formalization freely instead of "
        "decoding it under the track's grammar (the parser still decides); "
        "stored as a cell of its own",
    )
    p.add_argument(
        "--backup",
        choices=BACKUPS,
        default=None,
        help="ns only: when no formalization attempt gets an answer from the solver, "
        "ask the CoT question and record its answer as a backup (Logic-LM); "
        "reports show NS with and without backup (default: no backup)",
    )
    p.add_argument(
        "--symreg-seconds",
        type=float,
        default=30.0,
        help="pyoperon / gplearn / pysr (equation tasks): seconds of one task's "
        "search on its train split; the seed is --seed",
    )
    p.add_argument(
        "--symreg-generations",
        type=int,
        default=None,
        metavar="N",
        help="pyoperon / gplearn / pysr: search N generations instead of the baseline's "
        "default budget (the seconds still stop it first); a search that ends on its "
        "generations repeats exactly with the seed, however loaded the machine",
    )
    p.add_argument(
        "--redo",
        action="store_true",
        help="run every task again, replacing stored results; LLM calls are still "
        "served from the run store (e.g. after fixing a track's parser)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="API models: total seconds of one attempt (connect + whole response) before a retry",
    )
    p.add_argument(
        "--api-retries",
        type=int,
        default=4,
        help="API models: retries on 429/5xx/timeouts/empty completions "
        "(jittered exponential backoff; Retry-After up to 60 s)",
    )
    p.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="API models: read the key from this variable (a *_API_KEY name) "
        "instead of the provider's own (default: OPENROUTER_API_KEY for "
        "openrouter:, VLLM_API_KEY for vllm:, ...; none for openai:M@URL)",
    )
    p.add_argument(
        "--max-response-mb",
        type=float,
        default=8.0,
        help="API models: a response larger than this is refused (not retried)",
    )
    agent = p.add_argument_group("sr-agent (equation tasks; MAPE as fractions, 1e-3 = 0.1%)")
    agent.add_argument(
        "--iterations",
        type=int,
        default=40,
        help="iterations, each starting fresh with the best equations",
    )
    agent.add_argument(
        "--agent-steps",
        type=int,
        default=25,
        help="model calls (each with at most one tool call) per iteration",
    )
    agent.add_argument(
        "--top-k", type=int, default=3, help="best distinct equations shown at an iteration's start"
    )
    agent.add_argument(
        "--goal-start",
        type=float,
        default=1e-3,
        help="the first iteration's MAPE goal (tightened to the next power of "
        "ten below the best when met)",
    )
    agent.add_argument(
        "--goal-stop", type=float, default=1e-6, help="stop once the best MAPE is below this"
    )
    agent.add_argument(
        "--s-max",
        type=float,
        default=1.0,
        help="the trajectories' reward is 0 at and above this MAPE",
    )
    agent.add_argument(
        "--unsafe-unisolated-analyzer",
        action="store_true",
        help="run the analyzer's model-written code WITHOUT the bubblewrap "
        "sandbox (only where it cannot be had: the code then runs as you, "
        "guarded only by an audit hook and resource limits)",
    )
    agent.add_argument(
        "--tool-protocol",
        choices=("auto", "tools", "text"),
        default="auto",
        help="how the model calls tools: the text protocol (fenced blocks; auto "
        "uses it everywhere for now) or OpenAI tool calls",
    )
    p.set_defaults(func=run)


def _agent_settings(args):
    """The sr-agent settings of the command line."""
    from scir.pipelines.sr_agent.settings import AgentSettings

    return AgentSettings(
        iterations=args.iterations,
        steps=args.agent_steps,
        top_k=args.top_k,
        goal_start=args.goal_start,
        goal_stop=args.goal_stop,
        s_max=args.s_max,
        tool_protocol=args.tool_protocol,
        unsafe_unisolated_analyzer=args.unsafe_unisolated_analyzer,
    )


def run(args) -> int:
    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be >= 1", field="limit")
    if args.max_tokens < 1:
        raise ConfigError("--max-tokens must be >= 1", field="max_tokens")
    if args.arch not in MODEL_FREE_ARCHS and not args.model:
        raise ConfigError(f"--arch {args.arch} needs --model", field="model")
    settings = PipelineSettings(
        presentation=args.presentation,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        seed=args.seed,
        max_retries=args.max_retries,
        constrained=not args.unconstrained,
        backup=args.backup,
        agent=_agent_settings(args),
        symreg_seconds=args.symreg_seconds,
        symreg_generations=args.symreg_generations,
    )
    settings.check_arch(args.arch)
    tasks = read_tasks(args.file)
    if args.max_response_mb * (1 << 20) < 1024:
        raise ConfigError("--max-response-mb must be at least 0.001", field="max_response_mb")
    command = " ".join(
        shlex.quote(a)
        for a in ["scir", "solve", str(args.file), "--arch", args.arch, "--run", args.run]
        + (["--model", args.model] if args.model else [])
    )
    options = api.ApiOptions(
        timeout=args.timeout,
        retries=args.api_retries,
        api_key_env=args.api_key_env,
        max_response_bytes=int(args.max_response_mb * (1 << 20)),
    )
    try:
        solved = api.solve(
            tasks,
            args.arch,
            args.model,
            run=args.run,
            settings=settings,
            concurrency=args.concurrency,
            redo=args.redo,
            api=options,
            limit=args.limit,
            file=str(args.file),
            command=command,
            progress=lambda items, total: progress(items, total=total, desc=f"solve {args.arch}"),
        )
    except KeyboardInterrupt:
        kept = len(api.open_run(args.run).results())
        print(
            f"interrupted: calls in flight cancelled; {kept} results kept in "
            f"{Path(args.run) / STORE_NAME}; run the same command to continue",
            file=sys.stderr,
        )
        return 130
    summary = solved.summary
    lines = summary.lines()
    if args.arch not in MODEL_FREE_ARCHS:
        lines.append(
            f"LLM calls made: {solved.calls_made}, served from the run store: {solved.calls_served}"
        )
    print("\n".join(lines))
    print(f"results in {Path(args.run) / STORE_NAME}")
    if summary.all_failed_alike():
        print(
            f"error: all {summary.ran} tasks run now failed with a backend error; the first: "
            f"{summary.first_error}",
            file=sys.stderr,
        )
        return 1
    return 0
