# SPDX-License-Identifier: BSD-3-Clause
"""Rich's console for lassm's tables, leaving a closed pipe to the command line.

Rich answers a reader that stopped reading (``lassm paper tables | head -1``) by exiting the
process itself, with code 1; here the fault is handed back to lassm's command line, which ends
such a command quietly with code 0, like its other output (:mod:`lassm.cli.faults`).
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
