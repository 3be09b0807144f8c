# SPDX-License-Identifier: BSD-3-Clause
"""Hardware counters: profiler output (ncu, rocprof, unitrace) -> one tidy table for every vendor.

The tidy table, its columns and units, and the helpers the parsers share are in :mod:`.tidy`
(re-exported here); one module per profiler (:mod:`.ncu`, :mod:`.rocprof`, :mod:`.unitrace`)
reads that tool's CSV; :func:`parse` picks the module by tool name. A new profiler is a new
module here and a branch of :func:`parse`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ...errors import LassmError
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


def _named(where: str | Path | Sequence[str | Path], reader, *args: Any, **labels: Any):
    """``reader(*args)``, a fault raised with the file's name (of several inputs, which): a reader
    that names the file at fault itself (``where`` lists its inputs) is left as it is, else the
    fault is put to ``where`` (all of them, where a fault is of the set, not of one file)."""
    files = [str(w) for w in where] if isinstance(where, (list, tuple)) else [str(where)]
    try:
        for name in files:
            refuse_cut_short(name)
        table = reader(*args, **labels)
        if len(table) == 0:
            raise ValueError("no launch rows after its header: cut short (a truncated copy?)")
        return table
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith(tuple(files)) else f"{', '.join(files)}: {text}") from None


def parse(paths: Sequence[str | Path], tool: str, **labels: Any):
    """Parses raw profiler files of one tool into the tidy counter table.

    Parameters
    ----------
    paths : sequence of str or pathlib.Path
        Raw CSV files (rocprofv3 writes one per pass; they are merged by dispatch).
    tool : str
        ``ncu``, ``rocprof`` or ``unitrace``.
    **labels
        Labels that override the sidecar's (``dataset``, ``k``, ``protocol``, ``device``,
        ``simd_width`` ...).

    Returns
    -------
    pandas.DataFrame
        The tidy counter table, one row per launch.
    """
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
    import pandas as pd

    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


__all__ = ["COUNTER_COLUMNS", "ID_COLUMNS", "PEAK_COLUMNS", "POINT_KEYS", "QUANTITY_COLUMNS", "TOOLS",
           "aggregate", "convert", "load_metric_names", "parse", "parse_number", "read_data_csv", "read_meta",
           "refuse_cut_short",
           "sidecar_paths", "tidy_frame", "write_sidecars"]
