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
Performance portability (Pennycook, Sewall & Lee, doi:10.1016/j.future.2017.08.007)
    ``P(a, p, H) = |H| / sum_i 1 / e_i(a, p)`` if every platform of H ran, else 0
Application efficiency (the same paper)
    ``app eff = min_a' t(a', p) / t(a, p)``: the fastest implementation measured on the platform,
    any program's, over this one                                       [1]
Potential speedup
    ``S = 1 / (alg eff * arch eff)``; iso-speedup curves ``x * y = 1 / S``.

"Did not run" rule
------------------
In :func:`pp`, a platform of the set H without a row for an (application, problem), or whose
efficiency is NaN, counts as efficiency 0, so P is 0 ("not portable to H"). An efficiency that
is 0 is also a platform that did not run. Several rows for one (problem, application,
platform) keep the best efficiency.

This module is over 500 lines because every formula carries its numpydoc (formula, units,
source) and its column checks, and the formulas are read together with the paper's Section III.
(The kernel's own model, ``murmurhash2_intops`` and ``theoretical_ii``, could later join the
kernel's package under ``lassm/workloads/``.)
"""
from __future__ import annotations

import math
from itertools import product
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

#: Performance-portability column words (P3's plus ``alg eff``).
EFFICIENCY_COLUMNS: tuple[str, ...] = ("app eff", "arch eff", "alg eff")


# ----------------------------------------------------------------------------------------------
# Validation helpers


def _require_columns(df: pd.DataFrame, columns: Iterable[str]) -> None:
    """Raises ValueError naming every column of ``columns`` that ``df`` lacks."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"DataFrame lacks the required column(s) {missing}")


def _require_numeric(df: pd.DataFrame, columns: Iterable[str]) -> None:
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


def _numeric(df: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_numeric(df[column], errors="raise").astype("float64")


def _require_range(df: pd.DataFrame, column: str, low: float = -math.inf, high: float = math.inf, *,
                   low_open: bool = False, high_open: bool = False, allow_nan: bool = False) -> None:
    """Raises ValueError when a value of ``column`` lies outside [low, high] (or the open ends)."""
    col = _numeric(df, column)
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


def _check(df: pd.DataFrame, nonneg: Sequence[str] = (), positive: Sequence[str] = ()) -> None:
    """The columns exist and are numeric; ``nonneg`` ones are >= 0 and ``positive`` ones > 0."""
    cols = [*nonneg, *positive]
    _require_columns(df, cols)
    _require_numeric(df, cols)
    for c in nonneg:
        _require_range(df, c, 0.0)
    for c in positive:
        _require_range(df, c, 0.0, low_open=True)


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

    Raises
    ------
    ValueError
        Missing columns; negative ops; bytes not positive.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=[ops], positive=[nbytes])
    out = df.copy()
    out["ii"] = _numeric(df, ops) / _numeric(df, nbytes)
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

    Raises
    ------
    ValueError
        Missing columns; negative ops; time not positive.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=[ops], positive=[seconds])
    out = df.copy()
    out["gintops"] = _numeric(df, ops) / _numeric(df, seconds) / 1e9
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

    Raises
    ------
    ValueError
        Missing columns or values out of range.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=["ii"], positive=["peak_gintops", "bandwidth_gbs"])
    ii, peak, bw = _numeric(df, "ii"), _numeric(df, "peak_gintops"), _numeric(df, "bandwidth_gbs")
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

    Raises
    ------
    ValueError
        Missing columns or values out of range.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=["gintops"])
    out = attainable(df)
    out["arch eff"] = _numeric(df, "gintops") / out["attainable_gintops"]
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

    Raises
    ------
    ValueError
        Missing columns, values out of range, or a ratio above 1 (inconsistent counts).
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=["thread_inst"], positive=["warp_inst", "simd_width"])
    _require_range(df, "simd_width", 1.0)
    out = df.copy()
    out["predication_ratio"] = _numeric(df, "thread_inst") / (_numeric(df, "warp_inst") * _numeric(df, "simd_width"))
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

    Raises
    ------
    ValueError
        Missing columns or values out of range.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=["global_ldst_inst"], positive=["global_ldst_sectors", "duration_s"])
    out = df.copy()
    inst = _numeric(df, "global_ldst_inst")
    out["ldst_intensity"] = inst / _numeric(df, "global_ldst_sectors")
    out["ldst_gips"] = inst / _numeric(df, "duration_s") / 1e9
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

    Raises
    ------
    ValueError
        Unknown convention or a missing column.
    TypeError
        Non-numeric values.
    """
    column = {"lanes": "int_lane_ops", "simd": "int_simd_ops"}.get(convention)
    if column is None:
        raise ValueError(f"convention must be 'lanes' or 'simd', not {convention!r}")
    _require_columns(df, [column])
    _require_numeric(df, [column])
    _require_range(df, column, 0.0, allow_nan=True)
    out = df.copy()
    out["int_ops"] = _numeric(df, column)
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

    Raises
    ------
    ValueError
        When a k is below 1 or a count is negative.
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

    Raises
    ------
    ValueError
        Lengths that differ, k < 1, or negative counts.
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

    Raises
    ------
    ValueError
        Missing columns or values out of range.
    TypeError
        Non-numeric values.
    """
    _check(df, nonneg=["ii"], positive=["ii_theoretical"])
    out = df.copy()
    out["alg eff"] = _numeric(df, "ii") / _numeric(df, "ii_theoretical")
    return out


# ----------------------------------------------------------------------------------------------
# Performance portability


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
    _require_columns(df, ["problem", "platform", "application", time])
    _require_numeric(df, [time])
    _require_range(df, time, 0.0, low_open=True, allow_nan=True)
    out = df.drop(columns=[c for c in ("app eff", "reference", "reference time") if c in df.columns])
    t = _numeric(df, time)
    name = df["implementation"] if "implementation" in df.columns else df["application"]
    ran = pd.DataFrame({"problem": df["problem"], "platform": df["platform"], "t": t, "name": name})
    ran = ran.dropna(subset=["t"])
    fastest = ran.sort_values("t", kind="stable").drop_duplicates(["problem", "platform"])
    fastest = fastest.rename(columns={"t": "reference time", "name": "reference"})
    out = out.merge(fastest, on=["problem", "platform"], how="left")
    out.index = df.index
    out["app eff"] = out["reference time"] / t
    return out


def _hmean(values: Sequence[float]) -> float:
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
    _require_columns(df, ["problem", "platform", "application"])
    effs = [c for c in EFFICIENCY_COLUMNS if c in df.columns]
    if not effs:
        raise ValueError(f"DataFrame needs at least one of the columns {list(EFFICIENCY_COLUMNS)}")
    _require_numeric(df, effs)
    for c in effs:
        _require_range(df, c, 0.0, 1.0, allow_nan=True)
    H = list(dict.fromkeys(df["platform"])) if platforms is None else list(dict.fromkeys(platforms))
    if not H:
        raise ValueError("the platform set is empty")
    work = df[["problem", "platform", "application"] + effs].copy()
    for c in effs:
        work[c] = _numeric(df, c).fillna(0.0)
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
            row[c.replace("eff", "pp")] = _hmean(vals)
        rows.append(row)
    out = pd.DataFrame(rows, columns=["problem", "application"] + [c.replace("eff", "pp") for c in effs])
    for c in effs:
        out[c.replace("eff", "pp")] = out[c.replace("eff", "pp")].astype("float64")
    return out


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

    Raises
    ------
    ValueError
        Missing columns or efficiencies outside (0, 1].
    TypeError
        Non-numeric values.
    """
    cols = ["alg eff", "arch eff"]
    _require_columns(df, cols)
    _require_numeric(df, cols)
    for c in cols:
        _require_range(df, c, 0.0, 1.0, low_open=True)
    x, y = _numeric(df, "alg eff"), _numeric(df, "arch eff")
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

    Raises
    ------
    ValueError
        A speedup below 1 or fewer than 2 points.
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


__all__ = ["EFFICIENCY_COLUMNS", "algorithm_efficiency", "application_efficiency", "architectural_efficiency", "attainable",
           "global_memory_pattern", "intop_intensity", "iso_speedup_curves", "murmurhash2_intops", "potential_speedup", "pp",
           "predication_ratio", "select_int_ops", "theoretical_ii", "throughput"]
