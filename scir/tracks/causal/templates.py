"""Clean natural language of a causal task, in two blocks.

Block 1: the proteins, the known edges among them (one sentence each), the new protein and the
experimental conditions. Block 2: one data table per condition (Markdown), headed by the
condition and its intervention. Numbers are printed with exactly ``DECIMALS`` decimals, the
precision the rows were rounded to.
"""

from __future__ import annotations

from scir.tracks.causal.graph import Edge
from scir.tracks.causal.scm import ACTIVATION, DECIMALS, INHIBITION, Environment

_NUMBER_WORDS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}


def _count(n: int) -> str:
    return _NUMBER_WORDS.get(n, str(n))


def _listing(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def condition(env: Environment) -> str:
    """What was done in an environment, e.g. ``Raf was inhibited (held at 0)``."""
    if env.kind == INHIBITION:
        return f"{_listing(env.targets)} inhibited (concentration held at 0)"
    if env.kind == ACTIVATION:
        return f"{_listing(env.targets)} activated (concentration held at a high constant level)"
    return "observational (no intervention)"


def block_network(
    subgraph_nodes: list[str],
    known_edges: list[Edge],
    new_protein: str,
    connections: int,
    envs: list[Environment],
) -> str:
    """Block 1: proteins, known edges, the new protein and the experimental conditions."""
    lines = [
        f"We study a signalling network of {_count(len(subgraph_nodes))} proteins: "
        f"{_listing(subgraph_nodes)}."
    ]
    if known_edges:
        lines.append("The following direct causal relations among them are known:")
        lines += [f"- {a} directly regulates {b}." for a, b in known_edges]
    else:
        lines.append("No direct causal relation among them is known.")
    edge_word = "edge" if connections == 1 else "edges"
    lines.append(
        f"A newly discovered protein, {new_protein}, is connected to this network by "
        f"exactly {_count(connections)} direct causal {edge_word}, "
        f"{'which runs' if connections == 1 else 'each running'} from "
        f"{new_protein} to one of the proteins above or from one of them to "
        f"{new_protein}; {'this edge is' if connections == 1 else 'these edges are'} "
        f"not known. Apart from the relations listed above and the unknown "
        f"{edge_word} of {new_protein}, no direct causal relation exists among these "
        "proteins."
    )
    samples = {len(e.rows) for e in envs}
    per = f", {_count(samples.pop())} cells each" if len(samples) == 1 else ""
    lines.append(
        f"Protein concentrations were measured in single cells under "
        f"{_count(len(envs))} experimental conditions{per}:"
    )
    lines += [f"- Condition {i}: {condition(e)}." for i, e in enumerate(envs, start=1)]
    return "\n".join(lines)


def table(env: Environment, columns: list[str]) -> str:
    """One environment's rows as a Markdown table with ``DECIMALS`` decimals."""
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---:" for _ in columns) + "|"
    body = ["| " + " | ".join(f"{v:.{DECIMALS}f}" for v in row) + " |" for row in env.rows]
    return "\n".join([head, rule, *body])


def block_data(envs: list[Environment], columns: list[str]) -> str:
    """Block 2: one table per condition, headed by the condition."""
    parts = []
    for i, env in enumerate(envs, start=1):
        parts.append(
            f"Condition {i} -- {condition(env)}; {len(env.rows)} cells "
            f"(environment {env.name}):\n{table(env, columns)}"
        )
    return "\n\n".join(parts)


def question(new_protein: str) -> str:
    """The question put to the solver (the options are listed in ``Task.options``)."""
    return (
        f"Which option lists exactly the direct causal edges between {new_protein} and the "
        "other proteins? Answer with the option letter."
    )


def open_question(new_protein: str, connections: int) -> str:
    """The question of an open task (no options): the exact set of the new protein's edges."""
    edges = "edge" if connections == 1 else "edges"
    return (
        f"{new_protein} has exactly {connections} direct causal {edges} with the other "
        f"proteins. Which are they? State each edge with its direction, as 'A -> B'."
    )
