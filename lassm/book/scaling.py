# SPDX-License-Identifier: BSD-3-Clause
"""The scaling chapter's chart: the speed-ups of a sharded run over one GPU, named for a reader.

The records' columns (``speedup_wall``, ``speedup_compute``, ``speedup_kernel``) are what the
scaling table of :func:`lassm.runs.results.scaling_table` holds; a legend shows what each
measures, and the title the device, not the results folder.
"""
from __future__ import annotations

import pandas as pd

from . import machines as mach
from . import plots
from ..runs import results

#: Each speed-up of a scaling record, as the legend names it.
MEASURES: dict[str, str] = {"speedup_wall": "whole command", "speedup_compute": "workers' part (read, extend, write)",
                            "speedup_kernel": "kernels alone"}


def speedups(table: pd.DataFrame) -> pd.DataFrame:
    """The table's speed-ups, one row per (GPU count, measure): ``gpus, measure, speedup``."""
    long = table.melt(id_vars="gpus", value_vars=list(MEASURES), var_name="measure", value_name="speedup")
    return long.assign(measure=long["measure"].map(MEASURES))


def speedup_chart(table: pd.DataFrame, machine: str, dataset: str):
    """Speed-up over one GPU per GPU count: one bar per measure, each one record's value."""
    device = mach.device_label(str(results.load_records(machine)["device"].iloc[0]))
    return plots.to_svg(plots.kernel_times(speedups(table), x="gpus", y="speedup", color="measure",
                                           title=f"Strong scaling of {dataset} on one node of {device} GPUs",
                                           y_title="speed-up over 1 GPU"),
                        "speed-up over one GPU by GPU count")


__all__ = ["MEASURES", "speedup_chart", "speedups"]
