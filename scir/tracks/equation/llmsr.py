"""``scir import llmsr``: problem folders laid out as LLM-SR / LSR-Synth lay them out, read into
equation tasks.

A *problem folder* is any folder under the given root (the root itself included) holding
``train.csv``, ``test_id.csv`` and ``test_ood.csv``: a header line of variable names, the
target in the LAST column, one row of numbers per line (all three files with the same header).
Its ground truth is read from ``equation.json`` (``{"expression": ...}``, or ``{"skeleton":
..., "constants": [...]}``, or both) or else ``equation.txt`` (the first line that is neither
empty nor a ``#`` comment; a left-hand side ``y =`` is dropped); a folder with neither is
skipped and reported. The science is ``--science`` or the first path part (from the root
down) that names one: ``chemistry``/``chem_react``, ``biology``/``bio_pop_growth``/``bactgrow``,
``physics``/``phys_osc``/``oscillator``, ``materials``/``matsci``/``stressstrain`` (prefixes
of a folder name count, e.g. ``oscillator1``).

Values are rounded to ``SIG_Y`` significant digits as they are read (the printed precision);
the ranges are the data's: ``id`` the min/max over train and test_id, ``ood`` over test_ood.
Folders are visited in sorted order (task ``i`` is the i-th problem) without recursion, at
most :data:`MAX_FOLDER_DEPTH` levels below the root; symbolic links are not followed, and every
file read must lie inside the root once resolved; ``equation.json`` nests at most
:data:`MAX_TRUTH_DEPTH` levels; a folder's name is stored as text
(``domain_metadata.source``), never used to build a path.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path

from scir.bounded import parse_json, walk_folders
from scir.errors import ConfigError, ScirError, TaskFormatError
from scir.tasks import Task, shorten
from scir.tracks.equation.formal import NAME, SCIENCES, SPLITS, EquationFormal, Split
from scir.tracks.equation.numeric import SIG_Y, equation, right_side, rounded

FILES = {"train": "train.csv", "test_id": "test_id.csv", "test_ood": "test_ood.csv"}
TIER = "llmsr"
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TRUTH_BYTES = 64 * 1024
MAX_TRUTH_DEPTH = 8                # equation.json: an object holding a list of constants
MAX_FOLDER_DEPTH = 32              # folders below the root (LLM-SR's layout uses 2)
ALIASES = {"chemistry": ("chemistry", "chem_react", "chem"),
           "biology": ("biology", "bio_pop_growth", "bactgrow", "bio"),
           "physics": ("physics", "phys_osc", "oscillator", "phys"),
           "materials": ("materials", "matsci", "stressstrain", "material")}


@dataclass
class Imported:
    """What an import produced: the tasks and the folders skipped (with the reason)."""

    tasks: list[Task]
    skipped: list[tuple[str, str]]


def _inside(root: Path, path: Path) -> Path:
    resolved = path.resolve()
    if resolved != root and root not in resolved.parents:
        raise ConfigError("lies outside the folder being imported", file=str(path))
    return resolved


def problem_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` (itself included) with ``train.csv``, sorted by relative
    path; symbolic links to folders are not followed, and a tree deeper than
    :data:`MAX_FOLDER_DEPTH` is a ConfigError naming the folder."""
    found = [folder for folder, files in walk_folders(root, MAX_FOLDER_DEPTH, ConfigError)
             if FILES["train"] in files]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def science_of(root: Path, folder: Path, given: str | None) -> str:
    """The science of a problem folder (``given``, else from its path; ConfigError)."""
    if given is not None:
        return given
    parts = [root.name] + list(folder.relative_to(root).parts)
    for part in parts:
        low = part.casefold()
        for science, names in ALIASES.items():
            if any(low.startswith(n) for n in names):
                return science
    raise ConfigError(f"cannot tell the science of {shorten(str(folder))} from its path; give "
                      f"--science ({', '.join(SCIENCES)})", field="science")


def read_csv(root: Path, path: Path) -> tuple[list[str], list[list[float]]]:
    """Header and rows of one split file (TaskFormatError naming file and line)."""
    if not path.is_file():
        raise TaskFormatError("missing (a problem folder needs train.csv, test_id.csv and "
                              "test_ood.csv)", file=str(path))
    resolved = _inside(root, path)
    if resolved.stat().st_size > MAX_FILE_BYTES:
        raise TaskFormatError(f"larger than {MAX_FILE_BYTES} bytes", file=str(path))
    try:
        with open(resolved, encoding="utf-8", newline="") as handle:
            lines = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise TaskFormatError(f"not a readable CSV file: {exc}", file=str(path)) from exc
    if not lines:
        raise TaskFormatError("empty file (expected a header line)", file=str(path), line=1)
    header = [c.strip() for c in lines[0]]
    if len(header) < 2:
        raise TaskFormatError("the header needs at least one input and the target",
                              file=str(path), line=1)
    for name in header:
        if not NAME.fullmatch(name):
            raise TaskFormatError(f"column name {shorten(name)} is not a variable name "
                                  "(letters, digits, _)", file=str(path), line=1)
    if len(set(header)) != len(header):
        raise TaskFormatError("a column name repeats", file=str(path), line=1)
    rows = []
    for number, cells in enumerate(lines[1:], start=2):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise TaskFormatError(f"{len(cells)} values for {len(header)} columns",
                                  file=str(path), line=number)
        try:
            values = [float(c) for c in cells]
        except ValueError:
            raise TaskFormatError(f"not a number in {shorten(','.join(cells))}",
                                  file=str(path), line=number) from None
        if not all(math.isfinite(v) for v in values):
            raise TaskFormatError("a value is not finite", file=str(path), line=number)
        rows.append([rounded(v, SIG_Y) for v in values])
    if not rows:
        raise TaskFormatError("no data rows", file=str(path))
    return header, rows


def _read_small(root: Path, path: Path) -> str:
    resolved = _inside(root, path)
    if resolved.stat().st_size > MAX_TRUTH_BYTES:
        raise TaskFormatError(f"larger than {MAX_TRUTH_BYTES} bytes", file=str(path))
    try:
        return resolved.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskFormatError(f"not UTF-8 text: {exc}", file=str(path)) from exc


def ground_truth(root: Path, folder: Path, inputs: list[str]
                 ) -> tuple[str, str, list[float]] | None:
    """(expression, skeleton, constants) from equation.json or equation.txt, or None."""
    js, txt = folder / "equation.json", folder / "equation.txt"
    try:
        if js.is_file():
            data = parse_json(_read_small(root, js), file=str(js), error=TaskFormatError,
                              max_depth=MAX_TRUTH_DEPTH)
            if not isinstance(data, dict):
                raise TaskFormatError("expected an object with expression (or skeleton and "
                                      "constants)", file=str(js))
            skeleton, constants = data.get("skeleton", ""), data.get("constants", [])
            if not isinstance(skeleton, str) or not isinstance(constants, list) or not all(
                    isinstance(c, (int, float)) and not isinstance(c, bool)
                    and math.isfinite(c) for c in constants):
                raise TaskFormatError("skeleton must be text and constants a list of numbers",
                                      file=str(js))
            expression = data.get("expression")
            if skeleton:
                skeleton = right_side(skeleton)
                parsed = equation(skeleton, inputs)
                if parsed.n_params != len(constants):
                    raise TaskFormatError(f"the skeleton has {parsed.n_params} parameters, "
                                          f"constants {len(constants)}", file=str(js))
                if expression is None:
                    expression = parsed.substitute(constants)
            if not isinstance(expression, str) or not expression.strip():
                raise TaskFormatError("expected an expression (text)", file=str(js))
            expression = right_side(expression)
            if equation(expression, inputs).n_params:
                raise TaskFormatError("the expression has free parameters; give their values "
                                      "as skeleton and constants", file=str(js))
            return expression, skeleton, [float(c) for c in constants]
        if txt.is_file():
            lines = [ln.strip() for ln in _read_small(root, txt).splitlines()]
            first = next((ln for ln in lines if ln and not ln.startswith("#")), None)
            if first is None:
                raise TaskFormatError("no expression line", file=str(txt))
            expression = right_side(first)
            if equation(expression, inputs).n_params:
                raise TaskFormatError("the expression has free parameters", file=str(txt))
            return expression, "", []
    except ScirError as exc:
        if exc.file is None:
            exc.file = str(js if js.is_file() else txt)
        raise
    return None


def read_problem(root: Path, folder: Path, science: str, noise: float
                 ) -> EquationFormal | None:
    """The formal object of one problem folder (None: no ground truth)."""
    data = {}
    header = None
    for split in SPLITS:
        path = folder / FILES[split]
        names, rows = read_csv(root, path)
        if header is not None and names != header:
            raise TaskFormatError(f"the header {names} differs from train.csv's {header}",
                                  file=str(path), line=1)
        header = names
        data[split] = rows
    inputs, output = header[:-1], header[-1]
    equation("0", inputs)                       # the names are usable in an equation
    truth = ground_truth(root, folder, inputs)
    if truth is None:
        return None
    expression, skeleton, constants = truth
    splits = {k: Split(tuple(tuple(r[:-1]) for r in rows), tuple(r[-1] for r in rows))
              for k, rows in data.items()}

    def span(keys: tuple[str, ...]) -> dict[str, tuple[float, float]]:
        rows = [r for k in keys for r in data[k]]
        return {n: (min(r[i] for r in rows), max(r[i] for r in rows))
                for i, n in enumerate(inputs)}

    return EquationFormal(science, tuple(inputs), output, expression, skeleton,
                          tuple(constants), splits, noise,
                          {"id": span(("train", "test_id")), "ood": span(("test_ood",))})


def import_llmsr(root: str | os.PathLike, science: str | None = None, noise: float = 0.0,
                 seed: int = 0) -> Imported:
    """Every problem folder under ``root`` as an equation task (``difficulty`` custom)."""
    from scir.tracks import get_track

    base = Path(root)
    if not base.is_dir():
        raise ConfigError("is not a folder", file=str(root), field="DIR")
    if science is not None and science not in SCIENCES:
        raise ConfigError(f"--science must be one of {', '.join(SCIENCES)}", field="science")
    if not 0 <= noise <= 1:
        raise ConfigError("--noise must lie in [0, 1]", field="noise")
    base = base.resolve()
    track = get_track("equation")
    tasks, skipped = [], []
    for folder in problem_folders(base):
        source = folder.relative_to(base).as_posix()
        formal = read_problem(base, folder, science_of(base, folder, science), noise)
        if formal is None:
            skipped.append((source, "no ground truth (equation.json or equation.txt)"))
            continue
        EquationFormal.load(formal.dump())      # the one validation of the formal object
        index = len(tasks)
        tasks.append(track.task_of(
            formal, task_id=f"{track.name}-{TIER}-{seed}-{index}", tier=TIER, seed=seed,
            params={"import": "llmsr", "noise": noise}, difficulty="custom",
            metadata={"science": formal.science, "source": source},
            provenance={"generator": "scir.tracks.equation.llmsr", "source": source}))
    return Imported(tasks, skipped)


__all__ = ["ALIASES", "FILES", "Imported", "import_llmsr", "problem_folders", "read_csv",
           "science_of"]
