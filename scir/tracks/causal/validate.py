"""Checking a causal record when its file is read (``CausalTrack.validate_formal``).

The options are edge lists (:func:`options.parse_option`), at most ``MAX_OPTIONS``; the answer
is the letter of one of them and the pool is ``[answer]``; the formal object has the shapes the
solvers read (:func:`solve.dataset`, the one reader of it: names, known edges, environments with
targets and numeric rows of one value per column) plus ``xyz_edges`` as ``[from, to]`` pairs;
the proteins in ``domain_metadata`` are checked by :func:`formalize.task_nodes`. Sizes are
bounded; other keys are allowed.
"""

from __future__ import annotations


from scir.errors import SolverInputError
from scir.tracks.shapes import bounded_list as _bounded, fail as _fail
from scir.tasks import Task, shorten
from scir.tracks.causal.formalize import task_nodes
from scir.tracks.causal.graph import NEW_PROTEIN
from scir.tracks.causal.options import LETTERS, MAX_OPTIONS, parse_option
from scir.tracks.causal.solve import dataset

MAX_NODES = 64               # Sachs has 11 proteins, plus XYZ
MAX_ENVIRONMENTS = 64
MAX_ROWS = 100_000           # rows per environment (the default is 16)
MAX_OPTION_CHARS = 2000


def validate(task: Task) -> None:
    """Check a causal record's options, answer, pool and formal object (TaskFormatError
    naming the field)."""
    if not 1 <= len(task.options) <= MAX_OPTIONS:
        raise _fail(f"expected 1 to {MAX_OPTIONS} options (letters A..T)", "options")
    for i, text in enumerate(task.options):
        if len(text) > MAX_OPTION_CHARS:
            raise _fail(f"option {i} is longer than {MAX_OPTION_CHARS} characters", "options")
        parse_option(text, index=i)
    letters = LETTERS[:len(task.options)]
    if task.answer not in letters:
        raise _fail(f"expected an option letter A..{letters[-1]}, got {shorten(task.answer)}",
                    "answer")
    if task.answer_pool != [task.answer]:
        raise _fail(f"must be [{task.answer!r}] (the answer alone)", "answer_pool")
    formal = task.formal
    _bounded(formal.get("nodes"), "formal.nodes", MAX_NODES)
    for i, env in enumerate(_bounded(formal.get("environments"), "formal.environments",
                                     MAX_ENVIRONMENTS)):
        if isinstance(env, dict) and "rows" in env:
            _bounded(env["rows"], f"formal.environments[{i}].rows", MAX_ROWS)
    new = task.domain_metadata.get("new_protein", NEW_PROTEIN)
    if not isinstance(new, str) or not new:
        raise _fail("expected a protein name", "domain_metadata.new_protein")
    try:
        data = dataset(formal, new_protein=new)
    except SolverInputError as exc:
        raise _fail(exc.message, exc.field or "formal") from exc
    names = {n.casefold() for n in data.names}
    for i, edge in enumerate(_bounded(formal.get("xyz_edges"), "formal.xyz_edges", MAX_NODES)):
        if not (isinstance(edge, list) and len(edge) == 2
                and all(isinstance(v, str) and v.casefold() in names for v in edge)):
            raise _fail("expected a [from, to] pair of the task's proteins",
                        f"formal.xyz_edges[{i}]")
    task_nodes(task)
