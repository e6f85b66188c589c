"""The one registry of architectures (scir.pipelines.registry): every other list of them is
derived from it, a track names only the kinds it takes, and what the CLI lists is the
registry's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scir.pipelines.registry import (
    ARCHS,
    BY_NAME,
    FORMALIZING,
    MODEL_FREE_ARCHS,
    PIPELINES,
    SYMREG_ARCHS,
    architectures,
    pipeline,
)
from scir.errors import ConfigError
from scir.tracks import get_track
from scir.tracks.base import PIPELINE_KINDS

SCIR = Path(__file__).resolve().parent.parent / "scir"
# groups of architecture names that are another thing, or state a fact below the pipelines
ALLOWED = {
    # the status vocabulary of results stored before: CoT/SymbCoT parse errors without an
    # answer read as no_answer (scir.outcomes sits below the pipelines)
    ("outcomes/status.py", ("cot", "symbcot")),
    # prompt kinds (scir.prompts.PROMPT_KINDS), not architectures
    ("tracks/causal/formalizer.py", ("cot", "symbcot")),
}


def literal_groups(tree: ast.AST) -> list[tuple[int, tuple[str, ...]]]:
    """(line, names) of every tuple, list, set and dict-key group of two or more string
    literals that are all architecture names."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        values = [i.value for i in items if isinstance(i, ast.Constant)]
        if (
            len(values) >= 2
            and len(values) == len(items)
            and all(isinstance(v, str) and v in ARCHS for v in values)
        ):
            found.append((node.lineno, tuple(values)))
    return found


def test_the_registry_is_the_only_list_of_architectures():
    offenders = []
    for path in sorted(SCIR.rglob("*.py")):
        rel = path.relative_to(SCIR).as_posix()
        for line, names in literal_groups(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, names) not in ALLOWED:
                offenders.append(f"scir/{rel}:{line}: {names}")
    assert offenders == []


def test_the_check_finds_a_list_of_architectures():
    tree = ast.parse('A = ("cot", "ns")\nB = {"cot": 1, "oracle": 2}\nC = ("cot", "x")\n')
    assert literal_groups(tree) == [(1, ("cot", "ns")), (2, ("cot", "oracle"))]


def test_the_registry_derives_the_lists():
    assert ARCHS == ("cot", "ns", "symbcot", "oracle", "sr-agent", "pyoperon", "gplearn", "pysr")
    assert MODEL_FREE_ARCHS == ("oracle", "pyoperon", "gplearn", "pysr")
    assert FORMALIZING == ("ns", "symbcot")
    assert SYMREG_ARCHS == ("pyoperon", "gplearn", "pysr")
    assert all(p.kind in PIPELINE_KINDS for p in PIPELINES)
    assert [p.name for p in PIPELINES if not p.seeded] == ["oracle"]
    assert {p.name: p.single_step for p in PIPELINES if p.single_step} == {
        "cot": "cot",
        "ns": "formalize",
    }
    assert pipeline("ns") is BY_NAME["ns"]
    with pytest.raises(ConfigError, match="arch must be one of cot, ns, symbcot, oracle"):
        pipeline("magic")


def test_a_track_takes_the_architectures_of_its_kinds():
    assert architectures(get_track("deduction")) == ("cot", "ns", "symbcot", "oracle")
    assert architectures(get_track("equation")) == (
        "cot", "oracle", "sr-agent", "pyoperon", "gplearn", "pysr"
    )

    class Every:
        pipeline_kinds = None

    assert architectures(Every()) == ARCHS  # type: ignore[arg-type]


def test_the_cli_and_integrations_list_the_registry():
    from scir.cli import build_parser
    from scir.experiments.experiment import EXPERIMENT_ARCHS

    parser = build_parser()
    solve = parser._subparsers._group_actions[0].choices["solve"]  # type: ignore[union-attr]
    arch = next(a for a in solve._actions if a.dest == "arch")
    assert tuple(arch.choices) == ARCHS
    assert EXPERIMENT_ARCHS == (
        "oracle", "cot", "ns", "symbcot", "sr-agent", "pyoperon", "gplearn", "pysr"
    )


class _Named:
    """A track written before pipeline_kinds: it names its architectures."""

    name = "legacy"
    pipeline_kinds = None

    def __init__(self, architectures):
        self.architectures = architectures


def test_a_track_naming_architectures_keeps_exactly_those():
    with pytest.warns(DeprecationWarning, match="pipeline_kinds"):
        got = architectures(_Named(("oracle", "cot")))  # type: ignore[arg-type]
    assert got == ("cot", "oracle")  # the registry's order, nothing else planned


@pytest.mark.parametrize("named", [("cot", "magic"), "cot"])
def test_a_track_naming_an_unknown_architecture_is_refused(named):
    with pytest.raises(ConfigError, match="track 'legacy': architectures must be a tuple of"):
        architectures(_Named(named))  # type: ignore[arg-type]
