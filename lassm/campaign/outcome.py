# SPDX-License-Identifier: BSD-3-Clause
"""What one part of ``lassm run`` did: a status row per point, what it lacks, its steps' seconds, its files.

The X-drop campaign and the original programs report the same way (the local-assembly campaign,
which writes several machine folders at once, keeps its per-folder :class:`lassm.campaign.assembly_run.Outcome`).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .. import stderr
from ..runs.account import SKIPPED


class OutcomeLike(Protocol):
    """What every part's outcome has: a status row per point, and those that failed."""

    rows: list[dict]

    @property
    def failed(self) -> list[dict]:
        """Rows that neither ran clean nor were recorded before (nor are a device's findings)."""
        ...


@dataclass
class PartOutcome:
    """Rows (each with a ``status``: ``ok``, ``skipped (recorded)``, ``MISMATCH`` or ``failed: ...``),
    lacks, steps' seconds and files of one part."""

    rows: list[dict] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)
    steps: dict[str, float] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def failed(self) -> list[dict]:
        """Rows that neither ran clean nor were recorded before."""
        return [r for r in self.rows if r["status"] not in ("ok", SKIPPED)]


def print_report(lines: Iterable[str], files: dict[str, Path], lacks: Iterable[str] = ()) -> None:
    """A part's closing lines on standard error: one per row, then its files, then what this
    machine lacks (where anything)."""
    for line in lines:
        stderr.line(line)
    for key, path in files.items():
        stderr.line(f"{key}: {path}")
    lacks = list(lacks)
    if lacks:
        stderr.line("lacks:")
        for line in lacks:
            stderr.line(f"  {line}")


__all__ = ["OutcomeLike", "PartOutcome", "print_report"]
