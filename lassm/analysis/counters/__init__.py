# SPDX-License-Identifier: BSD-3-Clause
"""Hardware counters: profiler output (ncu, rocprof, unitrace) -> one tidy table for every vendor.

The table and shared helpers live in :mod:`.tidy` (re-exported); one module per profiler reads
its CSV, and :func:`parse` picks one by tool name."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ...errors import LassmError
from .complete import refuse_cut_short, refuse_twice, refuse_unlike_record, refuse_unreadable_text
from .tidy import (
    COUNTER_COLUMNS,
    ID_COLUMNS,
    QUANTITY_COLUMNS,
    PEAK_COLUMNS,
    POINT_KEYS,
    TOOLS,
    aggregate,
    convert,
    load_metric_names,
    parse_number,
    read_data_csv,
    read_meta,
    sidecar_paths,
    tidy_frame,
    write_sidecars,
)


def _named(where: str | Path | Sequence[str | Path], reader, *args: Any, **labels: Any):
    """``reader(*args)``; a fault that does not name its file is re-raised naming ``where`` (all of
    them, when the fault is of the set)."""
    files = [str(w) for w in where] if isinstance(where, (list, tuple)) else [str(where)]
    try:
        for name in files:
            refuse_unreadable_text(name)
            refuse_cut_short(name)
        table = reader(*args, **labels)
        if len(table) == 0:
            raise ValueError("no launch rows after its header: cut short (a truncated copy?)")
        if len(files) == 1:
            refuse_unlike_record(files[0], len(table))
        return table
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith(tuple(files)) else f"{', '.join(files)}: {text}") from None


def parse(paths: Sequence[str | Path], tool: str, **labels: Any):
    """Parses raw files of one ``tool`` (``ncu``, ``rocprof``, ``unitrace``) into the tidy counter
    table, one row per launch; rocprofv3 pass files merge by dispatch. ``labels`` (``dataset``,
    ``k``, ``protocol``, ``device``, ``simd_width``...) override the sidecar's."""
    import pandas as pd

    frames = parse_each(paths, tool, **labels)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def parse_each(paths: Sequence[str | Path], tool: str, **labels: Any) -> list:
    """:func:`parse`'s tables before they are joined: one per file (ncu, unitrace), or one for the
    whole set (rocprof's pass files, merged by dispatch)."""
    try:
        refuse_twice(paths)
    except OSError as exc:
        raise LassmError(f"{exc.filename}: unreadable ({exc.strerror})") from None
    if tool == "ncu":
        from . import ncu

        frames = [_named(p, ncu.parse, p, **labels) for p in paths]
    elif tool == "rocprof":
        from . import rocprof

        frames = [_named(list(paths), rocprof.parse, list(paths), **labels)]  # one dispatch table
    elif tool == "unitrace":
        from . import unitrace

        frames = [_named(p, unitrace.parse, p, **labels) for p in paths]
    else:
        raise LassmError(f"unknown tool {tool!r}; choose one of {', '.join(TOOLS)}")
    return frames


__all__ = ["COUNTER_COLUMNS", "ID_COLUMNS", "PEAK_COLUMNS", "POINT_KEYS", "QUANTITY_COLUMNS", "TOOLS",
           "aggregate", "convert", "load_metric_names", "parse", "parse_each", "parse_number", "read_data_csv",
           "read_meta", "refuse_cut_short", "refuse_twice", "refuse_unlike_record",
           "sidecar_paths", "tidy_frame", "write_sidecars"]
