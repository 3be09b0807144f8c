# SPDX-License-Identifier: BSD-3-Clause
"""Metrics in the style of Intel's P3 analysis library: DataFrame in, new DataFrame out.

Every function returns a copy of its input plus the columns it computes, and raises
``ValueError`` on missing columns or out-of-range values, ``TypeError`` on non-numeric ones.
Column words at the portability boundary are P3's (``problem``, ``platform``, ``application``,
``fom``, ``app eff``, ``arch eff``) plus ours, ``alg eff``.

Formulas (sources in each function): ``ii = int_ops / dram_bytes`` [ops/B];
``gintops = int_ops / duration_s / 1e9`` [G ops/s]; ``attainable = min(peak, bandwidth * ii)``;
``arch eff = gintops / attainable``; theoretical ``II = (INTOP_1 + INTOP_2) / (B_1 + B_2)``
with ``B_1 = 2k + 13``, ``B_2 = k + 13`` (the paper's Eqs. 1-4); ``alg eff = ii / ii_theoretical``;
potential speedup ``S = 1 / (alg eff * arch eff)``. Portability metrics: :mod:`.portability`."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .columns import check, numeric, require_columns, require_numeric, require_range


# ----------------------------------------------------------------------------------------------
# Roofline quantities


def intop_intensity(df: pd.DataFrame, ops: str = "int_ops", nbytes: str = "dram_bytes") -> pd.DataFrame:
    r"""INTOP intensity: integer operations per DRAM byte (doi:10.1109/PMBS49563.2019.00007).

    .. math:: \mathrm{II} = \frac{\mathrm{INTOPs}}{\mathrm{HBM\ bytes}}

    Needs column ``ops`` (>= 0) and ``nbytes`` (> 0); returns a copy with ``ii`` [ops/B]."""
    check(df, nonneg=[ops], positive=[nbytes])
    out = df.copy()
    out["ii"] = numeric(df, ops) / numeric(df, nbytes)
    return out


def throughput(df: pd.DataFrame, ops: str = "int_ops", seconds: str = "duration_s") -> pd.DataFrame:
    r"""Integer throughput in billions of operations per second.

    .. math:: \mathrm{GINTOP/s} = \frac{\mathrm{INTOPs}}{10^9\, t}

    Needs ``ops`` (>= 0) and ``seconds`` [s] (> 0); returns a copy with ``gintops`` [G ops/s]."""
    check(df, nonneg=[ops], positive=[seconds])
    out = df.copy()
    out["gintops"] = numeric(df, ops) / numeric(df, seconds) / 1e9
    return out


def attainable(df: pd.DataFrame) -> pd.DataFrame:
    r"""The roofline's attainable performance at each point's intensity (doi:10.1145/1498765.1498785).

    .. math:: P_{att} = \min(P_{peak},\ B \cdot \mathrm{II})

    Needs ``ii`` [ops/B] (>= 0), ``peak_gintops`` [G ops/s] (> 0) and ``bandwidth_gbs`` [GB/s] (> 0).
    Returns a copy with ``attainable_gintops``, ``balance`` (``peak / bandwidth``, the ridge point)
    and ``bound`` (``"memory"`` or ``"compute"``, the roof that binds)."""
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

    Needs ``gintops`` (>= 0) and the columns of :func:`attainable`; returns a copy with its columns
    and ``arch eff``. A value above 1 means the roof counts differently from what ran (e.g.
    thread-level ops over a warp-level peak)."""
    check(df, nonneg=["gintops"])
    out = attainable(df)
    out["arch eff"] = numeric(df, "gintops") / out["attainable_gintops"]
    return out


def predication_ratio(df: pd.DataFrame) -> pd.DataFrame:
    r"""Fraction of SIMD lanes that executed: thread instructions over lane slots.

    .. math:: r = \frac{\mathrm{thread\ inst}}{\mathrm{warp\ inst} \times w}

    ``int_simd_ops`` overstates ``int_lane_ops`` by about ``1 / r`` (doi:10.1002/cpe.6591). Needs
    ``thread_inst`` (>= 0), ``warp_inst`` (> 0), ``simd_width`` (>= 1); returns a copy with
    ``predication_ratio`` in [0, 1]."""
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

    Read against :func:`lassm.analysis.roofline.memory_walls` it shows the average access pattern
    (doi:10.1002/cpe.6591). Needs ``global_ldst_inst`` (>= 0), ``global_ldst_sectors`` (> 0),
    ``duration_s`` (> 0); returns a copy with ``ldst_intensity`` [inst/transaction] and
    ``ldst_gips`` [G inst/s]."""
    check(df, nonneg=["global_ldst_inst"], positive=["global_ldst_sectors", "duration_s"])
    out = df.copy()
    inst = numeric(df, "global_ldst_inst")
    out["ldst_intensity"] = inst / numeric(df, "global_ldst_sectors")
    out["ldst_gips"] = inst / numeric(df, "duration_s") / 1e9
    return out


def select_int_ops(df: pd.DataFrame, convention: str) -> pd.DataFrame:
    """Copies one counting convention's integer-operation count into ``int_ops``.

    ``convention`` is ``"lanes"`` (predicate-aware ``int_lane_ops``) or ``"simd"`` (instructions
    times SIMD width, ``int_simd_ops``). Returns a copy with ``int_ops`` and ``convention``; rows
    whose tool does not measure the convention get NaN, never the other convention's count."""
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

    .. math:: \mathrm{INTOP}(k) = c_{init} + c_{block}\lfloor k/4 \rfloor + c_{cleanup}
              + c_{byte}\,k + c_{block}'\lfloor k/4 \rfloor

    ``init``, ``per_block``, ``cleanup`` are the paper's Table V phase counts (from data); the
    ``*_extra`` terms (default 0) let a caller test hypotheses for the part of the printed
    ``INTOP_1`` the phases do not explain. ``k`` (>= 1) may be a sequence; returns one count per k."""
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

    ``b1``, ``b2`` are ``(per_k, constant)`` byte models (the paper's ``2k + 13`` and ``k + 13``);
    ``intop_2`` defaults to ``intop_1`` (the walk hashes like the construction). Returns columns
    ``k, intop_1, intop_2, b1, b2, ops_per_loop, bytes_per_loop, ii``."""
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
    r"""Algorithm efficiency: empirical over theoretical intensity (doi:10.1145/3624062.3624177).

    .. math:: e_{alg} = \frac{\mathrm{II}_{empirical}}{\mathrm{II}_{theoretical}}

    Needs ``ii`` (>= 0) and ``ii_theoretical`` (> 0); returns a copy with ``alg eff``. Above 1, the
    kernel moved fewer bytes per operation than the model's ideal cache (or counted more operations)."""
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

    x = ``alg eff``, y = ``arch eff``, each in (0, 1] (doi:10.1145/3624062.3624177):

    .. math:: S = \frac{1}{x\,y}

    Returns a copy with ``x``, ``y``, ``speedup_memory`` (1/x), ``speedup_compute`` (1/y) and
    ``speedup`` (1/(x y))."""
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

    Each speedup must be >= 1; ``points`` per curve are log-spaced in x from 1/S to 1. Returns
    columns ``speedup``, ``x``, ``y``."""
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


def on_roofline(df: pd.DataFrame, ceilings: dict) -> pd.DataFrame:
    """Counters placed under the ``ceilings`` (``peak_gintops``, ``bandwidth_gbs``): a copy with
    ``int_ops`` (= ``int_lane_ops``), the roofs, and the columns of :func:`intop_intensity`,
    :func:`throughput`, :func:`architectural_efficiency` and :func:`predication_ratio`."""
    df = df.assign(int_ops=df["int_lane_ops"], peak_gintops=float(ceilings["peak_gintops"]),
                   bandwidth_gbs=float(ceilings["bandwidth_gbs"]))
    return predication_ratio(architectural_efficiency(throughput(intop_intensity(df))))


__all__ = ["algorithm_efficiency", "architectural_efficiency", "attainable", "global_memory_pattern", "intop_intensity",
           "iso_speedup_curves", "murmurhash2_intops", "on_roofline", "potential_speedup", "predication_ratio",
           "select_int_ops", "theoretical_ii", "throughput"]
