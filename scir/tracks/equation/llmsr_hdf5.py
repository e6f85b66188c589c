"""LLM-SRBench's HDF5 file (``lsr_bench_data.hdf5``) for ``scir import llmsr``.

Layout: one group per problem, ``/lsr_synth/<domain>/<problem>`` (domains ``chem_react``,
``bio_pop_growth``, ``phys_osc``, ``matsci``) or ``/lsr_transform/<problem>``, holding one 2-D
dataset per split -- ``train_data``, ``id_test_data``, ``ood_test_data`` (also read:
``train``, ``test``/``test_id``, ``ood_test``/``test_ood``) -- with the **output in column 0**
and the variables after it. The file has no names: they come from the problem table
(``--table``, :mod:`.llmsr_meta`), else from LLM-SRBench's own defaults for three domains
(``chem_react``: dA_dt, t, A; ``bio_pop_growth``: dP_dt, t, P; ``phys_osc``: dv_dt, x, t, v),
else ``x1 .. xk`` and ``y`` (noted). Every group is visited without recursion, at most
:data:`MAX_GROUP_DEPTH` levels deep; a dataset's shape and type are checked before it is read.
Needs h5py (the ``llmsr`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scir.errors import ConfigError, TaskFormatError
from scir.tasks import shorten
from scir.tracks.equation.formal import MAX_INPUTS, MAX_ROWS, SPLITS
from scir.tracks.equation.llmsr_meta import Table

MAX_GROUP_DEPTH = 16
# split -> the dataset names that hold it, LLM-SRBench's first
DATASETS = {
    "train": ("train_data", "train"),
    "test_id": ("id_test_data", "test_id", "id_test", "test"),
    "test_ood": ("ood_test_data", "test_ood", "ood_test"),
}
DEFAULT_SYMBOLS = {
    "chem_react": ["dA_dt", "t", "A"],
    "bio_pop_growth": ["dP_dt", "t", "P"],
    "phys_osc": ["dv_dt", "x", "t", "v"],
}
DEFAULT_DESCRIPTIONS = {
    "chem_react": [
        "Rate of change of concentration in chemistry reaction kinetics",
        "Time",
        "Concentration at time t",
    ],
    "bio_pop_growth": ["Population growth rate", "Time", "Population at time t"],
    "phys_osc": [
        "Acceleration in Non-linear Harmonic Oscillator",
        "Position at time t",
        "Time",
        "Velocity at time t",
    ],
}


@dataclass
class H5Problem:
    """One problem group: its path parts, the splits' arrays (output first) and notes."""

    parts: list[str]
    arrays: dict[str, Any]
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)


def _h5py() -> Any:
    try:
        import h5py
    except ImportError as exc:
        raise ConfigError(
            "reading LLM-SRBench's HDF5 file needs h5py (pip install h5py, or "
            "the project's `llmsr` extra)"
        ) from exc
    return h5py


def read_hdf5(path: Path) -> list[H5Problem]:
    """Every problem group of the HDF5 file at ``path``, in sorted path order, with its
    split arrays read (TaskFormatError naming the file and group for a malformed one)."""
    h5py = _h5py()
    where = str(path)
    try:
        handle = h5py.File(path, "r")
    except OSError as exc:
        raise TaskFormatError(f"not a readable HDF5 file: {exc}", file=where) from exc
    problems = []
    with handle:
        stack: list[tuple[Any, list[str]]] = [(handle, [])]
        while stack:
            group, parts = stack.pop()
            names = sorted(group.keys())
            datasets = [n for n in names if isinstance(group[n], h5py.Dataset)]
            groups = [n for n in names if isinstance(group[n], h5py.Group)]
            known = {alias for aliases in DATASETS.values() for alias in aliases}
            if any(n in known for n in datasets):
                problems.append(_problem(group, parts, datasets, where))
            if groups and len(parts) + 1 > MAX_GROUP_DEPTH:
                raise TaskFormatError(
                    f"groups nested more than {MAX_GROUP_DEPTH} levels deep", file=where
                )
            stack.extend((group[n], parts + [n]) for n in reversed(groups))
    return sorted(problems, key=lambda p: p.parts)


def _problem(group: Any, parts: list[str], datasets: list[str], where: str) -> H5Problem:
    import numpy as np

    problem = H5Problem(parts, {})
    used = set()
    for split in SPLITS:
        name = next((n for n in DATASETS[split] if n in datasets), None)
        if name is None:
            problem.missing.append(split)
            continue
        used.add(name)
        data = group[name]
        label = f"{where}:/{'/'.join(parts + [name])}"
        if len(data.shape) != 2 or not 2 <= data.shape[1] <= MAX_INPUTS + 1:
            raise TaskFormatError(
                f"expected a table of rows (2 to {MAX_INPUTS + 1} columns, "
                f"output first), got shape {data.shape}",
                file=label,
            )
        if not 1 <= data.shape[0] <= MAX_ROWS:
            raise TaskFormatError(f"expected 1 to {MAX_ROWS} rows, got {data.shape[0]}", file=label)
        if data.dtype.kind not in "fiu":
            raise TaskFormatError(f"expected numbers, got {data.dtype}", file=label)
        problem.arrays[split] = np.asarray(data[...], dtype=np.float64)
    problem.extra = [n for n in datasets if n not in used]
    return problem


def names_of(
    problem: H5Problem, table: Table | None
) -> tuple[str, list[str], dict[str, str], str, str]:
    """(output, inputs, descriptions, ground-truth expression, note) of a problem group:
    from the table, else the domain's defaults, else generic names."""
    width = next(iter(problem.arrays.values())).shape[1]
    domain = problem.parts[-2] if len(problem.parts) >= 2 else ""
    name = problem.parts[-1] if problem.parts else ""
    entry = table.find(domain, name) if table is not None else None
    if entry is not None:
        output, inputs, descs = entry.columns(width)
        return output, inputs, descs, entry.expression, ""
    note = "" if table is None else f"{shorten(name)} is not in the problem table; "
    symbols = DEFAULT_SYMBOLS.get(domain)
    if symbols is not None and len(symbols) == width:
        descs = dict(zip(symbols, DEFAULT_DESCRIPTIONS[domain]))
        return symbols[0], symbols[1:], descs, "", note + f"{domain}'s default names"
    inputs = [f"x{i}" for i in range(1, width)]
    return "y", inputs, {}, "", note + "no names known: x1 .. xk and y (give --table)"


__all__ = ["DATASETS", "DEFAULT_SYMBOLS", "H5Problem", "names_of", "read_hdf5"]
