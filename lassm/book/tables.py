# SPDX-License-Identifier: BSD-3-Clause
"""Long tables as a page shows them: the first rows, a line that counts the rest, and the whole
table as a CSV file to download.

A table of 150 rows printed whole buries the text around it; a reader who wants every row
wants it in a spreadsheet anyway. The CSV goes under the book's ``_static/tables/`` (served with
the book, written atomically), and the page links it.
"""
from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

#: The most rows a page prints whole; a longer table shows its first :data:`HEAD_ROWS`.
MAX_ROWS = 25
HEAD_ROWS = 10


class LongTable:
    """A table shown by its first rows, with the whole of it offered as a CSV download."""

    def __init__(self, head, total: int, src: str, name: str) -> None:
        self.head, self.total, self.src, self.name = head, total, src, name

    def _repr_html_(self) -> str:
        shown = self.head.to_html() if hasattr(self.head, "to_html") else str(self.head)
        return (f"{shown}\n<p class=\"lassm-long-table\">The first {HEAD_ROWS} of {self.total:,} rows. "
                f"<a href=\"{html.escape(self.src)}\" download>The whole table as CSV ({html.escape(self.name)}.csv)</a>.</p>")


def long_table(table, name: str, *, folder: Path | None = None, page_depth: int = 1):
    """``table`` whole where it has at most :data:`MAX_ROWS` rows; else its head and a CSV link.

    Parameters
    ----------
    table : pandas.DataFrame or pandas Styler or anything else
        What a cell would display (a note or a Markdown object passes through unchanged).
    name : str
        The CSV's file stem, unique in the book (letters, digits, ``-`` and ``_``).
    folder : pathlib.Path, optional
        The book's static folder (default :func:`lassm.book.plots.static_dir`).
    page_depth : int, default 1
        How deep the page sits below the book's root (``notebooks/x`` and ``machines/x`` are 1).

    Returns
    -------
    The table itself, or a :class:`LongTable`.
    """
    from ..atomic import atomic_open
    from .plots import static_file

    frame = table.data if isinstance(getattr(table, "data", None), pd.DataFrame) else table
    if not isinstance(frame, pd.DataFrame) or len(frame) <= MAX_ROWS:
        return table
    path, src = static_file("tables", name, ".csv", folder=folder, page_depth=page_depth)
    with atomic_open(path) as fh:
        frame.to_csv(fh, index=not isinstance(frame.index, pd.RangeIndex))
    head = frame.head(HEAD_ROWS)
    floats = list(head.select_dtypes("float").columns)
    styled = head.style.format("{:.4g}", subset=floats, na_rep="")
    if isinstance(frame.index, pd.RangeIndex):
        styled = styled.hide(axis="index")
    return LongTable(styled, len(frame), src, name)


__all__ = ["HEAD_ROWS", "LongTable", "MAX_ROWS", "long_table"]
