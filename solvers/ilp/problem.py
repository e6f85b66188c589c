"""An ILP learning problem (:class:`IlpProblem`) and the reader of Popper-format folders:
``bk.pl`` (background knowledge, consulted as trusted Prolog), ``exs.pl`` (``pos(Atom).`` /
``neg(Atom).``, read term by term with Prolog's reader through ``prolog/ilp_read.pl``) and
``bias.pl`` (see :mod:`solvers.ilp.bias`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from solvers.errors import SolverInputError
from solvers.ilp.bias import IlpBias, read_bias

# Directives tolerated (and ignored) in an examples file.
_HARMLESS_DIRECTIVES = ("discontiguous", "dynamic")


@dataclass
class IlpProblem:
    """Everything a learning run needs.

    ``pos`` / ``neg`` are argument tuples of the head predicate (``("ann", "bob")`` for
    ``grandparent(ann, bob)``); values are ``str`` (atoms), ``int``/``float``, tuples (Prolog
    lists) or :class:`solvers.prolog.Term`. ``bk_facts`` maps a predicate name to its rows;
    ``bk_files`` are trusted Prolog files consulted as background knowledge.
    """

    bias: IlpBias
    pos: list[tuple]
    neg: list[tuple]
    bk_facts: dict[str, list[tuple]] = field(default_factory=dict)
    bk_files: list[Path] = field(default_factory=list)
    name: str = "problem"

    def __post_init__(self) -> None:
        arity = self.bias.head_pred[1]
        if not self.pos:
            raise SolverInputError(f"problem {self.name!r} has no positive example")
        self.pos = [_example_args(e) for e in self.pos]
        self.neg = [_example_args(e) for e in self.neg]
        for kind, examples in (("positive", self.pos), ("negative", self.neg)):
            for args in examples:
                if len(args) != arity:
                    raise SolverInputError(f"{kind} example {args!r} has {len(args)} arguments; "
                                           f"the head {self.bias.head_pred[0]} has {arity}")
        self.bk_files = [Path(p) for p in self.bk_files]


def _example_args(example: Any) -> tuple:
    return tuple(example) if isinstance(example, (tuple, list)) else (example,)


@lru_cache(maxsize=1)
def default_engine():
    """The process's shared :class:`solvers.prolog.Engine` (created on first use)."""
    from solvers.prolog import Engine

    return Engine()


def load_problem(folder: Path | str, engine: Any = None) -> IlpProblem:
    """Read a Popper-format folder (``bk.pl``, ``exs.pl``, ``bias.pl``) into an
    :class:`IlpProblem`. Malformed files raise :class:`SolverInputError` with file and line."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SolverInputError(f"not a folder: {folder}", file=str(folder))
    for name in ("bk.pl", "exs.pl", "bias.pl"):
        if not (folder / name).is_file():
            raise SolverInputError(f"missing {name} in the problem folder", file=str(folder / name))
    bias = read_bias(folder / "bias.pl")
    pos, neg = read_examples(folder / "exs.pl", bias, engine)
    return IlpProblem(bias=bias, pos=pos, neg=neg, bk_files=[folder / "bk.pl"],
                      name=folder.name)


def read_examples(path: Path | str, bias: IlpBias, engine: Any = None
                  ) -> tuple[list[tuple], list[tuple]]:
    """The positive and negative examples of an ``exs.pl`` file as argument tuples."""
    from solvers.prolog import Term, Var

    path = Path(path)
    engine = engine or default_engine()
    with engine.module() as module:
        module.consult("ilp_read")
        answer = module.query_once("ilp_read_terms(File, Items)", {"File": str(path.resolve())})
    items = answer["Items"] if answer else []
    head, arity = bias.head_pred
    pos: list[tuple] = []
    neg: list[tuple] = []
    for item in items:
        line, value = item.args
        if item.name == "error":
            raise SolverInputError(str(value), file=str(path), line=line or None)

        def fail(message: str) -> SolverInputError:
            return SolverInputError(message, file=str(path), line=line)

        if isinstance(value, Term) and value.name == ":-" and len(value.args) == 1:
            directive = value.args[0]
            if isinstance(directive, Term) and directive.name in _HARMLESS_DIRECTIVES:
                continue
            raise fail(f"unsupported directive {directive} in an examples file")
        if not (isinstance(value, Term) and value.name in ("pos", "neg") and len(value.args) == 1):
            raise fail(f"expected pos(Atom) or neg(Atom), got {value}")
        atom = value.args[0]
        name, args = (atom, ()) if isinstance(atom, str) else (
            (atom.name, atom.args) if isinstance(atom, Term) else (None, ()))
        if name != head or len(args) != arity:
            raise fail(f"example {atom} is not an atom of the head predicate {head}/{arity}")
        if _has_var(args, Var):
            raise fail(f"example {atom} is not ground")
        (pos if value.name == "pos" else neg).append(tuple(args))
    return pos, neg


def _has_var(value: Any, var_type: type) -> bool:
    if isinstance(value, var_type):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_var(v, var_type) for v in value)
    args = getattr(value, "args", None)
    return isinstance(args, tuple) and any(_has_var(v, var_type) for v in args)
