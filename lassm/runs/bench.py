# SPDX-License-Identifier: BSD-3-Clause
"""CPU benchmark: contig ends/s and insertions/s, one thread against all cores, in one run; the
ratio, measured in one process on one input, is the figure worth quoting.
"""
from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass

import numba
import numpy as np

from ..workloads.local_assembly import formats
from .. import paths
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.result import Extension
from .extend import extend
from ..workloads.local_assembly.stats import work_counts


def _best_of(ds, params: Params, threads: int, repeat: int) -> tuple[float, Extension]:
    best, ext = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        ext = extend(ds, params, backend="cpu", threads=threads)
        best = min(best, time.perf_counter() - t0)
    assert ext is not None  # at least one run
    return best, ext


def cpu_scaling(input: str | None = None, k: int | None = None, repeat: int = 3, threads: int | None = None,
                max_walk: int = 613, qual_offset: int = 33) -> dict:
    """Times the CPU backend single-threaded and on ``threads`` (default all) cores; returns seconds,
    contig ends/s and insertions/s per configuration and ``speedup`` (single / all-core time)."""
    path = input or str(paths.sample("k77"))
    ds = formats.read_dataset(path)
    k = k or ds.k or (paths.SAMPLE_K["k77"] if input is None else None)
    if k is None:
        from ..errors import LassmError

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
    from rich.table import Table

    from ..terminal import console

    table = Table(title=f"CPU backend on {report['dataset']} (k = {report['k']}, {report['contig_ends']} contig ends)")
    for col in ("threads", "seconds", "contig ends/s", "insertions/s"):
        table.add_column(col, justify="right")
    for lab in ("single", "all"):
        table.add_row(str(report[f"{lab}_threads"]), f"{report[f'{lab}_seconds']:.4f}",
                      f"{report[f'{lab}_contig_ends_per_s']:,.0f}", f"{report[f'{lab}_insertions_per_s']:,.0f}")
    console().print(table)
    console().print(f"all cores / one thread speed-up: {report['speedup']:.2f}x (measured in one run)")


@dataclass(frozen=True)
class Recording:
    """Where a benchmark's points are recorded: ``machine`` (the results folder; None: the one the
    backend's device names), ``record`` (False: measured and returned, not written) and ``command``
    (the command line each record names)."""

    machine: str | None = None
    record: bool = True
    command: str = ""


def gpu_bench(dataset_names: list[str], backend: str = "cuda", protocols: list[str] | None = None,
              repeat: int = 5, cpu_repeat: int = 3, k: int | None = None, recording: Recording = Recording(),
              **options) -> list[dict]:
    """Kernel time per protocol next to the CPU backend on the same machine, in one run.

    Per dataset (at ``k`` where given): the CPU backend best of ``cpu_repeat``, then per protocol a
    warm-up checked bit for bit against it and ``repeat`` timed runs (median of summed CUDA-event
    times). Each point becomes a record ``bench__<dataset>__k<k>__<backend>__<protocol>`` under
    ``recording``, with ``kernel_seconds``, ``kernel_seconds_runs``, ``cpu_seconds`` and
    ``speedup_vs_cpu``."""
    import statistics

    from ..workloads.local_assembly import datasets
    from .records import machine_for_backend, run_id_for, summarize, write_record
    from .point import protocols_of

    protocols = protocols or list(protocols_of(backend))
    rows = []
    for name in dataset_names:
        ds, start_k = datasets.load(name, k)
        params = Params(k=start_k)
        extend(ds.subset(np.arange(min(50, ds.n_contigs))), params, backend="cpu")  # compile outside timing
        cpu_runs = []
        for _ in range(max(1, cpu_repeat)):
            cpu = extend(ds, params, backend="cpu")
            cpu_runs.append(cpu.kernel_seconds)
        cpu_s = min(cpu_runs)
        ends = 2 * int(ds.with_reads_mask().sum())
        work = work_counts(cpu)
        for proto in protocols:
            ext = extend(ds, params, backend=backend, protocol=proto, **options)  # compile + warm-up
            diffs = ext.compare(cpu)
            times = []
            for _ in range(max(1, repeat)):
                ext = extend(ds, params, backend=backend, protocol=proto, **options)
                times.append(ext.kernel_seconds)
                diffs += ext.compare(cpu)
            med = statistics.median(times)
            extra = {
                "kernel_seconds": med, "kernel_seconds_runs": times, "cpu_seconds": cpu_s,
                "cpu_seconds_runs": cpu_runs, "cpu_threads": int(numba.get_num_threads()),
                "speedup_vs_cpu": cpu_s / med, "contig_ends_per_s": ends / med,
                "insertions_per_s": work["insertions_all_k"] / med,
                "start_insertions_per_s": work["start_insertions"] / med,
                "launch_seconds": [lc["seconds"] for res in (ext.right, ext.left) for lc in res.extra.launches],
                "options": {key: val for key, val in options.items() if isinstance(val, (int, float, str))},
                "benchmark": True,
            }
            if diffs:
                extra["cpu_differences"] = sorted(set(diffs))
            summary = summarize(ext, name, not diffs, recording.command,
                                machine=recording.machine or machine_for_backend(backend), extra=extra)
            run_id = "bench__" + run_id_for(name, start_k, backend, proto)
            if options.get("subgroup"):
                run_id += f"__sg{int(options['subgroup'])}"
                summary["subgroup"] = int(options["subgroup"])
            if recording.record:
                summary["folder"] = str(write_record(summary, ext, run_id=run_id))
            rows.append(summary)
            print(f"{name} k={start_k} {backend}/{proto}{'/sg' + str(options['subgroup']) if options.get('subgroup') else ''}: {med * 1e3:.2f} ms median of {len(times)}, "
                  f"CPU {cpu_s * 1e3:.1f} ms -> {cpu_s / med:.1f}x, equal={not diffs}", flush=True)
    return rows
