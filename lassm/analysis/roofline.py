# SPDX-License-Identifier: BSD-3-Clause
"""Roofline tables for plotting: roofs and points in, one long table out. Knows no vendor.

*Roofs*: ``roof``, ``peak`` [G ops/s], ``bandwidth`` [GB/s] (from the spec table or measured
ceilings). *Points*: ``label``, ``ii`` [ops/B], ``gintops`` [G ops/s], optionally ``roof``.
*Walls*: vertical lines at an intensity (doi:10.1002/cpe.6591). The output is long (``kind``
``roof``/``point``/``wall``, ``series``, ``x``, ``y``, ``label``), so a plotter needs no other
knowledge."""
from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from .columns import check, require_columns, require_numeric, require_range

#: Columns of the long roofline table.
TABLE_COLUMNS: tuple[str, ...] = ("kind", "series", "x", "y", "label")


def _check_roofs(roofs: pd.DataFrame) -> None:
    """A roofs table: ``roof`` names, and positive ``peak`` and ``bandwidth``."""
    require_columns(roofs, ["roof", "peak", "bandwidth"])
    check(roofs, positive=["peak", "bandwidth"])


def roof_lines(roofs: pd.DataFrame, x_min: float, x_max: float) -> pd.DataFrame:
    r"""The corner points of each roof between two intensities ``0 < x_min < x_max``.

    .. math:: P(x) = \min(P_{peak},\ B x), \quad x_{ridge} = P_{peak} / B

    Returns kind ``roof`` rows: (x_min, ...), the ridge (labelled ``ridge``) when inside the range,
    (x_max, ...). ``ValueError`` on missing columns or bad values, ``TypeError`` on non-numeric ones."""
    _check_roofs(roofs)
    if not (0 < x_min < x_max) or not math.isfinite(x_max):
        raise ValueError("need 0 < x_min < x_max < inf")
    rows = []
    for _, r in roofs.iterrows():
        peak, bw = float(r["peak"]), float(r["bandwidth"])
        ridge = peak / bw
        xs = [x_min] + ([ridge] if x_min < ridge < x_max else []) + [x_max]
        for x in xs:
            rows.append({"kind": "roof", "series": str(r["roof"]), "x": x, "y": min(peak, bw * x),
                         "label": "ridge" if x == ridge else ""})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def memory_walls(simd_width: int, transaction_bytes: int, word_bytes: Sequence[int] = (4, 8)) -> pd.DataFrame:
    r"""Global-memory walls: SIMD-level load/store instructions per transaction.

    One instruction of a ``simd_width``-wide group makes 1 transaction (stride-0) to ``simd_width``
    (one per lane); unit stride of each ``word_bytes`` size makes ``ceil(w * b / T)``:

    .. math:: x_{0} = 1,\quad x_{1} = 1 / \lceil w\, b / T \rceil,\quad x_{\infty} = 1 / w

    (doi:10.1002/cpe.6591.) Returns kind ``wall`` rows, ``y`` NaN, ``label`` the pattern;
    ``ValueError`` on widths or sizes below 1."""
    if simd_width < 1 or transaction_bytes < 1 or any(b < 1 for b in word_bytes):
        raise ValueError("widths and sizes must be >= 1")
    rows = [{"kind": "wall", "series": "walls", "x": 1.0, "y": math.nan, "label": "stride-0"}]
    for b in word_bytes:
        n = math.ceil(simd_width * b / transaction_bytes)
        rows.append({"kind": "wall", "series": "walls", "x": 1.0 / n, "y": math.nan,
                     "label": f"stride-1 ({8 * b}-bit)"})
    rows.append({"kind": "wall", "series": "walls", "x": 1.0 / simd_width, "y": math.nan,
                 "label": "one transaction per lane"})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def roofline_table(roofs: pd.DataFrame, points: pd.DataFrame, walls: pd.DataFrame | None = None,
                   x_range: tuple[float, float] | None = None, margin: float = 4.0) -> pd.DataFrame:
    """Roofs, points and walls as one long table (:data:`TABLE_COLUMNS`) for a plotting library.

    A point's ``roof`` column, if any, becomes its ``series`` (else ``points``). Without
    ``x_range`` the roofs span the points' and ridges' range widened by ``margin`` each side.
    Inputs are unchanged; ``ValueError``/``TypeError`` as :func:`roof_lines`."""
    require_columns(points, ["label", "ii", "gintops"])
    check(points, nonneg=["gintops"], positive=["ii"])
    _check_roofs(roofs)
    if x_range is None:
        ridges = (pd.to_numeric(roofs["peak"]) / pd.to_numeric(roofs["bandwidth"])).tolist()
        xs = pd.to_numeric(points["ii"]).tolist() + ridges
        if walls is not None and len(walls):
            xs += pd.to_numeric(walls["x"]).tolist()
        x_range = (min(xs) / margin, max(xs) * margin)
    parts = [roof_lines(roofs, *x_range)]
    series = points["roof"].astype(str) if "roof" in points.columns else pd.Series("points", index=points.index)
    parts.append(pd.DataFrame({"kind": "point", "series": series.to_numpy(),
                               "x": pd.to_numeric(points["ii"]).to_numpy(dtype="float64"),
                               "y": pd.to_numeric(points["gintops"]).to_numpy(dtype="float64"),
                               "label": points["label"].astype(str).to_numpy()}))
    if walls is not None:
        require_columns(walls, list(TABLE_COLUMNS))
        parts.append(walls[list(TABLE_COLUMNS)])
    out = pd.concat(parts, ignore_index=True)
    out["x"] = out["x"].astype("float64")
    out["y"] = out["y"].astype("float64")
    return out


def speedup_table(points: pd.DataFrame, speedups: Sequence[float] = (2, 4, 8, 16, 32), n: int = 50) -> pd.DataFrame:
    """The potential-speedup plot as one long table: kind ``iso`` curves (series ``S=<s>``, ``n``
    points each) and kind ``point`` rows from ``label``, ``x``, ``y`` in (0, 1]."""
    from .metrics import iso_speedup_curves

    require_columns(points, ["label", "x", "y"])
    require_numeric(points, ["x", "y"])
    require_range(points, "x", 0.0, 1.0, low_open=True)
    require_range(points, "y", 0.0, 1.0, low_open=True)
    iso = iso_speedup_curves(speedups, n)
    curves = pd.DataFrame({"kind": "iso", "series": [f"S={s:g}" for s in iso["speedup"]],
                           "x": iso["x"].to_numpy(), "y": iso["y"].to_numpy(), "label": ""})
    pts = pd.DataFrame({"kind": "point", "series": points["series"].astype(str) if "series" in points.columns else "points",
                        "x": pd.to_numeric(points["x"]).to_numpy(dtype="float64"),
                        "y": pd.to_numeric(points["y"]).to_numpy(dtype="float64"),
                        "label": points["label"].astype(str).to_numpy()})
    out = pd.concat([curves, pts], ignore_index=True)
    return out[list(TABLE_COLUMNS)]


__all__ = ["TABLE_COLUMNS", "memory_walls", "roof_lines", "roofline_table", "speedup_table"]
