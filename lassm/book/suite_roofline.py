# SPDX-License-Identifier: BSD-3-Clause
"""The suite chapter's counters: ``suite/counters.csv`` (:mod:`lassm.campaign.suite_counters`) on
the Instruction Roofline, the roof from the profiler's own peak rates, and what cuRAND launched
for k3's draw; re-exported by :mod:`lassm.book.suite_chapter`."""
from __future__ import annotations

import pandas as pd

from ..runs import suite_records as rec

#: Bytes of one DRAM transaction (a sector): the Instruction Roofline's unit of memory traffic.
SECTOR_BYTES = 32


def counters(machine: str) -> pd.DataFrame:
    """``suite/counters.csv`` with the Instruction Roofline's coordinates (Ding and Williams): warp
    instructions per DRAM transaction (``ii``) and warp GIPS (``gips``), and the L1 bytes; empty
    without counters."""
    from ..campaign import suite_counters

    path = rec.folder(machine) / suite_counters.FILE
    if not path.is_file():
        return pd.DataFrame()
    c = pd.read_csv(path)
    c["transactions"] = c["dram_bytes"] / SECTOR_BYTES
    c["ii"] = c["warp_inst"] / c["transactions"]
    c["gips"] = c["warp_inst"] / c["duration_s"] / 1e9
    c["gips_share"] = c["gips"] / (c["peak_warp_inst_per_s"] / 1e9)
    return c


def roofline_data(machine: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The roof (the profiler's peak warp-instruction and DRAM rates, in G warp instructions and G
    transactions per second) and one point per profiled variant."""
    c = counters(machine)
    if c.empty:
        return pd.DataFrame(columns=["roof", "peak", "bandwidth"]), pd.DataFrame()
    roof = pd.DataFrame({"roof": [f"{c['device'].iloc[0]} (peaks from Nsight Compute)"],
                         "peak": [float(c["peak_warp_inst_per_s"].max()) / 1e9],
                         "bandwidth": [float(c["peak_dram_bytes_per_s"].max()) / SECTOR_BYTES / 1e9]})
    points = pd.DataFrame({"label": c["kernel"] + " " + c["backend"] + " " + c["variant"], "ii": c["ii"],
                           "gintops": c["gips"], "kernel": c["kernel"], "backend": c["backend"],
                           "roof": roof["roof"].iloc[0]})
    return roof, points[points["ii"] > 0]


def roofline_chart(machine: str):
    """Every profiled variant of the five kernels on the machine's Instruction Roofline."""
    from . import plots

    roofs, points = roofline_data(machine)
    return plots.roofline(roofs, points, color="kernel", shape="backend",
                          title="Jin and Vetter's kernels on the Instruction Roofline",
                          x_title="warp instructions per DRAM transaction (32 B)", y_title="warp GIPS")


def curand_launches(machine: str) -> int | None:
    """Kernels cuRAND launched for k3's draw (the profiled run's launches not of k3's own), or None
    without counters."""
    c = counters(machine)
    row = c[(c["kernel"] == "cmap") & (c["backend"] == "cuda") & (c["variant"] == "curand")] if len(c) else c
    return int(row["library_launches"].iloc[0]) if len(row) else None


__all__ = ["SECTOR_BYTES", "counters", "curand_launches", "roofline_chart", "roofline_data"]
