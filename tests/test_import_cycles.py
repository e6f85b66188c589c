"""No import hides in a function to dodge a cycle (issue #27, docs/architecture.md "Layers").

import-linter's layers contract (``make lint``) already refuses an upward import between
packages, function-level ones included. This test covers the rest: every function-level
import of a ``scir`` module, moved to the top of its module, must not close a cycle -- that
is, the module it names must not (through module-level imports, and the packages each import
loads) import the module it sits in. The only ones allowed are the lazy loads documented in
docs/architecture.md: the API behind ``scir/__init__`` and the model backends of
``scir.llm.get_backend``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SCIR = Path(__file__).resolve().parent.parent / "scir"
ALLOWED = {
    ("scir", "scir.api"),
    ("scir.llm", "scir.llm.gguf"),
    ("scir.llm", "scir.llm.local"),
    ("scir.llm", "scir.llm.openai_backend"),
    ("scir.llm", "scir.llm.tiny"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in SCIR.rglob("*.py"):
        parts = path.relative_to(SCIR.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted name imports (``from a.b import c``: ``a.b.c`` if a module, else
    ``a.b``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(modules: dict[str, Path]) -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module-level imports per module, and the function-level ones (module, target, line);
    imports under ``if TYPE_CHECKING:`` are types only and left out."""
    top: dict[str, set[str]] = {}
    inner: list[tuple[str, str, int]] = []
    for name, path in modules.items():
        found: set[str] = set()

        def visit(node: ast.AST, in_function: bool, typing_only: bool) -> None:
            for child in ast.iter_child_nodes(node):
                guarded = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
                if isinstance(child, (ast.Import, ast.ImportFrom)) and not typing_only:
                    if isinstance(child, ast.ImportFrom):
                        base = child.module if child.level == 0 and child.module else ""
                        names = [f"{base}.{a.name}" for a in child.names] + [base]
                    else:
                        names = [a.name for a in child.names]
                    for target in {_resolve(n, modules) for n in names if n.startswith("scir")}:
                        if target and target != name:
                            if in_function:
                                inner.append((name, target, child.lineno))
                            else:
                                found.add(target)
                function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                visit(child, in_function or function, typing_only or guarded)

        visit(ast.parse(path.read_text(encoding="utf-8")), False, False)
        top[name] = found
    return top, inner


def _reach(start: str, top: dict[str, set[str]]) -> set[str]:
    """Every module importing ``start`` loads at import time (its packages included)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # the packages
        todo += top.get(name, set())
    return seen


def test_no_function_level_import_dodges_a_cycle():
    modules = _modules()
    top, inner = _imports(modules)
    assert len(inner) > 50  # the walk found the function-level imports
    closing = {(src, target) for src, target, _ in inner if src in _reach(target, top)}
    where = sorted((s, t, line) for s, t, line in inner if (s, t) in closing - ALLOWED)
    assert where == [], f"function-level imports that hide a cycle: {where}"
    assert closing == ALLOWED  # and the documented lazy loads still are such


def test_the_check_sees_a_hidden_cycle(tmp_path, monkeypatch):
    """The walk on a two-module package whose function-level import hides a cycle."""
    pkg = tmp_path / "scir" / "demo"
    pkg.mkdir(parents=True)
    (tmp_path / "scir" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from scir.demo.b import g\n\ndef f():\n    return g()\n")
    (pkg / "b.py").write_text("def g():\n    from scir.demo.a import f\n    return f\n")
    monkeypatch.setattr(sys.modules[__name__], "SCIR", tmp_path / "scir")
    modules = _modules()
    top, inner = _imports(modules)
    assert inner == [("scir.demo.b", "scir.demo.a", 2)]
    assert "scir.demo.b" in _reach("scir.demo.a", top)
