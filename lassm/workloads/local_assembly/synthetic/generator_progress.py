# SPDX-License-Identifier: BSD-3-Clause
"""A progress bar over the generator's stages that is nothing when rich is absent or not wanted."""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

if TYPE_CHECKING:  # rich may be absent: then there is no bar
    from rich.progress import Progress, TaskID

T = TypeVar("T")


class Steps:
    """A rich progress bar over the generator's stages, on standard error, or nothing (rich absent /
    not wanted)."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            return
        # On standard error: standard output is what a user pipes (a bar there met a closed pipe
        # and ended the command with exit 1 and nothing said).
        self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                             TextColumn("{task.completed}/{task.total}"), TextColumn("{task.fields[stage]}"),
                             TimeElapsedColumn(), transient=False, console=Console(stderr=True))
        self._task = self._bar.add_task(label, total=total, stage="")

    @contextlib.contextmanager
    def running(self) -> Iterator["Steps"]:
        if self._bar is None:
            yield self
            return
        with self._bar:
            yield self

    def stage(self, text: str) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, stage=text)

    def advance(self, steps: int = 1) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, steps)

    def step(self, text: str, work: Callable[..., T], *args) -> T:
        """``work(*args)`` as one step shown as ``text``: the stage named, the work done, the bar
        advanced, the work's result returned (the shape of every one-call stage)."""
        self.stage(text)
        out = work(*args)
        self.advance()
        return out

    def add_total(self, steps: int) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, total=(self._bar.tasks[0].total or 0) + steps)
