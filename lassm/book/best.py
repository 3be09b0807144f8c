# SPDX-License-Identifier: BSD-3-Clause
"""Efficiency against the best measured: the original programs among the references.

The fastest on a platform may be an original (MetaHipMer's ``ht_loc``, LOGAN's kernel,
HeCBench's programs). Chapters list every implementation measured as :data:`COLUMNS` rows; this
module gives them efficiencies and says in words where an original or ours is fastest
(:func:`verdict`). Originals and ours are timed side by side on one clock (Nsight Compute), our
builds against each other on events; an original joins our rows through the build it ran beside
(:func:`carried`), so every ratio in a table is measured on one clock."""
from __future__ import annotations

import math
from typing import SupportsFloat

import pandas as pd

from ..analysis import portability as pp_metrics
from .prose import span

#: The rows a chapter hands to :func:`efficiency`: the problem (kernel, dataset, (set, X)), the
#: platform (a device), the application (a programming model or a program: PP's unit), the
#: implementation (what a reference is called, e.g. ``cuda tiles``, ``HeCBench nw-cuda``),
#: whether it is ours, and its time.
COLUMNS: tuple[str, ...] = ("problem", "platform", "application", "implementation", "ours", "seconds")
#: The one rule for which implementations form the reference of an application efficiency, as the
#: book states it (the portability chapter glues it; every other chapter points there).
REFERENCE_RULE = (
    "The reference of an application efficiency on a platform is the fastest implementation measured on that "
    "platform for the problem (a dataset; a kernel at its size class; a set and X) whose output equals the "
    "oracle's: every build of ours, of every variant and protocol; the CPU oracle where it ran on that platform "
    "(it implements the same algorithm, and runs on CPUs only); and the original programs (MetaHipMer's ht_loc, "
    "LOGAN, HeCBench's) where they ran there. It is the same in every chapter.")
#: The clocks a time comes from, as the tables name them.
NCU, EVENTS, OWN = "Nsight Compute", "events", "the program's own"


def clock(ncu: object, own: object) -> tuple[float, str]:
    """A time and the clock it is on: Nsight Compute's where it is recorded and finite (it is the
    clock our side can share), else the program's own."""
    value = _seconds(ncu)
    return (value, NCU) if math.isfinite(value) and value > 0 else (_seconds(own), OWN)


def _seconds(value: object) -> float:
    """A recorded time as a float, NaN where the cell is empty or not a number."""
    try:
        return float(value) if isinstance(value, (SupportsFloat, str)) else math.nan
    except (TypeError, ValueError):
        return math.nan


def carried(anchor: float, ours_over_original: float) -> float:
    """An original's time on the clock of our builds' table: the time there of the build it ran
    beside (``anchor``) over that build's time over the original's on their shared clock."""
    return anchor / ours_over_original


def efficiency(rows: pd.DataFrame) -> pd.DataFrame:
    """:data:`COLUMNS` rows with ``app eff``, ``reference``, ``reference time`` and
    ``reference_ours`` (the fastest on that problem and platform is one of ours)."""
    rows = rows.reset_index(drop=True)
    if rows.empty:
        return pd.DataFrame(columns=[*COLUMNS, "reference", "reference time", "app eff", "reference_ours"])
    out = pp_metrics.application_efficiency(rows, time="seconds")
    names = rows.drop_duplicates(["problem", "platform", "implementation"])
    ours = dict(zip(zip(names["problem"], names["platform"], names["implementation"]), names["ours"].astype(bool)))
    out["reference_ours"] = [ours.get((p, q, r), False) for p, q, r in zip(out["problem"], out["platform"],
                                                                            out["reference"])]
    return out


#: The kinds of platform a program may need: a CPU, or a GPU of one vendor.
CPU, NVIDIA, OTHER_GPU = "cpu", "nvidia gpu", "other gpu"
_GPU_WORDS = ("gpu", "instinct", "radeon", " gcd", "max 1550")


def platform_kind(device: str) -> str:
    """:data:`CPU`, :data:`NVIDIA` or :data:`OTHER_GPU` for a device's name: what decides whether a
    program can run there at all (CUDA needs an NVIDIA GPU, a numba program a CPU)."""
    name = f" {device.casefold()} "
    if "nvidia" in name:
        return NVIDIA
    return OTHER_GPU if any(w in name for w in _GPU_WORDS) else CPU


def cannot_run(runs_on: dict[str, frozenset[str]], kinds: dict[str, str]) -> set[tuple[str, str]]:
    """The (application, platform) pairs where an application cannot run at all: ``runs_on`` gives
    the platform kinds (:func:`platform_kind`) each application can run on (one not listed runs
    anywhere), ``kinds`` each platform's kind. Only these score 0 in a PP; a pair outside them
    without a measurement is "not measured" (:func:`lassm.analysis.portability.pp`)."""
    return {(app, plat) for app, can in runs_on.items() for plat, kind in kinds.items() if kind not in can}


def portability(eff: pd.DataFrame, runs_on: dict[str, frozenset[str]] | None = None,
                kinds: dict[str, str] | None = None) -> pd.DataFrame:
    """Pennycook's PP of each application per problem over the platforms that measured the
    problem, with ``ran on``: 0 where the application cannot run on one of them (``runs_on``, see
    :func:`cannot_run`; ``kinds`` default to :func:`platform_kind` of each platform's name), NaN
    where it can but was not measured there. A ``size`` column, where present, is part of the
    problem."""
    keys = pp_metrics.problem_keys(eff)
    cols = [*keys, "application", "ran on", "PP"]
    if eff.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for _problem, part in eff.groupby(keys, sort=False):
        H = list(dict.fromkeys(part["platform"]))
        kind = {p: (kinds or {}).get(p) or platform_kind(str(p)) for p in H}
        no = cannot_run(runs_on or {}, kind)
        pp = pp_metrics.pp(part[[*keys, "platform", "application", "app eff"]], platforms=H, cannot_run=no)
        for r in pp.to_dict("records"):
            ran = part.loc[(part["application"] == r["application"]) & part["app eff"].notna(), "platform"]
            rows.append({**{k: r[k] for k in keys}, "application": r["application"],
                         "ran on": f"{ran.nunique():d} of {len(H):d}", "PP": float(r["app pp"])})
    return pd.DataFrame(rows, columns=cols)


def summary(eff: pd.DataFrame) -> pd.DataFrame:
    """Per platform and problem: the reference, whether it is ours, the best efficiency of our
    builds and of the other programs (NaN: none measured there)."""
    cols = ["platform", "problem", "reference", "reference_ours", "ours_best", "others_best", "others"]
    if eff.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (platform, problem), part in eff.groupby(["platform", "problem"], sort=False):
        mine, theirs = part[part["ours"].astype(bool)], part[~part["ours"].astype(bool)]
        rows.append({"platform": platform, "problem": problem, "reference": part["reference"].iloc[0],
                     "reference_ours": bool(part["reference_ours"].iloc[0]),
                     "ours_best": mine["app eff"].max() if len(mine) else math.nan,
                     "others_best": theirs["app eff"].max() if len(theirs) else math.nan,
                     "others": ", ".join(dict.fromkeys(theirs.dropna(subset=["app eff"])["implementation"]))})
    return pd.DataFrame(rows, columns=cols)


def _items(part: pd.DataFrame, unit: str) -> str:
    """The problems of ``part`` with their references: one name where they share it, each problem
    named where few, counted per reference where many."""
    if part["reference"].nunique() == 1 and len(part) > 1:
        return f"{part['reference'].iloc[0]} on each"
    if len(part) <= 6:
        return "; ".join(f"{p}: {r}" for p, r in zip(part["problem"], part["reference"]))
    counts = part["reference"].value_counts(sort=False)
    return "; ".join(f"{r} at {n:d} {unit}{'s' if n > 1 else ''}" for r, n in counts.items())


def _all(n: int, unit: str) -> str:
    """Every one of ``n`` problems, in words."""
    return f"all {n:d} {unit}s" if n > 1 else f"the one {unit}"


def _platform_verdict(platform: str, s: pd.DataFrame, unit: str) -> str:
    """One platform's sentence of :func:`verdict`."""
    n = len(s)
    theirs, mine = s[~s["reference_ours"]], s[s["reference_ours"]]
    parts = []
    if len(theirs):
        some = _all(n, unit) if len(theirs) == n else f"{len(theirs):d} of the {n:d} {unit}s"
        reach = span(theirs["ours_best"], ".2f", "no build of ours measured")
        parts.append(f"a program other than ours is the fastest measured for {some} "
                     f"({_items(theirs, unit)}), and our fastest build reaches {reach} of its speed")
    if len(mine):
        m = len(mine)
        some = _all(n, unit) if m == n else f"the other {m:d} {unit}{'s' if m > 1 else ''}"
        text = f"ours is the fastest measured for {some} ({_items(mine, unit)})"
        met = mine[mine["others_best"].notna()]
        if len(met):
            names = list(dict.fromkeys(x for listed in met["others"] for x in listed.split(", ") if x))
            text += (f"; {', '.join(names)}, measured at {len(met):d} of these, reach{'es' if len(names) == 1 else ''} "
                     f"{span(met['others_best'], '.2f')} of that speed")
        else:
            text += "; no other program was measured beside it there"
        parts.append(text)
    return f"On the {platform}, " + "; ".join(parts) + "."


def verdict(eff: pd.DataFrame, unit: str = "point") -> str:
    """Where an original is the fastest measured and where ours is, per platform, in words
    (``unit``: what a problem is called, e.g. ``kernel``, ``dataset``)."""
    s = summary(eff)
    if s.empty:
        return "Nothing was measured here to compare."
    return " ".join(_platform_verdict(p, part, unit) for p, part in s.groupby("platform", sort=False))


__all__ = ["COLUMNS", "CPU", "EVENTS", "NCU", "NVIDIA", "OTHER_GPU", "OWN", "REFERENCE_RULE", "cannot_run", "carried", "clock", "efficiency",
           "platform_kind", "portability", "summary", "verdict"]
