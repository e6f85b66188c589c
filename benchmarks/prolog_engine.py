"""In-process Prolog queries vs sandboxed-worker calls, measured side by side.

    .venv/bin/python benchmarks/prolog_engine.py [--calls 300] [--facts 200] [--seed 0]

Workload: an induction-style program (``--facts`` drug-protein facts, a two-clause coverage
rule) and one query per call, ``covers(A, B)`` with ``A`` bound to a drug. Reported:

* in-process, fresh module per call -- ``Engine().module()``, facts added as terms, query,
  module removed (how trusted code uses the engine);
* in-process, one module reused -- only the query per call;
* sandbox, worker reused -- ``Sandbox.run``: the Python whitelist check of the program text,
  shipping the clauses, the worker's second check and load into a fresh module, the query,
  the reply;
* the whitelist check alone (no process involved).

The ratios are against the in-process fresh-module rate measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Callable

from solvers.prolog import Engine, Term, Var
from solvers.sandbox import Sandbox, check_program

RULES = [
    "covers(A, B) :- substrate_of(A, P), inhibits_enzyme(B, P).",
    "covers(A, B) :- inhibits_enzyme(A, P), substrate_of(B, P).",
]
DECLARED = {"substrate_of": 2, "inhibits_enzyme": 2, "covers": 2}


def make_data(n_facts: int, seed: int) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Deterministic facts (relation, drug, protein) and the drugs to query."""
    rng = random.Random(seed)
    drugs = [f"drug_{i}" for i in range(max(4, n_facts // 4))]
    proteins = [f"prot_{i}" for i in range(max(2, n_facts // 10))]
    facts = sorted({(rng.choice(["substrate_of", "inhibits_enzyme"]), rng.choice(drugs),
                     rng.choice(proteins)) for _ in range(n_facts)})
    return facts, drugs


def program_text(facts: list[tuple[str, str, str]]) -> str:
    """The program as Prolog text, as a model would write it (for the sandbox)."""
    lines = [f"{rel}({drug}, {prot})." for rel, drug, prot in facts]
    return "\n".join(lines + RULES) + "\n"


def rule_terms() -> list[Term]:
    """The coverage rule as terms (for the in-process engine: no text is pasted)."""
    a, b, p = Var("A"), Var("B"), Var("P")
    out = []
    for first, second in (("substrate_of", "inhibits_enzyme"), ("inhibits_enzyme", "substrate_of")):
        body = Term(",", (Term(first, (a, p)), Term(second, (b, p))))
        out.append(Term(":-", (Term("covers", (a, b)), body)))
    return out


def rate(fn: Callable[[int], int], calls: int) -> tuple[float, int]:
    """Calls per second of fn(i) over ``calls`` calls, and the total answers returned."""
    fn(0)                                    # warm-up (worker start, first module)
    answers = 0
    start = time.perf_counter()
    for i in range(calls):
        answers += fn(i)
    return calls / (time.perf_counter() - start), answers


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and print one line per variant with its ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--facts", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    facts, drugs = make_data(args.facts, args.seed)
    text = program_text(facts)
    engine = Engine()
    rules = rule_terms()

    def fresh_module(i: int) -> int:
        with engine.module() as m:
            for rel in ("substrate_of", "inhibits_enzyme"):
                m.add_facts(rel, [(d, p) for r, d, p in facts if r == rel], arity=2)
            for rule in rules:
                m.add_fact(rule)
            return len(m.query("covers(A, B)", {"A": drugs[i % len(drugs)]}))

    shared = engine.module()
    for rel in ("substrate_of", "inhibits_enzyme"):
        shared.add_facts(rel, [(d, p) for r, d, p in facts if r == rel], arity=2)
    for rule in rules:
        shared.add_fact(rule)

    def reused_module(i: int) -> int:
        return len(shared.query("covers(A, B)", {"A": drugs[i % len(drugs)]}))

    with Sandbox(time_limit=5.0) as box:
        def sandboxed(i: int) -> int:
            return len(box.run(text, DECLARED, "covers(A, B)",
                               {"A": drugs[i % len(drugs)]}).answers)

        results = {
            "in-process, fresh module per call": rate(fresh_module, args.calls),
            "in-process, one module reused": rate(reused_module, args.calls),
            "sandbox, worker reused": rate(sandboxed, args.calls),
            "whitelist check only": rate(lambda i: len(check_program(text, DECLARED)) * 0,
                                         args.calls),
        }
    shared.close()
    answers = {results[k][1] for k in results if not k.startswith("whitelist")}
    assert len(answers) == 1, f"variants disagree on the answers: {results}"
    reference = results["in-process, fresh module per call"][0]
    print(f"bridge {engine.bridge}, SWI-Prolog {'.'.join(map(str, engine.swi_version))}, "
          f"{len(facts)} facts, {args.calls} calls, {answers.pop()} answers per variant")
    print(f"{'variant':38s} {'calls/s':>10s} {'ms/call':>9s} {'vs fresh module':>16s}")
    for name, (per_second, _) in results.items():
        print(f"{name:38s} {per_second:10.1f} {1000 / per_second:9.2f} "
              f"{per_second / reference:15.2f}x")


if __name__ == "__main__":
    main()
