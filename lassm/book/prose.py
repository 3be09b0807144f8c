# SPDX-License-Identifier: BSD-3-Clause
"""Numbers as the chapters' sentences quote them (one formatting for every chapter's facts)."""
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
