# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop hip-cpu backend: ``kernels/xdrop/cuda/xdrop.cu`` executed by ROCm's HIP-CPU runtime.

LOGAN's block per direction compiles unchanged as HIP into a driver program
(:mod:`lassm.backends.hip_cpu_build`), one run per launch over :mod:`.xdrop_host`'s tasks; bit for bit
the oracle. A block of ``group`` threads is ``group / 64`` wavefronts. The wide-band block
(``xdrop_warps.cu``) shuffles within ``warp`` lanes, and a HIP-CPU shuffle spans one 64-lane
wavefront, so its block is one wavefront of 64 or one or two 32-lane warps. The narrow-band layout
is CUDA only and not built here.
"""
from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs
from ...workloads.xdrop.alignments import Alignments, XdropFigures
from .. import hip_cpu_build
from ..hip_cpu import WAVEFRONT, launch_timeout
from . import xdrop_host as plan

#: The largest block, as on CUDA.
MAX_GROUP = 1024
#: Scratch bytes of one launch unless told otherwise (host memory).
DEFAULT_BUDGET = 1 << 30


def available() -> tuple[bool, str]:
    """Whether g++, TBB and the pinned HIP-CPU are here (the local-assembly backend's answer)."""
    return hip_cpu_build.available()


def driver(group: int = plan.DEFAULT_GROUP, warp: int = 0, stride: int = 0) -> Path:
    """The driver built for blocks of ``group`` threads (from the cache after the first build):
    LOGAN's block, or with ``warp`` lanes a warp the wide-band block with ``stride`` shared ints
    per anti-diagonal."""
    if not 1 <= int(group) <= MAX_GROUP:
        raise ValueError(f"group = {group} must be in 1..{MAX_GROUP}")
    options = [f"-DXDROP_GROUP={int(group)}"]
    if warp:
        if int(warp) not in (32, WAVEFRONT) or group % warp or group > WAVEFRONT or stride < 3:
            raise ValueError(f"the wide-band block on HIP-CPU: warp = {warp} (32 or {WAVEFRONT}), group = {group} "
                             f"(warps of it, at most {WAVEFRONT}), stride = {stride} (3 or more)")
        options += ["-DXDROP_WARPS_LAYOUT", f"-DXDROP_WARP={int(warp)}", f"-DXDROP_SHARED_STRIDE={int(stride)}"]
    return hip_cpu_build.build("xdrop", tuple(options), ("xdrop", "xdrop/cuda"))


def warm_up() -> None:
    """Builds the default block's driver while ``lassm xdrop align`` reads its pairs."""
    driver()


@dataclass(frozen=True)
class WideBlock:
    """The wide-band block's shape on HIP-CPU: its warp width, 64 (the wavefront) or 32, and its
    shared ints per anti-diagonal (None: X's, from :data:`plan.WARPS_PLAN`)."""

    warp: int = WAVEFRONT
    stride: int | None = None


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None, group: int | None = None,
          max_bytes: int | None = None, timeout: float | None = None, layout: str | None = None,
          block: WideBlock = WideBlock()) -> Alignments:
    """Extends every pair's seed both ways on HIP-CPU, bit for bit as the oracle.

    Parameters
    ----------
    threads : ignored (HIP-CPU runs blocks on every core TBB gives it); kept for the one signature.
    group : threads per block (``XDROP_GROUP``); default LOGAN's 128, or one warp of the wide-band block.
    max_bytes : scratch bytes of one launch (default :data:`DEFAULT_BUDGET`); small values slice.
    timeout : seconds one launch may run (default ``LASSM_HIP_CPU_TIMEOUT``, else 600).
    layout : ``logan`` or ``warps`` (:data:`plan.LAYOUTS`); None: :data:`plan.LAYOUT_ENV`. ``warps``
        orders tasks by expected cells on the wide-band block at every X.
    block : the wide-band block's warp width and shared ints (:class:`WideBlock`).

    Returns
    -------
    Alignments
        ``extra``: device, cells, kernel_seconds (the driver's wall clock), gcups, launches, group,
        layout, warp, shared_stride.
    """
    del threads
    warp, stride = block.warp, block.stride
    chosen = plan.layout(layout)
    wide = chosen == "warps"
    stride = (int(stride) if stride else plan.warps_plan(scoring.xdrop)[2]) if wide else 0
    group = int(group) if group else (int(warp) if wide else plan.DEFAULT_GROUP)
    exe = driver(group, int(warp) if wide else 0, stride)
    start = time.perf_counter()
    t = plan.tasks(pairs)
    out = plan.Outputs.empty(t.n)
    order = plan.work_order(t, pairs.seqs_v, pairs.seqs_h) if wide else None
    if order is not None:
        t = t.permuted(order)
    seqs_q = pairs.seqs_v if len(pairs.seqs_v) else np.zeros(1, np.uint8)
    seqs_d = pairs.seqs_h if len(pairs.seqs_h) else np.zeros(1, np.uint8)
    ranges = plan.batches(t, int(max_bytes or DEFAULT_BUDGET)) if t.n else []
    kernel_seconds, limit = 0.0, launch_timeout(timeout)
    for lo, hi in ranges:
        sub = t.take(lo, hi)
        offs = plan.scratch_offsets(sub)
        inputs = {"seqs_q": (seqs_q, np.uint8), "seqs_d": (seqs_d, np.uint8), "q_start": (sub.q_start, np.int64),
                  "q_len": (sub.q_len, np.int32), "d_start": (sub.d_start, np.int64), "d_len": (sub.d_len, np.int32),
                  "direction": (sub.direction, np.uint8), "scratch_off": (offs, np.int64)}
        with tempfile.TemporaryDirectory(prefix="lassm-hip-cpu-xdrop-") as tmp:
            for name, (arr, dtype) in inputs.items():
                np.ascontiguousarray(arr, dtype=dtype).tofile(os.path.join(tmp, f"{name}.bin"))
            said = hip_cpu_build.run(exe, (tmp, *(int(a) for a in plan.scoring_args(scoring)), max(int(offs[-1]), 1)),
                                     limit, f"the X-drop launch of {sub.n} tasks")
            out.put(lo, hi, order, {k: np.fromfile(os.path.join(tmp, f"{k}.bin"), dtype=getattr(out, k).dtype)
                                    for k in plan.OUTPUT_NAMES})
        kernel_seconds += said["seconds"]
    wall = time.perf_counter() - start
    return plan.assemble(pairs, scoring, out, "hip-cpu", wall, kernel_seconds,
                         XdropFigures(device=f"HIP-CPU (wavefront {WAVEFRONT})", launches=len(ranges),
                                      group=int(group), hip_cpu=hip_cpu_build.HIP_CPU.label,
                                      timer="driver wall clock", plan=chosen, warp=int(warp) if wide else 0,
                                      shared_stride=stride))
