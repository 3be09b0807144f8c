# SPDX-License-Identifier: BSD-3-Clause
"""Whether a profiler's file is whole: the checks every counter file passes before it is counted.

A profile cut at a line end, or given twice, still parses into wrong sums. Each check raises a
``ValueError`` without the file's name; :func:`lassm.analysis.counters.parse` adds it."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ...compressed import unreadable_text
from ...readback import sha256
from .tidy import parse_number, read_meta, sidecar_paths


def refuse_cut_short(path: str | Path) -> None:
    """Refuses a file whose last line has no line break: every profiler ends its CSV with one, so the
    file was cut and its last launch or header is incomplete."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            raise ValueError("empty: no profiler output")
        fh.seek(-1, 2)
        if fh.read(1) != b"\n":
            raise ValueError("cut short: its last line has no line break (a truncated copy?)")


def refuse_unreadable_text(path: str | Path) -> None:
    """Refuses a compressed or UTF-16 file (:func:`lassm.compressed.unreadable_text`), which would
    otherwise be called cut short."""
    why = unreadable_text(path)
    if why:
        raise ValueError(why)


def refuse_twice(paths: Sequence[str | Path]) -> None:
    """Refuses one profile given twice, by name or as the same bytes (every sum would double);
    the error names both files."""
    seen: dict[str, str] = {}
    for path in paths:
        if isinstance(path, str) and "\n" in path:  # the CSV text itself, not a file
            continue
        digest = sha256(path)
        if digest in seen:
            same = "the same file" if Path(seen[digest]).resolve() == Path(path).resolve() else "the same bytes"
            raise ValueError(f"{path}: {same} as {seen[digest]}, given already: one profile counted twice")
        seen[digest] = str(path)


def refuse_unlike_record(path: str | Path, launches: int) -> None:
    """Refuses a raw file whose SHA-256 or launch count differs from its ``.meta.json`` record (cut or
    edited); a file without those records is checked for what it holds alone."""
    meta = read_meta(path)
    recorded = meta.get("raw_sha256")
    if isinstance(recorded, str) and sha256(path) != recorded:
        raise ValueError(f"its SHA-256 is not the one its {sidecar_paths(path)[1].name} records: changed or cut "
                         "since it was collected")
    count = meta.get("launches")
    if isinstance(count, int) and count != launches:
        raise ValueError(f"{launches} launches, where its {sidecar_paths(path)[1].name} records {count}: cut short "
                         "(a truncated copy?)")


def refuse_partial_launches(details) -> None:
    """Refuses a ``--page details`` table in which a launch has fewer metrics than another: ncu
    prints every metric of every launch, so the file was cut at a line end inside a launch."""
    counts = details.groupby("ID", sort=False)["Metric Name"].nunique()
    if len(counts) and counts.min() != counts.max():
        short = counts.idxmin()
        raise ValueError(f"launch {short}: {counts.min()} of the {counts.max()} metrics the other launches have: "
                         "cut short (a truncated copy?)")


def refuse_gaps(ids: list[str]) -> None:
    """Refuses launch IDs that do not run on one by one: ncu numbers the launches it profiles
    consecutively, so a gap is a launch's row lost from the middle of the file."""
    numbers = [int(parse_number(i)) for i in ids]
    for before, after in zip(numbers, numbers[1:]):
        if after != before + 1:
            raise ValueError(f"launch {after} follows launch {before}: a launch's row is missing")


def refuse_partial_dispatches(dispatches: dict[int, dict[str, Any]]) -> None:
    """Refuses rocprofv3 passes in which a dispatch lacks a counter another has: the mark of a pass file
    cut at a line end."""
    sets = {did: frozenset(d["counters"]) for did, d in dispatches.items()}
    every = frozenset().union(*sets.values()) if sets else frozenset()
    for did in sorted(sets):
        if sets[did] != every:
            lacking = ", ".join(sorted(every - sets[did]))
            raise ValueError(f"dispatch {did} lacks {lacking}, which the other "
                             "dispatches have: a pass cut short (a truncated copy?)")


__all__ = ["refuse_cut_short", "refuse_gaps", "refuse_unreadable_text", "refuse_partial_dispatches", "refuse_partial_launches", "refuse_twice",
           "refuse_unlike_record"]
