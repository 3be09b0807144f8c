# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop CUDA backend: ``kernels/xdrop/cuda/xdrop.cu`` through CuPy, timed with CUDA events.

LOGAN's layout: one block per alignment direction, its threads over the anti-diagonal, the
three anti-diagonals in global memory. CuPy's probe and device facts are the local-assembly CUDA
backend's (:mod:`lassm.backends.cuda`, imported, not copied); the source compiles alone with
NVRTC, so :func:`compile_ptx` checks it on machines without a GPU with the very options the
backend passes to CuPy (:func:`build_options`). Host preparation is :mod:`.plan`'s, shared with
the OpenCL backend.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from ...paths import kernel_source
from ...workloads.xdrop.config import Scoring
from ...workloads.xdrop.pairs import Pairs
from ...workloads.xdrop.result import Alignments
from .. import cuda as cu
from . import plan

KERNEL = "xdrop/cuda/xdrop.cu"
ENTRY = "xdrop_kernel"
#: CUDA's largest block.
MAX_GROUP = 1024
#: Share of the free device memory one launch's scratch may use.
MEMORY_FRACTION = 0.5


def available() -> tuple[bool, str]:
    """Whether CuPy for CUDA and a CUDA device are here (the local-assembly backend's probe)."""
    return cu.available()


def build_options(group: int) -> tuple[str, ...]:
    """The options of one build: the block size as ``XDROP_GROUP``; part of CuPy's cache key."""
    if not 1 <= group <= MAX_GROUP:
        raise ValueError(f"group = {group} must be in 1..{MAX_GROUP}")
    return ("--std=c++17", f"-DXDROP_GROUP={int(group)}")


def compile_ptx(arch: str = "compute_90", group: int = plan.DEFAULT_GROUP) -> tuple[str, str]:
    """The kernel compiled to PTX by NVRTC alone (no CuPy, no GPU): ``(ptx, log)``."""
    from .. import nvrtc

    path = kernel_source(KERNEL)
    return nvrtc.compile_ptx(path.read_text(), [*build_options(group), f"--gpu-architecture={arch}"], name=path.name)


@functools.lru_cache(maxsize=None)
def _kernel(options: tuple[str, ...], code: str):
    """The compiled ``xdrop_kernel``, once per options and source text."""
    module = cu._cupy().RawModule(code=code, options=options)
    return module.get_function(ENTRY)


def kernel(group: int):
    """The kernel built for blocks of ``group`` threads."""
    return _kernel(build_options(group), kernel_source(KERNEL).read_text())


def warm_up() -> None:
    """Makes the context and loads the default block's kernel (compiled once, then from CuPy's
    disk cache): start-up that ``lassm xdrop align`` overlaps with reading its pairs."""
    kernel(plan.DEFAULT_GROUP)


def _budget() -> int:
    free, _total = cu._cupy().cuda.runtime.memGetInfo()
    return max(int(free * MEMORY_FRACTION), 1)


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None, group: int = plan.DEFAULT_GROUP,
          max_bytes: int | None = None) -> Alignments:
    """Extends every pair's seed both ways on the GPU, bit for bit as the oracle.

    Parameters
    ----------
    pairs : the read pairs and their seeds.
    scoring : match, mismatch, gap and X.
    threads : ignored (the GPU decides); kept for the backends' one signature.
    group : threads per block (``XDROP_GROUP``).
    max_bytes : scratch bytes of one launch (default: half the free device memory).

    Returns
    -------
    Alignments
        With ``extra``: device, cells, kernel_seconds (CUDA events), gcups, launches, group.
    """
    cupy = cu._cupy()
    kern = kernel(int(group))
    start_wall = time.perf_counter()
    t = plan.tasks(pairs)
    out = plan.Outputs.empty(t.n)
    seqs_v = cupy.asarray(pairs.seqs_v if len(pairs.seqs_v) else np.zeros(1, np.uint8))
    seqs_h = cupy.asarray(pairs.seqs_h if len(pairs.seqs_h) else np.zeros(1, np.uint8))
    ranges = plan.batches(t, max_bytes or _budget())
    kernel_seconds = 0.0
    for lo, hi in ranges:
        sub = t.take(lo, hi)
        offs = plan.scratch_offsets(sub)
        ins = [cupy.asarray(a) for a in (sub.q_start, sub.q_len, sub.d_start, sub.d_len, sub.direction, offs)]
        for arr, dtype in zip(ins, (np.int64, np.int32, np.int64, np.int32, np.uint8, np.int64)):
            assert arr.dtype == dtype and arr.flags.c_contiguous  # CuPy checks no kernel argument
        scratch = cupy.empty(max(int(offs[-1]), 1), dtype=np.int32)
        res = [cupy.zeros(sub.n, dtype=d) for d in (np.int32, np.int32, np.int32, np.int64, np.int32)]
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        kern((sub.n,), (int(group),), (seqs_v, seqs_h, *ins, scratch, *plan.scoring_args(scoring), *res))
        end.record()
        end.synchronize()
        kernel_seconds += cupy.cuda.get_elapsed_time(start, end) / 1000.0
        for name, arr in zip(("score", "ext_col", "ext_row", "cells", "status"), res):
            getattr(out, name)[lo:hi] = cupy.asnumpy(arr)
        del scratch
    wall = time.perf_counter() - start_wall
    return plan.assemble(pairs, scoring, out, "cuda", wall, kernel_seconds,
                         {"device": cu.device_name(), "launches": len(ranges), "group": int(group)})
