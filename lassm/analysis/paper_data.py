# SPDX-License-Identifier: BSD-3-Clause
"""The paper's published files, loaded and checked: what every recomputation of :mod:`.paper` reads.

The one place that knows the files' columns and units (``data/paper-artifacts/``,
``data/paper-tables.csv``, ``data/machines.csv``); :mod:`.paper` only computes."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LassmError

if TYPE_CHECKING:  # imported where used: reading the module stays light
    import pandas as pd

#: Raw-data columns the study published.
RAW_COLUMNS: tuple[str, ...] = ("platform", "kmer_size", "kernel_time", "integer_operations_by_thread",
                                "integer_operations_by_warp", "dram_bytes", "AI", "GIntOP_per_sec")


def artifacts_dir() -> Path:
    """``data/paper-artifacts/``: the authors' published raw data."""
    from ..paths import data_dir

    return data_dir() / "paper-artifacts"


def load_raw(name: str = "Raw_local_benchmarking_results.csv") -> pd.DataFrame:
    """One of the authors' raw files, validated, ``kmer_size`` renamed ``k``: ``name`` is
    ``Raw_local_benchmarking_results.csv`` (thread-level AI and rate, every platform) or
    ``Raw_data_by_thread.csv`` (NVIDIA's, warp-level). ``ValueError`` on a missing column or a count
    not positive."""
    import pandas as pd
    from . import columns

    df = pd.read_csv(artifacts_dir() / name)
    columns.require_columns(df, RAW_COLUMNS)
    numeric = [c for c in RAW_COLUMNS if c != "platform"]
    columns.require_numeric(df, numeric)
    for c in numeric:
        columns.require_range(df, c, 0.0, low_open=True)
    return df.rename(columns={"kmer_size": "k"})


def load_theoretical_ai() -> pd.DataFrame:
    """The authors' other model, ``theoretical_ai.csv`` (150 ops per step): ``k, IntOP_1, IntOP_2,
    Bytes_1, Bytes_2, AI``."""
    import pandas as pd
    from . import columns

    df = pd.read_csv(artifacts_dir() / "theoretical_ai.csv")
    columns.require_columns(df, ["kmer_size", "IntOP_1", "IntOP_2", "Bytes_1", "Bytes_2", "AI"])
    return df.rename(columns={"kmer_size": "k"})


def load_paper_tables() -> pd.DataFrame:
    """``data/paper-tables.csv``, the printed tables and notebook frames one value a row: ``source,
    table, row, column, value, unit, note``."""
    import pandas as pd
    from . import columns
    from ..datafiles import data_csv, read_data_csv

    df = read_data_csv(data_csv("paper-tables.csv"))
    columns.require_columns(df, ["source", "table", "row", "column", "value", "unit"])
    for c in ("source", "table", "row", "column", "unit"):
        df[c] = df[c].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="raise").astype("float64")
    return df


def published(table: str, source: str = "paper") -> pd.DataFrame:
    """One printed ``table`` (``III`` to ``VII``, ``eq1``, ``eq3``, ``P_roofline``, ``P_ai``) of
    ``source`` ``paper`` or ``notebook`` as a frame, rows and columns as printed, percentages as
    fractions. :class:`LassmError` when the table is not in the data file."""
    df = load_paper_tables()
    sel = df[(df["table"] == table) & (df["source"] == source)].copy()
    if sel.empty:
        raise LassmError(f"paper-tables.csv has no table {table!r} from {source!r}")
    sel.loc[sel["unit"] == "%", "value"] = sel.loc[sel["unit"] == "%", "value"] / 100.0
    wide = sel.pivot(index="row", columns="column", values="value")
    wide.index.name = "row"
    wide.columns.name = None
    return wide


def k_rows(wide: pd.DataFrame) -> pd.DataFrame:
    """The numeric (k) rows of a printed table, indexed by int k, sorted."""
    keep = [r for r in wide.index if str(r).isdigit()]
    out = wide.loc[keep].copy()
    out.index = [int(r) for r in keep]
    out.index.name = "k"
    return out.sort_index()


def paper_machines() -> pd.DataFrame:
    """Rows of data/machines.csv that the paper used, indexed by its platform label."""
    from .machine import load_machines

    m = load_machines()
    return m[m["paper_platform"].notna()].set_index("paper_platform")


def platforms() -> list[str]:
    """The paper's platforms as the raw data labels them (``["NVIDIA", "AMD", "INTEL"]``), in the order
    of ``data/machines.csv``."""
    from .machine import load_machines

    m = load_machines()
    return [str(p) for p in m["paper_platform"] if p]


__all__ = ["RAW_COLUMNS", "artifacts_dir", "k_rows", "load_paper_tables", "load_raw", "load_theoretical_ai",
           "paper_machines", "platforms", "published"]
