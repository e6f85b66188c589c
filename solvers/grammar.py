"""Grammars as structures: rules of alternatives of items, rendered to Lark text.

One :class:`Grammar` serves both sides of a formalization: :meth:`Grammar.to_lark` is the
text given to Outlines / llguidance as the decoding constraint, and :meth:`Grammar.parser` is
the Lark parser of that same text, so what the decoder was allowed to write is what is parsed.
Per-task grammars are built from these objects (or read from ``grammars/*.lark`` with
:meth:`Grammar.read` and edited rule by rule with :meth:`Grammar.replace`), never by editing
grammar text with regular expressions.

Items: :class:`Lit` (a string literal), :class:`Pat` (a regular expression), :class:`Ref` (a
rule or terminal by name), :class:`Seq`, :class:`Choice` (an inline group ``(a | b)``) and
:class:`Rep` (``x ~ low..high``; ``high=None`` is unbounded). A :class:`Rule` is a list of
:class:`Alt` (an item, with an optional Lark alias ``-> name``); rules named in upper case are
terminals. :meth:`Grammar.read` understands this subset of Lark (plus ``%`` directive lines
kept as they are), which is all that ``grammars/`` uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from dataclasses import replace as _replace
from functools import lru_cache
from typing import Any

from solvers.errors import ResourceError


@dataclass(frozen=True)
class Lit:
    """A string literal (``insensitive``: Lark's ``"..."i``)."""

    text: str
    insensitive: bool = False


@dataclass(frozen=True)
class Pat:
    """A regular expression as Lark writes it between slashes, with its flags."""

    pattern: str
    flags: str = ""


@dataclass(frozen=True)
class Ref:
    """A rule or terminal, by name."""

    name: str


@dataclass(frozen=True)
class Seq:
    """Items one after the other."""

    items: tuple[Item, ...]


@dataclass(frozen=True)
class Choice:
    """An inline group of alternatives, ``(a | b)``."""

    options: tuple[Item, ...]


@dataclass(frozen=True)
class Rep:
    """``item`` repeated ``low``..``high`` times (``high`` None: unbounded)."""

    item: Item
    low: int
    high: int | None


Item = Lit | Pat | Ref | Seq | Choice | Rep


@dataclass(frozen=True)
class Alt:
    """One alternative of a rule, with an optional alias (the tree node's name)."""

    item: Item
    alias: str | None = None


@dataclass(frozen=True)
class Rule:
    """``name: alt | alt ...``; ``inline`` is Lark's ``?name`` (inlined with one child)."""

    name: str
    alts: tuple[Alt, ...]
    inline: bool = False
    priority: int | None = None

    @property
    def terminal(self) -> bool:
        """Whether the rule is a terminal (an upper-case name, optionally ``_``-prefixed)."""
        return self.name.lstrip("_")[:1].isupper()


def rule(name: str, *alts: Item | Alt, inline: bool = False) -> Rule:
    """A :class:`Rule` from items (or :class:`Alt`) -- the common way to build one."""
    return Rule(name, tuple(a if isinstance(a, Alt) else Alt(a) for a in alts), inline)


def seq(*items: Item | str) -> Item:
    """A :class:`Seq` of items, strings taken as literals (one item stays itself)."""
    parts = tuple(Lit(i) if isinstance(i, str) else i for i in items)
    return parts[0] if len(parts) == 1 else Seq(parts)


def rep(item: Item, low: int, high: int | None) -> Item:
    """``item`` repeated ``low``..``high`` times (``item`` itself for exactly once)."""
    return item if (low, high) == (1, 1) else Rep(item, low, high)


def literals(names: Any) -> Choice | Lit:
    """One literal per name (sorted, each once), as alternatives."""
    options = tuple(Lit(n) for n in sorted(set(names)))
    if not options:
        raise ResourceError("a grammar rule needs at least one name")
    return options[0] if len(options) == 1 else Choice(options)


def lark_literal(text: str, insensitive: bool = False) -> str:
    """``text`` as a Lark string literal (backslash, quote and control characters escaped)."""
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\t", "\\t")
        .replace("\r", "\\r")
    )
    return f'"{escaped}"' + ("i" if insensitive else "")


def render(item: Item, nested: bool = False) -> str:
    """An item as Lark text (``nested``: inside a sequence or a repetition)."""
    if isinstance(item, Lit):
        return lark_literal(item.text, item.insensitive)
    if isinstance(item, Pat):
        return f"/{item.pattern}/{item.flags}"
    if isinstance(item, Ref):
        return item.name
    if isinstance(item, Seq):
        text = " ".join(render(i, True) for i in item.items)
        return f"({text})" if nested else text
    if isinstance(item, Choice):
        return "(" + " | ".join(render(o) for o in item.options) + ")"
    if isinstance(item, Rep):
        inner = render(item.item, True)
        if isinstance(item.item, Rep):
            inner = f"({inner})"
        low, high = item.low, item.high
        if high is None and low > 1:
            return render(Seq((Rep(item.item, low, low), Rep(item.item, 0, None))), nested)
        if high is None:
            return inner + ("*" if low == 0 else "+")
        if (low, high) == (0, 1):
            return inner + "?"
        return inner + (f" ~ {low}" if low == high else f" ~ {low}..{high}")
    raise TypeError(f"not a grammar item: {item!r}")


def _render_rule(r: Rule) -> str:
    head = ("?" if r.inline else "") + r.name + (f".{r.priority}" if r.priority else "")
    if len(r.alts) == 1 and isinstance(r.alts[0].item, Choice) and not r.alts[0].alias:
        return f"{head}: " + " | ".join(render(o) for o in r.alts[0].item.options)
    alts = [render(a.item) + (f" -> {a.alias}" if a.alias else "") for a in r.alts]
    return f"{head}: " + "\n    | ".join(alts)


def children(item: Item) -> Iterator[Item]:
    """The items directly inside ``item``."""
    if isinstance(item, Seq):
        yield from item.items
    elif isinstance(item, Choice):
        yield from item.options
    elif isinstance(item, Rep):
        yield item.item


def _refs(item: Item) -> Iterator[str]:
    if isinstance(item, Ref):
        yield item.name
    for c in children(item):
        yield from _refs(c)


def _map(item: Item, fn) -> Item:
    """``item`` with ``fn`` applied bottom-up to every item."""
    if isinstance(item, Seq):
        item = Seq(tuple(_map(i, fn) for i in item.items))
    elif isinstance(item, Choice):
        item = Choice(tuple(_map(o, fn) for o in item.options))
    elif isinstance(item, Rep):
        item = Rep(_map(item.item, fn), item.low, item.high)
    return fn(item)


@dataclass(frozen=True)
class Grammar:
    """A Lark grammar as rules (in order; ``start`` first by convention), ``%`` directive
    lines, and a comment printed above them."""

    rules: tuple[Rule, ...]
    directives: tuple[str, ...] = ()
    comment: str = ""
    start: str = "start"
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = [r.name for r in self.rules]
        duplicate = sorted({n for n in names if names.count(n) > 1})
        if duplicate:
            raise ResourceError(f"grammar rule {duplicate[0]!r} is defined twice")
        self._index.update({r.name: r for r in self.rules})

    # ---- reading and editing -------------------------------------------------------------
    @classmethod
    def read(cls, text: str, origin: str = "<grammar>") -> Grammar:
        """A grammar from Lark text (the subset described in the module doc); comments are
        dropped. ResourceError with line and column if the text is outside that subset."""
        from lark.exceptions import UnexpectedInput

        from solvers.grammar_reader import meta_parser

        try:
            tree = meta_parser().parse(text if text.endswith("\n") else text + "\n")
        except UnexpectedInput as exc:
            raise ResourceError(
                f"{origin}: not a grammar this reader understands: {str(exc).splitlines()[0]}",
                file=origin,
                line=getattr(exc, "line", None),
                column=getattr(exc, "column", None),
            ) from exc
        rules, directives = [], []
        for node in tree.children:
            if isinstance(node, Rule):
                rules.append(node)
            else:
                directives.append(str(node).strip())
        return cls(tuple(rules), tuple(directives))

    def __contains__(self, name: str) -> bool:
        return name in self._index

    def __getitem__(self, name: str) -> Rule:
        try:
            return self._index[name]
        except KeyError:
            raise ResourceError(f"the grammar has no rule {name!r}") from None

    def replace(self, *rules: Rule, comment: str | None = None) -> Grammar:
        """This grammar with ``rules`` in place of the rules of the same names (new names are
        added at the end), then without the rules no longer reachable from ``start``."""
        new = {r.name: r for r in rules}
        kept = [new.pop(r.name, r) for r in self.rules]
        return Grammar(
            tuple(kept) + tuple(new.values()),
            self.directives,
            self.comment if comment is None else comment,
            self.start,
        ).pruned()

    def pruned(self) -> Grammar:
        """Without the rules that neither ``start`` nor a directive reaches."""
        seen, todo = (
            set(),
            [self.start] + [w for d in self.directives for w in re.findall(r"[A-Za-z_]\w*", d)],
        )
        while todo:
            name = todo.pop()
            if name in seen or name not in self._index:
                continue
            seen.add(name)
            todo.extend(n for a in self._index[name].alts for n in _refs(a.item))
        return Grammar(
            tuple(r for r in self.rules if r.name in seen),
            self.directives,
            self.comment,
            self.start,
        )

    def unbounded(self) -> Grammar:
        """The same grammar with every bounded repetition made unbounded (``~ 1..n`` becomes
        ``+``): the parsing variant of a decoding grammar whose only bounds are counts."""

        def open_(item: Item) -> Item:
            return Rep(item.item, item.low, None) if isinstance(item, Rep) else item

        rules = tuple(
            _replace(r, alts=tuple(Alt(_map(a.item, open_), a.alias) for a in r.alts))
            for r in self.rules
        )
        return Grammar(rules, self.directives, self.comment, self.start)

    # ---- rendering and parsing -----------------------------------------------------------
    def to_lark(self) -> str:
        """The grammar as Lark text (the decoding constraint)."""
        head = "".join(f"// {line}".rstrip() + "\n" for line in self.comment.splitlines())
        body = "\n".join(_render_rule(r) for r in self.rules)
        tail = "".join(f"\n{d}" for d in self.directives)
        return head + body + tail + "\n"

    def __str__(self) -> str:
        return self.to_lark()

    def parser(self, **options: Any) -> Any:
        """The Lark parser of :meth:`to_lark` (LALR with positions unless ``options`` say
        otherwise), cached per grammar text."""
        merged = {"parser": "lalr", "propagate_positions": True, **options}
        return _lark(self.to_lark(), self.start, tuple(sorted(merged.items())))

    def parse(self, text: str, **options: Any) -> Any:
        """The Lark parse tree of ``text`` (Lark's ``UnexpectedInput`` if it does not parse)."""
        return self.parser(**options).parse(text)


@lru_cache(maxsize=512)
def _lark(text: str, start: str, options: tuple) -> Any:
    from lark import Lark

    return Lark(text, start=start, **dict(options))


__all__ = [
    "Alt",
    "Choice",
    "Grammar",
    "Item",
    "Lit",
    "Pat",
    "Ref",
    "Rep",
    "Rule",
    "Seq",
    "children",
    "lark_literal",
    "literals",
    "render",
    "rep",
    "rule",
    "seq",
]
