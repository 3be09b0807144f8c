# SPDX-License-Identifier: BSD-3-Clause
"""The project's CSV data files under ``data/``: where one is and how it is read.

Records (:mod:`lassm.runs.results`), counters, machine ceilings and the paper's tables all read
these files, so the two helpers live at the foundation, below every stage that needs them.
"""
from __future__ import annotations

from pathlib import Path


def data_csv(name: str) -> Path:
    """Path of a data file of the project, e.g. ``data_csv("metric-names.csv")``.

    Parameters
    ----------
    name : str
        File name under ``data/``.

    Returns
    -------
    pathlib.Path
        The file's path (``LASSM_DATA`` moves the folder).
    """
    from . import paths

    return paths.data_dir() / name


def read_data_csv(path: str | Path):
    """Reads one of the project's CSV data files, skipping its leading ``#`` comment lines.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file.

    Returns
    -------
    pandas.DataFrame
        The table; the comment lines (SPDX header, sources) are not part of it.
    """
    import io

    import pandas as pd

    text = Path(path).read_text()
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].lstrip().startswith("#"):
        start += 1
    return pd.read_csv(io.StringIO("".join(lines[start:])), keep_default_na=False, na_values=[""])
