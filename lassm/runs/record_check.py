# SPDX-License-Identifier: BSD-3-Clause
"""Whether a record folder is whole and this host's, before a run counts its point as done; a run
measures a point again, saying so, where :func:`problem` names what is wrong.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TypeGuard

from ..errors import LassmError
from ..readback import json_object

from .host import SHORT, host_id
from .records import SUMMARY_KEYS

#: What :func:`problem` says of a point never recorded (not damaged: simply to measure).
ABSENT = "no summary.json"
#: The ``ends`` table's columns a record must hold (:meth:`Extension.ends_columns`).
ENDS_COLUMNS: tuple[str, ...] = ("cid", "side", "walk_len", "final_k", "term", "steps", "insertions")


def _number(value: object, low: float = 0.0) -> TypeGuard[float]:
    """A real number (not a bool), finite and at least ``low``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= low


def summary_problem(summary: object) -> str | None:
    """What is wrong with a ``summary.json``'s content, or None: the keys every record carries,
    numbers where numbers belong, and this host's fingerprint."""
    if not isinstance(summary, dict):
        return f"summary.json holds {type(summary).__name__}, not a record"
    missing = [key for key in SUMMARY_KEYS if key not in summary and key != "kernel"]  # "kernel" came later
    if missing:
        return f"summary.json lacks {', '.join(missing)}"
    for key in ("kernel_seconds", "wall_seconds"):
        if not _number(summary[key]):
            return f"summary.json's {key} is {summary[key]!r}, not a time"
    for key in ("k", "contig_ends", "hash_insertions"):
        if not _number(summary[key]) or summary[key] != int(summary[key]):
            return f"summary.json's {key} is {summary[key]!r}, not a count"
    if summary["matches_cpu"] not in (True, False, None):
        return f"summary.json's matches_cpu is {summary['matches_cpu']!r}"
    host = summary.get("host")
    if not isinstance(host, dict) or not host.get("id"):
        return "summary.json names no host (recorded before records named their host)"
    if host["id"] != host_id():
        return f"recorded by another host ({str(host['id'])[:SHORT]})"
    return None


def _table_problem(path: Path, columns: tuple[str, ...], rows: float | None) -> str | None:
    """What is wrong with a Parquet table of the record, or None (also where pyarrow is absent, a
    bare GPU node: its records hold TSV tables, which :func:`lassm.runs.records.normalize_records`
    turns into Parquet where pyarrow is)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None

    try:
        table = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001  pyarrow raises several kinds for a damaged file
        return f"{path.name} does not read ({type(exc).__name__})"
    lacking = [c for c in columns if c not in table.column_names]
    if lacking:
        return f"{path.name} lacks the columns {', '.join(lacking)}"
    if rows is not None and table.num_rows != rows:
        return f"{path.name} holds {table.num_rows} rows, not {rows}"
    return None


def problem(folder: str | Path) -> str | None:
    """The first thing wrong with the record folder ``folder`` (``<machine>/<run-id>``), in one clause
    naming the file (absent, cut, not a number, another host's), or None where it is whole and this
    host's."""
    folder = Path(folder)
    path = folder / "summary.json"
    if not path.is_file():
        return ABSENT
    try:
        summary = json_object(path, "run record")
    except OSError as exc:
        return f"summary.json does not read ({exc.strerror})"
    except LassmError as exc:  # not UTF-8, not JSON, cut short, or no object
        return str(exc).removeprefix(f"{path}: ").replace("run record", "run record in summary.json", 1)
    found = summary_problem(summary)
    if found:
        return found
    contigs = summary.get("contigs")
    rows = 2 * contigs if _number(contigs) else None
    found = None
    if (folder / "ends.parquet").is_file():
        found = _table_problem(folder / "ends.parquet", ENDS_COLUMNS, rows)
    elif (summary["backend"] == "cpu" or summary["matches_cpu"] is not True) and not (folder / "ends.tsv").is_file():
        found = "no ends.parquet, which this record needs"
    if not found and (folder / "launches.parquet").is_file():
        found = _table_problem(folder / "launches.parquet", (), None)
    return found


__all__ = ["ABSENT", "ENDS_COLUMNS", "problem", "summary_problem"]
