# SPDX-License-Identifier: BSD-3-Clause
"""Progress and notes on standard error, a whole line at a time, apart from a command's output.

A step takes a ``say`` callable: :func:`line` writes (flushed at once), :func:`nothing` is
quiet, :func:`sayer` picks from a ``progress`` option. Standard error is looked up per call.
"""
from __future__ import annotations

import sys
from collections.abc import Callable


def line(text: str) -> None:
    """``text`` and a newline on standard error, flushed."""
    print(text, file=sys.stderr, flush=True)


def nothing(text: str) -> None:
    """Says nothing: the ``say`` of a quiet run."""


def sayer(progress: bool | Callable[[str], None]) -> Callable[[str], None]:
    """Where a step's lines go: a callable given is used as it is, True is :func:`line`, False
    :func:`nothing`."""
    if callable(progress):
        return progress
    return line if progress else nothing


__all__ = ["line", "nothing", "sayer"]
