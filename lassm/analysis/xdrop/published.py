# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's published numbers, typed in as *theirs*: the paper's tables, its README, its roofline data.

Nothing here is measured by this project. Sources:

* **The paper**: Zeni et al., "LOGAN: High-Performance GPU-Based X-Drop Long-Read Alignment",
  IPDPS 2020, pp. 462-471 (arXiv:2002.05200): Table II (SeqAn on 168 POWER9 threads vs 1 and 6
  V100s, 100K pairs, seconds), Table III (ksw2 on 80 Skylake threads vs 1 and 8 V100s), the
  abstract's headline figures.
* **The README** of albertozeni/LOGAN at ``336907643a8404798ceaa33c7f0db05fcce6e030``: the same
  tables, three cells differing (:func:`readme_differences`).
* **The roofline data**: albertozeni/LOGAN ``src/gpu/coalesced/xdrop_roof/`` as of
  ``0491df9d328b4985926230d0b28f418a5d0caad6`` (its last commit holding it): ``new_m/xdrop-<X>.csv``,
  nvprof metrics of ``extendSeedLGappedXDropOneDirectionShared`` on a V100-SXM2-16GB, two
  invocations (left, right) per X; ``xdrop.m``, the plot script (its ``time`` per X, INT32 peak
  ``80*4*1.38*0.5`` = 220.8 warp GIPS, HBM 828 GB/s, 32-byte transactions). The paper's Fig. 13
  (X = 100) is drawn from such data; which file is not stated."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import pandas as pd

#: Where each table comes from (shown beside the numbers in the book).
PAPER = "Zeni et al., IPDPS 2020 (arXiv:2002.05200)"
README_COMMIT = "336907643a8404798ceaa33c7f0db05fcce6e030"
ROOF_COMMIT = "0491df9d328b4985926230d0b28f418a5d0caad6"
ROOF_PATH = "src/gpu/coalesced/xdrop_roof"

#: The X of the paper's sweeps.
X_VALUES = (10, 20, 50, 100, 500, 1000, 2500, 5000)
#: Table II: SeqAn (168 POWER9 threads), LOGAN on 1 V100, LOGAN on 6 V100s; seconds, 100K pairs.
_TABLE2 = {"seqan": (5.1, 12.7, 29.6, 45.7, 102.6, 133.3, 168.0, 176.6),
           "logan_1gpu": (2.2, 3.1, 5.0, 7.2, 14.9, 20.2, 25.3, 26.7),
           "logan_multi": (1.9, 2.1, 2.2, 2.7, 4.0, 4.9, 5.6, 5.8)}
#: Table III: ksw2 (80 Skylake threads), LOGAN on 1 V100, LOGAN on 8 V100s; seconds, 100K pairs.
_TABLE3 = {"ksw2": (6.9, 7.0, 7.7, 10.4, 113.0, 209.5, 1235.8, 3213.1),
           "logan_1gpu": (2.5, 3.8, 5.8, 7.3, 15.2, 20.4, 25.9, 27.2),
           "logan_multi": (1.7, 1.8, 2.1, 2.4, 3.4, 4.3, 5.2, 5.2)}
#: The README's copies of Tables II and III (commit :data:`README_COMMIT`).
_README2 = {"seqan": _TABLE2["seqan"], "logan_1gpu": _TABLE2["logan_1gpu"],
            "logan_multi": (1.9, 2.0, 2.2, 2.7, 4.0, 4.9, 5.5, 5.8)}
_README3 = {"ksw2": (6.9, 7.0, 7.7, 10.3, 113.0, 209.5, 1235.8, 3213.1),
            "logan_1gpu": _TABLE3["logan_1gpu"], "logan_multi": _TABLE3["logan_multi"]}
#: Tables II and III print seconds to one decimal: a quotient of two printed times is known to
#: within what half a unit of the last digit on each allows.
PRINT_HALF_UNIT = 0.05

#: Section VI-A: the pair set of Tables II and III and the platforms, as printed.
SETUP: dict[str, float] = {"pairs": 100_000, "min_bases": 2_500, "max_bases": 7_500, "error_rate": 0.15,
                           "seqan_threads": 168, "gpus_table2": 6, "gpus_table3": 8, "ksw2_threads": 80}
#: The abstract's and Section VI's headline figures, as printed.
HEADLINES: dict[str, float] = {
    "gcups_max": 181.6,  # "up to 181.6 GCUPS" (multi-GPU)
    "speedup_seqan_1gpu": 6.6,  # "6.6x ... using 1 ... V100 ... over ... 168 CPU threads"
    "speedup_seqan_6gpu": 30.7,  # "... and 30.7x using ... 6"
    "speedup_ksw2": 2.3,  # "a 2.3x LOGAN speed-up versus ksw2"
    "speedup_bella": 10.6,  # "improves the overall BELLA runtime by up to 10.6x"
}
#: Section VII: the V100's INT32 ceiling in warp GIPS (80 SMs x 4 schedulers x 1.38 GHz x 1/2),
#: the value the paper names P in its Equation 1.
V100_INT_WARP_GIPS = 220.8
#: Section VII: the V100's SMs, and its INT32 cores per SM (four processing blocks of 16); with
#: Table I's 128 threads per block (X = 100), the inputs of Equation 1 on LOGAN's own run.
V100_SMS = 80
V100_INT32_PER_SM = 4 * 16
LOGAN_THREADS = 128
#: xdrop.m: the HBM bandwidth of its roof (GB/s) and the bytes of one nvprof DRAM transaction.
V100_HBM_GBS = 828.0
TRANSACTION_BYTES = 32
#: Threads in a warp, to turn thread-level counts into warp instructions as xdrop.m does.
WARP = 32

class _Profile(TypedDict):
    """One X's nvprof metrics (each a (min, max) pair over two invocations) and its time [s]."""

    inst_integer: tuple[int, int]
    dram_read_transactions: tuple[int, int]
    dram_write_transactions: tuple[int, int]
    inst_executed: tuple[int, int]
    thread_inst_executed: tuple[int, int]
    time: float


#: new_m/xdrop-<X>.csv: per X, the two invocations' values (min, max) of each nvprof metric, and
#: xdrop.m's ``time`` (seconds) for that X.
_ROOF: dict[int, _Profile] = {
    100: {"inst_integer": (2973198816372, 2979831484300), "dram_read_transactions": (1702953, 1723845),
          "dram_write_transactions": (1344888, 1476188), "inst_executed": (189052730990, 189463715681),
          "thread_inst_executed": (6022449611296, 6035556858070), "time": 1.70084},
    500: {"inst_integer": (4391011299300, 4401235084696), "dram_read_transactions": (1850297, 1872469),
          "dram_write_transactions": (1383412, 1519726), "inst_executed": (289918761271, 290617786305),
          "thread_inst_executed": (9248353421644, 9270668827174), "time": 2.37950},
    1000: {"inst_integer": (5312142867436, 5323709122060), "dram_read_transactions": (1925125, 1950931),
           "dram_write_transactions": (1391620, 1524551), "inst_executed": (355686347667, 356487415997),
           "thread_inst_executed": (11352224611450, 11377822890004), "time": 2.84574},
    2500: {"inst_integer": (6771487277136, 6786446461624), "dram_read_transactions": (2044244, 2070670),
           "dram_write_transactions": (1394967, 1530203), "inst_executed": (460528149447, 461560725374),
           "thread_inst_executed": (14706721378938, 14739720046023), "time": 3.58964},
    5000: {"inst_integer": (7693935994140, 7713791220436), "dram_read_transactions": (2173659, 2199665),
           "dram_write_transactions": (1376621, 1512378), "inst_executed": (527296884696, 528691117990),
           "thread_inst_executed": (16843322336696, 16887852509422), "time": 4.06058},
}


def _times(table: Mapping[str, tuple[float, ...]], baseline: str, source: str) -> pd.DataFrame:
    df = pd.DataFrame({"xdrop": X_VALUES, **table})
    base = df[baseline]
    for gpu in ("logan_1gpu", "logan_multi"):
        df[f"speedup_{gpu}"] = base / df[gpu]
        df[f"speedup_{gpu}_low"] = (base - PRINT_HALF_UNIT) / (df[gpu] + PRINT_HALF_UNIT)
        df[f"speedup_{gpu}_high"] = (base + PRINT_HALF_UNIT) / (df[gpu] - PRINT_HALF_UNIT)
    df["source"] = source
    return df


def table2(source: str = "paper") -> pd.DataFrame:
    """LOGAN's Table II (SeqAn on 168 POWER9 threads; 1 and 6 V100s; 100K pairs) from ``source``
    ``"paper"`` or ``"readme"``: ``xdrop, seqan, logan_1gpu, logan_multi`` [s] as printed, and
    ``speedup_logan_1gpu``, ``speedup_logan_multi`` with ``_low``/``_high``, the range the printed
    rounding allows."""
    tables = {"paper": (_TABLE2, f"{PAPER}, Table II"), "readme": (_README2, f"albertozeni/LOGAN README @ {README_COMMIT[:7]}")}
    if source not in tables:
        raise ValueError(f"source must be one of {sorted(tables)}, not {source!r}")
    table, label = tables[source]
    return _times(table, "seqan", label)


def table3(source: str = "paper") -> pd.DataFrame:
    """LOGAN's Table III (ksw2 on 80 Skylake threads; 1 and 8 V100s; 100K pairs), as :func:`table2`."""
    tables = {"paper": (_TABLE3, f"{PAPER}, Table III"), "readme": (_README3, f"albertozeni/LOGAN README @ {README_COMMIT[:7]}")}
    if source not in tables:
        raise ValueError(f"source must be one of {sorted(tables)}, not {source!r}")
    table, label = tables[source]
    return _times(table, "ksw2", label)


def readme_differences() -> pd.DataFrame:
    """The cells where the README's tables differ from the paper's: ``table, xdrop, column, paper,
    readme``."""
    rows = []
    for name, paper_t, readme_t in (("II", _TABLE2, _README2), ("III", _TABLE3, _README3)):
        for col, values in paper_t.items():
            for x, p, r in zip(X_VALUES, values, readme_t[col]):
                if p != r:
                    rows.append({"table": name, "xdrop": x, "column": col, "paper": p, "readme": r})
    return pd.DataFrame(rows, columns=["table", "xdrop", "column", "paper", "readme"])


def headline_check() -> pd.DataFrame:
    """The abstract's "up to" speed-ups over SeqAn against Table II's printed times, one row per claim.

    ``table_best`` is the largest quotient of printed times, at ``best_xdrop``, within
    ``best_low``/``best_high``; ``matching_xdrop`` lists the X whose rounding range holds the printed
    value; ``holds``: the printed maximum lies within the table maximum's rounding range."""
    t2 = table2()
    rows = []
    for claim, col in (("speedup_seqan_1gpu", "speedup_logan_1gpu"), ("speedup_seqan_6gpu", "speedup_logan_multi")):
        printed = HEADLINES[claim]
        best = t2.loc[t2[col].idxmax()]
        # the printed figure has one decimal: half a unit of it widens each range
        inside = (t2[f"{col}_low"] - 0.05 <= printed) & (printed <= t2[f"{col}_high"] + 0.05)
        rows.append({"claim": claim, "printed": printed, "table_best": float(best[col]),
                     "best_xdrop": int(best["xdrop"]), "best_low": float(best[f"{col}_low"]),
                     "best_high": float(best[f"{col}_high"]),
                     "matching_xdrop": ", ".join(str(int(x)) for x in t2.loc[inside, "xdrop"]),
                     "holds": bool(best[f"{col}_low"] - 0.05 <= printed <= best[f"{col}_high"] + 0.05)})
    return pd.DataFrame(rows)


def v100_roofline() -> pd.DataFrame:
    """The V100 points of LOGAN's roofline data, one per X, in two units.

    As ``xdrop.m`` computes them, summed over both invocations: warp integer instructions = nvprof's
    thread-level ``inst_integer`` / 32, HBM bytes = 32 x DRAM transactions, time = the script's. In
    this study's lane units: ``ii`` (thread instructions per byte), ``gintops``. Columns ``xdrop,
    int_thread_inst, dram_bytes, seconds, warp_ii, warp_gips, ii, gintops, predication_ratio,
    device, source``."""
    rows = []
    for x, m in _ROOF.items():
        ints = float(sum(m["inst_integer"]))
        dram = float(TRANSACTION_BYTES * (sum(m["dram_read_transactions"]) + sum(m["dram_write_transactions"])))
        warp_int = ints / WARP
        rows.append({"xdrop": x, "int_thread_inst": ints, "dram_bytes": dram, "seconds": m["time"],
                     "warp_ii": warp_int / dram, "warp_gips": warp_int / m["time"] / 1e9,
                     "ii": ints / dram, "gintops": ints / m["time"] / 1e9,
                     "predication_ratio": sum(m["thread_inst_executed"]) / (WARP * sum(m["inst_executed"]))})
    df = pd.DataFrame(rows)
    df["device"] = "Tesla V100-SXM2-16GB"
    df["source"] = f"albertozeni/LOGAN {ROOF_PATH} @ {ROOF_COMMIT[:7]}"
    return df


def v100_roof() -> pd.DataFrame:
    """The V100 roof of ``xdrop.m`` in this study's lane units: ``roof, peak`` [G lane ops/s], ``bandwidth`` [GB/s]."""
    return pd.DataFrame({"roof": ["V100 (LOGAN's xdrop.m)"], "peak": [V100_INT_WARP_GIPS * WARP],
                         "bandwidth": [V100_HBM_GBS]})


__all__ = ["HEADLINES", "LOGAN_THREADS", "PAPER", "PRINT_HALF_UNIT", "README_COMMIT", "ROOF_COMMIT", "ROOF_PATH",
           "SETUP", "TRANSACTION_BYTES", "V100_HBM_GBS", "V100_INT32_PER_SM", "V100_INT_WARP_GIPS", "V100_SMS", "WARP",
           "X_VALUES", "headline_check", "readme_differences", "table2", "table3", "v100_roof", "v100_roofline"]
