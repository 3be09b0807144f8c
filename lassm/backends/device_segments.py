# SPDX-License-Identifier: BSD-3-Clause
"""The contigs' reverse complement and a launch's gather, on the GPU (``kernels/local_assembly/cuda/segments.cu``).

Why: on the host these per-base copies need a compiled loop, and importing numba to get one
costs a whole ``lassm extend --backend cuda`` more than its kernel (issue 20). The GPU backends
upload a dataset's bases once and cut each launch's buffers out of them on the device; only the
per-segment offsets (one int64 per read) are computed on the host
(:mod:`lassm.workloads.local_assembly.segment_index`).
"""
from __future__ import annotations

import functools

import numpy as np

from ..paths import kernel_source
from ..workloads.local_assembly.dataset import _COMPLEMENT
from ..workloads.local_assembly.segment_index import segment_offsets

#: Threads per block of both kernels; a block copies one segment at a time.
BLOCK = 128
#: Most blocks launched; each strides over the segments past it.
MAX_BLOCKS = 65535


@functools.lru_cache(maxsize=1)
def _module():
    import cupy

    return cupy.RawModule(code=kernel_source("local_assembly/cuda/segments.cu").read_text(), options=("--std=c++14",))


def warm_up() -> None:
    """Loads both kernels into the current context (compiled once, then from CuPy's disk cache)."""
    for name in ("gather_segments", "revcomp_segments"):
        _module().get_function(name)


def _grid(n: int) -> tuple[int]:
    return (max(1, min(int(n), MAX_BLOCKS)),)


def gather(d_src, offsets: np.ndarray, index: np.ndarray, pad: int = 0):
    """Segments ``index`` of the device buffer ``d_src`` (host ``offsets``), concatenated on the
    device, then ``pad`` zero bytes. Returns ``(device uint8 buffer, host int64 offsets)``."""
    import cupy

    starts, new_off = segment_offsets(offsets, index)
    total = int(new_off[-1])
    out = cupy.zeros(total + int(pad), dtype=cupy.uint8)
    if total:
        _module().get_function("gather_segments")(
            _grid(len(index)), (BLOCK,),
            (d_src, cupy.asarray(starts), cupy.asarray(new_off), np.int64(len(index)), out))
    return out, new_off


def revcomp(d_src, offsets: np.ndarray):
    """Every segment of the device buffer ``d_src`` reverse-complemented in place of itself (same
    offsets), as :func:`lassm.runs.extend.revcomp_contigs` does on the host."""
    import cupy

    out = cupy.empty_like(d_src)
    n = len(offsets) - 1
    if len(d_src):
        _module().get_function("revcomp_segments")(
            _grid(n), (BLOCK,),
            (d_src, cupy.asarray(np.asarray(offsets, dtype=np.int64)), np.int64(n), cupy.asarray(_COMPLEMENT), out))
    return out
