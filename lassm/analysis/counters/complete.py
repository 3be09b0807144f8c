# SPDX-License-Identifier: BSD-3-Clause
"""Whether a profiler's file is whole: the checks every counter file passes before it is counted.

A profile cut at a line end, or given twice, would still parse, its metrics then of fewer
launches or of twice as many; these checks refuse it. Each raises a ValueError without the
file's name; :func:`lassm.analysis.counters.parse` adds it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ...compressed import unreadable_text
from ...readback import sha256
from .tidy import parse_number, read_meta, sidecar_paths


def refuse_cut_short(path: str | Path) -> None:
    """Refuses a profiler file whose last line has no line break: every profiler ends its CSV with
    one, so the file was cut (a copy stopped by a full disk, a kill) and its last launch, or its
    header, is incomplete; read as it is, a launch would be silently missing.

    Raises
    ------
    ValueError
        Without the file's name (:func:`parse` adds it).
    """
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            raise ValueError("empty: no profiler output")
        fh.seek(-1, 2)
        if fh.read(1) != b"\n":
            raise ValueError("cut short: its last line has no line break (a truncated copy?)")


def refuse_unreadable_text(path: str | Path) -> None:
    """Refuses a profiler file that is compressed or in UTF-16 (saved so by an editor): every
    other byte zero, its last line seemed to end without a line break, and the file was called
    cut short (:func:`lassm.compressed.unreadable_text`).

    Raises
    ------
    ValueError
        Without the file's name (:func:`parse` adds it).
    """
    why = unreadable_text(path)
    if why:
        raise ValueError(why)


def refuse_twice(paths: Sequence[str | Path]) -> None:
    """Refuses one profile given twice, by name or as a copy (the same bytes): its launches would
    be counted twice and every sum doubled, with nothing to show for it.

    Raises
    ------
    ValueError
        Naming both files.
    """
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
    """Refuses a raw file unlike what its ``.meta.json`` recorded when it was collected (its SHA-256,
    its launch count): a file cut at a line end, or edited, still parses and would give the
    metrics of fewer launches, or other ones. A file collected before these were recorded, or
    written by hand, is checked for what it holds alone.

    Raises
    ------
    ValueError
        Without the file's name (:func:`parse` adds it).
    """
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
    """Refuses rocprofv3 passes in which a dispatch lacks a counter another dispatch has: each pass
    counts its counters for every dispatch, so a pass file cut at a line end leaves its last
    dispatches short, and their sums would be of fewer counters."""
    sets = {did: frozenset(d["counters"]) for did, d in dispatches.items()}
    every = frozenset().union(*sets.values()) if sets else frozenset()
    for did in sorted(sets):
        if sets[did] != every:
            lacking = ", ".join(sorted(every - sets[did]))
            raise ValueError(f"dispatch {did} lacks {lacking}, which the other "
                             "dispatches have: a pass cut short (a truncated copy?)")


__all__ = ["refuse_cut_short", "refuse_gaps", "refuse_unreadable_text", "refuse_partial_dispatches", "refuse_partial_launches", "refuse_twice",
           "refuse_unlike_record"]
