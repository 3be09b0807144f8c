# SPDX-License-Identifier: BSD-3-Clause
"""Performance portability (Pennycook, Sewall & Lee) and application efficiency across platforms.

Three rules keep a PP as wide as its records:

- **The problem includes its size**: where rows carry ``size``, (problem, size) is the problem.
- **Cannot run is 0, not measured is NaN**: an efficiency of 0, or a pair in ``cannot_run``,
  makes P 0 ("not portable"); a platform with no measurement makes P NaN, never a 0.
- **One efficiency per mean**: each efficiency column gives its own PP column.

Several rows for one (problem, application, platform) keep the best efficiency."""
from __future__ import annotations

import math
from typing import Collection, Sequence

import pandas as pd

from .columns import numeric, require_columns, require_numeric, require_range

#: Performance-portability column words (P3's plus ``alg eff``).
EFFICIENCY_COLUMNS: tuple[str, ...] = ("app eff", "arch eff", "alg eff")
#: The column that, where present, makes the size part of the problem.
SIZE = "size"
#: What a sentence or table says for a PP that is NaN because a platform of H has no measurement.
NOT_MEASURED = "not measured"


def problem_keys(df: pd.DataFrame) -> list[str]:
    """The columns that name a problem: ``problem``, and ``size`` where the rows carry one."""
    return ["problem", SIZE] if SIZE in df.columns else ["problem"]


def require_one_size(df: pd.DataFrame, by: str) -> None:
    """Raise ValueError where a group of ``by`` holds several sizes (a ``size`` column): a mean
    or a cascade over such a group would pool unlike problems."""
    if SIZE in df.columns and by != SIZE:
        mixed = df.groupby(by)[SIZE].nunique()
        if (mixed > 1).any():
            raise ValueError(f"PP pools like problems only: {by} {list(mixed[mixed > 1].index)} holds several "
                             f"sizes; make the size part of {by!r}")


def application_efficiency(df: pd.DataFrame, time: str = "seconds") -> pd.DataFrame:
    r"""Application efficiency against the fastest implementation measured on each platform.

    .. math:: e(a, p, i) = \frac{\min_{a'} t(a', p, i)}{t(a, p, i)}

    The reference is whatever ran fastest there, another program included
    (doi:10.1016/j.future.2017.08.007). Needs ``problem``, ``platform``, ``application`` and the
    ``time`` column (> 0, NaN: did not run); optional ``implementation`` (the reference's name,
    default the application) and ``size``. Adds ``app eff`` in (0, 1], ``reference`` and
    ``reference time``. ``ValueError`` on missing columns or a time not positive, ``TypeError`` on
    non-numeric times."""
    require_columns(df, ["problem", "platform", "application", time])
    require_numeric(df, [time])
    require_range(df, time, 0.0, low_open=True, allow_nan=True)
    out = df.drop(columns=[c for c in ("app eff", "reference", "reference time") if c in df.columns])
    t = numeric(df, time)
    name = df["implementation"] if "implementation" in df.columns else df["application"]
    keys = problem_keys(df) + ["platform"]
    ran = df[keys].assign(t=t, name=name).dropna(subset=["t"])
    fastest = ran.sort_values("t", kind="stable").drop_duplicates(keys)
    fastest = fastest.rename(columns={"t": "reference time", "name": "reference"})
    out = out.merge(fastest, on=keys, how="left")
    out.index = df.index
    out["app eff"] = out["reference time"] / t
    return out


def hmean(values: Sequence[float]) -> float:
    """Harmonic mean; 0 when any value is 0 (a platform it cannot run on), else NaN when any is NaN
    (a platform not measured)."""
    vals = [float(v) for v in values]
    if not vals:
        return math.nan
    if any(v == 0.0 for v in vals):
        return 0.0
    if any(math.isnan(v) for v in vals):
        return math.nan
    return len(vals) / sum(1.0 / v for v in vals)


def pp(df: pd.DataFrame, platforms: Sequence[str] | None = None,
       cannot_run: Collection[tuple[str, str]] = ()) -> pd.DataFrame:
    r"""Pennycook's performance portability of each (problem, application) over platforms H.

    .. math::
        \mathcal{P}(a, p, H) =
        \begin{cases}
          \dfrac{|H|}{\sum_{i \in H} 1 / e_i(a, p)} & \text{if } a \text{ runs on every } i \in H \\
          0 & \text{otherwise}
        \end{cases}

    (doi:10.1016/j.future.2017.08.007.) Each of ``app eff``, ``arch eff``, ``alg eff`` present, in
    [0, 1], gives ``app pp``, ``arch pp``, ``alg pp``. ``platforms`` defaults to every platform in
    ``df``; ``cannot_run`` holds (application, platform) pairs that cannot run at all (efficiency 0,
    not "not measured"). One row per (problem[, size], application) measured somewhere.
    ``ValueError`` on missing columns, no efficiency column or one outside [0, 1]; ``TypeError`` on
    non-numeric ones."""
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
    keys = problem_keys(df)
    work = df[keys + ["platform", "application"]].copy()
    for c in effs:
        work[c] = numeric(df, c)
    # the best measured efficiency per platform; NaN where every row of it is NaN
    best = work.groupby(keys + ["application", "platform"], sort=False, dropna=False)[effs].max()
    no = set(map(tuple, cannot_run))
    pp_cols = [c.replace("eff", "pp") for c in effs]
    rows = []
    for key in dict.fromkeys(zip(*(work[k] for k in keys), work["application"])):
        *problem, application = key
        row: dict[str, object] = dict(zip(keys, problem)) | {"application": application}
        for c, out in zip(effs, pp_cols):
            vals = []
            for plat in H:
                at = (*problem, application, plat)
                got = float(best.loc[at, c]) if at in best.index else math.nan
                # a measurement shows it can run; only where none is does "cannot run" give 0
                vals.append(0.0 if math.isnan(got) and (application, plat) in no else got)
            row[out] = hmean(vals)
        rows.append(row)
    out = pd.DataFrame(rows, columns=keys + ["application"] + pp_cols)
    for c in pp_cols:
        out[c] = out[c].astype("float64")
    return out


def described(value: float, fmt: str = ".2f") -> str:
    """A PP as a table or sentence gives it: the number, or :data:`NOT_MEASURED` for NaN."""
    return NOT_MEASURED if math.isnan(value) else f"{value:{fmt}}"


__all__ = ["EFFICIENCY_COLUMNS", "NOT_MEASURED", "SIZE", "application_efficiency", "described", "hmean", "pp",
           "problem_keys", "require_one_size"]
