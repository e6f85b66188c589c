"""The inverse of the LLM renderer: the formal format of one block, its grammar, its parser,
and the check that a formalized rewrite holds the block's information.

Per track and block:

* deduction: Prover9 formulas, one per line, over the task's signature -- the bounded grammar
  of ``solvers.fol.instantiate_grammar``; a recovered formula matches an original one when
  Prover9 proves each from the other (identical canonical strings match without a call);
* induction: ``grammars/induction_block.lark`` -- ``relation(drug, protein).`` facts, or
  ``interacts(a, b).`` / ``not_interacts(a, b).`` pairs; the same set is required;
* causal: ``grammars/causal_block.lark`` -- the network (proteins, edges, conditions) or the
  data rows; the same edges, conditions and (as multisets) the same rows are required.

The grammars' placeholder rules (``start`` and the names) are replaced per task, by rule
name in the grammar object (:mod:`solvers.grammar`), with the task's names as escaped Lark
literals; the bounded variant (finite repetition) is the decoding constraint, the
unbounded one is used for parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scir.errors import FormalizationError, SolverError, TaskFormatError
from scir.tasks import Task
from scir.text.blocks import differences

MAX_SECONDS = 2                       # Prover9 per equivalence direction


def _literals(names: list[str]) -> str:
    from solvers.grammar import lark_literal

    return "\n    | ".join(lark_literal(n) for n in sorted(set(names)))


def _instantiate(file: str, start: str, signature: str) -> str:
    """``grammars/<file>`` with the rules defined in ``start`` and ``signature`` (Lark text
    of whole rules) in place of the file's rules of the same names, the rules no longer
    reached from ``start`` dropped: a structural edit of the grammar object."""
    from solvers import resources
    from solvers.grammar import Grammar

    grammar = Grammar.read(resources.read_text("grammars", file), f"grammars/{file}")
    new = Grammar.read(start + "\n" + signature, f"the {file} rules of this task").rules
    return grammar.replace(*new, comment=f"grammars/{file} for this task and block "
                                         "(built by scir.text.inverse)").to_lark()


def _rep(item: str, low: int, high: int | None) -> str:
    """``item`` repeated low..high times (unbounded when ``high`` is None)."""
    if high is None:
        return f"{item}+" if low >= 1 else f"{item}*"
    return item if (low, high) == (1, 1) else f"{item} ~ {low}..{max(low, high)}"


@dataclass(frozen=True)
class BlockFormat:
    """How one block is formalized: the format's description for the prompt, the decoding
    grammar, and a bound on the output length."""

    description: str
    grammar: str
    max_tokens: int


# ---------------------------------------------------------------- deduction

def _deduction_signature(task: Task) -> tuple[dict[str, int], list[str]]:
    preds = task.formal.get("predicates") or {}
    return {p: 1 for p in sorted(preds)}, sorted(task.formal.get("constants") or [])


def _deduction_grammar(task: Task, content: dict[str, Any]) -> str:
    from solvers.fol import grammar_bounds, parse_formula
    from solvers.fol_grammar import instantiate_grammar

    preds, consts = _deduction_signature(task)
    depth, _ = grammar_bounds(parse_formula(p) for p in content["premises"])
    return instantiate_grammar(preds, consts, max_formulas=len(content["premises"]) + 2,
                               max_depth=depth + 1, max_operands=2)


def _deduction_parse(task: Task, text: str) -> dict[str, Any]:
    from solvers.fol import parse_formulas
    from solvers.fol_ast import signature, to_prover9

    try:
        formulas = parse_formulas(text)
    except SolverError as exc:
        raise FormalizationError(f"not Prover9 formulas: {exc.message}", line=exc.line,
                                 column=exc.column, task_id=task.task_id) from exc
    preds, consts = signature(formulas)
    allowed, allowed_consts = _deduction_signature(task)
    unknown = sorted(set(preds) - set(allowed)) + sorted(set(consts) - set(allowed_consts))
    if unknown or any(a != 1 for a in preds.values()):
        raise FormalizationError(f"names outside the task's signature or wrong arity: "
                                 f"{unknown or sorted(preds)}", task_id=task.task_id)
    return {"premises": [to_prover9(f) for f in formulas]}


@lru_cache(maxsize=1 << 14)
def equivalent(a: str, b: str) -> bool:
    """Whether Prover9 proves ``b`` from ``a`` and ``a`` from ``b`` (a limit counts as no)."""
    from solvers.prover9 import ProverStatus, prove

    if a == b:
        return True
    try:
        return all(prove([x], y, max_seconds=MAX_SECONDS).status is ProverStatus.PROVED
                   for x, y in ((a, b), (b, a)))
    except SolverError:
        return False


def _deduction_match(original: dict[str, Any], recovered: dict[str, Any]) -> list[str]:
    remaining = list(original["premises"])
    extra = []
    candidates = list(recovered["premises"])
    for r in sorted(candidates, key=lambda x: x not in remaining):   # identical ones first
        hit = next((o for o in remaining if equivalent(o, r)), None)
        if hit is None:
            extra.append(r)
        else:
            remaining.remove(hit)
    problems = []
    if remaining:
        problems.append(f"{len(remaining)} statement(s) not recovered, e.g. {remaining[0]}")
    if extra:
        problems.append(f"{len(extra)} statement(s) not in the block, e.g. {extra[0]}")
    return problems


# ---------------------------------------------------------------- induction and causal

def _induction_grammar(task: Task, index: int, n: int, bounded: bool) -> str:
    from scir.tracks.induction.world import load_world

    meta = task.domain_metadata
    item = ("fact", "pair", "nonpair")[index]
    high = n + max(5, n // 5) if bounded else None
    start = f"start: {_rep(item, 1, high)} | NONE"
    signature = (f"relation: {_literals(list(load_world().relation_names))}\n"
                 f"drug: {_literals(list(meta.get('drugs') or []))}\n"
                 f"protein: {_literals(list(meta.get('proteins') or []))}")
    return _instantiate("induction_block.lark", start, signature)


def _causal_grammar(task: Task, index: int, content: dict[str, Any], bounded: bool) -> str:
    nodes = list(task.formal.get("nodes") or [])
    conditions = len(task.formal.get("environments") or [])
    if index == 0:
        edges = len(content["known_edges"])
        start = (f"start: proteins newprotein edges "
                 f"{_rep('condition', 1, conditions + 2 if bounded else None)}\n"
                 f"edges: {_rep('edge', 1, edges + 3 if bounded else None)} "
                 '| "edges: none.\\n"')
    else:
        rows = max((len(e["rows"]) for e in content["environments"]), default=1)
        per_row = max(len(nodes) - 1, 0)
        values = ('(" " value)' + (f" ~ {per_row}" if per_row else "") if bounded
                  else '(" " value)*')
        table_rows = _rep("row", 1, rows + 4 if bounded else None)
        start = (f"start: {_rep('table', 1, conditions + 2 if bounded else None)}\n"
                 f'table: "condition " COUNT ":\\n" {table_rows}\n'
                 f'row: value {values if per_row or not bounded else ""} "\\n"')
    return _instantiate("causal_block.lark", start, f"node: {_literals(nodes)}")


@lru_cache(maxsize=256)
def _parser(grammar: str):
    import lark

    return lark.Lark(grammar, parser="earley", lexer="dynamic", keep_all_tokens=True)


def _tree(task: Task, grammar: str, text: str):
    import lark

    try:
        return _parser(grammar).parse(text if text.endswith("\n") else text + "\n")
    except lark.exceptions.UnexpectedInput as exc:
        raise FormalizationError(f"does not follow the block format: {str(exc).splitlines()[0]}",
                                 line=getattr(exc, "line", None),
                                 column=getattr(exc, "column", None),
                                 task_id=task.task_id) from exc
    except lark.exceptions.LarkError as exc:
        raise FormalizationError(f"cannot parse: {exc}", task_id=task.task_id) from exc


def _names(tree, rule: str) -> list[str]:
    """The names held by the direct ``rule`` children of ``tree`` (name rules have one token)."""
    return [str(c.children[0]) for c in tree.children
            if getattr(c, "data", None) == rule and c.children]


def _terminals(tree, kind: str) -> list[str]:
    """The direct child tokens of type ``kind``."""
    return [str(c) for c in tree.children if getattr(c, "type", None) == kind]


def _induction_parse(task: Task, index: int, text: str) -> dict[str, Any]:
    tree = _tree(task, _induction_grammar(task, index, 0, bounded=False), text)
    key, rule = (("facts", "fact"), ("pos", "pair"), ("neg", "nonpair"))[index]
    items = []
    for sub in tree.find_data(rule):
        if rule == "fact":
            items.append(_names(sub, "relation") + _names(sub, "drug") + _names(sub, "protein"))
        else:
            items.append(sorted(_names(sub, "drug")))
    return {key: items}


def _causal_parse(task: Task, index: int, text: str) -> dict[str, Any]:
    from scir.tracks.causal.scm import environment_name

    grammar = _causal_grammar(task, index, {"known_edges": [], "environments": []},
                              bounded=False)
    tree = _tree(task, grammar, text)
    if index == 0:
        nodes = _names(next(tree.find_data("proteins")), "node")
        new_tree = next(tree.find_data("newprotein"))
        edges = [_names(e, "node") for e in tree.find_data("edge")]
        envs, samples = [], []
        for cond in tree.find_data("condition"):
            kind_tree = next(c for c in cond.children if hasattr(c, "data"))
            targets = _names(kind_tree, "node")
            envs.append({"name": environment_name(kind_tree.data,
                                                  targets[0] if targets else None),
                         "kind": str(kind_tree.data), "targets": targets})
            samples.append(int(_terminals(cond, "COUNT")[-1]))
        return {"nodes": nodes, "new_protein": _names(new_tree, "node")[0],
                "connections": int(_terminals(new_tree, "COUNT")[0]),
                "known_edges": edges, "environments": envs, "samples": samples}
    envs = []
    columns: list[str] | None = None
    names = [e["name"] for e in task.formal.get("environments") or []]
    for k, table in enumerate(tree.find_data("table")):
        rows = []
        for row in table.find_data("row"):
            pairs = [(_names(v, "node")[0], _terminals(v, "NUMBER")[0])
                     for v in row.find_data("value")]
            cols = sorted(n for n, _ in pairs)
            if columns is None:
                columns = cols
            if cols != columns or len(set(cols)) != len(cols):
                raise FormalizationError("rows name different proteins", task_id=task.task_id)
            by_name = dict(pairs)
            rows.append([float(by_name[c]) for c in columns])
        envs.append({"name": names[k] if k < len(names) else f"condition {k + 1}",
                     "rows": rows})
    return {"columns": columns or [], "environments": envs}


# ---------------------------------------------------------------- the interface

def block_format(task: Task, index: int, content: dict[str, Any]) -> BlockFormat:
    """The format, grammar and output bound of block ``index`` of ``task``."""
    size = len(format_block(task, index, content))
    tokens = size // 2 + 128
    if task.domain == "deduction":
        lex = (task.domain_metadata.get("lexicon") or {})
        preds = "; ".join(f"{p} = {v['plural']}" for p, v in
                          sorted((lex.get("predicates") or {}).items()))
        consts = "; ".join(f"{c} = {n}" for c, n in sorted((lex.get("individuals") or {})
                                                          .items()))
        text = ("One Prover9 formula per line, each ending with '.', over these unary "
                f"predicates: {preds}" + (f"; and these constants: {consts}" if consts else "")
                + ". Use only the forms: all x (p(x) -> q(x)). all x (p(x) -> -q(x)). "
                "exists x (p(x) & q(x)). exists x (p(x) & -q(x)). p(c). -p(c). exists x p(x).")
        return BlockFormat(text, _deduction_grammar(task, content), tokens)
    if task.domain == "induction":
        text = [("One background fact per line, 'relation(drug, protein).', with the ids "
                 "below (relation types: substrate_of, inhibits_enzyme, induces_enzyme, "
                 "transported_by, inhibits_transporter, induces_transporter, agonist_of, "
                 "antagonist_of, binds)"),
                "One known interacting pair per line, 'interacts(drug1, drug2).'",
                "One known non-interacting pair per line, 'not_interacts(drug1, drug2).'"][index]
        meta = task.domain_metadata
        names = ("; ".join(f"{k} = {v}" for k, v in sorted((meta.get("drugs") or {}).items()))
                 + "; " + "; ".join(f"{k} = {v}" for k, v in
                                    sorted((meta.get("proteins") or {}).items())))
        text += f"; write 'none.' if there is none. Ids (lowercase): {names}."
        n = len(content[("facts", "pos", "neg")[index]])
        return BlockFormat(text, _induction_grammar(task, index, n, bounded=True), tokens)
    if task.domain == "causal":
        text = ("The network, one statement per line:\nproteins: A, B, C.\nnew protein: XYZ "
                "with N unknown edges.\nedge: A -> B.   (each known direct edge; 'edges: "
                "none.' if there is none)\ncondition 1: observational, 16 cells.   (or "
                "'inhibition of A' / 'activation of A')" if index == 0 else
                "The data: for each condition in order a line 'condition N:', then one line "
                "per cell listing every protein's value as 'Name=1.23' separated by spaces, "
                "digits exactly as given.")
        return BlockFormat(text, _causal_grammar(task, index, content, bounded=True), tokens)
    raise TaskFormatError(f"no block format for track {task.domain!r}", field="domain")


def format_block(task: Task, index: int, content: dict[str, Any]) -> str:
    """The block's content in its formal format (what a faithful inverse call writes)."""
    if task.domain == "deduction":
        return "".join(f"{p}.\n" for p in content["premises"])
    if task.domain == "induction":
        key = ("facts", "pos", "neg")[index]
        items = content[key]
        if not items:
            return "none.\n"
        if key == "facts":
            return "".join(f"{r}({d}, {p}).\n" for r, d, p in items)
        head = "interacts" if key == "pos" else "not_interacts"
        return "".join(f"{head}({a}, {b}).\n" for a, b in items)
    if index == 0:
        lines = [f"proteins: {', '.join(content['nodes'])}.",
                 f"new protein: {content['new_protein']} with {content['connections']} "
                 "unknown edges."]
        lines += [f"edge: {a} -> {b}." for a, b in content["known_edges"]] or ["edges: none."]
        for k, (env, n) in enumerate(zip(content["environments"], content["samples"]), 1):
            kind = env["kind"]
            what = kind if kind == "observational" else f"{kind} of {env['targets'][0]}"
            lines.append(f"condition {k}: {what}, {n} cells.")
        return "\n".join(lines) + "\n"
    lines = []
    for k, env in enumerate(content["environments"], 1):
        lines.append(f"condition {k}:")
        lines += [" ".join(f"{c}={v:.2f}" for c, v in zip(content["columns"], row))
                  for row in env["rows"]]
    return "\n".join(lines) + "\n"


def parse_block(task: Task, index: int, text: str) -> dict[str, Any]:
    """Parse a formalization of block ``index`` (FormalizationError if it does not parse)."""
    if task.domain == "deduction":
        return _deduction_parse(task, text)
    if task.domain == "induction":
        return _induction_parse(task, index, text)
    if task.domain == "causal":
        return _causal_parse(task, index, text)
    raise TaskFormatError(f"no block format for track {task.domain!r}", field="domain")


def match_block(task: Task, index: int, original: dict[str, Any],
                recovered: dict[str, Any]) -> list[str]:
    """How a recovered content falls short of the original (empty: accepted)."""
    if task.domain == "deduction":
        return _deduction_match(original, recovered)
    if task.domain == "causal" and index == 1:
        original, recovered = _sorted_rows(original), _sorted_rows(recovered)
    return differences(task.domain, index, original, recovered)


def _sorted_rows(content: dict[str, Any]) -> dict[str, Any]:
    """Rows of each condition as a sorted multiset (in sorted-column order)."""
    columns = list(content.get("columns", []))
    order = sorted(range(len(columns)), key=lambda i: columns[i])
    return {"columns": [columns[i] for i in order],
            "environments": [{"name": e.get("name"),
                              "rows": sorted([r[i] for i in order] for r in e.get("rows", []))}
                             for e in content.get("environments", [])]}
