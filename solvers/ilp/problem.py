"""An ILP learning problem (:class:`IlpProblem`) and the reader of Popper-format folders:
``bk.pl`` (background knowledge, consulted as trusted Prolog), ``exs.pl`` (``pos(Atom).`` /
``neg(Atom).``, read and kept by Prolog through ``prolog/ilp_read.pl``: only counts and
warnings cross to Python) and ``bias.pl`` (see :mod:`solvers.ilp.bias`).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from solvers.errors import SolverInputError
from solvers.ilp.bias import IlpBias, read_bias


class IlpProblem:
    """Everything a learning run needs.

    ``pos`` / ``neg`` are argument tuples of the head predicate (``("ann", "bob")`` for
    ``grandparent(ann, bob)``); values are ``str`` (atoms), ``int``/``float``, tuples (Prolog
    lists) or :class:`solvers.prolog.Term`. ``bk_facts`` maps a predicate name to its rows;
    ``bk_files`` are trusted Prolog files consulted as background knowledge.

    A problem read from a folder (:func:`load_problem`) keeps its examples in Prolog
    (``examples``, an :class:`ExampleStore`); its ``pos`` / ``neg`` are then fetched into
    Python only when asked for. ``n_pos`` / ``n_neg`` never fetch.
    """

    def __init__(
        self,
        bias: IlpBias,
        pos: Sequence[Any] = (),
        neg: Sequence[Any] = (),
        bk_facts: dict[str, list[tuple]] | None = None,
        bk_files: Sequence[Path | str] = (),
        name: str = "problem",
        examples: ExampleStore | None = None,
    ) -> None:
        self.bias = bias
        self.bk_facts = dict(bk_facts or {})
        self.bk_files = [Path(p) for p in bk_files]
        self.name = name
        self.examples = examples
        if examples is not None:
            if pos or neg:
                raise SolverInputError("give the examples either as pos/neg or as a store")
            if examples.head != bias.head_pred:
                raise SolverInputError(
                    f"the examples are of {examples.head}, the bias head is {bias.head_pred}"
                )
            self._pos: list[tuple] | None = None
            self._neg: list[tuple] | None = None
            if not examples.n_pos:
                raise SolverInputError(
                    f"problem {name!r} has no positive example", file=str(examples.path)
                )
            return
        arity = bias.head_pred[1]
        if not pos:
            raise SolverInputError(f"problem {name!r} has no positive example")
        self._pos = [_example_args(e) for e in pos]
        self._neg = [_example_args(e) for e in neg]
        for kind, rows in (("positive", self._pos), ("negative", self._neg)):
            for args in rows:
                if len(args) != arity:
                    raise SolverInputError(
                        f"{kind} example {args!r} has {len(args)} arguments; "
                        f"the head {bias.head_pred[0]} has {arity}"
                    )

    @property
    def pos(self) -> list[tuple]:
        """The positive examples as argument tuples (fetched from the store on first use)."""
        if self._pos is None:
            assert self.examples is not None
            self._pos = self.examples.rows("pos")
        return self._pos

    @property
    def neg(self) -> list[tuple]:
        """The negative examples as argument tuples (fetched from the store on first use)."""
        if self._neg is None:
            assert self.examples is not None
            self._neg = self.examples.rows("neg")
        return self._neg

    @property
    def n_pos(self) -> int:
        """The number of positive examples."""
        return self.examples.n_pos if self._pos is None and self.examples else len(self.pos)

    @property
    def n_neg(self) -> int:
        """The number of negative examples."""
        return self.examples.n_neg if self._neg is None and self.examples else len(self.neg)

    def __repr__(self) -> str:
        return (
            f"IlpProblem(name={self.name!r}, head={self.bias.head_pred}, "
            f"pos={self.n_pos}, neg={self.n_neg})"
        )


class SkippedExampleWarning(UserWarning):
    """A term of an examples file that does not read was skipped (as Popper's consult does)."""


class ExampleStore:
    """The examples of an ``exs.pl``, read and held by Prolog in a module of their own
    (``ilp_example(pos|neg, Id, Atom)`` facts, ids from 0 per kind in file order, see
    ``prolog/ilp_read.pl``); only the counts and the warnings are in Python. A
    :class:`~solvers.ilp.tester.Tester` copies the facts into its module inside Prolog.
    The module is removed by :meth:`close` or when the store is garbage-collected."""

    def __init__(self, path: Path | str, head: tuple[str, int], engine: Any = None) -> None:
        self.path = Path(path)
        self.head = head
        self.engine = engine or default_engine()
        module = self.engine.module("scir_ilp_exs_")
        self._module = module
        self._finalizer = weakref.finalize(self, _close_quietly, module)
        self._finalizer.atexit = False
        try:
            module.consult("ilp_read")
            answer = module.query_once(
                "ilp_load_examples(File, Head, Arity, Result)",
                {"File": str(self.path.resolve()), "Head": head[0], "Arity": head[1]},
            )
        except BaseException:
            self.close()
            raise
        result = answer["Result"] if answer else None
        if result is None or result.name == "error":
            self.close()
            line, message = result.args if result is not None else (0, "the loader failed")
            raise SolverInputError(str(message), file=str(self.path), line=line or None)
        n_pos, n_neg, warnings_ = result.args
        self.n_pos: int = int(n_pos)
        self.n_neg: int = int(n_neg)
        self.warnings: list[tuple[int, str]] = [(int(w.args[0]), str(w.args[1])) for w in warnings_]
        for line, message in self.warnings:
            warnings.warn(f"{self.path}:{line}: {message}", SkippedExampleWarning, stacklevel=3)

    @property
    def module_name(self) -> str:
        """The Prolog module holding the ``ilp_example/3`` facts."""
        return self._module.name

    def rows(self, kind: str) -> list[tuple]:
        """The argument tuples of the ``kind`` (``pos`` / ``neg``) examples, in id order."""
        answer = self._module.query_once("ilp_examples(Kind, Atoms)", {"Kind": kind})
        atoms = answer["Atoms"] if answer else []
        return [tuple(a.args) if hasattr(a, "args") else () for a in atoms]

    def example(self, kind: str, index: int) -> tuple | None:
        """The argument tuple of example ``index`` of ``kind`` (``None`` if there is none)."""
        answer = self._module.query_once(
            "ilp_example(Kind, Id, Atom)", {"Kind": kind, "Id": int(index)}
        )
        if answer is None:
            return None
        atom = answer["Atom"]
        return tuple(atom.args) if hasattr(atom, "args") else ()

    def close(self) -> None:
        """Remove the module (idempotent)."""
        self._finalizer()


def _close_quietly(module: Any) -> None:
    try:
        module.close()
    except Exception:  # the process may be shutting down; the module dies with it
        pass


def _example_args(example: Any) -> tuple:
    return tuple(example) if isinstance(example, (tuple, list)) else (example,)


@lru_cache(maxsize=1)
def default_engine():
    """The process's shared :class:`solvers.prolog.Engine` (created on first use)."""
    from solvers.prolog import Engine

    return Engine()


def load_problem(folder: Path | str, engine: Any = None) -> IlpProblem:
    """Read a Popper-format folder (``bk.pl``, ``exs.pl``, ``bias.pl``) into an
    :class:`IlpProblem` whose examples stay in Prolog (an :class:`ExampleStore`). Malformed
    files raise :class:`SolverInputError` with file and line; an ``exs.pl`` term that does
    not read is skipped with a :class:`SkippedExampleWarning`."""
    folder = check_folder(folder)
    from concurrent.futures import ThreadPoolExecutor

    # clingo reads the bias while SWI-Prolog starts (both release the GIL in their C code:
    # a tenth of a second less before a search, 10-20% of a small problem's run)
    with ThreadPoolExecutor(1, thread_name_prefix="ilp-bias") as pool:
        reading = pool.submit(read_bias, folder / "bias.pl")
        engine = engine or default_engine()
        bias = reading.result()
    return load_examples(folder, bias, engine)


def check_folder(folder: Path | str) -> Path:
    """``folder`` as a Path, checked to hold ``bk.pl``, ``exs.pl`` and ``bias.pl``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SolverInputError(f"not a folder: {folder}", file=str(folder))
    for name in ("bk.pl", "exs.pl", "bias.pl"):
        if not (folder / name).is_file():
            raise SolverInputError(f"missing {name} in the problem folder", file=str(folder / name))
    return folder


def load_examples(folder: Path, bias: IlpBias, engine: Any) -> IlpProblem:
    """The problem of a checked folder whose bias is read: its examples loaded into an
    :class:`ExampleStore` of ``engine``, ``bk.pl`` to be consulted by the tester."""
    store = ExampleStore(folder / "exs.pl", bias.head_pred, engine)
    return IlpProblem(bias=bias, bk_files=[folder / "bk.pl"], name=folder.name, examples=store)


def read_examples(
    path: Path | str, bias: IlpBias, engine: Any = None
) -> tuple[list[tuple], list[tuple]]:
    """The positive and negative examples of an ``exs.pl`` file as argument tuples (the slow
    path: every example crosses to Python)."""
    store = ExampleStore(path, bias.head_pred, engine)
    try:
        return store.rows("pos"), store.rows("neg")
    finally:
        store.close()
