# SPDX-License-Identifier: BSD-3-Clause
"""CPU benchmark: contig ends/s and insertions/s, one thread against all cores, in one run.

Absolute times depend on the machine; the ratio, measured in the same process on the same
input, is the figure worth quoting.
"""
from __future__ import annotations

import os
import platform
import time

import numba

from . import formats, paths
from .config import Params
from .extend import extend
from .stats import work_counts


def _best_of(ds, params: Params, threads: int, repeat: int) -> tuple[float, object]:
    best, ext = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        ext = extend(ds, params, backend="cpu", threads=threads)
        best = min(best, time.perf_counter() - t0)
    return best, ext


def cpu_scaling(input: str | None = None, k: int | None = None, repeat: int = 3, threads: int | None = None,
                max_walk: int = 613, qual_offset: int = 33) -> dict:
    """Times the CPU backend single-threaded and on ``threads`` (default all) cores.

    Returns
    -------
    dict with per-configuration seconds, contig ends/s, insertions/s and ``speedup``
    (single-thread time / all-core time).
    """
    path = input or str(paths.sample("k77"))
    ds = formats.read_dataset(path)
    k = k or ds.k or (paths.SAMPLE_K["k77"] if input is None else None)
    if k is None:
        from .errors import LassmError

        raise LassmError(f"{path}: the start k is not recorded in the file; pass --k")
    params = Params(k=k, max_walk=max_walk, qual_offset=qual_offset)
    n_all = threads or numba.config.NUMBA_NUM_THREADS
    extend(ds, params, backend="cpu", threads=1)  # compile outside the timing
    ends = 2 * int(ds.with_reads_mask().sum())
    rows = {}
    for label, n in (("single", 1), ("all", n_all)):
        sec, ext = _best_of(ds, params, n, repeat)
        work = work_counts(ext)
        rows[label] = {"threads": n, "seconds": sec, "contig_ends_per_s": ends / sec,
                       "insertions_per_s": work["insertions_all_k"] / sec}
    return {
        "dataset": ds.name, "k": k, "contig_ends": ends, "repeat": repeat,
        "machine": platform.node(), "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(), **{f"{lab}_{key}": v for lab, r in rows.items() for key, v in r.items()},
        "speedup": rows["single"]["seconds"] / rows["all"]["seconds"],
    }


def print_report(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"CPU backend on {report['dataset']} (k = {report['k']}, {report['contig_ends']} contig ends)")
    for col in ("threads", "seconds", "contig ends/s", "insertions/s"):
        table.add_column(col, justify="right")
    for lab in ("single", "all"):
        table.add_row(str(report[f"{lab}_threads"]), f"{report[f'{lab}_seconds']:.4f}",
                      f"{report[f'{lab}_contig_ends_per_s']:,.0f}", f"{report[f'{lab}_insertions_per_s']:,.0f}")
    Console().print(table)
    Console().print(f"all cores / one thread speed-up: {report['speedup']:.2f}x (measured in one run)")
