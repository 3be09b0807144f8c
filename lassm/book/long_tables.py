# SPDX-License-Identifier: BSD-3-Clause
"""Long tables as a page shows them: the first rows, a line counting the rest, and the whole table
as a CSV to download (under ``_static/tables/``, written atomically), so text is not buried."""
from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

#: Significant digits of a measured (non-integral) value in a table.
DIGITS = 4
#: Below this magnitude an integral float prints as an integer; above, a float's digits are noise.
EXACT = 2 ** 53

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


def number(value) -> str:
    """A table cell's number as the book prints it: a count as an integer with thousands
    separators ("2,752,836,288", not "2752836288.0" or "2.753e+09"), a measured value to
    :data:`DIGITS` significant digits, a missing one as nothing. Integer columns that hold a gap
    are floats in pandas, so their counts printed as "13.0"."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (int, float)) and float(value).is_integer() and abs(value) < EXACT:
        return f"{int(value):,}"
    return f"{value:.{DIGITS}g}" if isinstance(value, float) else str(value)


def styled(frame: pd.DataFrame):
    """``frame`` as a Styler: every float cell through :func:`number`, row numbers hidden where the
    index is pandas' own (a RangeIndex names no row)."""
    out = frame.style.format(number, subset=list(frame.select_dtypes("float").columns))
    return out.hide(axis="index") if isinstance(frame.index, pd.RangeIndex) else out


def long_table(table, name: str, *, folder: Path | None = None, page_depth: int = 1):
    """``table`` whole where it has at most :data:`MAX_ROWS` rows, else a :class:`LongTable`: its head
    and a link to ``<name>.csv`` in ``folder`` (default :func:`lassm.book.plots.static_dir`).
    Non-frames pass through. ``page_depth``: how deep the page sits below the root (1 for
    ``notebooks/x``)."""
    from ..atomic import atomic_open
    from .plots import static_file

    frame = table.data if isinstance(getattr(table, "data", None), pd.DataFrame) else table
    if not isinstance(frame, pd.DataFrame) or len(frame) <= MAX_ROWS:
        return table
    path, src = static_file("tables", name, ".csv", folder=folder, page_depth=page_depth)
    with atomic_open(path) as fh:
        frame.to_csv(fh, index=not isinstance(frame.index, pd.RangeIndex))
    return LongTable(styled(frame.head(HEAD_ROWS)), len(frame), src, name)


__all__ = ["DIGITS", "EXACT", "HEAD_ROWS", "LongTable", "MAX_ROWS", "long_table", "number", "styled"]
