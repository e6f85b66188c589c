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
    """A tqdm progress bar on stderr (hidden when stderr is not a terminal, unless forced)."""
    from tqdm import tqdm

    if disable is None:
        disable = not sys.stderr.isatty()
    return iter(tqdm(items, total=total, desc=desc, file=sys.stderr, disable=disable,
                     dynamic_ncols=True, leave=False))
