# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop records of each machine, read and checked: ``data/results/<machine>/xdrop/*.csv``.

``times.csv``, ``counters.csv``, ``against-logan.csv`` and ``lanes.csv`` (columns:
``book/data-contract.md``). A missing file reads as an empty table with the file's columns, so
consumers work on a fresh clone; a wrong one stops with one error naming file, line and field."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ... import paths
from ...errors import LassmError
from . import layouts

#: The folder of a machine's X-drop records.
FOLDER = "xdrop"

#: name -> (file, required columns, numeric columns, key columns (one row per key)).
FILES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "times": ("times.csv",
              ("machine", "device", "dataset", "n_pairs", "bases", "xdrop", "scoring", "backend", "threads", "seconds",
               "wall_seconds", "repeats", "cells", "gcups", "matches_oracle"),
              ("n_pairs", "bases", "xdrop", "seconds", "wall_seconds", "repeats", "cells", "gcups"),
              ("dataset", "xdrop", "scoring", "backend")),
    "counters": ("counters.csv",
                 ("device", "dataset", "xdrop", "program", "simd_width", "duration_s", "int_lane_ops", "warp_inst",
                  "thread_inst", "dram_read_bytes", "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes",
                  "launches", "machine"),
                 ("xdrop", "simd_width", "duration_s", "int_lane_ops", "warp_inst", "thread_inst", "dram_read_bytes",
                  "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes", "launches"),
                 ("dataset", "xdrop", "program")),
    "against": ("against-logan.csv",
                ("machine", "device", "dataset", "n_pairs", "xdrop", "program", "kernel_seconds", "kernel_launches",
                 "logan_gpu_seconds", "whole_seconds"),
                ("n_pairs", "xdrop", "kernel_seconds", "kernel_launches", "logan_gpu_seconds", "whole_seconds"),
                ("dataset", "xdrop", "program")),
    "lanes": ("lanes.csv",
              ("machine", "device", "dataset", "n_pairs", "xdrop", "lanes", "planned", "kernel_seconds", "repeats",
               "cells", "gcups", "equal_to_block"),
              ("n_pairs", "xdrop", "lanes", "kernel_seconds", "repeats", "cells", "gcups"),
              ("dataset", "xdrop", "lanes")),
}
#: Columns read as True/False (an empty cell: not known, a nullable boolean's NA).
FLAGS: tuple[str, ...] = ("matches_oracle", "equal_to_block", "planned")


def results_root() -> Path:
    """The folder holding one folder per machine (``LASSM_RESULTS`` moves it, as everywhere)."""
    return paths.results_dir("_").parent


def machines() -> list[str]:
    """Machines with at least one X-drop record file, sorted."""
    root = results_root()
    if not root.is_dir():
        return []
    names = {spec[0] for spec in FILES.values()}
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith((".", "_"))
                  and any((p / FOLDER / n).is_file() for n in names))


def path(machine: str, name: str) -> Path:
    """Where record ``name`` (a key of :data:`FILES`) of ``machine`` lives."""
    if name not in FILES:
        raise ValueError(f"unknown X-drop record {name!r}; choose one of {sorted(FILES)}")
    return paths.results_dir(machine) / FOLDER / FILES[name][0]


def _bool(value) -> bool | None:
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    return None


def read(file: Path, name: str) -> pd.DataFrame:
    """One record ``file`` of kind ``name`` (a key of :data:`FILES`), checked: columns present, numbers
    numeric (empty: NaN), one row per key; :data:`FLAGS` as nullable booleans, ``layout`` filled by
    :func:`.layouts.fill` where the row lacks it. :class:`LassmError`
    ``<file>:<line>: field <column>: ...`` on the first bad value; a missing column or repeated key
    names the file."""
    _, required, numeric, key = FILES[name]
    try:
        df = pd.read_csv(file, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise LassmError(f"{file}: not a CSV table ({exc})") from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise LassmError(f"{file}: field(s) {missing} missing from the header")
    for col in numeric:
        values = pd.to_numeric(df[col].replace("", None), errors="coerce")
        bad = values.isna() & (df[col] != "")
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise LassmError(f"{file}:{i + 2}: field {col}: {df[col].iloc[i]!r} is not a number")
        negative = values < 0
        if negative.any():
            i = int(negative.to_numpy().nonzero()[0][0])
            raise LassmError(f"{file}:{i + 2}: field {col}: {df[col].iloc[i]!r} is negative")
        df[col] = values.astype("float64")
    for col in (c for c in FLAGS if c in df.columns):
        flags = df[col].map(_bool)
        bad = flags.isna() & (df[col] != "")
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise LassmError(f"{file}:{i + 2}: field {col}: {df[col].iloc[i]!r} is not True/False")
        df[col] = flags.astype("boolean")  # empty: not checked
    repeated = df.duplicated(list(key), keep="first")
    if repeated.any():
        i = int(repeated.to_numpy().nonzero()[0][0])
        raise LassmError(f"{file}:{i + 2}: a second row for {dict(df.loc[df.index[i], list(key)])}")
    return layouts.fill(df, name)  # which kernel ran: the record's cell, else the stated rule


def load(machine: str, name: str) -> pd.DataFrame:
    """Record ``name`` of ``machine``, or an empty table with its columns when the file is absent."""
    file = path(machine, name)
    if not file.is_file():
        return pd.DataFrame(columns=[*FILES[name][1], "layout"])
    df = read(file, name)
    df["machine"] = machine  # the folder names the machine, as for every other record
    return df


def load_all(name: str, names: list[str] | None = None) -> pd.DataFrame:
    """Record ``name`` of every machine (:func:`machines`) in one table; empty when none has it."""
    frames = [load(m, name) for m in (machines() if names is None else names)]
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*FILES[name][1], "layout"])


__all__ = ["FILES", "FLAGS", "FOLDER", "load", "load_all", "machines", "path", "read", "results_root"]
