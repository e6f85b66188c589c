"""The causal block format of the LLM renderer's inverse call: ``grammars/causal_block.lark``
-- the network (proteins, edges, conditions) or the data rows; the same edges, conditions and
(as multisets) the same rows are required."""

from __future__ import annotations

from typing import Any

from scir.errors import FormalizationError
from scir.tasks import Task
from scir.text.inverse import (
    _instantiate,
    _literals,
    _rep,
    child_names,
    child_terminals,
    parse_tree,
)
from scir.tracks.base import load_formal
from scir.tracks.causal.formal import CausalFormal
from scir.tracks.causal.scm import environment_name


def grammar(task: Task, index: int, content: dict[str, Any], bounded: bool) -> str:
    """The block's grammar over the task's proteins; ``bounded``: a few items more than the
    content has (the decoding constraint), else unbounded (for parsing)."""
    nodes = list(load_formal(CausalFormal, task).nodes)
    conditions = len(load_formal(CausalFormal, task).environments)
    if index == 0:
        edges = len(content["known_edges"])
        start = (
            f"start: proteins newprotein edges "
            f"{_rep('condition', 1, conditions + 2 if bounded else None)}\n"
            f"edges: {_rep('edge', 1, edges + 3 if bounded else None)} "
            '| "edges: none.\\n"'
        )
    else:
        rows = max((len(e["rows"]) for e in content["environments"]), default=1)
        per_row = max(len(nodes) - 1, 0)
        values = '(" " value)' + (f" ~ {per_row}" if per_row else "") if bounded else '(" " value)*'
        table_rows = _rep("row", 1, rows + 4 if bounded else None)
        start = (
            f"start: {_rep('table', 1, conditions + 2 if bounded else None)}\n"
            f'table: "condition " COUNT ":\\n" {table_rows}\n'
            f'row: value {values if per_row or not bounded else ""} "\\n"'
        )
    return _instantiate("causal_block.lark", start, f"node: {_literals(nodes)}")


def description(index: int) -> str:
    """The format as told to the inverse model."""
    return (
        "The network, one statement per line:\nproteins: A, B, C.\nnew protein: XYZ "
        "with N unknown edges.\nedge: A -> B.   (each known direct edge; 'edges: "
        "none.' if there is none)\ncondition 1: observational, 16 cells.   (or "
        "'inhibition of A' / 'activation of A')"
        if index == 0
        else "The data: for each condition in order a line 'condition N:', then one line "
        "per cell listing every protein's value as 'Name=1.23' separated by spaces, "
        "digits exactly as given."
    )


def format_block(index: int, content: dict[str, Any]) -> str:
    """The network statements, or the data tables (two decimals)."""
    if index == 0:
        lines = [
            f"proteins: {', '.join(content['nodes'])}.",
            f"new protein: {content['new_protein']} with {content['connections']} unknown edges.",
        ]
        lines += [f"edge: {a} -> {b}." for a, b in content["known_edges"]] or ["edges: none."]
        for k, (env, n) in enumerate(zip(content["environments"], content["samples"]), 1):
            kind = env["kind"]
            what = kind if kind == "observational" else f"{kind} of {env['targets'][0]}"
            lines.append(f"condition {k}: {what}, {n} cells.")
        return "\n".join(lines) + "\n"
    lines = []
    for k, env in enumerate(content["environments"], 1):
        lines.append(f"condition {k}:")
        lines += [
            " ".join(f"{c}={v:.2f}" for c, v in zip(content["columns"], row)) for row in env["rows"]
        ]
    return "\n".join(lines) + "\n"


def parse(task: Task, index: int, text: str) -> dict[str, Any]:
    """The network content (block 1) or the data content (block 2) of a formalization."""

    grammar_text = grammar(task, index, {"known_edges": [], "environments": []}, bounded=False)
    tree = parse_tree(task, grammar_text, text)
    if index == 0:
        nodes = child_names(next(tree.find_data("proteins")), "node")
        new_tree = next(tree.find_data("newprotein"))
        edges = [child_names(e, "node") for e in tree.find_data("edge")]
        envs: list[dict[str, Any]] = []
        samples: list[int] = []
        for cond in tree.find_data("condition"):
            kind_tree = next(c for c in cond.children if hasattr(c, "data"))
            targets = child_names(kind_tree, "node")
            envs.append(
                {
                    "name": environment_name(kind_tree.data, targets[0] if targets else None),
                    "kind": str(kind_tree.data),
                    "targets": targets,
                }
            )
            samples.append(int(child_terminals(cond, "COUNT")[-1]))
        return {
            "nodes": nodes,
            "new_protein": child_names(new_tree, "node")[0],
            "connections": int(child_terminals(new_tree, "COUNT")[0]),
            "known_edges": edges,
            "environments": envs,
            "samples": samples,
        }
    envs = []
    columns: list[str] | None = None
    names = [e.name for e in load_formal(CausalFormal, task).environments]
    for k, table in enumerate(tree.find_data("table")):
        rows = []
        for row in table.find_data("row"):
            pairs = [
                (child_names(v, "node")[0], child_terminals(v, "NUMBER")[0])
                for v in row.find_data("value")
            ]
            cols = sorted(n for n, _ in pairs)
            if columns is None:
                columns = cols
            if cols != columns or len(set(cols)) != len(cols):
                raise FormalizationError("rows name different proteins", task_id=task.task_id)
            by_name = dict(pairs)
            rows.append([float(by_name[c]) for c in columns])
        envs.append({"name": names[k] if k < len(names) else f"condition {k + 1}", "rows": rows})
    return {"columns": columns or [], "environments": envs}


def sorted_rows(content: dict[str, Any]) -> dict[str, Any]:
    """Rows of each condition as a sorted multiset (in sorted-column order)."""
    columns = list(content.get("columns", []))
    order = sorted(range(len(columns)), key=lambda i: columns[i])
    return {
        "columns": [columns[i] for i in order],
        "environments": [
            {
                "name": e.get("name"),
                "rows": sorted([r[i] for i in order] for r in e.get("rows", [])),
            }
            for e in content.get("environments", [])
        ],
    }
