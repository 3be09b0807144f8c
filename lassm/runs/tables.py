# SPDX-License-Identifier: BSD-3-Clause
"""Small CSV tables of records, rewritten whole and atomically each time rows are added.

The X-drop tables and ``against-original.csv``: a killed run leaves the table as after its last
finished row, and the next run finds what is measured at this commit (:func:`recorded`). A
header that is a start of the columns is read with the rest empty and rewritten in full next
time; any other header is refused.
"""
from __future__ import annotations

import csv
import io
import math
import os
from pathlib import Path
from typing import Iterable, Sequence

from ..atomic import atomic_open, locked
from ..errors import InputError
from .host import claim


def read_rows(path: str | os.PathLike, columns: Sequence[str]) -> list[dict[str, str]]:
    """The rows (strings) of a table :func:`upsert` wrote, ``[]`` when there is none; raises
    InputError when the header is neither ``columns`` nor a start of them."""
    path = Path(path)
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        found = tuple(reader.fieldnames or ())
        if not found or found != tuple(columns)[:len(found)]:
            raise InputError(str(path), 1, "header", f"columns {reader.fieldnames} are not {list(columns)}")
        return [{c: r.get(c) or "" for c in columns} for r in reader]


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_rows(path: str | os.PathLike, columns: Sequence[str], rows: Iterable[dict]) -> None:
    """Writes the whole table atomically, ``columns`` in order (absent values empty)."""
    claim(path)  # a table under the results root marks its machine folder as this host's
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w") as fh:
        fh.write(buf.getvalue())


def upsert(path: str | os.PathLike, columns: Sequence[str], key: Sequence[str], rows: Sequence[dict]) -> None:
    """Adds ``rows``, replacing those of the same ``key``, the rest keeping their order; read and
    rewrite happen under :func:`lassm.atomic.locked`, so concurrent runs both keep theirs."""
    new = {tuple(_cell(r.get(k)) for k in key): r for r in rows}
    claim(path)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        kept = [r for r in read_rows(path, columns) if tuple(r.get(k, "") for k in key) not in new]
        write_rows(path, columns, kept + list(new.values()))


def same_device(path: str | os.PathLike, columns: Sequence[str], device: str) -> None:
    """Raises InputError, naming the table, its rows' device and this one, when ``device``'s rows would
    join a table of another device: a machine folder is one device's."""
    others = sorted({r["device"] for r in read_rows(path, columns) if r.get("device") and r["device"] != device})
    if others:
        raise InputError(str(path), None, "device",
                         f"its rows were measured on {', '.join(others)}, not on this {device}: name this "
                         f"device's own results folder")


def recorded(rows: Sequence[dict], git_sha: str, timed: str | None = None, **where) -> bool:
    """Whether ``rows`` hold a row measured at ``git_sha`` whose columns equal ``where`` and, where
    ``timed`` names a column, whose value there is a time (a finite number, not negative): a row
    damaged in that column is measured again."""
    want = {k: _cell(v) for k, v in where.items()}
    return any(r.get("git_sha") == git_sha and all(r.get(k) == v for k, v in want.items())
               and (timed is None or _is_time(r.get(timed))) for r in rows)


def _is_time(text: str | None) -> bool:
    try:
        value = float(text or "")
    except ValueError:
        return False
    return math.isfinite(value) and value >= 0


__all__ = ["read_rows", "recorded", "same_device", "upsert", "write_rows"]
