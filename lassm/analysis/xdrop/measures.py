# SPDX-License-Identifier: BSD-3-Clause
"""X-drop records to the study's measures: GCUPS, speed-ups, roofline positions, LOGAN's ceiling.

The roofline quantities are local assembly's, computed by the same functions
(:mod:`lassm.analysis.metrics`: ``ii = int_ops / dram_bytes``, ``gintops``, the attainable roof
``min(peak, bandwidth * ii)`` and the bound, ``arch eff``, the predication ratio; the potential
speedup through :func:`lassm.analysis.derive.potential_speedups`) on the machine's measured
ceilings (:func:`lassm.analysis.derive.load_ceilings`), so the two kernels' points sit on one
roofline.

Choices this module makes, and says so
--------------------------------------
* **An ideal-cache byte model for X-drop**: every base of both reads crosses HBM once
  (``ideal_bytes = bases``, one byte per base as the kernels store them). Algorithm efficiency
  is then ``ii / (int_ops / bases)`` = ``bases / dram_bytes``; a kernel that stops before
  reading whole reads (X-drop does) can move fewer bytes: ``alg eff > 1``, beyond the model, and
  no potential speedup is defined there (the rule local assembly uses).
* **Speed-ups are ratios of one run's medians** (``times.csv`` measures every backend of one X in
  the same run): ``speedup_vs_seqan = seqan.seconds / seconds``, ``speedup_vs_cpu`` likewise
  against the numba oracle, both on all the machine's cores.
* **LOGAN's adapted ceiling** (:func:`adapted_ceiling`): a *reading*, see there.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import columns, metrics
from ..derive import potential_speedups

#: Backends of ``times.csv`` that compute on the CPU (the baselines of the speed-ups).
SEQAN, ORACLE = "seqan", "cpu"
#: The two programs of ``against-logan.csv``.
LOGAN_DEMO, OURS = "LOGAN demo", "lassm xdrop align cuda"


def gcups(times: pd.DataFrame) -> pd.DataFrame:
    """GCUPS and speed-ups over SeqAn and over the numba oracle, per (machine, dataset, X, backend).

    Parameters
    ----------
    times : pandas.DataFrame
        ``times.csv`` rows (:func:`lassm.analysis.xdrop.records.load_all`): ``machine, dataset,
        xdrop, backend, seconds`` (> 0), ``wall_seconds``, ``cells`` (>= 0, or NaN where not
        counted); ``scoring`` joins the key where present.

    Returns
    -------
    pandas.DataFrame
        A copy with ``gcups`` recomputed as ``cells / seconds / 1e9``, ``speedup_vs_seqan``
        and ``speedup_vs_cpu`` (the baseline's seconds over this row's; NaN where that baseline
        was not measured at that X), and ``wall_speedup_vs_seqan`` on whole-call times.

    Raises
    ------
    ValueError
        Missing columns, values out of range, or two rows for one key.
    """
    key = ["machine", "dataset", "xdrop"] + (["scoring"] if "scoring" in times.columns else [])
    columns.require_columns(times, key + ["backend", "seconds", "wall_seconds", "cells"])
    out = times.copy()
    if out.empty:
        for col in ("gcups", "speedup_vs_seqan", "speedup_vs_cpu", "wall_speedup_vs_seqan"):
            out[col] = pd.Series(dtype="float64")
        return out
    columns.check(out, positive=["seconds", "wall_seconds"])
    columns.require_numeric(out, ["cells"])
    columns.require_range(out, "cells", 0.0, allow_nan=True)  # no cell count: no GCUPS, the speed-ups stand
    if out.duplicated(key + ["backend"]).any():
        raise ValueError(f"two rows for one {key + ['backend']}")
    out["gcups"] = columns.numeric(out, "cells") / columns.numeric(out, "seconds") / 1e9
    for base, col, seconds in ((SEQAN, "speedup_vs_seqan", "seconds"), (ORACLE, "speedup_vs_cpu", "seconds"),
                               (SEQAN, "wall_speedup_vs_seqan", "wall_seconds")):
        ref = out.loc[out["backend"] == base, key + [seconds]].rename(columns={seconds: "_ref"})
        merged = out[key].merge(ref, on=key, how="left")
        out[col] = merged["_ref"].to_numpy() / columns.numeric(out, seconds).to_numpy()
    return out


def counter_metrics(counters: pd.DataFrame, ceilings: dict, times: pd.DataFrame | None = None) -> pd.DataFrame:
    """The roofline position of every profiled (dataset, X, program) on the machine's measured roof.

    Parameters
    ----------
    counters : pandas.DataFrame
        ``counters.csv`` rows of one machine.
    ceilings : dict
        :func:`lassm.analysis.derive.load_ceilings` of that machine: ``peak_gintops``,
        ``bandwidth_gbs``.
    times : pandas.DataFrame, optional
        ``times.csv`` rows of that machine: its ``bases`` per dataset give the ideal-cache bytes
        (module docstring); without them ``alg eff`` and the potential speedup are left out.

    Returns
    -------
    pandas.DataFrame
        A copy with ``int_ops`` (= ``int_lane_ops``), ``ii``, ``gintops``,
        ``attainable_gintops``, ``balance``, ``bound``, ``arch eff``, ``predication_ratio``,
        ``warp_gips`` (``gintops / simd_width``: LOGAN's warp-level unit) and, with ``times``,
        ``ideal_bytes``, ``ii_theoretical``, ``alg eff``, ``x``, ``y``, ``speedup*``,
        ``beyond_model``.
    """
    df = counters.copy()
    if df.empty:
        return df
    df["int_ops"] = df["int_lane_ops"]
    df["peak_gintops"] = float(ceilings["peak_gintops"])
    df["bandwidth_gbs"] = float(ceilings["bandwidth_gbs"])
    df = metrics.intop_intensity(df)
    df = metrics.throughput(df)
    df = metrics.architectural_efficiency(df)
    df = metrics.predication_ratio(df)
    df["warp_gips"] = df["gintops"] / columns.numeric(df, "simd_width")
    if times is None or times.empty:
        return df
    bases = times.drop_duplicates("dataset")[["dataset", "bases"]].rename(columns={"bases": "ideal_bytes"})
    df = df.merge(bases, on="dataset", how="left", validate="many_to_one")
    known = df["ideal_bytes"].notna() & (df["ideal_bytes"] > 0)
    if not known.all():
        return df
    df["ii_theoretical"] = df["int_ops"] / df["ideal_bytes"]
    return potential_speedups(metrics.algorithm_efficiency(df))


def against_logan(rows: pd.DataFrame) -> pd.DataFrame:
    """LOGAN's demo and our kernel side by side, one row per (machine, dataset, X).

    Parameters
    ----------
    rows : pandas.DataFrame
        ``against-logan.csv`` rows: ``machine, dataset, n_pairs, xdrop, program``,
        ``kernel_seconds`` (> 0), ``whole_seconds``, ``logan_gpu_seconds``.

    Returns
    -------
    pandas.DataFrame
        ``machine, dataset, n_pairs, xdrop, logan_kernel_s, ours_kernel_s, kernel_ratio``
        (ours / LOGAN's: below 1 is faster), ``logan_whole_s, ours_whole_s, whole_ratio``,
        ``logan_gpu_s`` (LOGAN's own "GPU only time"), ``goal_met`` (ours at most LOGAN's
        kernel time), ``scores_equal`` (LOGAN's score equals ours for every pair; missing in
        rows recorded before the scores were compared) and ``layout`` (our kernel's, where the rows
        name it). A (dataset, X) with only one program is left out.
    """
    cols = ["machine", "dataset", "n_pairs", "xdrop", "logan_kernel_s", "ours_kernel_s", "kernel_ratio",
            "logan_whole_s", "ours_whole_s", "whole_ratio", "logan_gpu_s", "goal_met", "scores_equal", "layout"]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    key = ["machine", "dataset", "n_pairs", "xdrop"]
    logan = rows[rows["program"] == LOGAN_DEMO].set_index(key)
    ours = rows[rows["program"] == OURS].set_index(key)
    both = logan.index.intersection(ours.index)
    out = pd.DataFrame(index=both)
    out["logan_kernel_s"] = logan.loc[both, "kernel_seconds"].astype(float)
    out["ours_kernel_s"] = ours.loc[both, "kernel_seconds"].astype(float)
    out["kernel_ratio"] = out["ours_kernel_s"] / out["logan_kernel_s"]
    out["logan_whole_s"] = logan.loc[both, "whole_seconds"].astype(float)
    out["ours_whole_s"] = ours.loc[both, "whole_seconds"].astype(float)
    out["whole_ratio"] = out["ours_whole_s"] / out["logan_whole_s"]
    out["logan_gpu_s"] = logan.loc[both, "logan_gpu_seconds"].astype(float)
    out["goal_met"] = out["ours_kernel_s"] <= out["logan_kernel_s"]
    flags = logan.loc[both, "scores_equal"] if "scores_equal" in logan.columns else pd.Series("", index=both)
    out["scores_equal"] = flags.map(lambda v: {"true": True, "false": False}.get(str(v).strip().lower())).astype("boolean")
    out["layout"] = ours.loc[both, "layout"] if "layout" in ours.columns else pd.NA
    return out.reset_index()[cols].sort_values(["machine", "dataset", "xdrop"]).reset_index(drop=True)


def adapted_ceiling(peak: float, widths, blocks: float, threads: float, cores: float, counts=None) -> float:
    r"""LOGAN's adapted ceiling (its Equation 1, Section VII), in *our reading* of its definitions.

    The text of LOGAN's paper we work from keeps what Equation 1's symbols mean but not the
    typeset formula: a ceiling "by averaging the number of cells that GPU can compute in
    parallel", where n is the number of parallel iterations, P the theoretical ceiling
    (220.8 warp GIPS on the V100), B the number of scheduled blocks, :math:`O_i` the operations
    to compute at iteration i, T the threads scheduled per block and C the INT32 cores. Read
    literally -- at iteration i each of the B blocks computes :math:`\min(O_i, T)` cells at
    once, the GPU at most C, and the ceiling is P scaled by the average fraction of the C cores
    busy:

    .. math:: P_{adapted} = \frac{P}{n} \sum_{i=1}^{n} \frac{\min(B \min(O_i, T),\ C)}{C}

    This is our reconstruction, not a quotation: check it against the printed equation
    (IPDPS 2020, p. 469) before calling it LOGAN's. Its consequence, which the chapter states:
    once :math:`B \ge C` every :math:`O_i \ge 1` gives :math:`P_{adapted} = P`.

    Parameters
    ----------
    peak : float
        P, in any unit (the result has the same).
    widths : array-like of int
        :math:`O_i` (cells of anti-diagonal i), each >= 0.
    blocks, threads, cores : float
        B, T and C, each > 0.
    counts : array-like, optional
        How many iterations have each width (a histogram); default one each.

    Returns
    -------
    float
        The adapted ceiling, in the unit of ``peak``.

    Raises
    ------
    ValueError
        No iteration, negative widths or counts, or B, T, C, P not positive.
    """
    o = np.asarray(widths, dtype="float64")
    w = np.ones_like(o) if counts is None else np.asarray(counts, dtype="float64")
    if o.shape != w.shape or o.size == 0 or w.sum() <= 0:
        raise ValueError("widths and counts must be non-empty and of one length, with some iteration")
    if (o < 0).any() or (w < 0).any():
        raise ValueError("widths and counts must be >= 0")
    if min(peak, blocks, threads, cores) <= 0:
        raise ValueError("peak, blocks, threads and cores must be > 0")
    busy = np.minimum(blocks * np.minimum(o, threads), cores) / cores
    return float(peak * (busy * w).sum() / w.sum())


def adapted_ceiling_span(peak: float, blocks: float, threads: float, cores: float) -> tuple[float, float]:
    """The least and the most :func:`adapted_ceiling` can be for anti-diagonals of 1 to T cells.

    What the records allow without the widths themselves: equal ends mean the ceiling is known
    exactly (``B >= C`` gives ``(P, P)``).

    Returns
    -------
    tuple of float
        ``(low, high)``.
    """
    return (adapted_ceiling(peak, [1], blocks, threads, cores), adapted_ceiling(peak, [threads], blocks, threads, cores))


__all__ = ["LOGAN_DEMO", "ORACLE", "OURS", "SEQAN", "adapted_ceiling", "adapted_ceiling_span", "against_logan",
           "counter_metrics", "gcups"]
