"""The per-task grammar object of causal formalizations (built from
:class:`scir.tracks.causal.formalize.GrammarBounds`) and the reading of a decoded text from its
parse tree. Its Lark text is the decoding constraint; :func:`read_decoded` parses with the
same object, so what the decoder was allowed to write is what is read back. Texts outside its
language are read by the generic parser of :func:`scir.tracks.causal.formalize.
parse_formalization` (any layout, errors with positions), with the same result where both
apply (tests/test_grammar.py)."""

from __future__ import annotations

from typing import Any

from scir.tracks.causal.scm import (
    ACTIVATION,
    DECIMALS,
    INHIBITION,
    OBSERVATIONAL,
    environment_name,
)
from solvers.grammar import Choice, Grammar, Lit, Pat, Ref, Rep, literals, rep, rule, seq

PERMUTATION_MAX = 8  # columns as a permutation in the grammar up to this many
_KINDS = {
    "observational": OBSERVATIONAL,
    "inhibition of ": INHIBITION,
    "activation of ": ACTIVATION,
}


def _columns_rules(b: Any) -> list:
    """Every permutation of the proteins (one rule per set of names already written), or,
    beyond PERMUTATION_MAX proteins, the printed column order as it stands."""
    if b.width > PERMUTATION_MAX:
        return [rule("columns", Lit("columns: " + ", ".join(b.column_order) + "\n"))]
    full = (1 << b.width) - 1
    rules = [rule("columns", seq("columns: ", Ref("cols_0"), "\n"))]
    for used in range(full):
        options = []
        for i, name in enumerate(b.nodes):
            if not used & (1 << i):
                after = used | (1 << i)
                options.append(
                    Lit(name) if after == full else seq(name + ", ", Ref(f"cols_{after}"))
                )
        rules.append(
            rule(f"cols_{used}", options[0] if len(options) == 1 else Choice(tuple(options)))
        )
    return rules


def task_grammar(b: Any) -> Grammar:
    """The grammar object of ``b``: canonical spacing, one line per item, each line ending in
    a newline; the columns a permutation of the proteins, known edges between two distinct
    proteins other than the new one, ``b.width`` numbers per row."""
    sub = [n for n in b.nodes if n != b.new_protein]
    pairs = [f"{x} -> {y}\n" for x in sub for y in sub if x != y]
    edges = b.max_edges if pairs else 0
    digits = f"{{1,{b.int_digits}}}" if b.int_digits > 1 else ""
    start = (
        [Ref("columns")]
        + ([Rep(Ref("edge"), 0, edges)] if edges else [])
        + [rep(Ref("environment"), 1, b.max_environments)]
    )
    rules = [
        rule("start", seq(*start)),
        *_columns_rules(b),
        rule(
            "environment", seq("environment: ", Ref("kind"), "\n", Rep(Ref("row"), 2, b.max_rows))
        ),
        rule(
            "kind",
            Choice(
                (
                    Lit("observational"),
                    seq("inhibition of ", Ref("targets")),
                    seq("activation of ", Ref("targets")),
                )
            ),
        ),
        rule(
            "targets",
            seq(Ref("node"), Rep(seq(", ", Ref("node")), 0, b.max_targets - 1))
            if b.max_targets > 1
            else Ref("node"),
        ),
        rule(
            "row",
            seq(Ref("NUMBER"), Rep(seq(" ", Ref("NUMBER")), b.width - 1, b.width - 1), "\n")
            if b.width > 1
            else seq(Ref("NUMBER"), "\n"),
        ),
        rule("node", literals(b.nodes)),
        rule("NUMBER", Pat(f"[0-9]{digits}\\.[0-9]{{{DECIMALS}}}")),
    ]
    if edges:
        rules.append(rule("edge", *(Lit(p) for p in pairs)))
    comment = (
        f"Per-task grammar of a causal formalization, built by scir.tracks.causal."
        f"grammar\nfrom grammars/causal.lark: {b.width} columns, at most {edges} known "
        f"edges, 1..{b.max_environments} environments of 2..{b.max_rows} rows."
    )
    return Grammar(tuple(rules), comment=comment)


def read_decoded(b: Any, nodes: list[str], text: str) -> dict[str, Any] | None:
    """The formal object of ``text`` from the parse tree of :func:`task_grammar` (its counts
    -- edges, environments, rows -- checked on the tree), or None when the text is not in the
    grammar's language."""
    from lark import Token
    from lark.exceptions import LarkError

    try:
        tree = task_grammar(b).unbounded().parse(text, keep_all_tokens=True)
    except LarkError:  # not in the language (or, a bug, no LALR tables): the other reader
        return None

    def tokens(node: Any) -> list[str]:
        return [str(t) for t in node.scan_values(lambda v: isinstance(v, Token))]

    columns_tree, *rest = [c for c in tree.children if not isinstance(c, Token)]
    columns = "".join(tokens(columns_tree))[len("columns: ") : -1].split(", ")
    edges: list[list[str]] = []
    environments: list[dict[str, Any]] = []
    n_edges = 0
    for item in rest:
        if item.data == "edge":
            n_edges += 1
            edge = "".join(tokens(item))[:-1].split(" -> ")
            if edge not in edges:
                edges.append(edge)
            continue
        kind_tree = next(c for c in item.children if getattr(c, "data", None) == "kind")
        head = str(kind_tree.children[0])
        targets: list[str] = []
        for node in kind_tree.find_data("node"):
            if str(node.children[0]) not in targets:
                targets.append(str(node.children[0]))
        rows = [
            [float(t) for t in r.children if isinstance(t, Token) and t.type == "NUMBER"]
            for r in item.children
            if getattr(r, "data", None) == "row"
        ]
        if len(rows) > b.max_rows:
            return None
        kind = _KINDS[head]
        environments.append(
            {
                "name": environment_name(kind, targets, [e["name"] for e in environments]),
                "kind": kind,
                "targets": targets,
                "rows": rows,
            }
        )
    if n_edges > b.max_edges or len(environments) > b.max_environments:
        return None
    return {"nodes": nodes, "columns": columns, "known_edges": edges, "environments": environments}
