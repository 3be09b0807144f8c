# SPDX-License-Identifier: BSD-3-Clause
"""A worker's memory: its peak while a shard runs, and into how many pieces a shard is cut to fit.

A shard that does not fit is cut and its pieces run one after another (same output bytes).

* **Host peak**: ``VmHWM``, reset at the shard's start through ``/proc/self/clear_refs``
  (``host_peak_source = "VmHWM"``); else ``ru_maxrss``, the peak since the process started.
* **Device peak**: the backend's ``mem_high_water_bytes`` where reported; None for the CPU.
* **Budget**: ``LASSM_WORKER_MEMORY_BYTES`` where set, else the Dask worker's memory limit less
  what it holds (and, on CUDA, the device's free memory). A shard whose estimate
  (:func:`need_bytes`) exceeds it is cut into :func:`pieces` equal ranges.
"""
from __future__ import annotations

import re
import resource
import time
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from .. import settings
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.figures import SideFigures

#: The cap on a shard's extension, in bytes, on every worker that sees it.
ENV = "LASSM_WORKER_MEMORY_BYTES"
#: A CPU extension's peak host memory per byte of its input, its output file's block included:
#: 3.2 on gen-k21x4 (many short contigs: the walks' rows dominate), 1.4-1.5 on sample-k77x20 and
#: gen-k77x10 (measured with VmHWM reset), rounded up.
HOST_BYTES_PER_INPUT_BYTE = 4.0
#: A GPU extension's device memory per byte of its input that must be resident at once: the
#: bases, qualities and offsets, before the backend's launch workspace (which it slices itself).
DEVICE_BYTES_PER_INPUT_BYTE = 2.0
#: Share of the free device memory (or of the worker's memory left) that a shard may plan on.
SHARE = 0.8

_HWM = re.compile(rb"VmHWM:\s+(\d+)\s+kB")


def start_peak() -> str:
    """Resets this process's peak resident memory where Linux allows; returns the source that
    :func:`peak_bytes` will read (``"VmHWM"``: since now; ``"ru_maxrss"``: since the process began)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        with open("/proc/self/status", "rb") as fh:
            if _HWM.search(fh.read()):
                return "VmHWM"
    except OSError:
        pass
    return "ru_maxrss"


def peak_bytes(source: str) -> int:
    """This process's peak resident bytes, as ``source`` (:func:`start_peak`) reads it."""
    if source == "VmHWM":
        try:
            with open("/proc/self/status", "rb") as fh:
                m = _HWM.search(fh.read())
            if m:
                return int(m[1]) * 1024
        except OSError:
            pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # kB on Linux


def input_bytes(ds: Dataset) -> int:
    """The bytes a worker holds of a dataset (:attr:`Dataset.nbytes`)."""
    return ds.nbytes


def need_bytes(data_bytes: int, backend: str) -> int:
    """A shard's estimated peak, host or device as ``backend`` runs it, from its input's bytes."""
    return int(data_bytes * (HOST_BYTES_PER_INPUT_BYTE if backend == "cpu" else DEVICE_BYTES_PER_INPUT_BYTE))


def _env_cap() -> int | None:
    return settings.value(ENV)


def _worker_left() -> int | None:
    """What the Dask worker running this task may still take of its memory limit, or None."""
    try:
        from distributed import get_worker

        worker = get_worker()
        limit = worker.memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return None
    if not limit:
        return None
    return max(1, int((limit - _rss()) * SHARE))


def _rss() -> int:
    try:
        with open("/proc/self/status", "rb") as fh:
            m = re.search(rb"VmRSS:\s+(\d+)\s+kB", fh.read())
        return int(m[1]) * 1024 if m else 0
    except OSError:
        return 0


def _device_free(backend: str) -> int | None:
    """The CUDA device's free bytes (a share of them), where this worker's backend is CUDA."""
    if backend != "cuda":
        return None
    try:
        from ..backends import cudadrv

        free, _total = cudadrv.mem_get_info()
    except Exception:  # no driver, no device: nothing to bound by
        return None
    return max(1, int(free * SHARE))


def budget(backend: str) -> tuple[int | None, str]:
    """The bytes a shard may take on this worker, and what set them (``""``: no bound known)."""
    cap = _env_cap()
    if cap is not None:
        return cap, ENV
    device = _device_free(backend)
    if device is not None:
        return device, "device free memory"
    left = _worker_left()
    if left is not None:
        return left, "Dask worker memory limit"
    return None, ""


def pieces(need: int, cap: int | None) -> int:
    """How many equal pieces make each piece's need fit ``cap`` (1 without a cap)."""
    if cap is None or need <= cap:
        return 1
    return int(-(-need // cap))


def cut(a: int, b: int, count: int) -> list[tuple[int, int]]:
    """``a .. b`` as ``count`` contiguous ranges of near-equal contigs (none empty when it can be)."""
    count = max(1, min(int(count), b - a)) if b > a else 1
    edges = np.linspace(a, b, count + 1).round().astype(np.int64)
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:])]


def device_peak(*extras: SideFigures) -> int | None:
    """The backend's device high-water over the figures ``extras`` (None where none reports one)."""
    marks = [int(e.mem_high_water_bytes) for e in extras if e.mem_high_water_bytes is not None]
    return max(marks) if marks else None


def figures(source: str, data_bytes: int, need: int, cap: int | None, why: str, count: int,
            device: int | None) -> dict[str, Any]:
    """A shard's memory figures, as its task returns them."""
    return {"peak_rss_bytes": peak_bytes(source), "host_peak_source": source, "input_bytes": int(data_bytes),
            "need_bytes": int(need), "budget_bytes": cap, "budget_source": why, "pieces": int(count),
            "device_high_water_bytes": device}


def joined_extra(extras: Sequence[SideFigures]) -> SideFigures:
    """A side's backend figures over the pieces of a shard: the first piece's, with every piece's
    launches, their resident uploads summed and the device high-water over all of them."""
    if len(extras) <= 1:
        return extras[0] if extras else SideFigures()
    uploads = [e.resident_upload_seconds for e in extras if e.resident_upload_seconds is not None]
    peak = device_peak(*extras)
    return replace(extras[0], launches=[launch for e in extras for launch in e.launches],
                   resident_upload_seconds=sum(uploads) if uploads else extras[0].resident_upload_seconds,
                   mem_high_water_bytes=peak if peak is not None else extras[0].mem_high_water_bytes)


def extend_within(data: Dataset, params: Any, backend: str, options: dict,
                  source: str) -> tuple[Any, Any, dict, float]:
    """Extends ``data`` in as many pieces as this worker's budget needs (one, mostly); returns both
    sides ragged (only the walked bases), the memory figures (:func:`figures`; ``source`` is
    :func:`start_peak`'s) and the seconds spent making the sides ragged. The pieces' walks are
    joined in contig order: the same result."""
    from ..workloads.local_assembly.result import SideResult
    from .extend import extend

    data_bytes = input_bytes(data)
    cap, why = budget(backend)
    need = need_bytes(data_bytes, backend)
    ranges = cut(0, data.n_contigs, pieces(need, cap))
    sides: dict[str, list] = {"right": [], "left": []}
    pack = 0.0
    for lo, hi in ranges:
        ext = extend(data if len(ranges) == 1 else data.slice(lo, hi), params, backend=backend, **options)
        t0 = time.perf_counter()
        for side in sides:
            sides[side].append((np.arange(lo, hi, dtype=np.int64), getattr(ext, side).compact()))
        pack += time.perf_counter() - t0
        del ext
    out = []
    for side, parts in sides.items():
        joined = parts[0][1] if len(parts) == 1 else SideResult.gathered(data.n_contigs, int(params.max_walk), parts)
        joined.extra = joined_extra([part.extra for _, part in parts])
        out.append(joined)
    device = device_peak(*(part.extra for parts in sides.values() for _, part in parts))
    return out[0], out[1], figures(source, data_bytes, need, cap, why, len(ranges), device), pack


#: The keys :func:`summarize` gives a run's figures.
MEMORY_KEYS = ("shard_peak_rss_bytes", "shard_device_high_water_bytes", "shard_input_bytes", "shard_budget_bytes",
               "shard_pieces", "host_peak_source", "budget_source", "worker_peak_rss_bytes",
               "worker_device_high_water_bytes", "peak_rss_bytes", "device_high_water_bytes")


def summarize(parts: Sequence[dict]) -> dict[str, Any]:
    """The memory figures of a sharded run's records, from its shards' (their ``memory`` and
    place): per shard, per worker (its largest shard's), and over the run."""
    mem = [p.get("memory") or {} for p in parts]
    places = [f"{p['host']}:{p['gpu'] or p['pid']}" for p in parts]
    host: dict[str, int] = {}
    device: dict[str, int] = {}
    for place, m in zip(places, mem):
        if m.get("peak_rss_bytes") is not None:
            host[place] = max(host.get(place, 0), int(m["peak_rss_bytes"]))
        if m.get("device_high_water_bytes") is not None:
            device[place] = max(device.get(place, 0), int(m["device_high_water_bytes"]))
    return {
        "shard_peak_rss_bytes": [m.get("peak_rss_bytes") for m in mem],
        "shard_device_high_water_bytes": [m.get("device_high_water_bytes") for m in mem],
        "shard_input_bytes": [m.get("input_bytes") for m in mem],
        "shard_budget_bytes": [m.get("budget_bytes") for m in mem],
        "shard_pieces": [m.get("pieces", 1) for m in mem],
        "host_peak_source": sorted({m["host_peak_source"] for m in mem if m.get("host_peak_source")}),
        "budget_source": sorted({m["budget_source"] for m in mem if m.get("budget_source")}),
        "worker_peak_rss_bytes": host, "worker_device_high_water_bytes": device,
        "peak_rss_bytes": max(host.values(), default=None),
        "device_high_water_bytes": max(device.values(), default=None),
    }


__all__ = ["ENV", "MEMORY_KEYS", "budget", "cut", "device_peak", "extend_within", "figures", "input_bytes", "joined_extra", "need_bytes", "peak_bytes", "pieces",
           "start_peak", "summarize"]
