"""Clean natural language of an equation task, in two blocks.

Block 1 (context): the science, the system studied, every input and the output with its
meaning and unit. Block 2 (data): the training rows as a Markdown table, inputs in
``inputs`` order then the output; at most :data:`SHOWN` rows (the first ones) are printed,
every value with :func:`numeric.printed` (the digits it was rounded to). All splits stay in
the formal object; the scoring fits on all train rows and tests on ``test_id``.
"""

from __future__ import annotations

from dataclasses import dataclass

from scir.tracks.equation.formal import EquationFormal
from scir.tracks.equation.numeric import printed
from scir.tracks.equation.terms import SCIENCES

SHOWN = 30  # train rows printed in the problem text, at most


@dataclass(frozen=True)
class Described:
    """A variable with its meaning and unit (generic words for one the science does not
    know, e.g. an imported column)."""

    name: str
    description: str
    unit: str

    def text(self) -> str:
        unit = f", in {self.unit}" if self.unit and self.unit != "dimensionless" else ""
        return f"{self.name} ({self.description}{unit})"


def described(
    science: str, name: str, output: bool = False, given: dict[str, str] | None = None
) -> Described:
    """The description of input (or output) ``name`` in ``science``; ``given``: the
    descriptions the problem's source states (an imported problem), which come first."""
    if given and given.get(name):
        return Described(name, given[name], "")
    spec = SCIENCES[science]
    if output and name == spec.output:
        return Described(name, spec.output_description, spec.output_unit)
    var = None if output else spec.variable(name)
    if var is not None:
        return Described(name, var.description, var.unit)
    return Described(name, "the measured quantity" if output else "an input variable", "")


def context_sentence(science: str, inputs: tuple[str, ...], output: str, given: str = "") -> str:
    """The system studied: the source's sentence when it states one (``given``), else the
    science's sentence when the variables are its own."""
    if given:
        return given[0].upper() + given[1:] + ("" if given.endswith(".") else ".")
    spec = SCIENCES[science]
    if list(inputs) == spec.input_names and output == spec.output:
        return spec.context[0].upper() + spec.context[1:] + "."
    return f"A {science} system is measured."


def shown_rows(formal: EquationFormal) -> list[list[float]]:
    """The rows printed in the text: inputs then output, the first :data:`SHOWN` train rows."""
    train = formal.splits["train"]
    return [list(x) + [y] for x, y in list(zip(train.X, train.y))[:SHOWN]]


def block_context(formal: EquationFormal) -> str:
    """Block 1: science, system, inputs and output."""
    given = formal.descriptions
    inputs = "; ".join(described(formal.science, n, given=given).text() for n in formal.inputs)
    out = described(formal.science, formal.output, output=True, given=given).text()
    sentence = context_sentence(formal.science, formal.inputs, formal.output, formal.context)
    return f"Field: {formal.science}. {sentence}\nInputs: {inputs}.\nOutput: {out}."


def block_data(formal: EquationFormal) -> str:
    """Block 2: the training table."""
    rows = shown_rows(formal)
    columns = list(formal.inputs) + [formal.output]
    lines = [
        f"Training data ({len(rows)} rows):",
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---:" for _ in columns) + "|",
    ]
    lines += ["| " + " | ".join(printed(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def question(formal: EquationFormal) -> str:
    """The question of a task."""
    return (
        f"Which equation gives {formal.output} as a function of "
        f"{', '.join(formal.inputs)}? Write it as an expression in "
        f"{', '.join(formal.inputs)}; constants may be numbers or free parameters "
        "p0, p1, ..., p9, which are fitted to the training data."
    )


__all__ = [
    "SHOWN",
    "Described",
    "block_context",
    "block_data",
    "context_sentence",
    "described",
    "question",
    "shown_rows",
]
