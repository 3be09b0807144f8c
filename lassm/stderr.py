# SPDX-License-Identifier: BSD-3-Clause
"""Progress and notes on standard error, a whole line at a time: one way for every stage to say
what it does without mixing it into a command's output on standard output.

A step that reports takes a ``say`` callable; :func:`line` is the one that writes (flushed at
once, so its lines keep their order beside a child process's), :func:`nothing` the quiet one,
and :func:`sayer` picks between them from a ``progress`` option. Standard error is looked up at
each call, so a test that captures it sees every line.
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
