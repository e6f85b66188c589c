"""The reader of :meth:`solvers.grammar.Grammar.read`: Lark's grammar syntax (the subset
``grammars/`` uses: rules and terminals with alternatives, aliases, groups, ``[...]``,
``? * +``, ``~ n`` / ``~ n..m``, string literals with the ``i`` flag, regular expressions,
priorities, ``?`` inlining; ``%`` directive lines kept verbatim; comments dropped), parsed by
Lark itself into grammar objects."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from solvers.errors import ResourceError
from solvers.grammar import Alt, Choice, Item, Lit, Pat, Ref, Rep, Rule, Seq

_META = r"""
start: _NL* ((definition | DIRECTIVE) _NL+)*
definition: INLINE? NAME priority? ":" alternatives
priority: "." INT
alternatives: alternative (_VBAR alternative)*
alternative: item* ("->" NAME)?
?item: atom
     | atom OP                  -> postfix
     | atom "~" INT (".." INT)? -> bounded
?atom: "(" alternatives ")"     -> group
     | "[" alternatives "]"     -> optional
     | STRING
     | REGEXP
     | NAME                     -> ref
INLINE: "?"
OP: /[+*?]/
INT: /[0-9]+/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
STRING: /"(\\"|\\\\|[^"\n])*?"i?/
REGEXP: /\/(?!\/)(\\\/|\\\\|[^\/\n])*?\/[imslux]*/
DIRECTIVE: /%[^\n]*/
_VBAR: /(\r?\n)+[ \t]*\|/ | "|"
_NL: /(\r?\n)+/
COMMENT: /[ \t]*\/\/[^\n]*/
%ignore COMMENT
%ignore /[ \t]+/
"""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}


def _unquote(token: str) -> Lit:
    insensitive = token.endswith("i")
    body = token[1:-2] if insensitive else token[1:-1]
    return Lit(
        re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body), insensitive
    )


def _alternatives(node: Any) -> Item:
    options = tuple(_alternative(a).item for a in node.children)
    return options[0] if len(options) == 1 else Choice(options)


def _alternative(node: Any) -> Alt:
    from lark import Token

    items, alias = list(node.children), None
    if items and isinstance(items[-1], Token) and items[-1].type == "NAME":
        alias = str(items.pop())  # a bare NAME at the end is the alias (refs are trees)
    parts = tuple(_item(i) for i in items)
    if not parts:
        raise ResourceError("empty alternatives are not supported")
    return Alt(parts[0] if len(parts) == 1 else Seq(parts), alias)


def _item(node: Any) -> Item:
    from lark import Token

    if isinstance(node, Token):
        if node.type == "STRING":
            return _unquote(str(node))
        if node.type == "REGEXP":
            body, _, flags = str(node)[1:].rpartition("/")
            return Pat(body, flags)
        raise ResourceError(f"unexpected token {node!r} in a grammar")
    kind = node.data
    if kind == "ref":
        return Ref(str(node.children[0]))
    if kind == "group":
        return _alternatives(node.children[0])
    if kind == "optional":
        return Rep(_alternatives(node.children[0]), 0, 1)
    if kind == "postfix":
        low, high = {"?": (0, 1), "*": (0, None), "+": (1, None)}[str(node.children[1])]
        return Rep(_item(node.children[0]), low, high)
    if kind == "bounded":
        numbers = [int(t) for t in node.children[1:]]
        return Rep(_item(node.children[0]), numbers[0], numbers[-1])
    raise ResourceError(f"unsupported grammar construct {kind!r}")


def _definition(node: Any) -> Rule:
    from lark import Token

    parts = list(node.children)
    inline = isinstance(parts[0], Token) and parts[0].type == "INLINE"
    if inline:
        parts.pop(0)
    name = str(parts.pop(0))
    priority = None
    if getattr(parts[0], "data", None) == "priority":
        priority = int(parts.pop(0).children[0])
    alts = tuple(_alternative(a) for a in parts[0].children)
    return Rule(name, alts, inline, priority)


@lru_cache(maxsize=1)
def meta_parser() -> Any:
    from lark import Lark, Transformer

    class _Build(Transformer):
        def definition(self, children):
            from lark import Tree

            return _definition(Tree("definition", children))

    return Lark(_META, parser="lalr", transformer=_Build())
