"""``scir import llmsr``: LLM-SR / LSR-Synth / LLM-SRBench problems read into equation tasks.

Two sources. **A folder**: every folder under it (the root itself included, at any depth)
holding ``train.csv``, ``test_id.csv`` and ``test_ood.csv`` is a problem: a header line of
variable names (a UTF-8 byte-order mark, as LSR-Synth's copies have, is dropped), the target
in the LAST column, one row of numbers per line, the same header in all three files. A folder
with only some of the three is skipped with the reason; other ``.csv`` files are ignored with
a note. **An HDF5 file** (``.hdf5``/``.h5``): LLM-SRBench's ``lsr_bench_data.hdf5``
(:mod:`.llmsr_hdf5`), names and ground truths from its problem table (``--table``,
:mod:`.llmsr_meta`).

The ground truth is read from ``equation.json`` (``{"expression": ...}``, or ``{"skeleton":
..., "constants": [...]}``, or both) or else ``equation.txt`` (the first line that is neither
empty nor a ``#`` comment; a left-hand side ``y =`` is dropped), else the table's
``expression``. A problem without one -- LLM-SR's own data folders ship none -- is imported
all the same: ``formal.expression`` is "", the answer "" and its pool empty, and its symbolic
accuracy is "n/a" (Acc_tau and NMSE need no ground truth). Variable descriptions come from
the table or from LLM-SR's specification files under the root (``specification_<problem>_
numpy.txt``) and go into the task text.

The science is ``--science`` or the first path part (from the root's own name down) that
names one: ``chemistry``/``chem_react``, ``biology``/``bio_pop_growth``/``bactgrow``,
``physics``/``phys_osc``/``oscillator``/``lsr_transform``, ``materials``/``matsci``/
``stressstrain`` (prefixes of a name count, e.g. ``oscillator1``); that part is recorded as
the problem's ``domain`` (``domain_metadata``: ``science``, ``domain``, ``problem``,
``source``, ``ground_truth``).

Values are rounded to ``SIG_Y`` significant digits as they are read (the printed precision);
the ranges are the data's: ``id`` the min/max over train and test_id, ``ood`` over test_ood.
Folders are visited in sorted order (task ``i`` is the i-th problem) without recursion, at
most :data:`MAX_FOLDER_DEPTH` levels below the root; symbolic links are not followed, and every
file read must lie inside the root once resolved; ``equation.json`` nests at most
:data:`.llmsr_files.MAX_TRUTH_DEPTH` levels; a folder's name is stored as text
(``domain_metadata.source``), never used to build a path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scir.bounded import walk_folders
from scir.errors import ConfigError, ScirError, TaskFormatError
from scir.tasks import Task, shorten
from scir.tracks.equation.formal import MAX_DESCRIPTION, SCIENCES, SPLITS, EquationFormal, Split
from scir.tracks.equation.llmsr_files import blank, ground_truth, inside, read_csv
from scir.tracks.equation.llmsr_hdf5 import names_of, read_hdf5
from scir.tracks.equation.llmsr_meta import Table, clean_symbol, read_spec, read_table, spec_files
from scir.tracks.equation.numeric import SIG_Y, equation, right_side, rounded

FILES = {"train": "train.csv", "test_id": "test_id.csv", "test_ood": "test_ood.csv"}
TIER = "llmsr"
HDF5_SUFFIXES = (".hdf5", ".h5")
MAX_FOLDER_DEPTH = 32  # folders below the root (LLM-SR's layout uses 2)
ALIASES = {
    "chemistry": ("chemistry", "chem_react", "chem"),
    "biology": ("biology", "bio_pop_growth", "bactgrow", "bio"),
    "physics": ("physics", "phys_osc", "oscillator", "phys", "lsr_transform", "feynman"),
    "materials": ("materials", "matsci", "stressstrain", "material"),
}


@dataclass
class Imported:
    """What an import produced: the tasks, the problems skipped (source, reason) and notes on
    the ones imported (source, note: a file ignored, names or ground truth not found)."""

    tasks: list[Task]
    skipped: list[tuple[str, str]]
    notes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Problem:
    """One problem as read, before it becomes a formal object: where it came from (``source``
    and the path ``parts`` from the root's own name down), its columns, its rows per split
    (target last), its ground truth (None: not known) and what its source says about it."""

    source: str
    parts: list[str]
    inputs: list[str]
    output: str
    rows: dict[str, list[list[float]]]
    truth: tuple[str, str, list[float]] | None
    context: str = ""
    descriptions: dict[str, str] = field(default_factory=dict)


def problem_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` (itself included) with at least one split file
    (``train.csv``, ``test_id.csv``, ``test_ood.csv``), sorted by relative path; symbolic
    links to folders are not followed, and a tree deeper than :data:`MAX_FOLDER_DEPTH` is a
    ConfigError naming the folder."""
    found = [
        folder
        for folder, files in walk_folders(root, MAX_FOLDER_DEPTH, ConfigError)
        if set(FILES.values()) & set(files)
    ]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def science_part(parts: list[str]) -> tuple[str, str] | None:
    """(science, the path part that names it) for the first part, from the top down, that
    starts with one of :data:`ALIASES`; None when none does."""
    for part in parts:
        low = part.casefold()
        for science, names in ALIASES.items():
            if any(low.startswith(n) for n in names):
                return science, part
    return None


def science_of(root: Path, folder: Path, given: str | None) -> str:
    """The science of a problem folder (``given``, else from its path; ConfigError)."""
    return _science([root.name] + list(folder.relative_to(root).parts), given, str(folder))


def _science(parts: list[str], given: str | None, where: str) -> str:
    if given is not None:
        return given
    found = science_part(parts)
    if found is None:
        raise ConfigError(
            f"cannot tell the science of {shorten(where)} from its path "
            f"(no part starts with a known domain name, e.g. chem_react, "
            f"bio_pop_growth, phys_osc, matsci, oscillator, bactgrow, "
            f"stressstrain); give --science ({', '.join(SCIENCES)})",
            field="science",
        )
    return found[0]


def _folder_problem(
    root: Path, folder: Path, table: Table | None, specs: dict[str, Path]
) -> Problem:
    """A complete problem folder as read (TaskFormatError for a malformed file)."""
    data = {}
    header = None
    for split in SPLITS:
        path = folder / FILES[split]
        names, rows = read_csv(root, path)
        if header is not None and names != header:
            raise TaskFormatError(
                f"the header {names} differs from train.csv's {header}", file=str(path), line=1
            )
        header = names
        data[split] = rows
    assert header is not None  # SPLITS is not empty: the loop read every split's header
    inputs, output = header[:-1], header[-1]
    equation("0", inputs)  # the names are usable in an equation
    parts = [root.name] + list(folder.relative_to(root).parts)
    problem = Problem(
        folder.relative_to(root).as_posix(),
        parts,
        inputs,
        output,
        data,
        ground_truth(root, folder, inputs),
    )
    entry = None
    if table is not None:
        entry = table.find(parts[-2] if len(parts) >= 2 else "", parts[-1])
    if entry is not None:
        descs = dict(zip((clean_symbol(s, entry.where) for s in entry.symbols), entry.descriptions))
        problem.descriptions = {
            n: " ".join(d.split()).rstrip(".")[:MAX_DESCRIPTION]
            for n, d in descs.items()
            if n in header and d.strip()
        }
        if problem.truth is None and entry.expression:
            problem.truth = (entry.expression, "", [])
    elif folder.name in specs:
        spec = read_spec(inside(root, specs[folder.name]), inputs + [output])
        problem.context, problem.descriptions = spec.context, spec.descriptions
    return problem


def _table_truth(text: str, inputs: list[str]) -> str:
    """A table's expression in the equation language: ``P(t)`` written for the input ``P``
    becomes ``P``, a left-hand side goes (FormalizationError when it still does not parse,
    or has free parameters)."""
    expression = right_side(text)
    for name in inputs:
        expression = re.sub(rf"\b{re.escape(name)}\(\s*[A-Za-z_]\w*\s*\)", name, expression)
    parsed = equation(expression, inputs)
    if parsed.n_params:
        raise TaskFormatError("the expression has free parameters")
    return expression


def to_formal(
    problem: Problem, science: str, noise: float, notes: list[tuple[str, str]]
) -> EquationFormal:
    """The formal object of a problem as read (a ground truth that does not parse becomes
    no ground truth, with a note)."""
    inputs = problem.inputs
    expression, skeleton, constants = problem.truth or ("", "", [])
    if problem.truth is not None and not skeleton:
        try:
            expression = _table_truth(expression, inputs)
        except ScirError as exc:
            notes.append(
                (
                    problem.source,
                    f"ground truth not used (symbolic accuracy n/a): "
                    f"{shorten(expression)}: {exc.message}",
                )
            )
            expression = ""
    splits = {
        k: Split(tuple(tuple(r[:-1]) for r in rows), tuple(r[-1] for r in rows))
        for k, rows in problem.rows.items()
    }

    def span(keys: tuple[str, ...]) -> dict[str, tuple[float, float]]:
        rows = [r for k in keys for r in problem.rows[k]]
        return {n: (min(r[i] for r in rows), max(r[i] for r in rows)) for i, n in enumerate(inputs)}

    return EquationFormal(
        science,
        tuple(inputs),
        problem.output,
        expression,
        skeleton,
        tuple(constants),
        splits,
        noise,
        {"id": span(("train", "test_id")), "ood": span(("test_ood",))},
        problem.context[:MAX_DESCRIPTION],
        problem.descriptions,
    )


def _folder_problems(
    base: Path,
    table: Table | None,
    science: str | None,
    skipped: list[tuple[str, str]],
    notes: list[tuple[str, str]],
) -> list[Problem]:
    walk = walk_folders(base, MAX_FOLDER_DEPTH, ConfigError)
    specs = spec_files(walk)
    problems = []
    for folder, files in sorted(walk, key=lambda w: w[0].relative_to(base).as_posix()):
        present = [split for split in SPLITS if FILES[split] in files]
        if not present:
            continue
        source = folder.relative_to(base).as_posix()
        extra = sorted(f for f in files if f.lower().endswith(".csv") and f not in FILES.values())
        if extra:
            notes.append(
                (source, f"ignored {', '.join(extra)} (the splits are {', '.join(FILES.values())})")
            )
        # LSR-Transform copies ship an empty test_ood.csv: a split that is not there
        empty = [s for s in present if blank(base, folder / FILES[s])]
        missing = [FILES[s] for s in SPLITS if s not in present]
        if missing or empty:
            reasons = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"empty {', '.join(FILES[s] for s in empty)}"] if empty else []
            )
            found = [FILES[s] for s in present if s not in empty]
            skipped.append(
                (
                    source,
                    f"{'; '.join(reasons)} (a problem needs "
                    f"{', '.join(FILES.values())}; found "
                    f"{', '.join(found) or 'none with data'})",
                )
            )
            continue
        science_of(base, folder, science)  # a clear error before any file is read
        problems.append(_folder_problem(base, folder, table, specs))
    return problems


def _hdf5_problems(
    path: Path, table: Table | None, skipped: list[tuple[str, str]], notes: list[tuple[str, str]]
) -> list[Problem]:
    problems = []
    for group in read_hdf5(path):
        source = "/".join(group.parts)
        if group.extra:
            notes.append((source, f"ignored dataset(s) {', '.join(group.extra)}"))
        if group.missing:
            skipped.append(
                (
                    source,
                    f"missing the {', '.join(group.missing)} split(s) "
                    "(a problem needs train_data, id_test_data and "
                    "ood_test_data)",
                )
            )
            continue
        widths = {a.shape[1] for a in group.arrays.values()}
        if len(widths) != 1:
            raise TaskFormatError(
                f"group /{source}: the splits have different numbers of columns ({sorted(widths)})",
                file=str(path),
            )
        output, inputs, descs, truth, note = names_of(group, table)
        if note:
            notes.append((source, note))
        try:
            equation("0", inputs)
        except ScirError as exc:
            raise TaskFormatError(f"group /{source}: {exc.message}", file=str(path)) from exc
        if output in inputs or len(set(inputs)) != len(inputs):
            raise TaskFormatError(f"group /{source}: a column name repeats", file=str(path))
        rows = {}
        for split, array in group.arrays.items():
            if not np.isfinite(array).all():
                raise TaskFormatError(
                    f"group /{source}: a value of {split} is not finite", file=str(path)
                )
            # output first in the file; the formal object's rows end with the target
            rows[split] = [[rounded(float(v), SIG_Y) for v in (*r[1:], r[0])] for r in array]
        problems.append(
            Problem(
                source,
                [path.name] + group.parts,
                inputs,
                output,
                rows,
                (truth, "", []) if truth else None,
                "",
                {k: v for k, v in descs.items() if k in inputs + [output]},
            )
        )
    return problems


def import_llmsr(
    root: str | os.PathLike,
    science: str | None = None,
    noise: float = 0.0,
    seed: int = 0,
    table: str | os.PathLike | None = None,
) -> Imported:
    """Every problem under ``root`` -- a folder of problem folders, or LLM-SRBench's HDF5
    file -- as an equation task (``difficulty`` custom); ``table``: LLM-SRBench's problem
    table (names, descriptions, ground truths)."""
    from scir.tracks import get_track
    from scir.tracks.equation.track import EquationTrack

    base = Path(root)
    hdf5 = base.is_file() and base.suffix.lower() in HDF5_SUFFIXES
    if not base.is_dir() and not hdf5:
        raise ConfigError(
            "is neither a folder of problem folders nor an HDF5 file (.hdf5, .h5)",
            file=str(root),
            field="DIR",
        )
    if science is not None and science not in SCIENCES:
        raise ConfigError(f"--science must be one of {', '.join(SCIENCES)}", field="science")
    if not 0 <= noise <= 1:
        raise ConfigError("--noise must lie in [0, 1]", field="noise")
    base = base.resolve()
    problems_table = None if table is None else read_table(Path(table))
    skipped: list[tuple[str, str]] = []
    notes: list[tuple[str, str]] = []
    problems = (
        _hdf5_problems(base, problems_table, skipped, notes)
        if hdf5
        else _folder_problems(base, problems_table, science, skipped, notes)
    )
    track = get_track("equation")
    if not isinstance(track, EquationTrack):
        raise ConfigError(
            f"track 'equation' is not an EquationTrack (got {type(track).__name__})", field="track"
        )
    tasks: list[Task] = []
    for problem in problems:
        sci = _science(problem.parts, science, problem.source or base.name)
        found = science_part(problem.parts)
        domain = found[1] if found else (problem.parts[-2] if len(problem.parts) >= 2 else "")
        formal = to_formal(problem, sci, noise, notes)
        EquationFormal.load(formal.dump())  # the one validation of the formal object
        index = len(tasks)
        tasks.append(
            track.task_of(
                formal,
                task_id=f"{track.name}-{TIER}-{seed}-{index}",
                tier=TIER,
                seed=seed,
                params={"import": "llmsr", "noise": noise},
                difficulty="custom",
                metadata={
                    "science": formal.science,
                    "domain": domain,
                    "problem": problem.parts[-1],
                    "source": problem.source,
                    "ground_truth": formal.has_truth,
                },
                provenance={"generator": "scir.tracks.equation.llmsr", "source": problem.source},
            )
        )
    return Imported(tasks, skipped, notes)


__all__ = [
    "ALIASES",
    "FILES",
    "Imported",
    "Problem",
    "import_llmsr",
    "problem_folders",
    "read_csv",
    "science_of",
    "science_part",
    "to_formal",
]
