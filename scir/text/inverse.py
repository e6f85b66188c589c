"""The inverse of the LLM renderer: the formal format of one block, its grammar, its parser,
and the check that a formalized rewrite holds the block's information.

The track-specific parts -- the format's description, the decoding grammar, the faithful
formal text, the parser and the match -- belong to the track's rendering codec
(:meth:`scir.text.codec.RenderCodec.block_grammar` and the rest; e.g. deduction: Prover9
formulas matched by proved equivalence, :func:`equivalent`; induction and causal: the block
grammars ``grammars/induction_block.lark`` and ``grammars/causal_block.lark``). This module
holds the generic helpers they share; the functions the renderer calls, which ask the task's
codec, are :mod:`scir.rendering.inverse`.

The grammars' placeholder rules (``start`` and the names) are replaced per task, by rule
name in the grammar object (:mod:`solvers.grammar`), with the task's names as escaped Lark
literals; the bounded variant (finite repetition) is the decoding constraint, the
unbounded one is used for parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from scir.errors import FormalizationError, SolverError
from scir.tasks import Task

MAX_SECONDS = 2  # Prover9 per equivalence direction


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
    return grammar.replace(
        *new, comment=f"grammars/{file} for this task and block (built by scir.text.inverse)"
    ).to_lark()


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


@lru_cache(maxsize=1 << 14)
def equivalent(a: str, b: str) -> bool:
    """Whether Prover9 proves ``b`` from ``a`` and ``a`` from ``b`` (a limit counts as no)."""
    from solvers.prover9 import ProverStatus, prove

    if a == b:
        return True
    try:
        return all(
            prove([x], y, max_seconds=MAX_SECONDS).status is ProverStatus.PROVED
            for x, y in ((a, b), (b, a))
        )
    except SolverError:
        return False


@lru_cache(maxsize=256)
def _parser(grammar: str):
    import lark

    return lark.Lark(grammar, parser="earley", lexer="dynamic", keep_all_tokens=True)


def parse_tree(task: Task, grammar: str, text: str):
    """The Earley parse tree of ``text`` (a final newline added) under ``grammar``
    (FormalizationError with line and column when it does not parse)."""
    import lark

    try:
        return _parser(grammar).parse(text if text.endswith("\n") else text + "\n")
    except lark.exceptions.UnexpectedInput as exc:
        raise FormalizationError(
            f"does not follow the block format: {str(exc).splitlines()[0]}",
            line=getattr(exc, "line", None),
            column=getattr(exc, "column", None),
            task_id=task.task_id,
        ) from exc
    except lark.exceptions.LarkError as exc:
        raise FormalizationError(f"cannot parse: {exc}", task_id=task.task_id) from exc


def child_names(tree, rule: str) -> list[str]:
    """The names held by the direct ``rule`` children of ``tree`` (name rules have one token)."""
    return [
        str(c.children[0]) for c in tree.children if getattr(c, "data", None) == rule and c.children
    ]


def child_terminals(tree, kind: str) -> list[str]:
    """The direct child tokens of type ``kind``."""
    return [str(c) for c in tree.children if getattr(c, "type", None) == kind]
