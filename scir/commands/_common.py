"""Helpers shared by the subcommands: argparse formatting and progress bars."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

# reStructuredText markup of the docstrings the help reuses: ``literal``, :role:`target`
# (``~`` shortening the target to its last name), `text <link>`_
_LITERAL = re.compile(r"``(.+?)``", re.S)
_ROLE = re.compile(r":[a-z]+:`~?([^`]+?)`")
_LINK = re.compile(r"`([^`<]+?)\s*<[^`>]+>`_")
_CODE = re.compile(r"`([^`\n]+)`")  # Markdown-style `code`


def plain(text: str) -> str:
    """``text`` with reStructuredText markup taken out, as a terminal should show it:
    ````template```` -> ``template``, ``:mod:`scir.reports``` -> ``scir.reports``."""
    text = _ROLE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    return _CODE.sub(lambda m: m.group(1), _LITERAL.sub(lambda m: m.group(1), text))


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows defaults (where there is one), keeps the epilog's examples as written, and shows
    plain words where a docstring reused as help has reStructuredText markup."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.required:
            return action.help  # "(default: None)" would only mislead
        return super()._get_help_string(action)

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))

    def _expand_help(self, action: argparse.Action) -> str:
        return plain(super()._expand_help(action))


def progress(
    items: Iterable[T], total: int | None = None, desc: str = "", disable: bool | None = None
) -> Iterator[T]:
    """A tqdm progress bar on stderr when it is a terminal; otherwise (CI, nohup, batch
    logs) plain lines at least every 30 s (:func:`scir.progress.plain_progress`: done /
    total, accuracy and errors of pipeline results, tokens/s, ETA). ``disable`` True shows
    nothing."""
    if disable:
        return iter(items)
    if not sys.stderr.isatty():
        from scir.progress import plain_progress

        return plain_progress(items, total=total, desc=desc)
    from tqdm import tqdm

    return iter(
        tqdm(items, total=total, desc=desc, file=sys.stderr, dynamic_ncols=True, leave=False)
    )
