#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Lays a from-scratch run's machine folder onto the committed one, keeping what it did not redo.

A whole ``lassm run`` from a clone with no records for the machine writes a complete
folder at one commit. The committed folder also holds what other commands wrote (scaling records,
logs, older accounts). Merged: account files (``{"entries": [...]}``) get the new run's entries
after the old ones; the tables whose rows have a key get the new rows upserted by it (the same
writer ``lassm run`` uses); every other file (record folders, raw counters, ceilings, metrics) is
the new run's.

Usage: merge_results.py NEW_FOLDER COMMITTED_FOLDER
"""
from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

from lassm.campaign.originals import hecbench
from lassm.campaign import suite_counters
from lassm.runs import account, results, suite, tables, xdrop

#: Tables kept row by row: their path in a machine folder, and their key.
KEYED: dict[str, tuple[str, ...]] = {
    results.AGAINST_ORIGINAL_FILE: results.AGAINST_ORIGINAL_KEY,
    f"suite/{suite.TIMES_FILE}": suite.KEY,
    f"suite/{hecbench.FILE}": hecbench.KEY,
    f"suite/{suite_counters.FILE}": suite_counters.KEY,
    f"xdrop/{xdrop.TIMES_FILE}": xdrop.TIMES_KEY,
    f"xdrop/{xdrop.COUNTERS_FILE}": xdrop.COUNTERS_KEY,
    f"xdrop/{xdrop.AGAINST_LOGAN_FILE}": xdrop.AGAINST_LOGAN_KEY,
    f"xdrop/{xdrop.LANES_FILE}": xdrop.LANES_KEY,
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
            shutil.copy2(src, dst)
            done.append(f"{rel}: copied")
    return done


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for line in merge(Path(argv[0]), Path(argv[1])):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
