# SPDX-License-Identifier: BSD-3-Clause
"""The column checks every metric, roofline and chart makes of its input frame, written once: a
missing column, text, or a value out of range is an error naming the column."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import pandas as pd


def require_columns(df: pd.DataFrame, columns: Iterable[str]) -> None:
    """Raises ValueError naming every column of ``columns`` that ``df`` lacks."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"DataFrame lacks the required column(s) {missing}")


def require_numeric(df: pd.DataFrame, columns: Iterable[str]) -> None:
    """Raises TypeError when a column holds values that are not numbers (NaN is allowed)."""
    for c in columns:
        col = df[c]
        if pd.api.types.is_bool_dtype(col):
            raise TypeError(f"column {c!r} is boolean, not numeric")
        if pd.api.types.is_numeric_dtype(col):
            continue
        try:
            converted = pd.to_numeric(col, errors="raise")
        except (ValueError, TypeError):
            raise TypeError(f"column {c!r} holds non-numeric values") from None
        if not pd.api.types.is_numeric_dtype(converted):
            raise TypeError(f"column {c!r} holds non-numeric values")


def numeric(df: pd.DataFrame, column: str) -> pd.Series:
    """The column as float64 (an error where a value is no number)."""
    return pd.to_numeric(df[column], errors="raise").astype("float64")


def require_range(df: pd.DataFrame, column: str, low: float = -math.inf, high: float = math.inf, *,
                   low_open: bool = False, high_open: bool = False, allow_nan: bool = False) -> None:
    """Raises ValueError when a value of ``column`` lies outside [low, high] (or the open ends)."""
    col = numeric(df, column)
    if col.isna().any() and not allow_nan:
        raise ValueError(f"column {column!r} has missing values")
    v = col.dropna()
    bad = (v < low) | (v > high)
    if low_open:
        bad |= v <= low
    if high_open:
        bad |= v >= high
    if bad.any():
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"column {column!r} must lie in {lo}{low}, {high}{hi}; "
                         f"found {v[bad].iloc[0]!r}")


def check(df: pd.DataFrame, nonneg: Sequence[str] = (), positive: Sequence[str] = ()) -> None:
    """The columns exist and are numeric; ``nonneg`` ones are >= 0 and ``positive`` ones > 0."""
    cols = [*nonneg, *positive]
    require_columns(df, cols)
    require_numeric(df, cols)
    for c in nonneg:
        require_range(df, c, 0.0)
    for c in positive:
        require_range(df, c, 0.0, low_open=True)


__all__ = ["check", "numeric", "require_columns", "require_numeric", "require_range"]
