"""Reading one problem folder's files for ``scir import llmsr`` (:mod:`.llmsr`): the split
CSV files (a UTF-8 byte-order mark dropped, values rounded to ``SIG_Y`` digits, errors naming
file and line) and the ground truth in ``equation.json`` / ``equation.txt``. Every file read
must lie inside the imported root once resolved, and is bounded in size."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from scir.bounded import parse_json
from scir.errors import ConfigError, ScirError, TaskFormatError
from scir.tasks import shorten
from scir.tracks.equation.formal import NAME
from scir.tracks.equation.numeric import SIG_Y, equation, right_side, rounded

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_TRUTH_BYTES = 64 * 1024
MAX_TRUTH_DEPTH = 8  # equation.json: an object holding a list of constants


def inside(root: Path, path: Path) -> Path:
    resolved = path.resolve()
    if resolved != root and root not in resolved.parents:
        raise ConfigError("lies outside the folder being imported", file=str(path))
    return resolved


def read_csv(root: Path, path: Path) -> tuple[list[str], list[list[float]]]:
    """Header and rows of one split file (TaskFormatError naming file and line)."""
    if not path.is_file():
        raise TaskFormatError(
            "missing (a problem folder needs train.csv, test_id.csv and test_ood.csv)",
            file=str(path),
        )
    resolved = inside(root, path)
    if resolved.stat().st_size > MAX_FILE_BYTES:
        raise TaskFormatError(f"larger than {MAX_FILE_BYTES} bytes", file=str(path))
    try:
        # utf-8-sig: LSR-Synth's CSV copies start with a byte-order mark
        with open(resolved, encoding="utf-8-sig", newline="") as handle:
            lines = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise TaskFormatError(f"not a readable CSV file: {exc}", file=str(path)) from exc
    if not lines:
        raise TaskFormatError("empty file (expected a header line)", file=str(path), line=1)
    header = [c.strip().lstrip("\ufeff").strip() for c in lines[0]]
    if len(header) < 2:
        raise TaskFormatError(
            "the header needs at least one input and the target", file=str(path), line=1
        )
    for name in header:
        if not NAME.fullmatch(name):
            raise TaskFormatError(
                f"column name {shorten(name)} is not a variable name (letters, digits, _)",
                file=str(path),
                line=1,
            )
    if len(set(header)) != len(header):
        raise TaskFormatError("a column name repeats", file=str(path), line=1)
    rows = []
    for number, cells in enumerate(lines[1:], start=2):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise TaskFormatError(
                f"{len(cells)} values for {len(header)} columns", file=str(path), line=number
            )
        try:
            values = [float(c) for c in cells]
        except ValueError:
            raise TaskFormatError(
                f"not a number in {shorten(','.join(cells))}", file=str(path), line=number
            ) from None
        if not all(math.isfinite(v) for v in values):
            raise TaskFormatError("a value is not finite", file=str(path), line=number)
        rows.append([rounded(v, SIG_Y) for v in values])
    if not rows:
        raise TaskFormatError("no data rows", file=str(path))
    return header, rows


def _read_small(root: Path, path: Path) -> str:
    resolved = inside(root, path)
    if resolved.stat().st_size > MAX_TRUTH_BYTES:
        raise TaskFormatError(f"larger than {MAX_TRUTH_BYTES} bytes", file=str(path))
    try:
        return resolved.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskFormatError(f"not UTF-8 text: {exc}", file=str(path)) from exc


def ground_truth(
    root: Path, folder: Path, inputs: list[str]
) -> tuple[str, str, list[float]] | None:
    """(expression, skeleton, constants) from equation.json or equation.txt, or None."""
    js, txt = folder / "equation.json", folder / "equation.txt"
    try:
        if js.is_file():
            data = parse_json(
                _read_small(root, js),
                file=str(js),
                error=TaskFormatError,
                max_depth=MAX_TRUTH_DEPTH,
            )
            if not isinstance(data, dict):
                raise TaskFormatError(
                    "expected an object with expression (or skeleton and constants)", file=str(js)
                )
            skeleton, constants = data.get("skeleton", ""), data.get("constants", [])
            if (
                not isinstance(skeleton, str)
                or not isinstance(constants, list)
                or not all(
                    isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)
                    for c in constants
                )
            ):
                raise TaskFormatError(
                    "skeleton must be text and constants a list of numbers", file=str(js)
                )
            expression = data.get("expression")
            if skeleton:
                skeleton = right_side(skeleton)
                parsed = equation(skeleton, inputs)
                if parsed.n_params != len(constants):
                    raise TaskFormatError(
                        f"the skeleton has {parsed.n_params} parameters, "
                        f"constants {len(constants)}",
                        file=str(js),
                    )
                if expression is None:
                    expression = parsed.substitute(constants)
            if not isinstance(expression, str) or not expression.strip():
                raise TaskFormatError("expected an expression (text)", file=str(js))
            expression = right_side(expression)
            if equation(expression, inputs).n_params:
                raise TaskFormatError(
                    "the expression has free parameters; give their values "
                    "as skeleton and constants",
                    file=str(js),
                )
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


def blank(root: Path, path: Path) -> bool:
    """Whether a split file holds nothing but white space (and a byte-order mark)."""
    resolved = inside(root, path)
    if not resolved.is_file() or resolved.stat().st_size > 64:
        return False
    return not resolved.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").strip()


__all__ = ["MAX_FILE_BYTES", "ground_truth", "read_csv"]
