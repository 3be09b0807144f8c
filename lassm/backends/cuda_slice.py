# SPDX-License-Identifier: BSD-3-Clause
"""One slice of a CUDA or HIP launch of the local-assembly kernel: buffers up, one launch, results back.

:mod:`.cuda` plans a run (builds, bins, slices, budget); this module does what every slice does
alike, on CuPy or :mod:`.cudadrv`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import timeline
from ..byte_sets import offsets_of
from ..workloads.local_assembly import config
from ..workloads.local_assembly.result import SideResult
from . import cuda_runtime, device_segments, launch
from .nvrtc import Variant


def require_dtype(name: str, arr: Any, dtype: Any) -> None:
    """Refuses a kernel argument of another dtype (CuPy passes raw pointers)."""
    if arr.dtype != np.dtype(dtype):
        raise TypeError(f"kernel argument {name} must be {np.dtype(dtype)}, got {arr.dtype}")


def allow_shared(kern, shared: int, hip: bool, block_warps: int, max_walk: int) -> None:
    """Lets ``kern`` take ``shared`` bytes of dynamic shared memory. CUDA: past the 48 KB default by
    opting in (CuPy raises if the device has too little). HIP: checked against the device's
    ``sharedMemPerBlock`` instead, since AMD has no opt-in (compile-checked only: no AMD GPU ran it)."""
    if hip:
        if shared > 0:
            cupy = cuda_runtime.cupy_module()
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
            launch.require_shared(shared, int(props["sharedMemPerBlock"]), block_warps, max_walk)
        return
    if shared > kern.max_dynamic_shared_size_bytes:
        kern.max_dynamic_shared_size_bytes = shared  # past the 48 KB default: opt in (raises if too large)


#: The kernel's per-end outputs, in its argument order after ``walks``, and their types.
PER_END = {"walk_len": np.int32, "final_k": np.int32, "term": np.uint8, "n_k": np.int32, "steps": np.int64,
           "insertions": np.int64, "start_insertions": np.int64}


@dataclass(frozen=True)
class SliceRun:
    """What every slice of one :func:`extend_side_gpu` run shares: the side's arrays, parameters,
    build, launch shape and where its inputs are.

    A fast ``variant`` sizes shared memory and visited set by ``warp_size``. With ``resident``
    (``ctg``, ``seqs``, ``quals`` already on the device) buffers are gathered there. ``rt``: CuPy
    (None) or :mod:`.cudadrv`."""

    ctg_seqs: Any
    ctg_off: np.ndarray
    depths: np.ndarray
    reads: Any
    params: config.Params
    block_warps: int
    warp_size: int
    variant: Variant | None = None
    hip: bool = False
    resident: dict | None = None
    rt: Any = None


def run_slice(run: SliceRun, kern, index: np.ndarray, slots: np.ndarray, scratch: tuple[int, int],
              n_team: int = 0) -> tuple[SideResult, float, int, dict]:
    """Uploads one slice (ends ``index``, tables of ``slots``), launches ``kern`` once with block
    teams for the first ``n_team`` ends and ``scratch`` (visited entries, dynamic shared bytes),
    downloads its results.

    Returns ``(part, seconds, bytes, clock)``; ``clock`` holds the wall seconds before the launch
    (``setup_seconds``, of which ``upload_seconds``) and after it (``download_seconds``)."""
    ctg_seqs, ctg_off, depths, reads, params = run.ctg_seqs, run.ctg_off, run.depths, run.reads, run.params
    block_warps, warp_size, variant, hip, resident, rt = (run.block_warps, run.warp_size, run.variant, run.hip,
                                                          run.resident, run.rt)
    cupy = rt if rt is not None else cuda_runtime.cupy_module()
    t_setup = time.perf_counter()
    upload = 0.0
    n = len(index)
    max_walk = int(params.max_walk)
    per_warp = 1 if variant is None else variant.ends_per_warp(warp_size)
    n_visited, shared = scratch
    stride = launch.walk_stride(max_walk)
    if variant is not None and resident is not None:  # fast: each end points into the bases uploaded once
        d_ctg, d_seqs, d_quals = resident["ctg"], resident["seqs"], resident["quals"]
        h_ctg_off = launch.end_spans(ctg_off, index)
        h_cnt_off = launch.end_spans(reads.contig_offsets, index)
        h_rd_off = resident["rd_off"]
    elif resident is not None:
        rids, h_cnt_off = launch.read_index(reads.contig_offsets, index)
        d_ctg, h_ctg_off = device_segments.gather(resident["ctg"], ctg_off, index, pad=launch.PAD_BYTES, rt=rt)
        d_seqs, h_rd_off = device_segments.gather(resident["seqs"], reads.offsets, rids, pad=launch.PAD_BYTES, rt=rt)
        d_quals, _ = device_segments.gather(resident["quals"], reads.offsets, rids, pad=launch.PAD_BYTES, rt=rt)
    else:
        rids, h_cnt_off = launch.read_index(reads.contig_offsets, index)
        h_ctg, h_ctg_off = launch.gather(ctg_seqs, ctg_off, index, pad=launch.PAD_BYTES)
        h_seqs, h_rd_off = launch.gather(reads.seqs, reads.offsets, rids, pad=launch.PAD_BYTES)
        h_quals, _ = launch.gather(reads.quals, reads.offsets, rids, pad=launch.PAD_BYTES)
        t_up = time.perf_counter()
        d_ctg, d_seqs, d_quals = cupy.asarray(h_ctg), cupy.asarray(h_seqs), cupy.asarray(h_quals)
        upload = time.perf_counter() - t_up
        if variant is not None:  # fast takes (begin, end) spans of the gathered buffers
            every = np.arange(n)
            h_ctg_off, h_cnt_off = launch.end_spans(h_ctg_off, every), launch.end_spans(h_cnt_off, every)
    h_ht_off = offsets_of(slots)
    h_depths = np.ascontiguousarray(depths[index], dtype=np.float64)

    pool = cupy.get_default_memory_pool()
    d = {
        "ctg_seqs": d_ctg,
        "ctg_off": cupy.asarray(h_ctg_off),
        "depths": cupy.asarray(h_depths),
        "rd_seqs": d_seqs,
        "rd_quals": d_quals,
        "rd_off": cupy.asarray(h_rd_off),  # fast on resident buffers: already on the device
        "rd_cnt_off": cupy.asarray(h_cnt_off),
        # Zeroed once so that the published protocols' stale pointers are never garbage.
        "ht": cupy.zeros(int(h_ht_off[-1]) * launch.SLOT_BYTES // 8, dtype=np.uint64),
        "ht_off": cupy.asarray(h_ht_off),
        # Epoch-tagged kernels (fast) take a zeroed visited set; the others clear it per k.
        "visited": (cupy.empty if variant is None else cupy.zeros)(n_visited, dtype=np.uint64),
        "walk_tmp": cupy.zeros(n * stride + launch.PAD_BYTES, dtype=np.uint8),
        "walks": cupy.zeros(n * max_walk, dtype=np.uint8),
        **{name: cupy.zeros(n, dtype=dtype) for name, dtype in PER_END.items()},
    }
    expected = {
        "ctg_seqs": np.uint8, "ctg_off": np.int64, "depths": np.float64, "rd_seqs": np.uint8,
        "rd_quals": np.uint8, "rd_off": np.int64, "rd_cnt_off": np.int64, "ht": np.uint64,
        "ht_off": np.int64, "visited": np.uint64, "walk_tmp": np.uint8, "walks": np.uint8, **PER_END,
    }
    for name, dtype in expected.items():  # CuPy passes raw pointers: check every dtype first
        require_dtype(name, d[name], dtype)
        if not d[name].flags.c_contiguous:
            raise ValueError(f"kernel argument {name} must be C-contiguous")
    used = int(pool.used_bytes())
    scalars = (np.int32(n), np.int32(params.k), np.int32(max_walk), np.int32(params.qual_offset),
               np.int32(stride)) + (() if variant is None else (np.int32(n_team),))
    args = tuple(d[name] for name in expected) + scalars
    grid, block = launch.geometry(n, block_warps, warp_size, n_team, per_warp)
    allow_shared(kern, shared, hip, block_warps, max_walk)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    timeline.mark("launch")
    start.record()
    start.synchronize()  # the setup's device work (gathers, zeroing) done: its wall time ends here
    setup = time.perf_counter() - t_setup
    kern(grid, block, args, shared_mem=shared)
    end.record()
    end.synchronize()
    timeline.mark("kernel-done")
    t_down = time.perf_counter()
    seconds = cupy.cuda.get_elapsed_time(start, end) / 1000.0
    walk_len = cupy.asnumpy(d["walk_len"])
    if hip:  # the walks' rows whole: the device pack (segments.cu) is checked on NVIDIA only
        walks, offsets = cupy.asnumpy(d["walks"]), None
    else:  # only the walked bases come back (ragged), not a max_walk row an end
        packed, offsets = device_segments.pack_rows(d["walks"], max_walk, walk_len, rt=rt)
        walks = cupy.asnumpy(packed)[: int(offsets[-1])]
    part = SideResult(max_walk=max_walk, walks=walks, offsets=offsets, walk_len=walk_len, kernel_seconds=seconds,
                      **{name: cupy.asnumpy(d[name]) for name in PER_END if name != "walk_len"})
    del d
    clock = {"setup_seconds": setup, "upload_seconds": upload, "download_seconds": time.perf_counter() - t_down}
    return part, seconds, used, clock


__all__ = ["PER_END", "SliceRun", "allow_shared", "require_dtype", "run_slice"]
