"""SWI-Prolog for the toolkit: one ``Engine`` behind janus-swi or pyswip, fresh temporary
modules, data passed as terms and bindings (never pasted into goal text).

    >>> from solvers.prolog import Engine, Term, Var
    >>> eng = Engine()                                               # doctest: +SKIP
    >>> with eng.module() as m:                                      # doctest: +SKIP
    ...     m.add_facts("edge", [("a", "b"), ("b", "c")])
    ...     m.query("edge(X, Y)", {"X": "a"})
    [{'Y': 'b'}]
"""

from solvers.prolog.engine import (
    BRIDGES,
    ENV_VAR,
    Engine,
    PrologModule,
    available_bridges,
    select_bridge,
)
from solvers.prolog.terms import Term, Var

__all__ = [
    "BRIDGES",
    "ENV_VAR",
    "Engine",
    "PrologModule",
    "Term",
    "Var",
    "available_bridges",
    "select_bridge",
]
