# SPDX-License-Identifier: BSD-3-Clause
"""What the X-drop chapter's two modules (:mod:`.xdrop_chapter`, :mod:`.xdrop_lanes_section`) read alike: the times, the kernel's device, the missing value's word.

The layouts' section (:mod:`.xdrop_lanes_section`) and the rest of the chapter both read ``times.csv``
and print numbers the same way; neither may import the other's module whole (the chapter's facts
gather the layouts' facts), so what both need sits here.
"""
from __future__ import annotations

import pandas as pd

from ..analysis.xdrop import measures, checked_records

#: The GPU backends of ``times.csv`` (the rows a speed-up is reported for).
GPU_BACKENDS = ("cuda", "opencl")
#: What the sentences say where the records lack a value.
NOT_MEASURED = "not measured"


def times(machine: str) -> pd.DataFrame:
    """``times.csv`` of ``machine`` with GCUPS and the speed-ups (empty where there is none)."""
    return measures.gcups(checked_records.load(machine, "times"))


def fmt(value, fmt: str) -> str:
    """``value`` formatted, or :data:`NOT_MEASURED` where there is none."""
    return NOT_MEASURED if value is None or pd.isna(value) else f"{value:{fmt}}"


#: A layout family (:func:`lassm.analysis.xdrop.layouts.family`) in words.
LAYOUT_WORDS: dict[str, str] = {"block": "LOGAN's block layout", "lanes": "the lanes kernel",
                                "wide-block": "the wide-band block", "scalar": "one pair per CPU thread"}


def layouts_text(rows: pd.DataFrame) -> str:
    """Which kernels ``times`` rows ran, in words, with the X of each: "the block layout" or "the
    lanes kernel at X = 10 to 1,000 and the block layout at X = 5,000" (:mod:`lassm.analysis.xdrop.layouts`)."""
    from ..analysis.xdrop.layouts import family

    if rows.empty:
        return NOT_MEASURED
    fam = rows["layout"].map(family)
    words = LAYOUT_WORDS
    if fam.nunique() == 1:
        return words.get(fam.iloc[0], fam.iloc[0])
    parts = []
    for name, xs in rows.groupby(fam, sort=False)["xdrop"]:
        lo, hi = int(xs.min()), int(xs.max())
        parts.append(f"{words.get(name, name)} at X = {lo:,d}" + ("" if lo == hi else f" to {hi:,d}"))
    return " and ".join(parts)


def kernel_device(t: pd.DataFrame) -> str | None:
    """The device that ran our GPU kernel in ``times`` rows: CUDA's, else the first GPU backend's,
    without its runtime's tag (the CPU rows of SeqAn and the oracle name the host instead)."""
    from .machines import device_label

    for backends in (("cuda",), GPU_BACKENDS):
        rows = t[t["backend"].isin(backends)] if len(t) else t
        if len(rows):
            return device_label(rows["device"].iloc[0])
    return None


__all__ = ["GPU_BACKENDS", "NOT_MEASURED", "fmt", "kernel_device", "layouts_text", "times"]
