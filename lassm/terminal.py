# SPDX-License-Identifier: BSD-3-Clause
"""Rich's console for lassm's tables, leaving a closed pipe to the command line.

Rich would exit with code 1 when the reader stops (``| head -1``); here the fault goes back to
lassm's command line, which ends quietly with code 0 (:mod:`lassm.cli.faults`).
"""
from __future__ import annotations

from typing import Any


def console(**options: Any):
    """A ``rich.console.Console(**options)`` that raises ``BrokenPipeError`` on a closed pipe."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError()

    return PipeConsole(**options)


__all__ = ["console"]
