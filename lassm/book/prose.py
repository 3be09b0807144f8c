# SPDX-License-Identifier: BSD-3-Clause
"""Numbers and notes as the chapters' sentences give them (one formatting for every chapter's facts)."""
from __future__ import annotations

import pandas as pd


def span(values: pd.Series, fmt: str = ".2f", empty: str = "not defined") -> str:
    """``"lo to hi"`` of ``values`` in format ``fmt``, one number when both print alike, ``empty``
    when no value is there (NaN are left out)."""
    vals = values.dropna()
    if vals.empty:
        return empty
    lo, hi = f"{vals.min():{fmt}}", f"{vals.max():{fmt}}"
    return lo if lo == hi else f"{lo} to {hi}"


def count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: "1 step", "3 steps"."""
    return f"{n:d} {word}" + ("" if n == 1 else "s")


def note(text: str):
    """A Markdown note a chapter's cell shows where its table or chart has nothing to show."""
    from IPython.display import Markdown

    return Markdown(text)
