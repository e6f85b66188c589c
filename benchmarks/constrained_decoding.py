"""Constrained vs. unconstrained decoding speed of a local model (default: the tiny model), and
the grammar compile time.

Prints tokens/s with and without a Lark grammar and their ratio (target: constrained >= 0.8x
unconstrained after warm-up), measured side by side in the same process on outputs of about
the same length, plus the time to compile (validate against the tokenizer and build the
llguidance processor for) a fresh grammar.

    python benchmarks/constrained_decoding.py [--model tiny] [--prompts 20] [--tokens 64]
"""

from __future__ import annotations

import argparse
import statistics
import time

from scir.llm import Constraint, LLMRequest, get_backend

# Output about `tokens` long in both modes: the grammar forces a long comma-separated list.
LONG_LIST = 'start: ITEM (", " ITEM)~{lo}..{hi}\nITEM: /[a-z]{{2,5}}/\n'
# a formalization-sized grammar for the compile-time measurement (FOL-like, bounded)
FOL_LIKE = r"""
start: formula ("\n" formula)~0..11
formula: quant | disj
quant: ("all" | "exists") " " VAR " " "(" disj ")"
disj: conj (" | " conj)~0..3
conj: lit (" & " lit)~0..3
lit: "-"? atom | "(" disj " -> " disj ")"
atom: PRED "(" TERM ")"
PRED: "progenitor" | "neural" | "glial" | "stem" | "pluripotent" | "marker{i}"
TERM: VAR | CONST
VAR: /[x-z]/
CONST: /c[0-9]{{1,2}}/
"""


def measure(backend, prompts: list[str], constraint: Constraint | None, tokens: int
            ) -> tuple[float, int, float]:
    """(tokens/s, tokens, seconds) over the prompts, one greedy call each."""
    total, seconds = 0, 0.0
    for prompt in prompts:
        start = time.perf_counter()
        r = backend.complete(LLMRequest(prompt=prompt, constraint=constraint, max_tokens=tokens))
        seconds += time.perf_counter() - start
        total += r.completion_tokens
    return total / seconds, total, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="tiny", help="tiny or hf:PATH")
    ap.add_argument("--prompts", type=int, default=20, help="prompts per measurement")
    ap.add_argument("--tokens", type=int, default=64, help="max new tokens per call")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (median taken)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    backend = get_backend(args.model)
    print(f"model {backend.name}: loaded in {time.perf_counter() - t0:.2f} s")
    prompts = [f"Item list number {i} about cells, drugs and proteins:"
               for i in range(args.prompts)]

    compile_times = []
    for i in range(5):                      # fresh grammars: no processor cache hit
        grammar = FOL_LIKE.format(i=i)
        start = time.perf_counter()
        backend.compile(Constraint("lark", grammar))
        compile_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    backend.compile(Constraint("lark", FOL_LIKE.format(i=0)))
    cached = time.perf_counter() - start
    print(f"grammar compile (FOL-like, {len(FOL_LIKE)} bytes): median "
          f"{statistics.median(compile_times) * 1000:.1f} ms over 5 fresh grammars; "
          f"cached lookup {cached * 1e6:.0f} us")

    items = max(1, args.tokens // 3)
    constraint = Constraint("lark", LONG_LIST.format(lo=items - 1, hi=items - 1))
    measure(backend, prompts[:3], constraint, args.tokens)          # warm-up, both paths
    measure(backend, prompts[:3], None, args.tokens)
    free_rates, con_rates = [], []
    for _ in range(args.rounds):
        rate, n_free, s_free = measure(backend, prompts, None, args.tokens)
        free_rates.append(rate)
        rate, n_con, s_con = measure(backend, prompts, constraint, args.tokens)
        con_rates.append(rate)
    free, con = statistics.median(free_rates), statistics.median(con_rates)
    print(f"unconstrained: {free:8.1f} tokens/s  ({n_free} tokens in {s_free:.2f} s, last round)")
    print(f"constrained:   {con:8.1f} tokens/s  ({n_con} tokens in {s_con:.2f} s, last round)")
    ratio = con / free
    print(f"ratio constrained/unconstrained: {ratio:.2f}x "
          f"({'meets' if ratio >= 0.8 else 'BELOW'} the 0.8x target)")


if __name__ == "__main__":
    main()
