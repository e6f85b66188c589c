"""The equation block format of the LLM renderer's inverse call.

Block 1: ``science: NAME`` then one ``input: NAME`` line per input (in column order) and one
``output: NAME`` line. Block 2: a CSV table, the header line (the column names) then one line
per row with every value as printed. The grammar is built per block (names as free
identifiers, numbers in the printed syntax); bounded: a few lines more than the content has.
"""

from __future__ import annotations

from typing import Any

from scir.errors import FormalizationError
from scir.tasks import Task
from scir.text.inverse import child_terminals, parse_tree
from scir.tracks.equation.formal import SCIENCES
from scir.tracks.equation.numeric import printed

EXTRA = 4  # lines a bounded grammar allows beyond the content's
_TERMINALS = (
    """
NAME: /[A-Za-z_][A-Za-z0-9_]{0,39}/
NUMBER: /-?[0-9]+(\\.[0-9]+)?(e[-+][0-9]+)?/
SCIENCE: """
    + " | ".join(f'"{s}"' for s in SCIENCES)
    + "\n"
)


def description(index: int) -> str:
    """The block format as described to the inverse model."""
    if index == 0:
        return (
            "One line 'science: S' (S one of " + ", ".join(SCIENCES) + "), then one line "
            "'input: NAME' per input variable in the order of the data columns, then one "
            "line 'output: NAME' for the measured output."
        )
    return (
        "A CSV table: first the header line with the column names (the inputs, then the "
        "output), then one line per data row with the values exactly as printed, in the "
        "order of the rows."
    )


def _rep(item: str, low: int, high: int | None) -> str:
    return f"{item}+" if high is None else f"{item} ~ {low}..{max(low, high)}"


def grammar(index: int, content: dict[str, Any], bounded: bool) -> str:
    """The block's Lark grammar (bounded: the decoding constraint; else for parsing)."""
    if index == 0:
        n = len(content.get("inputs", []))
        return (
            "start: science "
            + _rep("input", 1, n + EXTRA if bounded else None)
            + (" output\n" if bounded else " output?\n")
            + 'science: "science: " SCIENCE "\\n"\n'
            'input: "input: " NAME "\\n"\n'
            'output: "output: " NAME "\\n"\n' + _TERMINALS
        )
    width = len(content.get("columns", [])) - 1
    rows = len(content.get("rows", []))
    names = f'NAME ("," NAME) ~ {width}' if bounded else 'NAME ("," NAME)*'
    numbers = f'NUMBER ("," NUMBER) ~ {width}' if bounded else 'NUMBER ("," NUMBER)*'
    return (
        "start: header " + _rep("row", 1, rows + EXTRA if bounded else None) + "\n"
        f'header: {names} "\\n"\n'
        f'row: {numbers} "\\n"\n' + _TERMINALS
    )


def format_block(index: int, content: dict[str, Any]) -> str:
    """The content in the block format (what a faithful inverse call writes)."""
    if index == 0:
        lines = [f"science: {content['science']}"]
        lines += [f"input: {name}" for name in content["inputs"]]
        lines.append(f"output: {content['output']}")
    else:
        lines = [",".join(content["columns"])]
        lines += [",".join(printed(v) for v in row) for row in content["rows"]]
    return "\n".join(lines) + "\n"


def parse(task: Task, index: int, text: str) -> dict[str, Any]:
    """A block's formalization read back (FormalizationError when it does not parse)."""
    tree = parse_tree(task, grammar(index, {}, bounded=False), text)
    if index == 0:
        science = next(
            str(t) for t in tree.scan_values(lambda v: getattr(v, "type", None) == "SCIENCE")
        )
        inputs = [
            child_terminals(c, "NAME")[0]
            for c in tree.children
            if getattr(c, "data", None) == "input"
        ]
        output = next(
            (
                child_terminals(c, "NAME")[0]
                for c in tree.children
                if getattr(c, "data", None) == "output"
            ),
            None,
        )
        return {"science": science, "inputs": inputs, "output": output}
    header = next(c for c in tree.children if getattr(c, "data", None) == "header")
    columns = child_terminals(header, "NAME")
    rows = []
    for c in tree.children:
        if getattr(c, "data", None) == "row":
            values = [float(v) for v in child_terminals(c, "NUMBER")]
            if len(values) != len(columns):
                raise FormalizationError(
                    f"a row has {len(values)} values for {len(columns)} columns",
                    task_id=task.task_id,
                )
            rows.append(values)
    return {"columns": columns, "rows": rows}
