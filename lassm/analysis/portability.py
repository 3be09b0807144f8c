# SPDX-License-Identifier: BSD-3-Clause
"""Performance portability (Pennycook, Sewall & Lee) and application efficiency: one program across platforms.

:mod:`.metrics` scores one run against its machine's roofs; these formulas compare runs across
platforms and programs, and are what the chapters' PP tables call. The "did not run" rule of
:func:`pp`: a platform of the set H without a row for an (application, problem), or whose
efficiency is NaN or 0, makes P 0 ("not portable to H"); several rows for one (problem,
application, platform) keep the best efficiency.
"""
from __future__ import annotations

import math
from itertools import product
from typing import Sequence

import pandas as pd

from .columns import numeric, require_columns, require_numeric, require_range

#: Performance-portability column words (P3's plus ``alg eff``).
EFFICIENCY_COLUMNS: tuple[str, ...] = ("app eff", "arch eff", "alg eff")


def application_efficiency(df: pd.DataFrame, time: str = "seconds") -> pd.DataFrame:
    r"""Application efficiency against the fastest implementation measured on each platform.

    .. math:: e(a, p, i) = \frac{\min_{a'} t(a', p, i)}{t(a, p, i)}

    The reference is whatever ran fastest on the platform, another program's original included,
    so that an efficiency says how far a build is from the best anyone measured there, never
    from the best of one's own builds only (Pennycook, Sewall & Lee,
    doi:10.1016/j.future.2017.08.007, take application efficiency against the best performance
    observed on the platform).

    Parameters
    ----------
    df : pandas.DataFrame
        ``problem``, ``platform``, ``application`` and ``time`` (positive, lower is better; NaN:
        did not run); optionally ``implementation``, the name a reference is given (default:
        the application's).
    time : str
        The time column.

    Returns
    -------
    pandas.DataFrame
        The input's columns with ``app eff`` (in (0, 1], NaN where the time is NaN),
        ``reference`` (the fastest row's implementation on that problem and platform) and
        ``reference time``.

    Raises
    ------
    ValueError
        Missing columns or a time that is not positive.
    TypeError
        Non-numeric times.
    """
    require_columns(df, ["problem", "platform", "application", time])
    require_numeric(df, [time])
    require_range(df, time, 0.0, low_open=True, allow_nan=True)
    out = df.drop(columns=[c for c in ("app eff", "reference", "reference time") if c in df.columns])
    t = numeric(df, time)
    name = df["implementation"] if "implementation" in df.columns else df["application"]
    ran = pd.DataFrame({"problem": df["problem"], "platform": df["platform"], "t": t, "name": name})
    ran = ran.dropna(subset=["t"])
    fastest = ran.sort_values("t", kind="stable").drop_duplicates(["problem", "platform"])
    fastest = fastest.rename(columns={"t": "reference time", "name": "reference"})
    out = out.merge(fastest, on=["problem", "platform"], how="left")
    out.index = df.index
    out["app eff"] = out["reference time"] / t
    return out


def hmean(values: Sequence[float]) -> float:
    """Harmonic mean; 0 when any value is 0 (a platform that did not run)."""
    vals = [float(v) for v in values]
    if not vals:
        return math.nan
    if any(v == 0.0 for v in vals):
        return 0.0
    return len(vals) / sum(1.0 / v for v in vals)


def pp(df: pd.DataFrame, platforms: Sequence[str] | None = None) -> pd.DataFrame:
    r"""Pennycook's performance portability of each (problem, application) over platforms H.

    .. math::
        \mathcal{P}(a, p, H) =
        \begin{cases}
          \dfrac{|H|}{\sum_{i \in H} 1 / e_i(a, p)} & \text{if every } i \in H \text{ ran} \\
          0 & \text{otherwise}
        \end{cases}

    (Pennycook, Sewall & Lee, doi:10.1016/j.future.2017.08.007; arXiv:1611.07409.) Every
    column among ``app eff``, ``arch eff`` and ``alg eff`` present gives one PP column
    (``app pp``, ``arch pp``, ``alg pp``). Did not run = 0: a platform of H with no row, a NaN
    efficiency, or an efficiency of 0 makes P = 0. Repeated rows of one (problem, application,
    platform) keep the best efficiency.

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``problem``, ``platform``, ``application`` and at least one efficiency column,
        every efficiency in [0, 1] (fractions, not percentages).
    platforms : sequence of str, optional
        The platform set H (default: every platform in ``df``).

    Returns
    -------
    pandas.DataFrame
        Columns ``problem``, ``application`` and the PP columns, one row per pair.

    Raises
    ------
    ValueError
        Missing columns, no efficiency column, or an efficiency outside [0, 1].
    TypeError
        Non-numeric efficiencies.
    """
    require_columns(df, ["problem", "platform", "application"])
    effs = [c for c in EFFICIENCY_COLUMNS if c in df.columns]
    if not effs:
        raise ValueError(f"DataFrame needs at least one of the columns {list(EFFICIENCY_COLUMNS)}")
    require_numeric(df, effs)
    for c in effs:
        require_range(df, c, 0.0, 1.0, allow_nan=True)
    H = list(dict.fromkeys(df["platform"])) if platforms is None else list(dict.fromkeys(platforms))
    if not H:
        raise ValueError("the platform set is empty")
    work = df[["problem", "platform", "application"] + effs].copy()
    for c in effs:
        work[c] = numeric(df, c).fillna(0.0)
    best = work.groupby(["problem", "application", "platform"], sort=False)[effs].max()
    rows = []
    problems = list(dict.fromkeys(df["problem"]))
    applications = list(dict.fromkeys(df["application"]))
    for problem, application in product(problems, applications):
        if not ((df["problem"] == problem) & (df["application"] == application)).any():
            continue
        row: dict[str, object] = {"problem": problem, "application": application}
        for c in effs:
            vals = []
            for plat in H:
                key = (problem, application, plat)
                vals.append(float(best.loc[key, c]) if key in best.index else 0.0)
            row[c.replace("eff", "pp")] = hmean(vals)
        rows.append(row)
    out = pd.DataFrame(rows, columns=["problem", "application"] + [c.replace("eff", "pp") for c in effs])
    for c in effs:
        out[c.replace("eff", "pp")] = out[c.replace("eff", "pp")].astype("float64")
    return out


__all__ = ["EFFICIENCY_COLUMNS", "application_efficiency", "hmean", "pp"]
