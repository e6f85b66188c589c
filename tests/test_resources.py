"""solvers.resources: the one loader of prolog/, asp/ and grammars/ files."""

from __future__ import annotations

from pathlib import Path

import pytest

from solvers import resources
from solvers.errors import ResourceError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh_caches():
    """Clear the loader's caches before and after a test that moves the package around."""
    resources.root.cache_clear()
    resources.read_text.cache_clear()
    yield
    resources.root.cache_clear()
    resources.read_text.cache_clear()


def fake_layout(base: Path, installed: bool) -> Path:
    """A copy of the two layouts the loader knows: a checkout (folders beside ``solvers/``) or
    an installed wheel (``solvers/_data/<kind>/``, with foreign top-level folders beside it)."""
    pkg = base / "solvers"
    pkg.mkdir(parents=True)
    (pkg / "resources.py").write_text("# stand-in\n")
    if installed:
        data = pkg / "_data"
        (data / "asp").mkdir(parents=True)
        (data / "asp" / "mine.lp").write_text("% packaged\nmine.\n")
        (data / "grammars").mkdir()
        (data / "grammars" / "bad.lark").write_bytes(b"// \xff not utf-8\n")
        for foreign in ("asp", "prolog"):  # other distributions' top-level packages
            (base / foreign).mkdir()
            (base / foreign / "other.lp").write_text("other.\n")
            (base / foreign / "other.pl").write_text("other.\n")
    else:
        for kind, ext in resources.KINDS.items():
            (base / kind).mkdir()
            (base / kind / f"b{ext}").write_text(f"% b {kind}\n")
            (base / kind / f"a{ext}").write_text(f"% a {kind}\n")
            (base / kind / "notes.txt").write_text("not a resource\n")
        (base / "asp" / "folder.lp").mkdir()
    return pkg / "resources.py"


@pytest.mark.parametrize("kind", sorted(resources.KINDS))
def test_checkout_files(kind):
    """In this checkout every kind is read from the top-level folder of that name."""
    assert resources.root(kind) == ROOT / kind
    names = resources.names(kind)
    assert names == sorted(names)
    assert all(n.endswith(resources.KINDS[kind]) for n in names)
    first = names[0]
    assert resources.path(kind, first) == ROOT / kind / first
    stem = first[: -len(resources.KINDS[kind])]
    assert resources.path(kind, stem) == ROOT / kind / first  # extension optional
    assert resources.read_text(kind, first) == (ROOT / kind / first).read_text(encoding="utf-8")
    comment = ("//",) if kind == "grammars" else ("%", "/*")
    for name in names:  # the house rule: every logic file says first what it encodes
        assert resources.read_text(kind, name).lstrip().startswith(comment), \
            f"{kind}/{name} must start with a comment saying what it encodes"


def test_checkout_layout(tmp_path, monkeypatch, fresh_caches):
    monkeypatch.setattr(resources, "__file__", str(fake_layout(tmp_path, installed=False)))
    for kind, ext in resources.KINDS.items():
        assert resources.root(kind) == tmp_path / kind
        assert resources.names(kind) == [f"a{ext}", f"b{ext}"]  # sorted, files only
        assert resources.read_text(kind, "a") == f"% a {kind}\n"


def test_installed_layout_reads_packaged_copy_only(tmp_path, monkeypatch, fresh_caches):
    monkeypatch.setattr(resources, "__file__", str(fake_layout(tmp_path, installed=True)))
    assert resources.root("asp") == tmp_path / "solvers" / "_data" / "asp"
    assert resources.names("asp") == ["mine.lp"]
    assert resources.read_text("asp", "mine") == "% packaged\nmine.\n"
    with pytest.raises(ResourceError, match="no asp resource 'other.lp'"):
        resources.path("asp", "other")
    # no packaged prolog/: never fall back to site-packages/prolog (another distribution)
    with pytest.raises(ResourceError, match="resource folder 'prolog' not found in the "
                                            "installed package"):
        resources.path("prolog", "other")
    with pytest.raises(ResourceError, match="cannot read grammars resource"):
        resources.read_text("grammars", "bad")


def test_missing_folder(tmp_path, monkeypatch, fresh_caches):
    pkg = tmp_path / "solvers"
    pkg.mkdir()
    monkeypatch.setattr(resources, "__file__", str(pkg / "resources.py"))
    with pytest.raises(ResourceError, match="resource folder 'grammars' not found"):
        resources.names("grammars")


@pytest.mark.parametrize("call", [
    lambda: resources.root("lean"),
    lambda: resources.path("lean", "x"),
    lambda: resources.read_text("lean", "x"),
    lambda: resources.names("lean"),
], ids=["root", "path", "read_text", "names"])
def test_unknown_kind(call):
    with pytest.raises(ResourceError, match=r"unknown resource kind 'lean'; expected one of "
                                            r"\['asp', 'grammars', 'prolog'\]"):
        call()


def test_unknown_name(tmp_path, monkeypatch, fresh_caches):
    monkeypatch.setattr(resources, "__file__", str(fake_layout(tmp_path, installed=False)))
    with pytest.raises(ResourceError, match="no prolog resource 'nosuch.pl'"):
        resources.read_text("prolog", "nosuch")
    with pytest.raises(ResourceError, match="no asp resource 'folder.lp'"):
        resources.path("asp", "folder")  # a directory is not a resource


@pytest.mark.parametrize("name", [
    "../pyproject.toml", "../../etc/passwd", "/etc/passwd", "sub/a", "..\\a", "..", ".hidden",
    "", "a\0b", "C:a",
])
def test_path_traversal_rejected(tmp_path, monkeypatch, fresh_caches, name):
    monkeypatch.setattr(resources, "__file__", str(fake_layout(tmp_path, installed=False)))
    (tmp_path / "secret.lp").write_text("secret.\n")
    with pytest.raises(ResourceError, match="resource names are"):
        resources.read_text("asp", name)
