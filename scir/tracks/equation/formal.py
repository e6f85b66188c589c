"""The equation track's formal object, typed: :class:`EquationFormal` (``Track.formal_type``).

JSON keys, in this order: ``science``, ``inputs``, ``output``, ``expression`` (the ground
truth with its numeric constants, ``str()`` of a sympy expression), ``skeleton`` (the same
with the sampled constants as ``p0``..``pk``), ``constants`` (``p0``..``pk``'s values),
``splits`` (``train``, ``test_id``, ``test_ood``: each ``{"X": rows in ``inputs`` order,
"y": targets}``), ``noise`` (std of the relative Gaussian noise on the train targets) and
``ranges`` (``{"id": {var: [lo, hi]}, "ood": {...}}``). ``load`` is the one place it is
validated (TaskFormatError naming the field, e.g. ``formal.splits.train.X[3]``); sizes are
bounded. Imported problems (``scir import llmsr``) may have an empty ``skeleton`` and
``constants`` and empty ``ranges`` when the source does not state them, and an empty
``expression`` when the source ships no ground truth (LLM-SR's own data folders): such a
problem is scored by Acc_tau and NMSE alone, its symbolic accuracy is "n/a". Two optional
keys follow ``ranges``, written only when not empty (generated tasks have neither):
``context`` (one sentence on the system studied) and ``descriptions`` (variable -> meaning,
inputs and output), as the source states them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scir.tracks.shapes import bounded_list, fail, number, number_row, string

SCIENCES = ("chemistry", "biology", "physics", "materials")
SPLITS = ("train", "test_id", "test_ood")
MAX_INPUTS = 16
MAX_ROWS = 100_000  # rows per split
MAX_EXPRESSION = 4000  # characters
MAX_CONSTANTS = 64
MAX_DESCRIPTION = 500  # characters of one description or of the context sentence
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


@dataclass(frozen=True)
class Split:
    """One data split: ``X`` rows (one value per input) and targets ``y``."""

    X: tuple[tuple[float, ...], ...]
    y: tuple[float, ...]

    def dump(self) -> dict[str, Any]:
        return {"X": [list(r) for r in self.X], "y": list(self.y)}


@dataclass(frozen=True)
class EquationFormal:
    """A symbolic-regression problem with its ground-truth equation (``expression`` empty:
    none known)."""

    science: str
    inputs: tuple[str, ...]
    output: str
    expression: str
    skeleton: str
    constants: tuple[float, ...]
    splits: dict[str, Split]
    noise: float
    ranges: dict[str, dict[str, tuple[float, float]]]
    context: str = ""
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def has_truth(self) -> bool:
        """Whether the ground-truth expression is known."""
        return bool(self.expression)

    def dump(self) -> dict[str, Any]:
        """The JSON form stored in ``Task.formal`` (key order as documented)."""
        out = {
            "science": self.science,
            "inputs": list(self.inputs),
            "output": self.output,
            "expression": self.expression,
            "skeleton": self.skeleton,
            "constants": list(self.constants),
            "splits": {k: self.splits[k].dump() for k in SPLITS},
            "noise": self.noise,
            "ranges": {k: {v: list(r) for v, r in self.ranges[k].items()} for k in ("id", "ood")},
        }
        if self.context:
            out["context"] = self.context
        if self.descriptions:
            out["descriptions"] = dict(self.descriptions)
        return out

    @classmethod
    def load(cls, data: Any) -> EquationFormal:
        """Validate a formal object (TaskFormatError naming the field) and read it."""
        if not isinstance(data, dict):
            raise fail("an equation formal object must be an object", "formal")
        science = data.get("science")
        if science not in SCIENCES:
            raise fail(f"expected one of {', '.join(SCIENCES)}, got {science!r}", "formal.science")
        inputs = tuple(bounded_list(data.get("inputs"), "formal.inputs", MAX_INPUTS))
        if not inputs:
            raise fail("expected at least one input name", "formal.inputs")
        for i, name in enumerate(inputs):
            _name(name, f"formal.inputs[{i}]")
        if len(set(inputs)) != len(inputs):
            raise fail("an input is named twice", "formal.inputs")
        output = _name(data.get("output"), "formal.output")
        if output in inputs:
            raise fail("the output cannot also be an input", "formal.output")
        expression = string(data.get("expression"), "formal.expression", MAX_EXPRESSION)
        if expression and not expression.strip():
            raise fail('expected an expression, or "" for no ground truth', "formal.expression")
        skeleton = string(data.get("skeleton"), "formal.skeleton", MAX_EXPRESSION)
        constants = tuple(
            number(v, f"formal.constants[{i}]")
            for i, v in enumerate(
                bounded_list(data.get("constants"), "formal.constants", MAX_CONSTANTS)
            )
        )
        if not expression and (skeleton or constants):
            raise fail("a skeleton or constants without an expression", "formal.expression")
        raw = data.get("splits")
        if not isinstance(raw, dict):
            raise fail("expected an object with train, test_id and test_ood", "formal.splits")
        splits = {k: _split(raw.get(k), f"formal.splits.{k}", len(inputs)) for k in SPLITS}
        noise = number(data.get("noise"), "formal.noise")
        if not 0 <= noise <= 1:
            raise fail(f"expected a number in [0, 1], got {noise!r}", "formal.noise")
        ranges = _ranges(data.get("ranges"), inputs)
        context = string(data.get("context", ""), "formal.context", MAX_DESCRIPTION)
        descriptions = _descriptions(data.get("descriptions", {}), inputs + (output,))
        return cls(
            science,
            inputs,
            output,
            expression,
            skeleton,
            constants,
            splits,
            noise,
            ranges,
            context,
            descriptions,
        )


def _descriptions(value: Any, names: tuple[str, ...]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise fail("expected an object: variable -> description", "formal.descriptions")
    unknown = [k for k in value if k not in names]
    if unknown:
        raise fail(f"unknown variable(s) {unknown}", "formal.descriptions")
    return {
        k: string(value[k], f"formal.descriptions.{k}", MAX_DESCRIPTION)
        for k in names
        if k in value
    }


def _name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise fail(f"expected a variable name (letters, digits, _), got {value!r}", field)
    return value


def _split(value: Any, field: str, width: int) -> Split:
    if not isinstance(value, dict):
        raise fail("expected an object with X and y", field)
    rows = bounded_list(value.get("X"), field + ".X", MAX_ROWS)
    ys = bounded_list(value.get("y"), field + ".y", MAX_ROWS)
    if not rows:
        raise fail("expected at least one row", field + ".X")
    if len(ys) != len(rows):
        raise fail(f"{len(ys)} targets for {len(rows)} rows", field + ".y")
    table = [number_row(row, f"{field}.X[{r}]", width, "input") for r, row in enumerate(rows)]
    return Split(tuple(table), tuple(number(v, f"{field}.y[{i}]") for i, v in enumerate(ys)))


def _ranges(value: Any, inputs: tuple[str, ...]) -> dict[str, dict[str, tuple[float, float]]]:
    if not isinstance(value, dict):
        raise fail("expected an object with id and ood", "formal.ranges")
    out = {}
    for key in ("id", "ood"):
        part = value.get(key)
        field = f"formal.ranges.{key}"
        if not isinstance(part, dict):
            raise fail("expected an object: input -> [low, high]", field)
        unknown = [k for k in part if k not in inputs]
        if unknown:
            raise fail(f"unknown input(s) {unknown}", field)
        ranges = {}
        for name in inputs:
            if name not in part:
                continue
            pair = part[name]
            where = f"{field}.{name}"
            if not isinstance(pair, list) or len(pair) != 2:
                raise fail("expected [low, high]", where)
            low, high = (number(v, where) for v in pair)
            if low > high:
                raise fail(f"low {low} is above high {high}", where)
            ranges[name] = (low, high)
        out[key] = ranges
    return out


__all__ = [
    "EquationFormal",
    "MAX_DESCRIPTION",
    "MAX_EXPRESSION",
    "MAX_ROWS",
    "SCIENCES",
    "SPLITS",
    "Split",
]
