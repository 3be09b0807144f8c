# SPDX-License-Identifier: BSD-3-Clause
"""The project's CSV data files under ``data/``: where one is and how it is read."""
from __future__ import annotations

from pathlib import Path


def data_csv(name: str) -> Path:
    """Path of the data file ``name`` under ``data/`` (``LASSM_DATA`` moves the folder)."""
    from . import paths

    return paths.data_dir() / name


def read_data_csv(path: str | Path):
    """Reads one of the project's CSV data files into a DataFrame, skipping its leading ``#`` lines."""
    import io

    import pandas as pd

    text = Path(path).read_text()
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].lstrip().startswith("#"):
        start += 1
    return pd.read_csv(io.StringIO("".join(lines[start:])), keep_default_na=False, na_values=[""])
