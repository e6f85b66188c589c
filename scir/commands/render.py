"""``scir render FILE --renderer template|llm -o OUT``: rewrite every task's clean-NL blocks into
scientific documents (``documents``, ``problem_obfuscated``, ``provenance.render``).

``template`` is offline and deterministic in ``--seed``; every rendering is read back by the
track's reference extractor before it is kept. ``llm`` rewrites with ``--model`` and checks
each rewrite by formalizing it back with ``--inverse-model`` (default: the same model); a task
whose block fails ``--max-retries`` retries is dropped (reported, left out of OUT). Every LLM
call is cached in ``--cache`` (SQLite), so a rerun repeats no finished call. A JSON report of
per-task and per-group statistics and the dropped tasks is written next to OUT.

``--control`` also writes the control presentation (``ctl``: the same blocks, chunking and
writer techniques in plain non-scientific genres, about the Obf length; ``documents_control``,
``problem_control``, ``provenance.render_ctl``) of every kept task, with the track's
template writer whatever ``--renderer`` is, verified by the same reference extractor. It is an
option so that files rendered without it stay byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path

from scir.commands._common import HelpFormatter, progress
from scir.errors import ConfigError
from scir.reports.statsformat import format_groups
from scir.reports.taskstats import group_stats, task_stats
from scir.tasks import write_tasks
from scir.tracks.reading import read_tasks


def add_parser(sub) -> None:
    p = sub.add_parser(
        "render",
        help="render clean-NL blocks into scientific documents",
        formatter_class=HelpFormatter,
        description=__doc__.split("\n\n", 1)[1],
        epilog="Examples:\n  scir render d.jsonl --renderer template --seed 1 -o d.obf.jsonl\n"
        "  scir render d.jsonl --renderer llm --model openrouter:openai/gpt-4o "
        "--inverse-model openrouter:openai/gpt-4o-mini -o d.llm.jsonl",
    )
    p.add_argument("file", help="task file (JSONL)")
    p.add_argument(
        "--renderer",
        choices=["template", "llm"],
        default="template",
        help="template (offline, deterministic) or llm (model + back-translation)",
    )
    p.add_argument(
        "--model",
        help="renderer model for --renderer llm (e.g. openrouter:openai/gpt-4o, vllm:M@URL, tiny)",
    )
    p.add_argument(
        "--inverse-model", help="model of the inverse (formalizing) call; default: --model"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of genre choice and wording")
    p.add_argument(
        "--max-retries",
        type=int,
        default=2,
        help="llm: retries per block before the task is dropped",
    )
    p.add_argument("--temperature", type=float, default=0.0, help="llm: renderer temperature")
    p.add_argument(
        "--cache", help="llm: SQLite cache of calls (default: OUT with suffix .render-cache.sqlite)"
    )
    p.add_argument(
        "--control",
        action="store_true",
        help="also write the ctl presentation (plain non-scientific genres, same "
        "blocks and about the Obf length)",
    )
    p.add_argument("--report", help="JSON report (default: OUT with suffix .render.json)")
    p.add_argument("-o", "--output", required=True, help="output JSONL file")
    p.set_defaults(func=run)


def run(args) -> int:
    tasks = read_tasks(args.file)
    out = Path(args.output)
    rendered, dropped = [], []
    if args.renderer == "template":
        from scir.rendering.template import render_task

        for task in progress(tasks, total=len(tasks), desc="render template"):
            rendered.append(render_task(task, args.seed))
        calls = ""
    else:
        rendered, dropped, calls = _render_llm(args, tasks, out)
    if args.control:
        from scir.rendering.control import render_control

        rendered = [
            render_control(t, args.seed)
            for t in progress(rendered, total=len(rendered), desc="render control")
        ]
    try:
        write_tasks(out, rendered)
    except OSError as exc:
        raise ConfigError(
            f"cannot write: {exc.strerror or exc}", file=str(out), field="output"
        ) from exc
    stats = [task_stats(t) for t in rendered]
    groups = group_stats(stats, dropped)
    report = Path(args.report) if args.report else out.with_suffix(".render.json")
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(
        json.dumps(
            {
                "input": args.file,
                "output": str(out),
                "renderer": args.renderer,
                "seed": args.seed,
                "model": args.model,
                "inverse_model": args.inverse_model or args.model,
                "tasks": len(tasks),
                "rendered": len(rendered),
                "dropped": dropped,
                "groups": [g.to_dict() for g in groups],
                "per_task": [s.__dict__ for s in stats],
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    for d in dropped:
        print(f"DROPPED {d['task_id']}: {d['reason']}")
    print(format_groups(groups))
    nl = sum(s.chars_nl for s in stats)
    obf = sum(s.chars_obf for s in stats)
    ratio = f", Obf/NL {obf / nl:.2f}" if nl else ""
    if args.control and nl:
        ratio += f", Ctl/NL {sum(len(t.problem_control) for t in rendered) / nl:.2f}"
    print(
        f"rendered {len(rendered)}/{len(tasks)} tasks ({len(dropped)} dropped, "
        f"{sum(s.retries for s in stats)} retries{ratio}{calls}) to {out}; report {report}"
    )
    return 0


def _announce_keys(models: list[str]) -> None:
    """One line per API model: which key variable goes to which host (scir.llm.keys)."""
    from scir.llm import parse_model_name
    from scir.llm.keys import announce, key_route

    names = [parse_model_name(m) for m in dict.fromkeys(models)]
    announce([key_route(n) for n in names if n.is_api])


def _render_llm(args, tasks, out: Path):
    from scir.llm import get_backend
    from scir.rendering.llm_renderer import LLMRenderer
    from scir.runs.store import RunStore

    if not args.model:
        raise ConfigError("--renderer llm needs --model", field="model")
    if args.max_retries < 0:
        raise ConfigError("--max-retries must be >= 0", field="max_retries")
    from scir.pipelines.preflight import model_needs, require

    require(
        model_needs(
            (m, None, None)
            for m in dict.fromkeys(
                [args.model] + ([args.inverse_model] if args.inverse_model else [])
            )
        )
    )
    cache = Path(args.cache) if args.cache else out.with_suffix(".render-cache.sqlite")
    store = RunStore(cache)
    _announce_keys([args.model] + ([args.inverse_model] if args.inverse_model else []))
    backend = get_backend(args.model)
    inverse = (
        get_backend(args.inverse_model)
        if args.inverse_model and args.inverse_model != args.model
        else None
    )
    from scir.llm.identity import run_provenance
    from scir.llm.keys import env_key

    used = list(dict.fromkeys([args.model] + ([args.inverse_model] if args.inverse_model else [])))
    store.log_invocation(
        {
            "command": "render",
            "model": args.model,
            "inverse_model": args.inverse_model or args.model,
            "seed": args.seed,
            "max_retries": args.max_retries,
        },
        run_provenance([(m, None, _key_of(m, env_key)) for m in used]),
    )
    renderer = LLMRenderer(
        backend,
        store,
        inverse,
        max_retries=args.max_retries,
        seed=args.seed,
        temperature=args.temperature,
    )
    rendered, dropped = [], []
    made = served = 0
    try:
        for task in progress(tasks, total=len(tasks), desc="render llm"):
            outcome = renderer.render(task)
            made += outcome.calls
            served += outcome.cached_calls
            if outcome.dropped:
                dropped.append(
                    {
                        "task_id": task.task_id,
                        "domain": task.domain,
                        "tier": task.tier,
                        "reason": outcome.reason,
                        "attempts": len(outcome.attempts),
                    }
                )
            else:
                rendered.append(outcome.task)
    finally:
        backend.close()
        if inverse is not None:
            inverse.close()
        store.close()
    return rendered, dropped, f"; {made} calls made, {served} served from the cache {cache}"


def _key_of(model: str, env_key) -> str | None:
    """The API key a model's backend reads (None for local models)."""
    from scir.llm import parse_model_name

    name = parse_model_name(model)
    return env_key(name) if name.is_api else None
