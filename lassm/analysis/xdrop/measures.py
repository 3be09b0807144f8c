# SPDX-License-Identifier: BSD-3-Clause
"""X-drop records to the study's measures: GCUPS, speed-ups, roofline positions, LOGAN's ceiling.

The roofline quantities are computed by local assembly's own functions
(:mod:`lassm.analysis.metrics`, :func:`lassm.analysis.derive.potential_speedups`) on the
machine's measured ceilings, so the two kernels' points sit on one roofline. Choices:

* **Ideal-cache byte model**: every base of both reads crosses HBM once (``ideal_bytes =
  bases``), so ``alg eff = bases / dram_bytes``. X-drop can stop before reading whole reads:
  ``alg eff > 1`` is beyond the model, and no potential speedup is defined there.
* **Speed-ups are ratios of one run's medians** (``times.csv`` times every backend of one X in
  one run), against SeqAn and the numba oracle, both on all the machine's cores.
* **LOGAN's adapted ceiling** (:func:`adapted_ceiling`) is a *reading*, see there."""
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
    """GCUPS and speed-ups per (machine, dataset, X, backend) of ``times.csv`` rows.

    Needs ``machine, dataset, xdrop, backend, seconds`` (> 0), ``wall_seconds``, ``cells`` (>= 0 or
    NaN); ``scoring`` joins the key where present. Returns a copy with ``gcups = cells / seconds /
    1e9``, ``speedup_vs_seqan``, ``speedup_vs_cpu`` (NaN where the baseline was not measured at that
    X) and ``wall_speedup_vs_seqan``. ``ValueError`` on missing columns, bad values, duplicate keys."""
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
    """The roofline position of every profiled (dataset, X, program) of one machine's ``counters.csv``.

    ``ceilings`` gives ``peak_gintops`` and ``bandwidth_gbs``. Returns a copy with ``int_ops``
    (= ``int_lane_ops``), the roofline columns, ``arch eff``, ``predication_ratio`` and ``warp_gips``
    (``gintops / simd_width``, LOGAN's unit). With ``times`` (its ``bases`` give the ideal-cache
    bytes) also ``ideal_bytes``, ``ii_theoretical``, ``alg eff``, ``x``, ``y``, ``speedup*`` and
    ``beyond_model``."""
    df = counters.copy()
    if df.empty:
        return df
    df = metrics.on_roofline(df, ceilings)
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
    """LOGAN's demo and our kernel side by side, one row per (machine, dataset, X) of
    ``against-logan.csv``.

    Columns: ``logan_kernel_s``, ``ours_kernel_s``, ``kernel_ratio`` (ours / LOGAN's, below 1 is
    faster), the same for whole times, ``logan_gpu_s`` (LOGAN's "GPU only time"), ``goal_met`` (ours
    at most LOGAN's kernel time), ``scores_equal`` (may be missing in older rows) and ``layout``
    (where named). A (dataset, X) with only one program is left out."""
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

    At iteration i each of B blocks computes :math:`\min(O_i, T)` cells, the GPU at most C, and the
    ceiling is P scaled by the average fraction of the C INT32 cores busy:

    .. math:: P_{adapted} = \frac{P}{n} \sum_{i=1}^{n} \frac{\min(B \min(O_i, T),\ C)}{C}

    A reconstruction from the text, not a quotation of the typeset formula (IPDPS 2020, p. 469).
    Once :math:`B \ge C`, every :math:`O_i \ge 1` gives :math:`P_{adapted} = P`. ``widths`` are the
    :math:`O_i` (>= 0), ``counts`` an optional histogram of them; the result is in ``peak``'s unit.
    ``ValueError`` with no iteration, negative widths or counts, or B, T, C, P not positive."""
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
    """``(low, high)``: the least and most :func:`adapted_ceiling` can be for anti-diagonals of 1 to T
    cells; equal ends (``B >= C`` gives ``(P, P)``) mean the ceiling is known without the widths."""
    return (adapted_ceiling(peak, [1], blocks, threads, cores), adapted_ceiling(peak, [threads], blocks, threads, cores))


__all__ = ["LOGAN_DEMO", "ORACLE", "OURS", "SEQAN", "adapted_ceiling", "adapted_ceiling_span", "against_logan",
           "counter_metrics", "gcups"]
