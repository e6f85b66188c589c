"""Helpers shared by the subcommands: argparse formatting and progress bars."""

from __future__ import annotations

import argparse
import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows defaults (where there is one) and keeps the epilog's examples as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.required:
            return action.help  # "(default: None)" would only mislead
        return super()._get_help_string(action)


def progress(items: Iterable[T], total: int | None = None, desc: str = "",
             disable: bool | None = None) -> Iterator[T]:
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

    return iter(tqdm(items, total=total, desc=desc, file=sys.stderr, dynamic_ncols=True,
                     leave=False))
