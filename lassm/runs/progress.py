# SPDX-License-Identifier: BSD-3-Clause
"""The progress of ``lassm run``'s parts and steps: points done of the total, time spent, time left.

On a terminal each task is a live rich bar on standard error; elsewhere the same tasks print a
plain line at start, every :data:`INTERVAL` and at the end; ``--quiet`` shows neither. Callers
use rich's :class:`rich.progress.Progress` calls; a task counting another unit than points says
its points in the fields ``points`` and ``points_total``.
"""
from __future__ import annotations

import sys
from typing import IO, Any, Callable

from rich.progress import (BarColumn, Progress, ProgressColumn, Task, TaskID, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn)
from rich.text import Text

#: Seconds between two plain lines of one task (its first and last line are always printed).
INTERVAL = 30.0


def _count(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def points(task: Task) -> tuple[float | None, float | None]:
    """(done, total) points of a task: its ``points`` fields where it has them, else its own counts."""
    return task.fields.get("points", task.completed), task.fields.get("points_total", task.total)


class PointsColumn(ProgressColumn):
    """``12/100 points`` (``unit`` field: another word than points)."""

    def render(self, task: Task) -> Text:
        done, total = points(task)
        return Text(f"{_count(done)}/{_count(total)} {task.fields.get('unit', 'points')}")


def remaining(task: Task) -> float | None:
    """Seconds left at the task's pace since it started (time per unit so far, times the units
    left); None before its first unit. Steadier than a recent window in a log read later."""
    if task.finished:
        return 0.0
    if not task.completed or task.total is None or not task.elapsed:
        return None
    return task.elapsed * (task.total - task.completed) / task.completed


class RemainingColumn(ProgressColumn):
    """``ETA 0:03:07``: :func:`remaining`, as the plain lines say it."""

    def render(self, task: Task) -> Text:
        return Text(f"ETA {_clock(remaining(task))}", style="progress.remaining")


def _clock(seconds: float | None) -> str:
    """``0:03:07``, or ``?`` while unknown (rich's own columns print the same form)."""
    if seconds is None:
        return "?"
    whole = int(max(seconds, 0))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def line(task: Task) -> str:
    """One plain line for a task: ``sweep: 12/100 points (12%), 0:00:32 elapsed, ETA 0:03:40``."""
    done, total = points(task)
    share = f" ({task.percentage:.0f}%)" if task.total else ""
    left = "done" if task.finished else f"ETA {_clock(remaining(task))}"
    return (f"{task.description}: {_count(done)}/{_count(total)} {task.fields.get('unit', 'points')}{share}, "
            f"{_clock(task.finished_time if task.finished else task.elapsed)} elapsed, {left}")


class LineProgress(Progress):
    """A :class:`rich.progress.Progress` with no live display: each task says a plain line when it
    starts, at most every ``interval`` seconds while it moves, and when it ends."""

    def __init__(self, *, file: IO[str] | None = None, interval: float = INTERVAL,
                 get_time: Callable[[], float] | None = None) -> None:
        super().__init__(*columns(), disable=True, get_time=get_time)
        self._file = file
        self._interval = interval
        self._said: dict[TaskID, float] = {}
        self._ended: set[TaskID] = set()

    def _say(self, task_id: TaskID, first: bool = False) -> None:
        task = self._tasks[task_id]
        if task_id in self._ended:
            return
        now = self.get_time()
        due = first or task.finished or now - self._said.get(task_id, now) >= self._interval
        if not due:
            return
        self._said[task_id] = now
        if task.finished:
            self._ended.add(task_id)
        print(line(task), file=self._file or sys.stderr, flush=True)

    def add_task(self, description: str, start: bool = True, total: float | None = 100.0, completed: int = 0,
                 visible: bool = True, **fields: Any) -> TaskID:
        task_id = super().add_task(description, start=start, total=total, completed=completed, visible=visible,
                                   **fields)
        if total is not None and completed >= total:  # nothing to do: rich marks it done only on an update
            super().update(task_id, completed=completed)
        self._say(task_id, first=True)
        return task_id

    def update(self, task_id: TaskID, **changes: Any) -> None:
        super().update(task_id, **changes)
        self._say(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._say(task_id)


def columns() -> tuple[ProgressColumn, ...]:
    """Description, bar, points done of the total, share, time elapsed, time left."""
    return (TextColumn("{task.description}"), BarColumn(), PointsColumn(), TaskProgressColumn(), TimeElapsedColumn(),
            RemainingColumn())


def bar(enabled: bool = True, *, file: IO[str] | None = None, interval: float = INTERVAL) -> Progress:
    """The progress display of one part: live on a terminal, plain lines elsewhere, nothing when
    ``enabled`` is false (``--quiet``). ``file`` defaults to standard error, looked up at each line."""
    if not enabled:
        return Progress(*columns(), disable=True)
    stream = file or sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        from rich.console import Console

        return Progress(*columns(), console=Console(file=file) if file else Console(stderr=True))
    return LineProgress(file=file, interval=interval)


class Step:
    """One step of a part (counters, ceilings, a build) shown as a task of ``progress``: ``advance``
    for each item done, ``end`` once it stops, done or given up (its task then reads done).
    ``unit`` names what it counts (``points``; ``step`` for a step done in one go)."""

    def __init__(self, progress: Progress, description: str, total: float = 1, unit: str = "points") -> None:
        self._progress = progress
        self._total = total
        self._task = (progress.add_task(description, total=total) if unit == "points"
                      else progress.add_task(description, total=total, unit=unit))
        if not total:  # nothing to do: the task ends as it starts
            progress.update(self._task, completed=0)

    def advance(self, n: float = 1) -> None:
        self._progress.advance(self._task, n)

    def end(self) -> None:
        if not next(t for t in self._progress.tasks if t.id == self._task).finished:
            self._progress.update(self._task, completed=self._total)


__all__ = ["INTERVAL", "LineProgress", "PointsColumn", "RemainingColumn", "Step", "bar", "columns", "line", "points",
           "remaining"]
