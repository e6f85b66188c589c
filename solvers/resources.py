"""One loader for the logic files: ``prolog/*.pl``, ``asp/*.lp``, ``grammars/*.lark``.

In a checkout the files are the top-level folders ``prolog/``, ``asp/``, ``grammars/``; in an
installed wheel the build maps them to ``solvers/_data/<kind>/``. An installed copy never looks
beside the package (``site-packages/prolog`` may be another distribution). Nothing is read at
import.

    >>> from solvers import resources
    >>> text = resources.read_text("asp", "deduction.lp")      # doctest: +SKIP
    >>> path = resources.path("prolog", "sandbox.pl")          # doctest: +SKIP
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from solvers.errors import ResourceError

KINDS = {"prolog": ".pl", "asp": ".lp", "grammars": ".lark"}


@cache
def root(kind: str) -> Path:
    """The folder holding the files of ``kind`` (``prolog``, ``asp`` or ``grammars``)."""
    if kind not in KINDS:
        raise ResourceError(f"unknown resource kind {kind!r}; expected one of {sorted(KINDS)}")
    here = Path(__file__).resolve().parent
    packaged = here / "_data" / kind
    if (here / "_data").is_dir():  # installed: only the packaged copy counts
        if packaged.is_dir():
            return packaged
        raise ResourceError(
            f"resource folder {kind!r} not found in the installed package (looked in {packaged})"
        )
    checkout = here.parent / kind
    if checkout.is_dir():
        return checkout
    raise ResourceError(f"resource folder {kind!r} not found (looked in {checkout})")


def path(kind: str, name: str) -> Path:
    """Absolute path of resource ``name`` of ``kind``; the extension may be omitted."""
    if kind not in KINDS:
        raise ResourceError(f"unknown resource kind {kind!r}; expected one of {sorted(KINDS)}")
    if not isinstance(name, str) or not name:
        raise ResourceError(f"resource names are non-empty strings, got {name!r}")
    if not name.endswith(KINDS[kind]):
        name += KINDS[kind]
    if any(c in name for c in "/\\\0:") or name.startswith("."):
        raise ResourceError(f"resource names are plain file names, got {name!r}")
    p = root(kind) / name
    if not p.is_file():
        raise ResourceError(f"no {kind} resource {name!r} (in {root(kind)})")
    return p


@cache
def read_text(kind: str, name: str) -> str:
    """The text of resource ``name`` of ``kind`` (cached)."""
    p = path(kind, name)
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"cannot read {kind} resource {p}: {exc}") from exc


def names(kind: str) -> list[str]:
    """The file names of every resource of ``kind``, sorted."""
    return sorted(p.name for p in root(kind).iterdir() if p.suffix == KINDS[kind] and p.is_file())


def cache_dir(name: str) -> Path:
    """The toolkit's per-user cache folder for ``name`` (``$XDG_CACHE_HOME/scir/<name>``,
    default ``~/.cache/scir/<name>``); not created here."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scir" / name
