# SPDX-License-Identifier: BSD-3-Clause
"""A from-scratch run's machine folder laid onto the committed one, keeping what it did not redo.

:func:`merge` (``lassm merge-results``) appends the new run's account entries after the old,
upserts keyed tables' rows by key (``lassm run``'s writer), and takes every other file (records,
raw counters, ceilings, metrics) from the new run; files only the old folder has (scaling
records, logs) stay."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

from ..atomic import atomic_path
from ..runs import account, results, suite_records, tables, xdrop_records
from . import suite_counters
from .originals import hecbench

#: Tables kept row by row: their path in a machine folder, and their key.
KEYED: dict[str, tuple[str, ...]] = {
    results.AGAINST_ORIGINAL_FILE: results.AGAINST_ORIGINAL_KEY,
    f"suite/{suite_records.TIMES_FILE}": suite_records.KEY,
    f"suite/{hecbench.FILE}": hecbench.KEY,
    f"suite/{suite_counters.FILE}": suite_counters.KEY,
    f"xdrop/{xdrop_records.TIMES_FILE}": xdrop_records.TIMES_KEY,
    f"xdrop/{xdrop_records.COUNTERS_FILE}": xdrop_records.COUNTERS_KEY,
    f"xdrop/{xdrop_records.AGAINST_LOGAN_FILE}": xdrop_records.AGAINST_LOGAN_KEY,
    f"xdrop/{xdrop_records.LANES_FILE}": xdrop_records.LANES_KEY,
}


def merge(new: Path, into: Path) -> list[str]:
    """Lays ``new`` onto ``into``; returns each file's path and what was done with it."""
    done = []
    for src in sorted(p for p in new.rglob("*") if p.is_file()):
        rel = src.relative_to(new).as_posix()
        dst = into / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        entries = account.read_entries(src) if src.suffix == ".json" and dst.is_file() else None
        if entries and '"entries"' in src.read_text()[:200]:
            for e in entries:
                account.append_entry(dst, e)
            done.append(f"{rel}: {len(entries)} entries appended")
        elif rel in KEYED and dst.is_file():
            with open(src, newline="") as fh:
                columns = next(csv.reader(fh))
            rows = tables.read_rows(src, columns)
            tables.upsert(dst, columns, KEYED[rel], rows)
            done.append(f"{rel}: {len(rows)} rows upserted")
        else:
            with atomic_path(dst) as tmp:  # whole or absent, as every output
                shutil.copy2(src, tmp)
            done.append(f"{rel}: copied")
    return done


__all__ = ["KEYED", "merge"]
