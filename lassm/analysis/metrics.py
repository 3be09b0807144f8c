# SPDX-License-Identifier: BSD-3-Clause
"""Metrics in the style of Intel's P3 analysis library: DataFrame in, new DataFrame out.

Every function validates its input (missing columns -> ``ValueError``; non-numeric values ->
``TypeError``; values out of range -> ``ValueError``), never modifies it, and returns a new frame
with the input's columns plus the ones it computes. The words at the performance-portability
boundary are P3's: ``problem``, ``platform``, ``application``, ``fom``, ``app eff``,
``arch eff`` (and ours, ``alg eff``).

Quantities and formulas
-----------------------
INTOP intensity (Lindsey et al., P3HPC 2024; Instruction Roofline, Ding & Williams,
doi:10.1109/PMBS49563.2019.00007)
    ``ii = int_ops / dram_bytes``                                     [ops/B]
Throughput
    ``gintops = int_ops / duration_s / 1e9``                          [G ops/s]
Attainable performance (Williams, Waterman & Patterson, doi:10.1145/1498765.1498785)
    ``attainable = min(peak, bandwidth * ii)``                        [G ops/s]
Architectural efficiency
    ``arch eff = gintops / attainable``
Theoretical II (the paper's Eqs. 1-4)
    ``II = (INTOP_1 + INTOP_2) / (B_1 + B_2)``, ``B_1 = 2k + 13``, ``B_2 = k + 13``
Algorithm efficiency (Antepara et al., doi:10.1145/3624062.3624177)
    ``alg eff = ii / ii_theoretical``
Performance portability and application efficiency (Pennycook, Sewall & Lee): :mod:`.portability`.
Potential speedup
    ``S = 1 / (alg eff * arch eff)``; iso-speedup curves ``x * y = 1 / S``.

This module is over 500 lines because every formula carries its numpydoc (formula, units,
source), and the formulas are read together with the paper's Section III.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .columns import check, numeric, require_columns, require_numeric, require_range


# ----------------------------------------------------------------------------------------------
# Roofline quantities


def intop_intensity(df: pd.DataFrame, ops: str = "int_ops", nbytes: str = "dram_bytes") -> pd.DataFrame:
    r"""INTOP intensity: integer operations per DRAM byte.

    .. math:: \mathrm{II} = \frac{\mathrm{INTOPs}}{\mathrm{HBM\ bytes}}

    (the paper's "INTOP Intensity", the Instruction Roofline's intensity with integer
    operations for instructions and bytes for transactions; doi:10.1109/PMBS49563.2019.00007).

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``ops`` (>= 0) and ``nbytes`` (> 0) columns.
    ops : str, default "int_ops"
        Column of integer operations.
    nbytes : str, default "dram_bytes"
        Column of DRAM bytes.

    Returns
    -------
    pandas.DataFrame
        A copy of ``df`` with ``ii`` [ops/B].
    """
    check(df, nonneg=[ops], positive=[nbytes])
    out = df.copy()
    out["ii"] = numeric(df, ops) / numeric(df, nbytes)
    return out


def throughput(df: pd.DataFrame, ops: str = "int_ops", seconds: str = "duration_s") -> pd.DataFrame:
    r"""Integer throughput in billions of operations per second.

    .. math:: \mathrm{GINTOP/s} = \frac{\mathrm{INTOPs}}{10^9\, t}

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``ops`` (>= 0) and ``seconds`` (> 0).
    ops : str, default "int_ops"
        Column of integer operations.
    seconds : str, default "duration_s"
        Column of kernel time [s].

    Returns
    -------
    pandas.DataFrame
        A copy of ``df`` with ``gintops`` [G ops/s].
    """
    check(df, nonneg=[ops], positive=[seconds])
    out = df.copy()
    out["gintops"] = numeric(df, ops) / numeric(df, seconds) / 1e9
    return out


def attainable(df: pd.DataFrame) -> pd.DataFrame:
    r"""The roofline's attainable performance at each point's intensity.

    .. math:: P_{att} = \min(P_{peak},\ B \cdot \mathrm{II})

    (Williams, Waterman & Patterson, doi:10.1145/1498765.1498785.) ``bound`` says which roof
    binds; ``balance = peak / bandwidth`` is the machine balance (the ridge point).

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``ii`` [ops/B] (>= 0), ``peak_gintops`` [G ops/s] (> 0) and ``bandwidth_gbs``
        [GB/s] (> 0).

    Returns
    -------
    pandas.DataFrame
        A copy with ``attainable_gintops``, ``balance`` and ``bound`` (``"memory"`` or
        ``"compute"``).
    """
    check(df, nonneg=["ii"], positive=["peak_gintops", "bandwidth_gbs"])
    ii, peak, bw = numeric(df, "ii"), numeric(df, "peak_gintops"), numeric(df, "bandwidth_gbs")
    out = df.copy()
    out["attainable_gintops"] = np.minimum(peak, bw * ii)
    out["balance"] = peak / bw
    out["bound"] = np.where(bw * ii < peak, "memory", "compute")
    return out


def architectural_efficiency(df: pd.DataFrame) -> pd.DataFrame:
    r"""Architectural efficiency: achieved over attainable performance on the roofline.

    .. math:: e_{arch} = \frac{\mathrm{GINTOP/s}}{\min(P_{peak},\ B \cdot \mathrm{II})}

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``gintops`` (>= 0), ``ii``, ``peak_gintops`` and ``bandwidth_gbs``
        (see :func:`attainable`).

    Returns
    -------
    pandas.DataFrame
        A copy with ``attainable_gintops``, ``balance``, ``bound`` and ``arch eff``. A value
        above 1 means the peak or the bandwidth of the roof is lower than what ran: a counting
        convention that does not match the roof's (e.g. thread-level ops over a warp-level peak).
    """
    check(df, nonneg=["gintops"])
    out = attainable(df)
    out["arch eff"] = numeric(df, "gintops") / out["attainable_gintops"]
    return out


def predication_ratio(df: pd.DataFrame) -> pd.DataFrame:
    r"""Fraction of SIMD lanes that executed: thread instructions over lane slots.

    .. math:: r = \frac{\mathrm{thread\ inst}}{\mathrm{warp\ inst} \times w}

    1 when every lane of every issued instruction was active; ``1 / w`` when one lane was.
    ``int_simd_ops`` overstates ``int_lane_ops`` by about ``1 / r`` (Instruction Roofline,
    "thread predication", doi:10.1002/cpe.6591).

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``thread_inst`` (>= 0), ``warp_inst`` (> 0), ``simd_width`` (>= 1).

    Returns
    -------
    pandas.DataFrame
        A copy with ``predication_ratio`` in [0, 1].
    """
    check(df, nonneg=["thread_inst"], positive=["warp_inst", "simd_width"])
    require_range(df, "simd_width", 1.0)
    out = df.copy()
    out["predication_ratio"] = numeric(df, "thread_inst") / (numeric(df, "warp_inst") * numeric(df, "simd_width"))
    if (out["predication_ratio"] > 1 + 1e-12).any():
        raise ValueError("thread_inst exceeds warp_inst * simd_width: counts from different runs?")
    return out


def global_memory_pattern(df: pd.DataFrame) -> pd.DataFrame:
    r"""Global load/store intensity: SIMD-level load/store instructions per memory transaction.

    .. math:: x_{ldst} = \frac{\mathrm{global\ ld/st\ instructions}}{\mathrm{global\ ld/st\ transactions}},
              \qquad \mathrm{GIPS}_{ldst} = \frac{\mathrm{global\ ld/st\ instructions}}{10^9\, t}

    Placed against the global-memory walls (:func:`lassm.analysis.roofline.memory_walls`: 1 for
    stride-0, 1/4 for unit-stride 32-bit words, 1/32 for one transaction per lane on a 32-wide
    warp) it shows the average access pattern (Ding, Awan & Williams, doi:10.1002/cpe.6591).

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``global_ldst_inst`` (>= 0), ``global_ldst_sectors`` (> 0) and ``duration_s`` (> 0).

    Returns
    -------
    pandas.DataFrame
        A copy with ``ldst_intensity`` [inst/transaction] and ``ldst_gips`` [G inst/s].
    """
    check(df, nonneg=["global_ldst_inst"], positive=["global_ldst_sectors", "duration_s"])
    out = df.copy()
    inst = numeric(df, "global_ldst_inst")
    out["ldst_intensity"] = inst / numeric(df, "global_ldst_sectors")
    out["ldst_gips"] = inst / numeric(df, "duration_s") / 1e9
    return out


def select_int_ops(df: pd.DataFrame, convention: str) -> pd.DataFrame:
    """Chooses the integer-operation count of one counting convention as ``int_ops``.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy counter table (or aggregate): ``int_lane_ops`` and/or ``int_simd_ops``.
    convention : {"lanes", "simd"}
        ``lanes``: predicate-aware lane counts (``int_lane_ops``); ``simd``: instructions times
        SIMD width (``int_simd_ops``). See :mod:`lassm.analysis.counters`.

    Returns
    -------
    pandas.DataFrame
        A copy with ``int_ops`` and ``convention``. Rows whose tool does not measure the
        convention get NaN (they are not silently filled from the other one).
    """
    column = {"lanes": "int_lane_ops", "simd": "int_simd_ops"}.get(convention)
    if column is None:
        raise ValueError(f"convention must be 'lanes' or 'simd', not {convention!r}")
    require_columns(df, [column])
    require_numeric(df, [column])
    require_range(df, column, 0.0, allow_nan=True)
    out = df.copy()
    out["int_ops"] = numeric(df, column)
    out["convention"] = convention
    return out


# ----------------------------------------------------------------------------------------------
# Theoretical intensity (the paper's model)


def murmurhash2_intops(k: int | Sequence[int], *, init: float, per_block: float, cleanup: float,
                       per_byte_extra: float = 0.0, per_block_extra: float = 0.0) -> np.ndarray:
    r"""Integer operations of one MurmurHash2 call on a k-byte key, phase by phase.

    MurmurHash2 (Appleby, SMHasher) initialises, mixes the key four bytes at a time
    (:math:`\lfloor k/4 \rfloor` blocks) and cleans up:

    .. math:: \mathrm{INTOP}(k) = c_{init} + c_{block}\lfloor k/4 \rfloor + c_{cleanup}
              + c_{byte}\,k + c_{block}'\lfloor k/4 \rfloor

    The per-phase counts are the paper's Table V (passed in, read from data); the two extra
    terms are zero for the Table V phases and let a caller test hypotheses for the part of the
    printed ``INTOP_1`` that the phases do not explain.

    Parameters
    ----------
    k : int or sequence of int
        Key length (k-mer size) in bytes, >= 1.
    init, per_block, cleanup : float
        Operations of initialisation, of one 4-byte mix block, and of the final cleanup.
    per_byte_extra, per_block_extra : float, default 0
        Operations per key byte and per block beyond the three phases.

    Returns
    -------
    numpy.ndarray
        Operations per call, one per k.
    """
    ks = np.atleast_1d(np.asarray(k, dtype=np.int64))
    if (ks < 1).any():
        raise ValueError("k must be >= 1")
    if min(init, per_block, cleanup, per_byte_extra, per_block_extra) < 0:
        raise ValueError("operation counts must be >= 0")
    blocks = ks // 4
    return (init + per_block * blocks + cleanup + per_byte_extra * ks + per_block_extra * blocks).astype("float64")


def theoretical_ii(k: Sequence[int], intop_1: Sequence[float], *, b1: tuple[float, float],
                   b2: tuple[float, float], intop_2: Sequence[float] | None = None) -> pd.DataFrame:
    r"""The paper's theoretical INTOP intensity per k (its Eqs. 1-4, Table VI).

    .. math::
        B_1 = a_1 k + c_1,\quad B_2 = a_2 k + c_2,\quad
        \mathrm{II} = \frac{\mathrm{INTOP}_1 + \mathrm{INTOP}_2}{B_1 + B_2}

    with the paper's :math:`B_1 = 2k + 13` (k-mer and quality read, a 13-byte table entry
    written) and :math:`B_2 = k + 13` (k-mer read, the entry read back), and
    :math:`\mathrm{INTOP}_2 = \mathrm{INTOP}_1` (the walk hashes like the construction).

    Parameters
    ----------
    k : sequence of int
        k-mer sizes (>= 1).
    intop_1 : sequence of float
        Integer operations of Algorithm 1 per k-mer (e.g. Table V's ``INTOP_1``).
    b1, b2 : tuple of (float, float)
        ``(per_k, constant)`` of the two byte models (from data).
    intop_2 : sequence of float, optional
        Operations of Algorithm 2 (default: equal to ``intop_1``).

    Returns
    -------
    pandas.DataFrame
        Columns ``k, intop_1, intop_2, b1, b2, ops_per_loop, bytes_per_loop, ii``.
    """
    ks = np.asarray(k, dtype=np.int64)
    i1 = np.asarray(intop_1, dtype="float64")
    i2 = i1.copy() if intop_2 is None else np.asarray(intop_2, dtype="float64")
    if not (len(ks) == len(i1) == len(i2)):
        raise ValueError("k, intop_1 and intop_2 must have the same length")
    if (ks < 1).any() or (i1 < 0).any() or (i2 < 0).any():
        raise ValueError("k must be >= 1 and operation counts >= 0")
    bytes_1 = b1[0] * ks + b1[1]
    bytes_2 = b2[0] * ks + b2[1]
    if (bytes_1 + bytes_2 <= 0).any():
        raise ValueError("the byte model gives no bytes")
    return pd.DataFrame({"k": ks, "intop_1": i1, "intop_2": i2, "b1": bytes_1.astype("float64"),
                         "b2": bytes_2.astype("float64"), "ops_per_loop": i1 + i2,
                         "bytes_per_loop": (bytes_1 + bytes_2).astype("float64"),
                         "ii": (i1 + i2) / (bytes_1 + bytes_2)})


def algorithm_efficiency(df: pd.DataFrame) -> pd.DataFrame:
    r"""Algorithm efficiency: empirical over theoretical intensity.

    .. math:: e_{alg} = \frac{\mathrm{II}_{empirical}}{\mathrm{II}_{theoretical}}

    (Antepara et al., doi:10.1145/3624062.3624177, with integer operations for FLOPs.) A value
    above 1 means the kernel moved fewer bytes per operation than the model's ideal cache would
    (the model is not a bound for this kernel), or counted more operations than the model.

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``ii`` (>= 0) and ``ii_theoretical`` (> 0).

    Returns
    -------
    pandas.DataFrame
        A copy with ``alg eff``.
    """
    check(df, nonneg=["ii"], positive=["ii_theoretical"])
    out = df.copy()
    out["alg eff"] = numeric(df, "ii") / numeric(df, "ii_theoretical")
    return out


# ----------------------------------------------------------------------------------------------
# Performance portability


# ----------------------------------------------------------------------------------------------
# Potential speedup


def potential_speedup(df: pd.DataFrame) -> pd.DataFrame:
    r"""Coordinates of the potential-speedup plot and the speedups they leave on the table.

    x = algorithm efficiency, y = architectural efficiency (Antepara et al.,
    doi:10.1145/3624062.3624177). Reaching the theoretical intensity multiplies performance by
    :math:`1/x` (memory-bound), reaching the roof by :math:`1/y`; together

    .. math:: S = \frac{1}{x\,y}

    Parameters
    ----------
    df : pandas.DataFrame
        Needs ``alg eff`` and ``arch eff``, each in (0, 1].

    Returns
    -------
    pandas.DataFrame
        A copy with ``x``, ``y``, ``speedup_memory`` (1/x), ``speedup_compute`` (1/y) and
        ``speedup`` (1/(x y)).
    """
    cols = ["alg eff", "arch eff"]
    require_columns(df, cols)
    require_numeric(df, cols)
    for c in cols:
        require_range(df, c, 0.0, 1.0, low_open=True)
    x, y = numeric(df, "alg eff"), numeric(df, "arch eff")
    out = df.copy()
    out["x"], out["y"] = x, y
    out["speedup_memory"] = 1.0 / x
    out["speedup_compute"] = 1.0 / y
    out["speedup"] = 1.0 / (x * y)
    return out


def iso_speedup_curves(speedups: Sequence[float], points: int = 50) -> pd.DataFrame:
    r"""Iso-speedup curves :math:`x \cdot y = 1/S` of the potential-speedup plot, in the unit square.

    Parameters
    ----------
    speedups : sequence of float
        Speedups S (each >= 1: the curve of S = 1 is the single point (1, 1)).
    points : int, default 50
        Points per curve, log-spaced in x from 1/S to 1.

    Returns
    -------
    pandas.DataFrame
        Columns ``speedup``, ``x``, ``y`` (``x * y == 1 / speedup``).
    """
    if points < 2:
        raise ValueError("points must be >= 2")
    rows = []
    for s in speedups:
        s = float(s)
        if not s >= 1.0:
            raise ValueError(f"speedup must be >= 1, got {s}")
        xs = np.geomspace(1.0 / s, 1.0, points)
        rows.append(pd.DataFrame({"speedup": s, "x": xs, "y": 1.0 / (s * xs)}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["speedup", "x", "y"])


__all__ = ["algorithm_efficiency", "architectural_efficiency", "attainable", "global_memory_pattern", "intop_intensity",
           "iso_speedup_curves", "murmurhash2_intops", "potential_speedup", "predication_ratio", "select_int_ops",
           "theoretical_ii", "throughput"]
